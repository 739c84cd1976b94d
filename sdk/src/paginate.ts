/** One page of a list answer (spec "Common query parameters"): `next_cursor` null ends the list. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * A list that pages by itself (spec "Limits: Pagination rules"). Nothing is requested until it is
 * iterated; each page is one request with the list's query and the previous page's `next_cursor`.
 *
 * ```ts
 * for await (const card of client.cards.list({ limit: 100 })) console.log(card.code);
 * for await (const page of client.leads.list({ status: "won" }).pages()) await upsert(page.data);
 * ```
 *
 * A walk that outlives its cursor (24 hours) or changes filters fails with ApiError `validation_failed`
 * on `/cursor`: start again without one. Records changed during a walk may come again with a newer
 * `updated_at`, so treat items as upserts by `id`.
 */
export class Paginated<T> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
    private readonly startCursor?: string,
  ) {}

  /** Every page in order, starting at the query's `cursor` when it gave one. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor = this.startCursor;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (!page.next_cursor) return;
      // A cursor that does not move would walk forever; the API never sends one, a broken proxy might.
      if (page.next_cursor === cursor) throw new Error(`list paging stopped: the answer repeated cursor ${cursor}`);
      cursor = page.next_cursor;
    }
  }

  /** Every item of every page, in the list's order. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** The first page only (one request). */
  firstPage(): Promise<Page<T>> {
    return this.fetchPage(this.startCursor);
  }

  /**
   * Collects items into an array, at most `max` (default 10,000, so that a forgotten filter cannot
   * exhaust memory); stops requesting pages once it has them.
   */
  async toArray(opts: { max?: number } = {}): Promise<T[]> {
    const max = opts.max ?? 10_000;
    const out: T[] = [];
    if (max <= 0) return out;
    for await (const item of this) {
      out.push(item);
      if (out.length >= max) break;
    }
    return out;
  }
}
