"use client";

import Link from "next/link";
import { useEffect, useRef } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ErrorBox, type ConsoleError } from "../../../_components/field-errors";
import { useTRPC } from "../../../_components/trpc-provider";

/** How often the page asks for the status of a pending payment, milliseconds. */
const POLL_MS = 2_000;

/**
 * The return page's status check: asks the server to read the payment back from the provider until
 * it is settled, so a payment whose notification never arrived is credited all the same.
 */
export function PaymentStatus({ tenantId, paymentId }: { tenantId: string; paymentId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const check = useMutation(
    trpc.wallet.checkPayment.mutationOptions({
      onSuccess: (p) => {
        if (p.status !== "pending") void qc.invalidateQueries({ queryKey: trpc.wallet.pathKey() });
      },
    }),
  );
  const { mutate } = check;
  const status = check.data?.status;
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    if (check.isPending || status === "succeeded" || status === "canceled") return;
    // A refusal (no such payment, no right) will not change by asking again; an outage may.
    const httpStatus = (check.error as { data?: { httpStatus?: number } } | null)?.data?.httpStatus;
    if (httpStatus !== undefined && httpStatus < 500) return;
    const first = check.data === undefined && !check.isError;
    timer.current = setTimeout(() => mutate({ tenantId, paymentId }), first ? 0 : POLL_MS);
    return () => {
      if (timer.current) clearTimeout(timer.current);
    };
  }, [check.isPending, check.isError, check.error, check.data, status, mutate, tenantId, paymentId]);
  const p = check.data;
  return (
    <>
      <h1>Payment</h1>
      {p ? (
        <>
          <p>
            {p.amount} ₽ via {p.provider}:{" "}
            <strong data-testid="payment-status" role="status">
              {p.status}
            </strong>
          </p>
          {p.status === "pending" && (
            <p className="hint">
              {p.checkFailed
                ? "The payment provider did not answer; checking again…"
                : "Waiting for the payment provider to confirm the payment…"}
            </p>
          )}
          {p.status === "succeeded" && <p className="notice">Paid: the wallet was credited {p.amount} ₽.</p>}
          {p.status === "canceled" && <p className="notice">The payment was canceled; nothing was charged.</p>}
        </>
      ) : (
        <p className="hint">Checking the payment…</p>
      )}
      <ErrorBox error={check.error as ConsoleError | null} />
      <p>
        <Link href={`/console/wallet?tenant=${tenantId}`}>Back to the wallet</Link>
      </p>
    </>
  );
}
