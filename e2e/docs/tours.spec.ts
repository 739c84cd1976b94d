import { expect, test } from "@playwright/test";
import { findTourPages, runTour } from "@/server/testing/doc-tours";
import { prepareTemplate, startTourDemo } from "./tour-demo";

// Docs that work (issue 68 item 2): every tour of the guides (a page marked `<!-- tour -->`: the README,
// docs/api-tour.md, webhooks.md, ai-seller.md, payments.md...) runs as a reader pastes it, each against a
// fresh demo of its own, and fails on an HTTP answer the page does not say to expect
// (docs/architecture.md "Docs that work"; server/testing/doc-tours.ts). The e2e app's own demo is not used:
// earlier specs of the run change its state.

const TOURS = findTourPages(process.cwd());

test.describe.configure({ mode: "serial" });

let template = "";

test.beforeAll(async () => {
  test.setTimeout(300_000);
  template = prepareTemplate();
});

test("the tours include the API tour, webhooks and the AI seller", () => {
  expect(TOURS.map((t) => t.file)).toEqual(
    expect.arrayContaining(["README.md", "docs/api-tour.md", "docs/webhooks.md", "docs/ai-seller.md"]),
  );
});

for (const tour of TOURS) {
  test(`${tour.file} runs as written against a fresh demo`, async () => {
    test.setTimeout(300_000);
    const name = tour.file.replace(/\.md$/, "").replace(/\//g, "-").toLowerCase();
    const demo = await startTourDemo(name, template, tour.env);
    try {
      const result = await runTour(tour, { origin: demo.origin, cwd: demo.cwd, env: demo.shellEnv });
      expect(result.failures, `the tour's output ended with:\n${result.output}`).toEqual([]);
      expect(result.calls).toBeGreaterThan(0);
    } finally {
      await demo.stop();
    }
  });
}
