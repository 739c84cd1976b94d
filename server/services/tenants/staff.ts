import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { memberships, staffUsers } from "@/db/schema";
import { createAuth } from "@/server/auth/auth";
import { ApiError } from "@/server/errors";
import { RIGHTS, type Right } from "../access/scopes";

/**
 * Creates a staff user with an email and password through the sign-in library (it hashes the password)
 * and gives them a membership in `tenantId` with `rights`. An existing email only gains the membership.
 * @throws ApiError `validation_failed` for an unknown right or a password the library refuses.
 */
export async function createStaffMember(
  db: Db,
  input: { tenantId: string; email: string; password: string; name: string; role?: string; rights?: Right[] },
): Promise<{ staffUserId: string }> {
  const rights = input.rights ?? [...RIGHTS];
  if (rights.some((r) => !(RIGHTS as readonly string[]).includes(r))) {
    throw new ApiError("validation_failed", `Rights must be among ${RIGHTS.join(", ")}.`);
  }
  const email = input.email.trim().toLowerCase();
  let [user] = await db.select({ id: staffUsers.id }).from(staffUsers).where(eq(staffUsers.email, email));
  if (!user) {
    try {
      const res = await createAuth(db).api.signUpEmail({ body: { email, password: input.password, name: input.name } });
      user = { id: res.user.id };
    } catch (err) {
      throw new ApiError("validation_failed", `The staff user could not be created: ${(err as Error).message}`);
    }
  }
  await db
    .insert(memberships)
    .values({ tenantId: input.tenantId, staffUserId: user.id, role: input.role ?? "owner", rights })
    .onConflictDoUpdate({ target: [memberships.tenantId, memberships.staffUserId], set: { role: input.role ?? "owner", rights, active: true } });
  return { staffUserId: user.id };
}
