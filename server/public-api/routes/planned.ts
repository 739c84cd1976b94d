import type { HttpMethod } from "../define-route";

/**
 * Planned routes of the spec: they answer 404 `not_found` until released, also where their path has
 * Available methods (so `POST /conversations` is 404, not 405).
 */
export const PLANNED_ROUTES: { method: HttpMethod; path: string }[] = [
  { method: "POST", path: "/conversations" },
  { method: "POST", path: "/conversations/{id}/messages" },
  { method: "POST", path: "/conversations/{id}/operator-messages" },
  { method: "POST", path: "/conversations/{id}/takeover" },
  { method: "POST", path: "/conversations/{id}/release" },
  { method: "POST", path: "/conversations/{id}/close" },
  { method: "PATCH", path: "/articles/{id}" },
  { method: "POST", path: "/articles/{id}/approve" },
  { method: "POST", path: "/articles/{id}/publish" },
  { method: "POST", path: "/articles/generation-jobs" },
  { method: "PATCH", path: "/leads/{id}" },
  { method: "POST", path: "/leads/{id}/score" },
  { method: "PUT", path: "/crm/status-map" },
];
