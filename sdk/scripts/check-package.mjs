// Checks the built SDK the way a project outside this repository gets it (run after `npm run sdk:build`;
// `npm run sdk:check`): packs sdk/ with npm pack, unpacks the tarball into a temporary project's
// node_modules/@platform/sdk beside this project's openapi-fetch (its only dependency), then
//  1. imports it by name from Node and runs it offline: a client paging two pages over a stub fetch, a
//     create with its Idempotency-Key, an ApiError, and verifyWebhook on a signature made with node:crypto;
//  2. type-checks a consumer file against the packed declarations (NodeNext resolution, strict).
// A wrong `exports`, `files` or `types` entry, or a declaration that does not resolve, fails here even
// though the tests (which use the sources) pass.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");
const tmp = mkdtempSync(path.join(tmpdir(), "platform-sdk-consumer-"));
try {
  const tgz = execFileSync("npm", ["pack", "--silent", "--pack-destination", tmp], {
    cwd: path.join(root, "sdk"),
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .pop();
  const modules = path.join(tmp, "node_modules");
  mkdirSync(path.join(modules, "@platform"), { recursive: true });
  execFileSync("tar", ["xzf", path.join(tmp, tgz), "-C", path.join(modules, "@platform")]);
  renameSync(path.join(modules, "@platform", "package"), path.join(modules, "@platform", "sdk"));
  for (const dep of ["openapi-fetch", "openapi-typescript-helpers"])
    symlinkSync(path.join(root, "node_modules", dep), path.join(modules, dep), "dir");
  writeFileSync(path.join(tmp, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));

  writeFileSync(
    path.join(tmp, "run.mjs"),
    `
import { createHmac } from "node:crypto";
import { createClient, verifyWebhook, ApiError } from "@platform/sdk";
const pages = { "": { data: [{ id: "1", code: "a" }], next_cursor: "c1" }, c1: { data: [{ id: "2", code: "b" }], next_cursor: null } };
const seen = [];
const fetch = async (r) => {
  seen.push([r.method, new URL(r.url).pathname + new URL(r.url).search, r.headers.get("idempotency-key")]);
  if (r.method === "POST") return new Response(JSON.stringify({ id: "3", code: "c" }), { status: 201, headers: { "content-type": "application/json" } });
  if (r.url.endsWith("/cards/zz")) return new Response(JSON.stringify({ type: "t", title: "Not found", status: 404, code: "not_found", detail: "x", request_id: "req_1" }), { status: 404, headers: { "content-type": "application/problem+json" } });
  return new Response(JSON.stringify(pages[new URL(r.url).searchParams.get("cursor") ?? ""]), { headers: { "content-type": "application/json" } });
};
const client = createClient({ baseUrl: "https://api.example.test/api/public/v1", apiKey: "k", fetch });
const codes = [];
for await (const card of client.cards.list({ limit: 1 })) codes.push(card.code);
if (codes.join() !== "a,b") throw new Error("paging: " + codes.join());
await client.cards.create({ code: "c", name: "C" });
const err = await client.cards.get("zz").catch((e) => e);
if (!(err instanceof ApiError) || err.code !== "not_found" || err.requestId !== "req_1") throw new Error("ApiError: " + err);
if (!/^[0-9a-f-]{36}$/.test(seen[2][2] ?? "")) throw new Error("no Idempotency-Key on create: " + JSON.stringify(seen));
const body = JSON.stringify({ id: "evt_1", type: "webhook.test", api_version: "2026-10-01", created_at: new Date().toISOString(), livemode: false, data: {} });
const t = Math.floor(Date.now() / 1000);
const sig = "t=" + t + ",v1=" + createHmac("sha256", "whsec_x").update(t + "." + body).digest("hex");
const event = await verifyWebhook(body, { "service-signature": sig }, "whsec_x");
if (event.id !== "evt_1") throw new Error("verifyWebhook");
const refused = await verifyWebhook(body + " ", { "service-signature": sig }, "whsec_x").catch((e) => e.reason);
if (refused !== "signature_mismatch") throw new Error("tampered body accepted");
console.log("runtime ok: " + seen.length + " requests");
`,
  );
  execFileSync(process.execPath, ["run.mjs"], { cwd: tmp, stdio: "inherit" });

  writeFileSync(
    path.join(tmp, "consumer.ts"),
    `
import { createClient, isApiError, verifyWebhook, type ApiErrorCode, type Card, type WebhookEvent } from "@platform/sdk";
export async function use(): Promise<string[]> {
  const client = createClient({ baseUrl: "https://api.example.test/api/public/v1", apiKey: "k" });
  const out: string[] = [];
  for await (const card of client.cards.list({ limit: 100, ai_enabled: true })) out.push(card.code);
  const c: Card = await client.cards.create({ code: "x", name: "X" }, { idempotencyKey: "k1" });
  const code: ApiErrorCode = "operation_in_progress";
  try { await client.leads.get(c.id); } catch (e) { if (isApiError(e, code)) out.push(e.errors.map((f) => f.field).join()); }
  const event: WebhookEvent = await verifyWebhook("{}", new Headers(), ["whsec_a", "whsec_b"], { toleranceSec: 300 });
  if (event.type === "lead.created") out.push(event.data.lead_id);
  const op = await client.waitForOperation("op", { timeoutMs: 1000 });
  out.push(op.status);
  return out;
}
`,
  );
  writeFileSync(
    path.join(tmp, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        lib: ["ES2022", "DOM", "DOM.Iterable"],
        types: [],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
      },
      files: ["consumer.ts"],
    }),
  );
  execFileSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", tmp], { stdio: "inherit" });
  console.log(`types ok: ${tgz} type-checks in a consumer project (NodeNext, strict)`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
