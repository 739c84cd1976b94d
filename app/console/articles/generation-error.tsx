"use client";

import Link from "next/link";
import { ErrorBox, type ConsoleError } from "../_components/field-errors";

/** A console error with the HTTP status tRPC adds to its data. */
export type OrderError = ConsoleError & { data?: ConsoleError["data"] & { httpStatus?: number } };

/**
 * True when a refused order may be sent again as it was (the same key): the network failed, or the
 * server answered 5xx (503 `upstream_unavailable`). A 4xx is the order's or the account's problem.
 */
export function isTransient(e: OrderError): boolean {
  const status = e.data?.httpStatus;
  return status === undefined || status >= 500;
}

/**
 * Why "Generate article" was refused, with the way out: no niche in the profile (409
 * `editorial_profile_required`) links the editorial profile page; a 402 (not enough money, a spend limit,
 * a suspended wallet) links the wallet. Other errors show as the console's error box.
 */
export function GenerationError({ tenantId, error }: { tenantId: string; error: OrderError | null }) {
  if (!error) return null;
  const q = `?tenant=${tenantId}`;
  if (error.data?.code === "editorial_profile_required")
    return (
      <div className="error" role="alert">
        <p style={{ margin: 0 }}>
          An article is written from your editorial profile, and it has no niche yet.{" "}
          <Link href={`/console/articles/profile${q}`}>Fill in the editorial profile</Link>, then order again.
        </p>
      </div>
    );
  if (error.data?.httpStatus === 402)
    return (
      <div className="error" role="alert">
        <p style={{ margin: 0 }}>
          {error.message} <Link href={`/console/wallet${q}`}>Open the wallet</Link> to top it up or check its limits.
        </p>
      </div>
    );
  return <ErrorBox error={error} />;
}
