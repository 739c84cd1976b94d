import { intakeScriptResponse } from "@/server/lib/intake-snippet";

// The site snippet of event intake (issue 74 item 6; docs/event-intake.md "The snippet"): public, no key.
// Dynamic, so `If-None-Match` gets its 304 from the handler rather than a prerendered copy.
export const dynamic = "force-dynamic";

export function GET(request: Request): Response {
  return intakeScriptResponse(request);
}
