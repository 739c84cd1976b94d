import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { intakeRollupState } from "@/db/schema";
import type { Owner } from "../tenant-scope";
import { rollupPresence } from "./daily-series";
import { addDays, dayText } from "./period";

/** What the analytics reads say about intake's data for one owner and period (issue 74 item 3). */
export interface IntakeStatus {
  /** The owner has rollup rows at all. */
  any: boolean;
  /** The owner has rollup rows in the period (else the reads answer `no_data`). */
  inPeriod: boolean;
  /**
   * The last UTC day the rollups are complete through (YYYY-MM-DD): the day before the rollup job last
   * found them complete; null when the owner has no data.
   */
  asOf: string | null;
  /** Spec `data_as_of`: `{intake: asOf}`, or `{}` when intake has no data for the owner (a source without data is absent). */
  dataAsOf: Record<string, string>;
}

/**
 * Intake's data status for the owner's tenant and mode and the period from `from` to `to` (inclusive): two
 * index probes of the rollups and the rollup job's state row (its `updated_at` is when the rollups were last
 * known to hold every event committed before; a job that stops leaves the date behind, as it should).
 */
export async function intakeStatus(db: Db, owner: Owner, from: string, to: string): Promise<IntakeStatus> {
  const [presence, state] = await Promise.all([
    rollupPresence(db, owner, from, to),
    db.select({ at: intakeRollupState.updatedAt }).from(intakeRollupState).where(eq(intakeRollupState.id, 1)),
  ]);
  return statusOf(presence, state[0]?.at ?? null);
}

/**
 * The status from what was read: whether the owner has rollup rows at all and in the period, and when the
 * rollup job last found the rollups complete (`intake_rollup_state.updated_at`; null before its first run).
 */
export function statusOf(presence: { any: boolean; inPeriod: boolean }, at: Date | null): IntakeStatus {
  const asOf = presence.any && at ? addDays(dayText(at.getTime()), -1) : null;
  return { ...presence, asOf, dataAsOf: asOf ? { intake: asOf } : {} };
}

/** `data_through` of a period ending `to`: the period's last day the data is complete through, or null without data. */
export function dataThrough(status: IntakeStatus, to: string): string | null {
  if (!status.asOf) return null;
  return status.asOf < to ? status.asOf : to;
}
