import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { staleBuildReason } from "./ensure-build";

// `npm run demo` serves the production build, rebuilt when there is none or a source is newer (issue 19 item 1).

let root: string;
const write = (file: string, atSec: number) => {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), "x");
  utimesSync(path.join(root, file), atSec, atSec);
};
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("staleBuildReason", () => {
  it("asks for a build when there is none, and for none while the build is newer than every source", () => {
    root = mkdtempSync(path.join(tmpdir(), "build-"));
    write("app/page.tsx", 1_000);
    write("server/deep/er/service.ts", 1_000);
    expect(staleBuildReason(root)).toBe("no production build yet");
    write(".next/BUILD_ID", 2_000);
    expect(staleBuildReason(root)).toBeNull();
  });

  it("asks again when a source of the app changes after the build, but not for a test file or other folders", () => {
    root = mkdtempSync(path.join(tmpdir(), "build-"));
    write("app/page.tsx", 1_000);
    write(".next/BUILD_ID", 2_000);
    write("server/lib/x.test.ts", 3_000);
    write("server/testing/api-client.ts", 3_000);
    write("e2e/console/a.spec.ts", 3_000);
    write("sdk/src/client.ts", 3_000);
    expect(staleBuildReason(root)).toBeNull();
    write("server/deep/er/service.ts", 3_000);
    expect(staleBuildReason(root)).toBe("sources changed since the last build");
    write(".next/BUILD_ID", 4_000);
    write("next.config.ts", 5_000);
    expect(staleBuildReason(root)).toBe("sources changed since the last build");
  });
});
