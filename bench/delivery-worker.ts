// One webhook worker process for the deliveries scenario of `npm run bench`:
// `node --import tsx bench/delivery-worker.ts <database url> <ca pem file>`. It is `npm run worker`'s
// driver with one difference the bench needs: the local HTTPS receiver is on loopback with a self-signed
// certificate, so loopback is allowed (test setting) and that certificate is trusted. Prints "ready".
import { readFileSync } from "node:fs";
import { openDatabase } from "@/db/client";
import { startLocalDriver } from "@/server/jobs/local-driver";
import { setTestEnv } from "@/server/testing/test-db";
import { createDeliveryClient } from "@/server/webhooks/delivery-client";

const [url, caFile] = process.argv.slice(2);
setTestEnv({ DATABASE_URL: url, WEBHOOK_ALLOW_LOOPBACK: "true", WEBHOOK_ALLOW_PRIVATE_CIDRS: "127.0.0.0/8,::1/128", LOG_LEVEL: "warn" });
const d = await openDatabase({ url, poolSize: 10 });
const driver = startLocalDriver(d.db, { client: createDeliveryClient({ testCa: readFileSync(caFile, "utf8") }) });
console.log("ready");
process.on("SIGTERM", () => {
  setTimeout(() => process.exit(0), 5000).unref(); // a bench database already dropped must not keep it alive
  void driver.stop().then(() => d.close()).then(() => process.exit(0));
});
// Never outlive the bench: an orphaned worker would keep loading the machine.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && process.exit(0), 1000).unref();
