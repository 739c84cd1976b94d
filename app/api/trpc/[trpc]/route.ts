import { handleTrpcRequest } from "@/server/trpc/http-door";

// The console's tRPC door: cross-site writes, batch size and body size are checked there first.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export { handleTrpcRequest as GET, handleTrpcRequest as POST };
