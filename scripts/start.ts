import { existsSync } from "node:fs";
import path from "node:path";
import { ensureServerBundle, runBundledServer } from "./server-bundle";

// `npm start`: the app as in production, from the build (`npm run build` first). Our server
// (server/main.ts, with WEB_CONCURRENCY's processes) runs compiled into one module,
// `.next/platform/main.mjs`, made here when missing or older than its sources: running it through tsx
// kept a second, transpiled copy of our modules in memory (scripts/server-bundle.ts).
async function main(): Promise<void> {
  if (!existsSync(path.join(process.cwd(), ".next", "BUILD_ID"))) {
    console.error("No production build: run `npm run build` first (or `npm run demo`, which builds when needed).");
    process.exit(1);
  }
  runBundledServer(await ensureServerBundle("server/main.ts", "main"));
}

void main();
