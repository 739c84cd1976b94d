import { z } from "zod";

// Shapes of the keyset positions that list routes put in their cursors (RouteDef `list.position`). Only
// the app secret signs a cursor, so these guard against our own mistakes (an old cursor format after a
// deploy): a position that does not fit answers 422 on `/cursor`, never a 500 from the query.

const instant = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "not a timestamp");
const id = z.uuid();

/** `(updated_at, id)` or `(created_at, id)`: the spec's default list order. */
export const InstantIdPosition = z.tuple([instant, id]);
/** Cards: `(sort, created_at, id)`. */
export const CardListPosition = z.tuple([z.number().int(), instant, id]);
/** Articles: `(updated_at desc nulls last, id desc)`. */
export const ArticleListPosition = z.tuple([instant.nullable(), id]);
/** Strategist topics: `(trend_score desc nulls last, id desc)`. */
export const TopicListPosition = z.tuple([z.number().nullable(), id]);
