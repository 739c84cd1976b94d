import type { ReactNode } from "react";

/**
 * A table's box, scrolling sideways on narrow screens. It is a focusable, labelled region so keyboard
 * users can scroll it too (axe's scrollable-region-focusable); `label` names it for screen readers.
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
