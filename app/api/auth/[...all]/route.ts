import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/server/auth/auth";

// better-auth's own endpoints (sign-in, sign-out, session) for the console.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handler = async (request: Request) => (await auth()).handler(request);
export const { GET, POST } = toNextJsHandler(handler);
