"use client";

import { useState } from "react";

/** The keyset pages walked so far in a console list: `cursor` is the page shown (null = the newest). */
export interface KeysetTrail<C> {
  cursor: C | null;
  /** Back to the newest page (after a filter change). */
  reset(): void;
  /** Back one page; null on the newest page. */
  newer: (() => void) | null;
  /** On to the page after `next` (the list's `next` cursor). */
  older(next: C): void;
}

/** Remembers the cursors of the pages walked, so "Newer" can go back without a backwards query. */
export function useKeysetTrail<C>(): KeysetTrail<C> {
  const [trail, setTrail] = useState<(C | null)[]>([null]);
  return {
    cursor: trail[trail.length - 1] ?? null,
    reset: () => setTrail([null]),
    newer: trail.length > 1 ? () => setTrail(trail.slice(0, -1)) : null,
    older: (next) => setTrail([...trail, next]),
  };
}

/** Newer / Older buttons under a list; Older shows only when the list said there is a `next` page. */
export function KeysetPager<C>({ trail, next }: { trail: KeysetTrail<C>; next: C | null | undefined }) {
  return (
    <div className="row">
      {trail.newer && (
        <button type="button" className="secondary" onClick={trail.newer}>
          Newer
        </button>
      )}
      {next && (
        <button type="button" className="secondary" onClick={() => trail.older(next)}>
          Older
        </button>
      )}
    </div>
  );
}
