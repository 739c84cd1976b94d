import { inngestHandlers } from "@/inngest/serve";

// The Inngest door: served only under JOBS_DRIVER=inngest, 404 otherwise (inngest/serve.ts).
export const dynamic = "force-dynamic";
export const { GET, POST, PUT } = inngestHandlers;
