/**
 * The access vocabulary of the contract (spec "Authentication" 6): scopes, integration roles, staff rights
 * and license features. Shared by the public API, the console and the services; the rules that combine
 * them live in server/services/access/scopes.ts.
 */
export const SCOPES = [
  "conversations:read",
  "conversations:write",
  "ai_seller:invoke",
  "leads:read",
  "leads:write",
  "leads:score",
  "analytics:read",
  "analytics:write",
  "dashboards:read",
  "articles:read",
  "articles:write",
  "articles:generate",
  "strategist:read",
  "strategist:write",
  "strategist:chat",
  "webhooks:manage",
  "cards:read",
  "cards:write",
] as const;
export type Scope = (typeof SCOPES)[number];

/** Scopes whose answers carry personal data (spec "Authentication" 6 and 7: `conversations:*`, `leads:*`, `ai_seller:invoke`). */
export const PII_SCOPES: ReadonlySet<Scope> = new Set<Scope>([
  "conversations:read",
  "conversations:write",
  "ai_seller:invoke",
  "leads:read",
  "leads:write",
  "leads:score",
]);

/** Integration roles: the most a role lets an integration hold, whatever scopes it was given. */
export const ROLES = {
  full: SCOPES,
  read_only: SCOPES.filter((s) => s.endsWith(":read")),
  sales: [
    "conversations:read",
    "conversations:write",
    "ai_seller:invoke",
    "leads:read",
    "leads:write",
    "leads:score",
    "cards:read",
    "cards:write",
    "dashboards:read",
    "webhooks:manage",
  ],
  content: [
    "articles:read",
    "articles:write",
    "articles:generate",
    "strategist:read",
    "strategist:write",
    "strategist:chat",
    "cards:read",
    "cards:write",
    "analytics:read",
    "dashboards:read",
    "webhooks:manage",
  ],
} as const satisfies Record<string, readonly Scope[]>;
export type Role = keyof typeof ROLES;
export const ROLE_NAMES = Object.keys(ROLES) as Role[];

/** Rights of a staff member in a tenant (console and owner-rights cut). */
export const RIGHTS = [
  "manage_integrations",
  "manage_webhooks",
  "topup_wallet",
  "view_personal_data",
  "manage_team",
] as const;
export type Right = (typeof RIGHTS)[number];

/** License features and the scopes each one unlocks; `webhooks:manage` needs only `api_access`. */
export const FEATURES = {
  chat: ["conversations:read", "conversations:write", "ai_seller:invoke"],
  catalog: ["cards:read", "cards:write"],
  crm: ["leads:read", "leads:write", "leads:score"],
  articles: ["articles:read", "articles:write", "articles:generate"],
  strategist: ["strategist:read", "strategist:write", "strategist:chat"],
  analytics: ["analytics:read", "analytics:write", "dashboards:read"],
} as const satisfies Record<string, readonly Scope[]>;
export type Feature = keyof typeof FEATURES;
export const FEATURE_NAMES = Object.keys(FEATURES) as Feature[];

/** Type guard for scope strings from the outside (CLI, console). */
export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}
