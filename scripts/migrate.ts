import { openDatabase } from "@/db/client";
import { env } from "@/server/env";

// `npm run db:migrate`: applies the committed migrations once (PostgreSQL: under an advisory lock, so
// several instances deploying together cannot race). The app also migrates on start.
const e = env();
const d = await openDatabase({ url: e.databaseUrl, dir: e.pgliteDir, migrate: true });
await d.close();
console.log(`Migrations applied (${d.kind}).`);
