import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { env } from "@/server/env";

/** Prefix of signing secrets, so a leaked one is recognisable (and caught by secret scanners). */
export const SIGNING_SECRET_PREFIX = "whsec_";

/** A new webhook signing secret: `whsec_` + 32 random bytes in base64url (43 chars). */
export function newSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + randomBytes(32).toString("base64url");
}

const VERSION = "v1";

/**
 * Encrypts a signing secret for storage (DESIGN "Decisions": secrets are needed in clear to sign, so
 * they are kept encrypted, never hashed). AES-256-GCM keyed by `env().webhookSecretKey`, a random
 * 12-byte IV per call and the 16-byte auth tag.
 * @returns `v1.<iv>.<tag>.<ciphertext>`, each part base64url; never contains the plain secret.
 */
export function sealSecret(plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", env().webhookSecretKey, iv);
  const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [VERSION, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ct.toString("base64url")].join(
    ".",
  );
}

/**
 * Decrypts what {@link sealSecret} made.
 * @throws Error "sealed secret cannot be opened" when the text is malformed, was changed, or was sealed
 *   under another key (the message never holds the secret or the key).
 */
export function openSecret(sealed: string): string {
  const parts = sealed.split(".");
  if (parts.length !== 4 || parts[0] !== VERSION) throw new Error("sealed secret cannot be opened");
  try {
    const [, iv, tag, ct] = parts.map((p, i) => (i === 0 ? Buffer.alloc(0) : Buffer.from(p, "base64url")));
    if (iv.length !== 12 || tag.length !== 16) throw new Error("bad parts");
    const decipher = createDecipheriv("aes-256-gcm", env().webhookSecretKey, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ct), decipher.final()]).toString("utf8");
  } catch {
    throw new Error("sealed secret cannot be opened");
  }
}
