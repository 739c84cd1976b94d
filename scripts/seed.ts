import { parseArgs } from "node:util";
import { openForScript } from "@/db/shared-embedded";
import { seedTenantData } from "@/server/services/seed/seed-data";
import { env } from "@/server/env";

// `npm run seed -- --tenant ID --scale N [--integration ID]`: realistic, deterministic data for a tenant
// (see db/seed-data.ts). Scale 10000 makes 1,000,000 messages.
const { values } = parseArgs({
  options: { tenant: { type: "string" }, scale: { type: "string", default: "1" }, integration: { type: "string" } },
});
const scale = Number(values.scale);
if (!values.tenant || !Number.isInteger(scale) || scale < 1) {
  console.error("Usage: npm run seed -- --tenant ID --scale N [--integration ID]   (N ≥ 1; messages = 100 × N)");
  process.exit(2);
}
const e = env();
const d = await openForScript({ url: e.databaseUrl, pgliteDir: e.pgliteDir });
const started = performance.now();
try {
  const counts = await seedTenantData(d.db, values.tenant, scale, values.integration);
  console.log(
    JSON.stringify({
      tenant_id: values.tenant,
      scale,
      ...counts,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    }),
  );
} finally {
  await d.close();
}
