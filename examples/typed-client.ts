/**
 * A typed client of the public API in a few lines: types generated from the OpenAPI document with
 * openapi-typescript (`npm run typecheck:client` regenerates examples/api-types.d.ts and compiles this
 * file), calls made with openapi-fetch. Paths, query parameters, bodies and answers are all checked
 * by the compiler; errors arrive as the Problem body (spec "Errors").
 *
 * Run: API_BASE_URL=http://localhost:3000/api/public/v1 API_KEY=sk_... npx tsx examples/typed-client.ts
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./api-types";

type Problem = components["schemas"]["Problem"];

const client = createClient<paths>({
  baseUrl: process.env.API_BASE_URL ?? "http://localhost:3000/api/public/v1",
  headers: { authorization: `Bearer ${process.env.API_KEY ?? ""}` },
});

/** Throws the problem's code and request id, the two things worth logging and branching on. */
function fail(error: Problem): never {
  throw new Error(`${error.code} (${error.status}): ${error.detail} [${error.request_id}]`);
}

async function main(): Promise<void> {
  const me = await client.GET("/me");
  if (me.error) fail(me.error);
  console.log(`key ${me.data.key.key_id} of ${me.data.tenant.name}: scopes ${me.data.key.scopes.join(", ")}`);

  const created = await client.POST("/cards", {
    params: { header: { "Idempotency-Key": crypto.randomUUID() } },
    body: { code: `example-${Date.now()}`, name: "Example product", page_url: "/p/example", buttons: [{ label: "Buy", url: "/cart" }] },
  });
  if (created.error) fail(created.error);
  console.log(`created ${created.data.code}: ${created.data.page_url ?? "no page"}`);

  // Walk every page of the list: pass next_cursor back until it is null.
  let cursor: string | undefined;
  do {
    const page = await client.GET("/cards", { params: { query: { limit: "100", cursor } } });
    if (page.error) fail(page.error);
    for (const card of page.data.data) console.log(`${card.sort}\t${card.code}\t${card.name}`);
    cursor = page.data.next_cursor ?? undefined;
  } while (cursor);

  const removed = await client.DELETE("/cards/{code}", { params: { path: { code: created.data.code } } });
  if (removed.error) fail(removed.error);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
