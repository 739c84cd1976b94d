import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as trpcGet, POST as trpcPost } from "@/app/api/trpc/[trpc]/route";
import { payments, walletLedger, wallets } from "@/db/schema";
import { POST as sandboxDecide } from "@/app/pay/sandbox/[id]/decide/route";
import { createAuth } from "@/server/auth/auth";
import { createStaffMember } from "@/server/services/tenants/staff";
import { BALANCE_MAX_MINOR } from "@/server/services/wallet/wallet-ledger";
import { makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { serveRoutes, type RouteServer } from "@/server/testing/route-server";
import { openTestDatabase } from "@/server/testing/test-db";
import { MAX_TRPC_BATCH } from "./batch-limit";
import { MAX_TRPC_BODY_BYTES } from "./http-door";

// The console's tRPC door over real HTTP (issue 23 items 5 and 6): bodies over 256 KB are refused as
// they are read, batches are capped, and bad input is a 400 naming the field, never a 500.

const ORIGIN = "https://api.example.ru";
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let a: TenantFixture;
let server: RouteServer;
let cookie: string;

beforeAll(async () => {
  db = await openTestDatabase();
  a = await makeTenant(db.db);
  await createStaffMember(db.db, {
    tenantId: a.tenantId,
    email: "owner@door.example",
    password: "correct-horse-battery",
    name: "O",
  });
  const res = await createAuth(db.db).api.signInEmail({
    body: { email: "owner@door.example", password: "correct-horse-battery" },
    asResponse: true,
  });
  cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
  server = await serveRoutes(ORIGIN, (method, path) =>
    path.startsWith("/api/trpc/") ? (method === "GET" ? trpcGet : trpcPost) : undefined,
  );
});
afterAll(async () => {
  await server?.close();
  await db.drop();
});

type TrpcError = {
  error: {
    message: string;
    data: { code: string | null; httpStatus: number; errors: { field: string; message: string }[] | null };
  };
};
const headers = (extra: Record<string, string> = {}) => ({
  cookie,
  origin: ORIGIN,
  "content-type": "application/json",
  ...extra,
});
const mutate = (path: string, input: unknown) =>
  server.send("POST", `/api/trpc/${path}`, { headers: headers(), body: JSON.stringify(input) });
const query = (path: string, input: unknown) =>
  server.send("GET", `/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: headers() });
/** Rows a top-up could write: ledger rows and payments. */
const ledgerRows = async () =>
  (await db.db.select().from(walletLedger).where(eq(walletLedger.tenantId, a.tenantId))).length +
  (await db.db.select().from(payments).where(eq(payments.tenantId, a.tenantId))).length;

/** A body stream of `total` bytes in 64 KB chunks that records how much of it was read. */
function countingStream(total: number) {
  const seen = { pulled: 0 };
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (seen.pulled >= total) return controller.close();
        seen.pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  ); // pulled only when read
  return { stream, seen };
}

describe("body size (item 5)", () => {
  it("answers 413 to a body over 256 KB declared by Content-Length, and changes nothing", async () => {
    const before = await ledgerRows();
    const big = JSON.stringify({
      tenantId: a.tenantId,
      amount: "100",
      note: "x".repeat(MAX_TRPC_BODY_BYTES),
    });
    const r = await mutate("wallet.topUp", JSON.parse(big));
    expect(r.status).toBe(413);
    const body = JSON.parse(r.text) as TrpcError;
    expect(body.error.data).toMatchObject({ code: "payload_too_large", httpStatus: 413 });
    expect(body.error.message).toMatch(/larger than 262144 bytes/);
    expect(await ledgerRows()).toBe(before);
  });

  it("answers 413 to a chunked body (no Content-Length) once 256 KB have arrived", async () => {
    async function* chunks() {
      const chunk = new Uint8Array(64 * 1024).fill(0x20);
      for (let i = 0; i < 160; i++) yield chunk; // 10 MB of spaces
    }
    const r = await server.send("POST", "/api/trpc/wallet.topUp", { headers: headers(), body: chunks() });
    expect(r.status).toBe(413);
    expect((JSON.parse(r.text) as TrpcError).error.data.code).toBe("payload_too_large");
  });

  it("reads no further than the limit: a 100 MB stream is pulled only up to 256 KB and a chunk", async () => {
    const { stream, seen } = countingStream(100 * 1024 * 1024);
    const res = await trpcPost(
      new Request(`${ORIGIN}/api/trpc/wallet.topUp`, {
        method: "POST",
        headers: headers(),
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect(seen.pulled).toBeLessThanOrEqual(MAX_TRPC_BODY_BYTES + 2 * 64 * 1024);
  });

  it("refuses a declared Content-Length over the limit without reading the body at all", async () => {
    const { stream, seen } = countingStream(1024);
    const res = await trpcPost(
      new Request(`${ORIGIN}/api/trpc/wallet.topUp`, {
        method: "POST",
        headers: headers({ "content-length": String(100 * 1024 * 1024) }),
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect(seen.pulled).toBe(0);
  });

  it("still serves a body under the limit", async () => {
    const r = await mutate("wallet.topUp", {
      tenantId: a.tenantId,
      amount: "100",
      note: "x".repeat(150),
    });
    expect(r.status).toBe(200);
  });
});

describe("batch size (item 5)", () => {
  const batch = (n: number) => {
    const paths = Array(n).fill("tenants.mine").join(",");
    const input = Object.fromEntries(Array.from({ length: n }, (_, i) => [i, {}]));
    return server.send("GET", `/api/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`, {
      headers: headers(),
    });
  };

  it(`serves a batch of ${MAX_TRPC_BATCH} calls`, async () => {
    const r = await batch(MAX_TRPC_BATCH);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toHaveLength(MAX_TRPC_BATCH);
  });

  it("refuses a longer batch with 400 saying the limit, before running any call", async () => {
    const r = await batch(300);
    expect(r.status).toBe(400);
    const body = JSON.parse(r.text) as TrpcError;
    expect(body.error.data.code).toBe("bad_request");
    expect(body.error.message).toBe(
      `A batch may hold at most ${MAX_TRPC_BATCH} calls; this one holds 300. Split it into smaller batches.`,
    );
    expect((await batch(MAX_TRPC_BATCH + 1)).status).toBe(400);
  });

  it("refuses a long batch of mutations the same way", async () => {
    const before = await ledgerRows();
    const n = MAX_TRPC_BATCH + 1;
    const input = Object.fromEntries(Array.from({ length: n }, (_, i) => [i, { tenantId: a.tenantId, amount: "100" }]));
    const r = await server.send("POST", `/api/trpc/${Array(n).fill("wallet.topUp").join(",")}?batch=1`, {
      headers: headers(),
      body: JSON.stringify(input),
    });
    expect(r.status).toBe(400);
    expect(await ledgerRows()).toBe(before);
  });
});

describe("strict console input (item 6)", () => {
  it("a ledger cursor whose createdAt is not a date is a 400 naming the field", async () => {
    const r = await query("wallet.ledger", {
      tenantId: a.tenantId,
      limit: 5,
      cursor: { createdAt: "yesterday", id: crypto.randomUUID() },
    });
    expect(r.status).toBe(400);
    const body = JSON.parse(r.text) as TrpcError;
    expect(body.error.data.code).toBe("validation_failed");
    expect(body.error.data.errors).toEqual([expect.objectContaining({ field: "/cursor/createdAt" })]);
    expect(body.error.message).toMatch(/^Invalid input: \/cursor\/createdAt: must be .*ISO 8601/);
    // A real cursor still pages.
    const first = JSON.parse((await query("wallet.ledger", { tenantId: a.tenantId, limit: 1 })).text) as {
      result: { data: { next: unknown } };
    };
    expect(
      (await query("wallet.ledger", { tenantId: a.tenantId, limit: 1, cursor: first.result.data.next })).status,
    ).toBe(200);
  });

  it.each(["99.99", "1000000.01", "abc", "1e5", "__proto__"])(
    "a top-up of %s is a 400 naming /amount and starts nothing",
    async (amount) => {
      const before = await ledgerRows();
      const r = await mutate("wallet.topUp", { tenantId: a.tenantId, amount });
      expect(r.status).toBe(400);
      const body = JSON.parse(r.text) as TrpcError;
      expect(body.error.data.code).toBe("validation_failed");
      expect(body.error.data.errors).toEqual([expect.objectContaining({ field: "/amount" })]);
      expect(await ledgerRows()).toBe(before);
    },
  );

  it("naming the old manual provider credits nothing: a top-up is a pending payment", async () => {
    const [w0] = await db.db.select().from(wallets).where(eq(wallets.tenantId, a.tenantId));
    const r = await mutate("wallet.topUp", { tenantId: a.tenantId, amount: "1000", provider: "manual" });
    expect(r.status).toBe(200);
    const out = (JSON.parse(r.text) as { result: { data: { status: string; confirmationUrl: string } } }).result.data;
    expect(out.status).toBe("pending");
    expect(out.confirmationUrl).toMatch(/\/pay\/sandbox\//);
    const [w1] = await db.db.select().from(wallets).where(eq(wallets.tenantId, a.tenantId));
    expect(w1.balanceMinor).toBe(w0.balanceMinor);
  });

  it("a paid top-up that would overflow the balance credits nothing and stays pending", async () => {
    const pay = async (amount: string) => {
      const r = await mutate("wallet.topUp", { tenantId: a.tenantId, amount });
      const id = (JSON.parse(r.text) as { result: { data: { paymentId: string } } }).result.data.paymentId;
      const res = await sandboxDecide(
        new Request(`${ORIGIN}/pay/sandbox/${id}/decide`, {
          method: "POST",
          body: new URLSearchParams({ outcome: "pay" }),
        }),
        { params: Promise.resolve({ id }) },
      );
      expect(res.status).toBe(303);
      return (await db.db.select().from(payments).where(eq(payments.id, id)))[0];
    };
    const nearMax = BALANCE_MAX_MINOR - 50_000n;
    await db.db.update(wallets).set({ balanceMinor: nearMax }).where(eq(wallets.tenantId, a.tenantId));
    const ledgerBefore = (await db.db.select().from(walletLedger).where(eq(walletLedger.tenantId, a.tenantId))).length;
    expect((await pay("1000")).status).toBe("pending");
    const [w] = await db.db.select().from(wallets).where(eq(wallets.tenantId, a.tenantId));
    expect(w.balanceMinor).toBe(nearMax);
    expect((await db.db.select().from(walletLedger).where(eq(walletLedger.tenantId, a.tenantId))).length).toBe(
      ledgerBefore,
    );
    // Up to the largest balance still fits.
    expect((await pay("500")).status).toBe("succeeded");
    expect((await db.db.select().from(wallets).where(eq(wallets.tenantId, a.tenantId)))[0].balanceMinor).toBe(
      BALANCE_MAX_MINOR,
    );
  });
});
