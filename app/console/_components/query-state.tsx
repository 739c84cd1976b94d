"use client";

import type { ReactNode } from "react";

/** Loading, error and empty states shared by console panels. */
export function QueryState({
  isLoading,
  error,
  empty,
  emptyText,
  children,
}: {
  isLoading: boolean;
  error: { message: string } | null;
  empty?: boolean;
  emptyText?: string;
  children: ReactNode;
}) {
  if (isLoading) return <p aria-busy="true">Loading…</p>;
  if (error)
    return (
      <p className="error" role="alert">
        {error.message}
      </p>
    );
  if (empty) return <p className="hint">{emptyText ?? "Nothing here yet."}</p>;
  return <>{children}</>;
}
