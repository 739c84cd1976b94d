import { afterAll, describe, expect, it } from "vitest";
import { ApiError, ERROR_CATALOG, type ErrorCode } from "@/server/errors";
import { setTestEnv } from "@/server/testing/test-db";
import { problemBody, problemResponse } from "./problem";

// Problem bodies (spec "Errors: Problem body"): RFC 9457 with type = {cell_origin}/developers/errors#<code>.

afterAll(() => setTestEnv());

describe("problemBody", () => {
  it("has the spec's fields, with the type URL of this cell's origin", () => {
    setTestEnv();
    const body = problemBody(new ApiError("not_found", "Card x was not found."), "req_1");
    expect(body).toEqual({
      type: "https://api.example.ru/developers/errors#not_found",
      title: "Not found",
      status: 404,
      code: "not_found",
      detail: "Card x was not found.",
      request_id: "req_1",
    });
  });

  it.each([
    ["en", "https://api.example.com"],
    ["id", "https://api.example.id"],
  ])("uses the %s cell's origin on that cell", (cell, origin) => {
    setTestEnv({ CELL: cell });
    expect(problemBody(new ApiError("rate_limited", "Slow down."), "r").type).toBe(
      `${origin}/developers/errors#rate_limited`,
    );
  });

  it("carries each code's fixed title and status from the catalog", () => {
    setTestEnv();
    for (const code of Object.keys(ERROR_CATALOG) as ErrorCode[]) {
      const b = problemBody(new ApiError(code, "x"), "r");
      expect([b.status, b.title, b.code]).toEqual([ERROR_CATALOG[code].status, ERROR_CATALOG[code].title, code]);
    }
  });

  it("adds the code's extras", () => {
    setTestEnv();
    const wrong = problemBody(
      new ApiError("wrong_cell", "Use EN.", { correct_base_url: "https://api.example.com/api/public/v1" }),
      "r",
    );
    expect(wrong.correct_base_url).toBe("https://api.example.com/api/public/v1");
    const suspended = problemBody(
      new ApiError("wallet_suspended", "Top up.", { topup_url: "https://t", balance: null }),
      "r",
    );
    expect(suspended).toMatchObject({ topup_url: "https://t", balance: null });
    const invalid = problemBody(
      new ApiError("validation_failed", "Bad.", { errors: [{ field: "/limit", code: "out_of_range", message: "m" }] }),
      "r",
    );
    expect(invalid.errors).toEqual([{ field: "/limit", code: "out_of_range", message: "m" }]);
  });
});

describe("problemResponse", () => {
  it("answers application/problem+json with the status, X-Request-Id equal to request_id and the error's headers", async () => {
    setTestEnv();
    const res = problemResponse(new ApiError("method_not_allowed", "No.", {}, { allow: "GET, POST" }), "req_abc", {
      "ratelimit-limit": "600",
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("x-request-id")).toBe("req_abc");
    expect(res.headers.get("allow")).toBe("GET, POST");
    expect(res.headers.get("ratelimit-limit")).toBe("600");
    const body = await res.json();
    expect(body.request_id).toBe("req_abc");
    expect(Object.keys(body)).toEqual(["type", "title", "status", "code", "detail", "request_id"]);
  });

  it("keeps its own content type and request id over passed headers", () => {
    setTestEnv();
    const res = problemResponse(new ApiError("bad_request", "x"), "req_real", {
      "content-type": "text/html",
      "x-request-id": "spoofed",
    });
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("x-request-id")).toBe("req_real");
  });
});
