import "server-only";
import { dehydrate, QueryClient } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { headers } from "next/headers";
import { cache } from "react";
import { createContext } from "./init";
import { appRouter } from "./root";

/** One QueryClient per server render. */
export const getQueryClient = cache(() => new QueryClient({ defaultOptions: { queries: { staleTime: 30_000 } } }));

/** tRPC options for server components: prefetch queries for the first paint, then hydrate. */
export const trpcServer = createTRPCOptionsProxy({
  ctx: async () => createContext(await headers()),
  router: appRouter,
  queryClient: getQueryClient,
});

/** The prefetched cache, for `<HydrationBoundary state={...}>`. */
export function dehydrated() {
  return dehydrate(getQueryClient());
}
