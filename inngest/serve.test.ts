import { NextRequest } from "next/server";
import { afterAll, describe, expect, it } from "vitest";
import { GET, POST, PUT } from "@/app/api/inngest/route";
import { setTestEnv } from "@/server/testing/test-db";

// /api/inngest exists only for the Inngest driver (issue 23 item 8): with the local driver it is a
// plain 404, not Inngest's 500 about keys it was never given.

const req = (method: string) =>
  new NextRequest("https://api.example.ru/api/inngest", {
    method,
    headers: { "content-type": "application/json" },
    body: method === "GET" ? undefined : "{}",
  });
afterAll(() => setTestEnv());

describe("/api/inngest", () => {
  it("answers 404 to every method under the local driver (the default)", async () => {
    setTestEnv();
    for (const [method, handler] of [
      ["GET", GET],
      ["POST", POST],
      ["PUT", PUT],
    ] as const) {
      const res = await handler(req(method), undefined);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(res.headers.get("x-inngest-sdk-handled")).toBeNull();
    }
  });

  it("is Inngest's own endpoint under JOBS_DRIVER=inngest", async () => {
    setTestEnv({ JOBS_DRIVER: "inngest" });
    const res = await GET(req("GET"), undefined);
    // Reached Inngest's handler (which, without signing keys here, answers its own error).
    expect(res.headers.get("x-inngest-sdk-handled")).toBe("true");
  });
});
