import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generationJobs, operations } from "@/db/schema";
import { ApiError } from "@/server/errors";
import { makeStaff, makeTenant, type TenantFixture } from "@/server/testing/fixtures";
import { openTestDatabase } from "@/server/testing/test-db";
import { createCaller } from "./root";

// The console's editorial profile and "Generate article" procedures (issue 72 item 5), as a member with
// no right: the profile saved through the form's procedure (the profile under its own key beside
// `tenantId`) reads back as saved; a bad source URL is refused; an order before the profile has a niche is
// 409 editorial_profile_required. Runs on PGlite and PostgreSQL.

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let t: TenantFixture;
let staff: { id: string; email: string; name: string };
const caller = () => createCaller({ db: db.db, staff });

beforeAll(async () => {
  db = await openTestDatabase();
  t = await makeTenant(db.db);
  staff = { id: await makeStaff(db.db, t.tenantId, []), email: "m@x.example", name: "M" };
});
afterAll(async () => db.drop());

describe("the editorial profile in the console", () => {
  it("refuses an order without a niche, then saves the whole profile and reads it back", async () => {
    const tenantId = t.tenantId;
    const order = { keyword: "trail shoes", target_words: 600 };
    const refused = await caller()
      .articleGeneration.generate({ tenantId, key: crypto.randomUUID(), order })
      .catch((e: TRPCError) => [e.code, e.cause instanceof ApiError ? e.cause.code : null]);
    expect(refused).toEqual(["CONFLICT", "editorial_profile_required"]);

    const profile = {
      niche: " trail running shoes ",
      audience: null,
      tone: "calm",
      topic_sources: ["wordstat" as const],
      source_urls: ["https://example.com/guide"],
      avoid: ["cheapest", "Cheapest", "best ever"],
      example_text: "We test every pair.",
      locale: "en-GB",
    };
    const saved = await caller().articleGeneration.saveProfile({ tenantId, profile });
    expect(saved).toMatchObject({ niche: "trail running shoes", avoid: ["cheapest", "best ever"], presentation: null });
    expect(await caller().articleGeneration.profile({ tenantId })).toEqual(saved);

    const bad = await caller()
      .articleGeneration.saveProfile({ tenantId, profile: { ...profile, source_urls: ["ftp://x.example/"] } })
      .catch((e: TRPCError) => e.code);
    expect(bad).toBe("BAD_REQUEST");
    expect((await caller().articleGeneration.profile({ tenantId })).source_urls).toEqual(["https://example.com/guide"]);
  });
});

describe("Generate article in the console", () => {
  it("quotes the hold, orders once per click key (a repeat answers the same job), and pays from the live wallet", async () => {
    const tenantId = t.tenantId;
    await caller().articleGeneration.saveProfile({ tenantId, profile: { niche: "trail shoes" } });
    const quote = await caller().articleGeneration.quote({ tenantId, target_words: 800 });
    expect(quote.model).toBe("offline-writer-1");
    const key = crypto.randomUUID();
    const order = { keyword: "trail shoes for mud", target_words: 800 };
    const first = await caller().articleGeneration.generate({ tenantId, key, order });
    const again = await caller().articleGeneration.generate({ tenantId, key, order });
    expect(again).toEqual(first);
    expect(first.operation).toMatchObject({ type: "article.generation", status: "queued" });
    const [op] = await db.db.select().from(operations).where(eq(operations.id, first.operation.id));
    expect(op).toMatchObject({ staffUserId: staff.id, integrationId: null, livemode: true, holdOpen: true });
    expect(op!.holdMinor.toString()).toBe((Number(quote.max_cost.amount) * 100).toFixed(0));
    const jobs = await db.db.select().from(generationJobs).where(eq(generationJobs.tenantId, tenantId));
    expect(jobs.filter((j) => j.consoleKey === key)).toHaveLength(1);
    expect((await caller().articleGeneration.job({ tenantId, id: first.jobId })).status).toBe("queued");
  });
});
