import { Inngest } from "inngest";

/**
 * The Inngest client of the app (`JOBS_DRIVER=inngest`). Its functions in `inngest/functions` are thin
 * loops over the same steps the local driver runs (server/jobs), so both drivers behave alike.
 */
export const inngest = new Inngest({ id: "platform-public-api" });
