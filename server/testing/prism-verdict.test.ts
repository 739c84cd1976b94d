import { describe, expect, it, vi } from "vitest";
import { PrismViolationError, prismVerdict, type SeenAnswer } from "./prism-verdict";

/** An answer as Playwright hands it over. */
function answer(status: number, body: unknown = null, headers: Record<string, string> = {}): SeenAnswer {
  const type = body && typeof body === "object" && "type" in body ? "application/problem+json" : "application/json";
  return {
    status: () => status,
    ok: () => status >= 200 && status < 300,
    headers: () => ({ "content-type": type, ...headers }),
    json: async () => body,
  };
}
const prism = (kind: string, status: number, validation?: unknown[]) =>
  answer(status, {
    type: `https://stoplight.io/prism/errors#${kind}`,
    title: kind,
    status,
    detail: `${kind} detail`,
    validation,
  });
const headerMissing = {
  location: ["header"],
  severity: "Error",
  code: "required",
  message: "Request header must have required property 'idempotency-key'",
};

describe("the verdict on an answer that came through Prism's proxy", () => {
  it("passes a forwarded answer without violations, and never sends the request twice", async () => {
    const direct = vi.fn();
    const res = answer(200, { ok: true });
    expect(await prismVerdict("GET", "/me", res, direct)).toBe(res);
    expect(direct).not.toHaveBeenCalled();
  });

  it("fails on Prism's VIOLATIONS answer, naming each violation", async () => {
    const res = prism("VIOLATIONS", 500, [
      {
        location: ["response", "body", "state"],
        severity: "Error",
        message: "must be equal to one of the allowed values",
      },
    ]);
    await expect(prismVerdict("GET", "/wallet", res, vi.fn())).rejects.toThrow(PrismViolationError);
    await expect(prismVerdict("GET", "/wallet", res, vi.fn())).rejects.toThrow(
      /the answer to GET \/wallet violates the document:\n  - \[Error\] response\.body\.state: must be equal/,
    );
  });

  it("fails when Prism refuses a request that the app, asked directly, accepts", async () => {
    const direct = vi.fn(async () => answer(200, {}));
    await expect(
      prismVerdict("PATCH", "/cards/x", prism("UNPROCESSABLE_ENTITY", 422, [headerMissing]), direct),
    ).rejects.toThrow(
      /the app accepted PATCH \/cards\/x \(200\), but Prism refuses it \(UNPROCESSABLE_ENTITY\):\n  - \[Error\] header: Request header must have required property 'idempotency-key'/,
    );
    expect(direct).toHaveBeenCalledTimes(1);
    await expect(
      prismVerdict("GET", "/extra", prism("NO_PATH_MATCHED_ERROR", 404), async () => answer(200, {})),
    ).rejects.toThrow(
      /the app accepted GET \/extra \(200\), but Prism refuses it \(NO_PATH_MATCHED_ERROR\):\n  - \[Error\] request: NO_PATH_MATCHED_ERROR detail/,
    );
  });

  it("hands the app's own refusal to the test when Prism and the app both refuse", async () => {
    const refusal = answer(400, {
      type: "https://api.example.ru/developers/errors#idempotency_key_required",
      code: "idempotency_key_required",
    });
    expect(
      await prismVerdict("POST", "/cards", prism("UNPROCESSABLE_ENTITY", 422, [headerMissing]), async () => refusal),
    ).toBe(refusal);
    const unauthorized = answer(401, { type: "https://api.example.ru/developers/errors#invalid_api_key" });
    expect(await prismVerdict("GET", "/cards", prism("UNAUTHORIZED", 401), async () => unauthorized)).toBe(
      unauthorized,
    );
  });

  it("fails on violations Prism reports in sl-violations of a forwarded answer: always for the answer, for the request when it was accepted", async () => {
    const onAnswer = JSON.stringify([
      { location: ["response", "header"], severity: "Warning", message: "header X is deprecated" },
    ]);
    await expect(
      prismVerdict("GET", "/me", answer(404, { code: "not_found" }, { "sl-violations": onAnswer }), vi.fn()),
    ).rejects.toThrow(/the answer to GET \/me \(404\) violates/);
    const onRequest = JSON.stringify([
      { location: ["request", "query", "limit"], severity: "Warning", message: "deprecated parameter" },
    ]);
    await expect(
      prismVerdict("GET", "/cards", answer(200, {}, { "sl-violations": onRequest }), vi.fn()),
    ).rejects.toThrow(/the app accepted GET \/cards \(200\), but Prism finds the request outside the document/);
    const refused = answer(422, { code: "validation_failed" }, { "sl-violations": onRequest });
    expect(await prismVerdict("GET", "/cards", refused, vi.fn())).toBe(refused);
    await expect(
      prismVerdict("GET", "/me", answer(200, {}, { "sl-violations": "Too many violations! [{" }), vi.fn()),
    ).rejects.toThrow(/Too many violations/);
  });

  it("fails on any other answer of Prism's own", async () => {
    await expect(prismVerdict("GET", "/me", prism("UPSTREAM_NOT_IMPLEMENTED", 501), vi.fn())).rejects.toThrow(
      /Prism's own error UPSTREAM_NOT_IMPLEMENTED/,
    );
  });
});
