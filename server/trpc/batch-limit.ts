/**
 * Most procedures in one batched console call. The server refuses longer batches
 * (server/trpc/http-door.ts) and the console's client link never sends them
 * (app/console/_components/trpc-provider.tsx), so only a hand-made call meets the limit.
 */
export const MAX_TRPC_BATCH = 20;
