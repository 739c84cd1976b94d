import { domainToASCII } from "node:url";
import { and, eq, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { products, tenants } from "@/db/schema";
import { type FieldError, invalidField, notFound } from "@/server/errors";

/**
 * Host name of a tenant's own site (no scheme, port or path): dot-separated labels of letters, digits and
 * inner hyphens, ending in a letter TLD or an IDN one (`xn--…`), at most 253 characters.
 */
const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * A main domain as stored (spec "Card": site paths of `page_url` and button URLs are expanded against
 * it as `https://<domain><path>`): trimmed, lower case, without a final dot, an internationalised name in
 * its ASCII (punycode) form; null when empty.
 * @returns the domain, or a `/main_domain` field error for anything that is not a host name (an address
 *   with a scheme, port or path, an IP address, a name without a dot).
 */
export function mainDomainInput(input: string | null | undefined): { domain: string | null; error: FieldError | null } {
  const text = (input ?? "").trim().toLowerCase().replace(/\.$/, "");
  if (!text) return { domain: null, error: null };
  const bad = (message: string) => ({
    domain: null,
    error: { field: "/main_domain", code: "invalid_format", message },
  });
  if (/[/:?#@\s]/.test(text))
    return bad("Enter the host name only, such as shop.example.ru: no https://, port or path.");
  // domainToASCII gives "" for a name that cannot be a domain, and punycode for an international one.
  const ascii = /^[\x21-\x7e]+$/.test(text) ? text : domainToASCII(text);
  if (!ascii || !DOMAIN_RE.test(ascii)) return bad("main domain must be a host name such as shop.example.ru.");
  return { domain: ascii, error: null };
}

/**
 * Sets or clears a tenant's main domain (the console's Settings). Cards answer with the new expansion
 * from the next request on (the domain is read with each request, never cached).
 * @param domain a host name (see {@link mainDomainInput}); null or empty clears it.
 * @returns the domain as stored.
 * @throws ApiError `validation_failed` on `/main_domain` for a value that is not a host name, or for
 *   clearing it while cards still use site paths (they would lose their links; spec "Card"); `not_found`.
 */
export async function setMainDomain(
  db: Db,
  tenantId: string,
  domain: string | null,
): Promise<{ mainDomain: string | null }> {
  const { domain: stored, error } = mainDomainInput(domain);
  if (error) throw invalidField(error.field, error.code, error.message);
  if (stored === null) {
    const using = await cardsWithSitePaths(db, tenantId);
    if (using > 0)
      throw invalidField(
        "/main_domain",
        "main_domain_in_use",
        `${using} card${using === 1 ? " uses" : "s use"} site paths that are expanded against the main domain; change them to https:// addresses first, or keep a domain.`,
      );
  }
  const [t] = await db
    .update(tenants)
    .set({ mainDomain: stored, updatedAt: new Date() })
    .where(eq(tenants.id, tenantId))
    .returning({ mainDomain: tenants.mainDomain });
  if (!t) throw notFound("Tenant");
  return t;
}

/** How many cards of the tenant hold a site path (`/…`) in `page_url` or a button URL. */
async function cardsWithSitePaths(db: Db, tenantId: string): Promise<number> {
  const sitePath = (col: AnyColumn | SQL) => sql`(left(${col}, 1) = '/' and left(${col}, 2) not in ('//', '/\\'))`;
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(products)
    .where(
      and(
        eq(products.tenantId, tenantId),
        sql`${products.code} is not null`,
        sql`(${sitePath(products.pageUrl)} or exists (select 1 from jsonb_array_elements(${products.buttons}) b where ${sitePath(sql`b->>'url'`)}))`,
      ),
    );
  return row?.n ?? 0;
}
