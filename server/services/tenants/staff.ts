import { hashPassword } from "better-auth/crypto";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { memberships, staffAccounts, staffUsers, tenants } from "@/db/schema";
import { ApiError, invalidField, notFound } from "@/server/errors";
import { RIGHTS, type Right } from "@/server/schemas/scopes";

/** Shortest staff password accepted, characters (the sign-in library is configured with the same). */
export const STAFF_PASSWORD_MIN = 10;
/** Longest staff password accepted, characters. */
export const STAFF_PASSWORD_MAX = 128;

// The sign-in library checks emails with zod's rule too, so every account created here can sign in.
const EMAIL = z.email();

/** A staff email as stored and looked up: trimmed, lower case (the sign-in library lowercases too). */
export function normalizeStaffEmail(email: string): string {
  return email.trim().toLowerCase();
}

function checkRights(rights: readonly string[]): asserts rights is Right[] {
  if (rights.some((r) => !(RIGHTS as readonly string[]).includes(r))) {
    throw new ApiError("validation_failed", `Rights must be among ${RIGHTS.join(", ")}.`);
  }
}

/**
 * Operator and seed only: creates a NEW staff account (email, password hashed with the sign-in
 * library's scrypt) and its membership in `tenantId` with `rights` (default: every right), in one
 * transaction. Console sign-up is closed (server/auth/auth.ts), so this is how accounts come to exist.
 *
 * An email that already has an account is refused, never attached: whoever holds that account's
 * password would otherwise gain the membership (issue 23 item 4). A person joins a further tenant only
 * through an invitation accepted by the invited address; until that flow exists, an operator who has
 * verified the person uses {@link addMembership} with the account id.
 * @throws ApiError `validation_failed` (bad email, password length, unknown right), `not_found` (no such
 *   tenant), `invalid_state` (the email already has an account).
 */
export async function createStaffMember(
  db: Db,
  input: { tenantId: string; email: string; password: string; name: string; role?: string; rights?: Right[] },
): Promise<{ staffUserId: string }> {
  const rights = input.rights ?? [...RIGHTS];
  checkRights(rights);
  const email = normalizeStaffEmail(input.email);
  if (!EMAIL.safeParse(email).success)
    throw invalidField("/email", "invalid_format", "Enter an email address such as name@example.com.");
  if (input.password.length < STAFF_PASSWORD_MIN || input.password.length > STAFF_PASSWORD_MAX) {
    throw invalidField(
      "/password",
      "out_of_range",
      `The password must be ${STAFF_PASSWORD_MIN} to ${STAFF_PASSWORD_MAX} characters long.`,
    );
  }
  const name = input.name.trim();
  if (!name) throw invalidField("/name", "required", "Enter the person's name.");
  const hash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const [tenant] = await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, input.tenantId));
    if (!tenant) throw notFound("Tenant");
    const id = crypto.randomUUID();
    // The unique email index decides races: a concurrent creation of the same email inserts nothing here.
    const created = await tx
      .insert(staffUsers)
      .values({ id, email, name, emailVerified: false })
      .onConflictDoNothing({ target: staffUsers.email })
      .returning({ id: staffUsers.id });
    if (!created.length) {
      throw new ApiError(
        "invalid_state",
        "A staff account with this email already exists; it joins another tenant only through an invitation it accepts.",
      );
    }
    // The shape better-auth's email-and-password sign-in reads: provider "credential", account id = user id.
    await tx
      .insert(staffAccounts)
      .values({ id: crypto.randomUUID(), accountId: id, providerId: "credential", userId: id, password: hash });
    await tx
      .insert(memberships)
      .values({ tenantId: input.tenantId, staffUserId: id, role: input.role ?? "owner", rights });
    return { staffUserId: id };
  });
}

/**
 * Operator and tests only: gives an existing staff account (by id, never by email) a membership in
 * `tenantId`, or updates its role and rights there and reactivates it.
 * @throws ApiError `validation_failed` (unknown right), `not_found` (no such account or tenant).
 */
export async function addMembership(
  db: Db,
  input: { tenantId: string; staffUserId: string; role?: string; rights?: Right[] },
): Promise<void> {
  const rights = input.rights ?? [...RIGHTS];
  checkRights(rights);
  const [user] = await db.select({ id: staffUsers.id }).from(staffUsers).where(eq(staffUsers.id, input.staffUserId));
  if (!user) throw notFound("Staff account");
  const [tenant] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, input.tenantId));
  if (!tenant) throw notFound("Tenant");
  await db
    .insert(memberships)
    .values({ tenantId: input.tenantId, staffUserId: user.id, role: input.role ?? "owner", rights })
    .onConflictDoUpdate({
      target: [memberships.tenantId, memberships.staffUserId],
      set: { role: input.role ?? "owner", rights, active: true },
    });
}
