/**
 * The SDK in a few lines: who am I, create a card, walk every card, change and delete it, and branch on
 * error codes. Types come from the API's OpenAPI document; `npm run typecheck:client` compiles this file
 * against the current one.
 *
 * Run: API_BASE_URL=http://localhost:3000/api/public/v1 API_KEY=sk_... npx tsx examples/quick-start.ts
 */
import { createClient, isApiError } from "@platform/sdk";

const client = createClient({
  baseUrl: process.env.API_BASE_URL ?? "http://localhost:3000/api/public/v1",
  apiKey: process.env.API_KEY ?? "",
});

async function main(): Promise<void> {
  const me = await client.me.get();
  console.log(`key ${me.key.key_id} of ${me.tenant.name}: scopes ${me.key.scopes.join(", ")}`);

  // An Idempotency-Key is sent for you, and reused if the SDK has to retry: one card, however often it tries.
  const code = `example-${Date.now()}`;
  const card = await client.cards.create({
    code,
    name: "Example product",
    page_url: "/p/example",
    buttons: [{ label: "Buy", url: "/cart" }],
  });
  console.log(`created ${card.code}: ${card.page_url ?? "no page"}`);

  // Every page, 100 cards per request; the SDK passes next_cursor back until it is null.
  for await (const c of client.cards.list({ limit: 100 })) console.log(`${c.sort}\t${c.code}\t${c.name}`);

  await client.cards.update(code, { badge: "New" });
  await client.cards.delete(code);

  // Refusals are ApiError: branch on the code, log the request id.
  try {
    await client.cards.get(code);
  } catch (err) {
    if (!isApiError(err, "not_found")) throw err;
    console.log(`gone, as expected (${err.code}, request ${err.requestId})`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
