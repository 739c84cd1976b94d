import { describe, expect, it } from "vitest";
import { ApiError } from "@/server/errors";
import { isUnavailable } from "./unavailable";
import { MAX_BODY_BYTES, readJsonBody, refuseLargeBody } from "./body";

// Request bodies (spec "Common request rules", "Limits": 256 KB → 413; not JSON or wrong
// Content-Type → 400 bad_request).

const post = (body: BodyInit | null, headers: Record<string, string> = { "content-type": "application/json" }) =>
  new Request("https://api.example.ru/api/public/v1/cards", {
    method: "POST",
    body,
    headers,
    duplex: "half",
  } as RequestInit);

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

/** A stream of `chunks` chunks of `size` bytes; records whether the reader cancelled it. */
function stream(chunks: number, size: number) {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (state.pulled === chunks) return c.close();
      state.pulled++;
      c.enqueue(new Uint8Array(size).fill(0x20));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { body, state };
}

describe("readJsonBody", () => {
  it("parses a JSON body", async () => {
    expect(await readJsonBody(post('{"a":[1,"б"]}'))).toEqual({ a: [1, "б"] });
    expect(await readJsonBody(post("null"))).toBeNull();
  });

  it("returns undefined for no body or an empty one, whatever the Content-Type", async () => {
    expect(await readJsonBody(new Request("https://x.example/", { method: "GET" }))).toBeUndefined();
    expect(await readJsonBody(post(""))).toBeUndefined();
    expect(await readJsonBody(post("", {}))).toBeUndefined();
  });

  it("accepts application/json with a UTF-8 charset, in any case", async () => {
    for (const type of [
      "application/json",
      "Application/JSON",
      "application/json; charset=utf-8",
      'application/json;charset="UTF-8"',
      " application/json ",
    ]) {
      expect(await readJsonBody(post("{}", { "content-type": type })), type).toEqual({});
    }
  });

  it("refuses a body without Content-Type or with another type as 400 bad_request", async () => {
    for (const headers of [
      {},
      { "content-type": "text/plain" },
      { "content-type": "application/x-www-form-urlencoded" },
      { "content-type": "application/json; charset=latin1" },
      { "content-type": "application/jsonp" },
    ] as Record<string, string>[]) {
      const e = await failure(readJsonBody(post("{}", headers)));
      expect([e.status, e.code, e.message]).toEqual([
        400,
        "bad_request",
        "Send the body as JSON with Content-Type: application/json.",
      ]);
    }
  });

  it("refuses invalid JSON as 400 bad_request", async () => {
    for (const text of ["{", "{'a':1}", "[1,]", "undefined", "{} {}"]) {
      const e = await failure(readJsonBody(post(text)));
      expect([e.status, e.code, e.message], text).toEqual([400, "bad_request", "The body is not valid JSON."]);
    }
  });

  it("refuses invalid UTF-8 (lone continuation byte, overlong form, truncated sequence) as 400", async () => {
    for (const bytes of [
      [0x22, 0x80, 0x22],
      [0x22, 0xc0, 0xaf, 0x22],
      [0x22, 0xe2, 0x82, 0x22],
    ]) {
      const e = await failure(readJsonBody(post(new Uint8Array(bytes))));
      expect([e.status, e.code, e.message]).toEqual([400, "bad_request", "The body is not valid UTF-8."]);
    }
  });

  it("skips a UTF-8 byte order mark", async () => {
    expect(await readJsonBody(post(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])))).toEqual({});
  });

  it("accepts exactly 256 KB", async () => {
    const text = JSON.stringify({ s: "x".repeat(MAX_BODY_BYTES - 8) });
    expect(Buffer.byteLength(text)).toBe(MAX_BODY_BYTES);
    expect(MAX_BODY_BYTES).toBe(262_144);
    expect(await readJsonBody(post(text))).toEqual({ s: "x".repeat(MAX_BODY_BYTES - 8) });
  });

  it("refuses one byte more as 413 payload_too_large, counted in bytes not characters", async () => {
    const text = JSON.stringify({ s: "x".repeat(MAX_BODY_BYTES - 7) });
    const e = await failure(readJsonBody(post(text)));
    expect([e.status, e.code]).toEqual([413, "payload_too_large"]);
    // 100,000 two-byte characters are 200,000+ bytes: under the limit; 140,000 are over it.
    expect(await readJsonBody(post(JSON.stringify("я".repeat(100_000))))).toHaveLength(100_000);
    expect((await failure(readJsonBody(post(JSON.stringify("я".repeat(140_000)))))).code).toBe("payload_too_large");
  });

  it("refuses a declared Content-Length over the limit before reading anything", async () => {
    const s = stream(10, 1024);
    const req = post(s.body, { "content-type": "application/json", "content-length": String(MAX_BODY_BYTES + 1) });
    const e = await failure(readJsonBody(req));
    expect(e.code).toBe("payload_too_large");
    expect(s.state.pulled).toBeLessThanOrEqual(1);
  });

  it("stops reading a streamed body at the limit and cancels the stream", async () => {
    const s = stream(1000, 64 * 1024); // 64 MB if read to the end
    const e = await failure(readJsonBody(post(s.body)));
    expect(e.code).toBe("payload_too_large");
    expect(s.state.pulled).toBeLessThanOrEqual(6);
    expect(s.state.cancelled).toBe(true);
  });

  // Node fails the body stream with `aborted` (code ECONNRESET) when the client closes the connection
  // mid-body; passed on as is, the pipeline took that code for an unreachable database (503, logged as
  // "database unavailable").
  it("answers a body that broke off as 400 bad_request, never as the stream's ECONNRESET", async () => {
    const aborted = Object.assign(new Error("aborted"), { code: "ECONNRESET" });
    const broken = () =>
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"code":'));
          c.error(aborted);
        },
      });
    const e = await failure(readJsonBody(post(broken())));
    expect(e.code).toBe("bad_request");
    expect(e.message).toMatch(/connection closed/);
    expect(isUnavailable(e)).toBe(false);
    // A route without a body ignores one that broke off, as it ignores any small body.
    await expect(refuseLargeBody(post(broken()))).resolves.toBeUndefined();
  });
});
