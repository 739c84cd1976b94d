/** The part of an infinite query (`useInfiniteQuery`) that {@link LoadMoreButton} drives. */
export interface NextPageQuery {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => unknown;
}

/**
 * "Load more" under a list read page by page (the wallet's ledger, paid operations): fetches the next page
 * and shows "Loading…" meanwhile; nothing when the last page is shown.
 */
export function LoadMoreButton({ query }: { query: NextPageQuery }) {
  if (!query.hasNextPage) return null;
  return (
    <button
      type="button"
      className="secondary"
      onClick={() => query.fetchNextPage()}
      disabled={query.isFetchingNextPage}
    >
      {query.isFetchingNextPage ? "Loading…" : "Load more"}
    </button>
  );
}
