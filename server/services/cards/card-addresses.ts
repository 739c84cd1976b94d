import { env } from "@/server/env";
import type { FieldError } from "@/server/errors";
import { isSitePath } from "@/server/schemas/cards";

/** Tenant facts the address rules need. */
export interface AddressContext {
  tenantId: string;
  mainDomain: string | null;
}

/** A site path expanded against the tenant's main domain (`/p/1` → `https://shop.example/p/1`); https addresses unchanged. */
export function expandSiteAddress(url: string | null, mainDomain: string | null): string | null {
  if (url === null) return null;
  if (isSitePath(url) && mainDomain) return `https://${mainDomain}${url}`;
  return url;
}

/**
 * Checks the tenant-dependent address rules of a card (spec "Card", "POST /cards"):
 * a site path needs the tenant's main domain; an image in storage must be in this tenant's storage,
 * whether written as a path or as an address of this cell's storage.
 * @returns field errors with RFC 6901 pointers; empty when all is well.
 */
export function checkCardAddresses(
  c: { page_url?: string | null; image_url?: string | null; buttons?: { url: string }[] },
  ctx: AddressContext,
): FieldError[] {
  const errors: FieldError[] = [];
  const sitePath = (field: string, url: string | null | undefined) => {
    if (url && isSitePath(url) && !ctx.mainDomain) {
      errors.push({
        field,
        code: "main_domain_missing",
        message: "a site path needs the tenant's main site domain; set it in the console or send an https:// address",
      });
    }
  };
  sitePath("/page_url", c.page_url);
  c.buttons?.forEach((b, i) => sitePath(`/buttons/${i}/url`, b.url));
  if (c.image_url) {
    const own = `/storage/${ctx.tenantId}/`;
    let path: string | null = null;
    if (c.image_url.startsWith("/")) path = c.image_url;
    else {
      const u = new URL(c.image_url);
      if (u.origin === env().cellOrigins[env().cell] || Object.values(env().cellOrigins).includes(u.origin))
        path = u.pathname;
    }
    if (path !== null && path.startsWith("/storage/") && !path.toLowerCase().startsWith(own)) {
      errors.push({
        field: "/image_url",
        code: "foreign_storage_path",
        message: "the file is not in this account's storage",
      });
    }
  }
  return errors;
}
