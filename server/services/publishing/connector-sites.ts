import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { sites } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { hashSecret } from "../keys/key-format";

/** The site a connector token belongs to: what every connector call acts for (one tenant, one mode). */
export interface ConnectorSite {
  id: string;
  tenantId: string;
  livemode: boolean;
  domain: string;
  draftsOnly: boolean;
}

/** Shape of a connector token (`sct_` + 32 random bytes base64url; server/services/articles/sites.ts). */
const TOKEN_RE = /^sct_[A-Za-z0-9_-]{43}$/;

/** The 401 of a missing, malformed, unknown or revoked connector token; never says which. */
export function invalidConnectorToken(): ApiError {
  return new ApiError(
    "invalid_api_key",
    "Send the site's connector token as Authorization: Bearer sct_...; this one is missing, unknown or revoked.",
  );
}

/**
 * Authenticates a connector call by its token (`Authorization: Bearer sct_...`): looked up by its SHA-256
 * hash, as API keys are, and stamps the site's `last_seen_at` in the same statement (every call of a
 * connector counts as a poll: GET /sites shows the site `working` for 5 minutes after it).
 * @param token the bearer value as sent (null when absent)
 * @throws ApiError 401 `invalid_api_key` for a missing, malformed, unknown or revoked token
 */
export async function authenticateSite(db: Db, token: string | null): Promise<ConnectorSite> {
  if (!token || !TOKEN_RE.test(token)) throw invalidConnectorToken();
  const [row] = await db
    .update(sites)
    .set({ lastSeenAt: sql`now()` })
    .where(and(eq(sites.connectorTokenHash, hashSecret(token)), isNull(sites.revokedAt)))
    .returning({
      id: sites.id,
      tenantId: sites.tenantId,
      livemode: sites.livemode,
      domain: sites.domain,
      draftsOnly: sites.draftsOnly,
    });
  if (!row) throw invalidConnectorToken();
  return row;
}
