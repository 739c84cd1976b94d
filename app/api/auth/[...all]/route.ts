import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/server/auth/auth";
import { handleAuthRequest } from "@/server/auth/handler";

// better-auth's own endpoints (sign-in, sign-out, session) for the console, behind our door: sign-up
// closed, the caller's address from the TCP peer, per-address and per-account sign-in limits.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handler = async (request: Request) => handleAuthRequest(await auth(), request);
export const { GET, POST } = toNextJsHandler(handler);
