/**
 * Incremental sync of leads into your own store: walk every page of what changed since the last run
 * (`updated_after`, strict), upsert each lead by id, and remember the newest `updated_at` seen. Records
 * changed during a walk come again with a newer `updated_at`, so upserting keeps the copy right.
 *
 * Run: API_BASE_URL=... API_KEY=... npx tsx examples/sync-leads.ts [<updated_after ISO time>]
 */
import { createClient, isApiError, type Lead } from "@platform/sdk";

const client = createClient({
  baseUrl: process.env.API_BASE_URL ?? "http://localhost:3000/api/public/v1",
  apiKey: process.env.API_KEY ?? "",
});

/** Your store; here a Map. */
const store = new Map<string, Lead>();

async function sync(since: string | undefined): Promise<string | undefined> {
  let newest = since;
  for await (const page of client.leads.list({ limit: 100, ...(since ? { updated_after: since } : {}) }).pages()) {
    for (const lead of page.data) {
      store.set(lead.id, lead);
      if (!newest || lead.updated_at > newest) newest = lead.updated_at;
    }
    console.log(`page of ${page.data.length}; ${store.size} leads stored`);
  }
  return newest;
}

sync(process.argv[2]).then(
  (next) => console.log(`done; next run: updated_after=${next ?? "(none yet)"}`),
  (err: unknown) => {
    // A walk that outlived its cursor (24 hours) is refused on /cursor: start it again.
    if (isApiError(err, "validation_failed") && err.errors.some((e) => e.field === "/cursor"))
      console.error("cursor expired: run again");
    else console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  },
);
