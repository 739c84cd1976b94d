import { serve } from "inngest/next";
import { env } from "@/server/env";
import { inngest } from "./client";
import { functions } from "./index";

const served = serve({ client: inngest, functions });

type Handler = typeof served.GET;

/** What `/api/inngest` answers while another driver runs the background work. */
function notServed(): Response {
  return new Response("Not found\n", {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });
}

/** Inngest's handler while `JOBS_DRIVER=inngest`; otherwise 404, as for any path the app does not serve. */
function gated(handler: Handler): Handler {
  return ((...args: Parameters<Handler>) =>
    env().jobsDriver === "inngest" ? handler(...args) : Promise.resolve(notServed())) as Handler;
}

/**
 * The Inngest door (`/api/inngest`): Inngest calls it to run the functions' steps. It exists only
 * under `JOBS_DRIVER=inngest`; with the local driver (the default) there is nothing to serve, so it
 * answers 404 instead of Inngest's errors about missing keys (issue 23 item 8).
 */
export const inngestHandlers = { GET: gated(served.GET), POST: gated(served.POST), PUT: gated(served.PUT) };
