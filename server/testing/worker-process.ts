// A webhook worker process for tests and the bench: `node --import tsx server/testing/worker-process.ts
// <database url> <ca pem file> [lease ms]`. It is `npm run worker`'s driver with the differences a local
// receiver needs: loopback is allowed (LOOPBACK_RECEIVER_ENV) and the receiver's self-signed certificate
// is trusted. Prints "ready"; SIGTERM stops it gracefully, SIGKILL is what the crash test sends.
import { readFileSync } from "node:fs";
import { openDatabase } from "@/db/client";
import { startLocalDriver } from "@/server/jobs/local-driver";
import { LOOPBACK_RECEIVER_ENV } from "@/server/testing/https-receiver";
import { setTestEnv } from "@/server/testing/test-db";
import { createDeliveryClient } from "@/server/webhook-transport/delivery-client";

const [url, caFile, lease] = process.argv.slice(2);
setTestEnv({ DATABASE_URL: url!, ...LOOPBACK_RECEIVER_ENV, LOG_LEVEL: "warn" });
const d = await openDatabase({ url, poolSize: 10 });
const driver = startLocalDriver(d.db, {
  client: createDeliveryClient({ testCa: readFileSync(caFile!, "utf8") }),
  ...(lease ? { leaseMs: Number(lease) } : {}),
});
console.log("ready");
process.on("SIGTERM", () => {
  setTimeout(() => process.exit(0), 5000).unref(); // a database already dropped must not keep it alive
  void driver
    .stop()
    .then(() => d.close())
    .then(() => process.exit(0));
});
// Never outlive the parent: an orphaned worker would keep loading the machine.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && process.exit(0), 1000).unref();
