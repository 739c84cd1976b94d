import { describe, expect, it } from "vitest";
import { ConnectorClient, type Job } from "./protocol.js";
import { FatalError, Runner } from "./runner.js";

// The connector's loop against a fake platform (a fetch function): backoff while the platform is down,
// one log line per job with its result reported, and a refused token ending the run.

const JOB: Job = {
  id: "0b8f1a52-7c3d-4e2f-9a61-5d4c3b2a1f00",
  version: 2,
  lease_id: "lease_1",
  lease_until: new Date(Date.now() + 60_000).toISOString(),
  publish_mode: "publish",
  livemode: true,
  site: { id: "5e0c2b1a-1111-4222-8333-944455556666", domain: "blog.example.com" },
  article: {
    id: "7b0c52a4-6c1e-4a8e-9f3b-2d6f2c1a9e01",
    title: "T",
    slug: "t",
    locale: null,
    keyword: null,
    meta_title: null,
    meta_description: null,
    cover_image_url: null,
    published_at: null,
    updated_at: null,
    html: "<p>x</p>",
    markdown: "x",
  },
};

describe("Runner", () => {
  it("backs off while the platform is down, then applies and reports a job once, one line for it", async () => {
    const calls: string[] = [];
    const answers: (() => Response)[] = [
      () => {
        throw new TypeError("fetch failed");
      },
      () =>
        new Response(JSON.stringify({ code: "service_unavailable" }), { status: 503, headers: { "retry-after": "0" } }),
      () => Response.json(JOB),
      () => Response.json({ id: JOB.id, state: "applied", published_url: "https://blog.example.com/t", error: null }),
      () => new Response(null, { status: 204 }),
    ];
    const fake = (async (url: string, init: RequestInit) => {
      calls.push(`${new URL(url).pathname}${new URL(url).search} ${init.body ?? ""}`.trim());
      expect((init.headers as Record<string, string>).authorization).toBe("Bearer sct_test");
      return answers.shift()!();
    }) as unknown as typeof fetch;
    const lines: string[] = [];
    const runner = new Runner({
      client: new ConnectorClient("https://api.example.ru/", "sct_test", fake),
      target: { name: "fake", apply: async () => ({ state: "applied", published_url: "https://blog.example.com/t" }) },
      waitSeconds: 0,
      once: true,
      maxBackoffMs: 5,
      log: (l) => lines.push(l),
    });
    await runner.run();
    expect(calls).toEqual([
      "/api/connector/v1/jobs/claim?wait=0",
      "/api/connector/v1/jobs/claim?wait=0",
      "/api/connector/v1/jobs/claim?wait=0",
      `/api/connector/v1/jobs/${JOB.id}/result {"lease_id":"lease_1","state":"applied","published_url":"https://blog.example.com/t"}`,
      "/api/connector/v1/jobs/claim?wait=0",
    ]);
    expect(lines.filter((l) => l.includes("claim failed"))).toHaveLength(2);
    expect(
      lines.filter((l) => l.includes(`job ${JOB.id} t v2 publish -> fake: applied https://blog.example.com/t`)),
    ).toHaveLength(1);
    expect(lines.join("\n")).not.toContain("sct_test");

    const refused = new Runner({
      client: new ConnectorClient("https://api.example.ru", "sct_revoked", (async () =>
        Response.json({ code: "invalid_api_key", detail: "revoked" }, { status: 401 })) as unknown as typeof fetch),
      target: { name: "fake", apply: async () => ({ state: "applied" }) },
      log: () => {},
    });
    await expect(refused.run()).rejects.toBeInstanceOf(FatalError);
  });
});
