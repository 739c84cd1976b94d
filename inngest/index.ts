import { deliverWebhook } from "./functions/deliver-webhook";
import { intakeRollup } from "./functions/intake-rollup";
import { keyExpiryNotices } from "./functions/key-expiry";
import { resumeDeliveries } from "./functions/resume-deliveries";
import { retentionCleanup } from "./functions/retention";
import { runOperationFunction, runTestOperationFunction, sweepOperations } from "./functions/run-operation";
import { strategistReportsDaily } from "./functions/strategist-reports";
import { sweepDeliveries } from "./functions/sweep-deliveries";

/** Every Inngest function of the app, served at `/api/inngest`. */
export const functions = [
  deliverWebhook,
  resumeDeliveries,
  sweepDeliveries,
  keyExpiryNotices,
  retentionCleanup,
  strategistReportsDaily,
  intakeRollup,
  runOperationFunction,
  runTestOperationFunction,
  sweepOperations,
];
