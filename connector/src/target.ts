import type { Job, JobOutcome } from "./protocol.js";

/** Where a connector publishes: applies one job and says what happened. */
export interface Target {
  /** `folder`, `wordpress`: shown in the log. */
  readonly name: string;
  /**
   * Publishes the job's article (as a draft or published, per `job.publish_mode`).
   * @returns the outcome to report; a thrown error is reported as `failed` with its message
   */
  apply(job: Job): Promise<JobOutcome>;
}
