import { describe, expect, it } from "vitest";
import { processCount } from "./cluster";

describe("processCount", () => {
  it("runs WEB_CONCURRENCY processes on PostgreSQL", () => {
    expect(processCount({ webConcurrency: 3, databaseUrl: "postgres://db/app" })).toEqual({ count: 3 });
    expect(processCount({ webConcurrency: 1, databaseUrl: "postgres://db/app" })).toEqual({ count: 1 });
  });

  it("runs one process on the embedded database and says why", () => {
    const r = processCount({ webConcurrency: 2, databaseUrl: undefined });
    expect(r.count).toBe(1);
    expect(r.notice).toMatch(/WEB_CONCURRENCY=2 ignored: the embedded database .* Set DATABASE_URL/);
    expect(processCount({ webConcurrency: 1, databaseUrl: undefined })).toEqual({ count: 1 });
  });
});
