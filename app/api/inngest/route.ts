import { serve } from "inngest/next";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest";

// The Inngest door (JOBS_DRIVER=inngest): Inngest calls here to run the functions' steps.
export const dynamic = "force-dynamic";
export const { GET, POST, PUT } = serve({ client: inngest, functions });
