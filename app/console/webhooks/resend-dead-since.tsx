"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorBox, type ConsoleError } from "../_components/field-errors";
import { useTRPC } from "../_components/trpc-provider";

const DAY_MS = 24 * 60 * 60 * 1000;

/** `ms` as a `datetime-local` value (`YYYY-MM-DDTHH:mm`) in the browser's zone. */
function localInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * "Resend all dead since …" of one subscription (issue 75 item 3): a moment (default 24 hours ago, in the
 * browser's zone) and a button; every dead delivery created since then starts a new attempt cycle, and the
 * count is shown. `onDone` refreshes the journal.
 */
export function ResendDeadSince({
  tenantId,
  subscriptionId,
  onDone,
}: {
  tenantId: string;
  subscriptionId: string;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const [since, setSince] = useState(() => localInput(Date.now() - DAY_MS));
  const resend = useMutation(trpc.webhooks.resendDeadSince.mutationOptions({ onSuccess: onDone }));
  const valid = !Number.isNaN(new Date(since).getTime());
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        if (valid) resend.mutate({ tenantId, subscriptionId, since: new Date(since).toISOString() });
      }}
    >
      <label>
        Resend all dead since{" "}
        <input type="datetime-local" value={since} required onChange={(e) => setSince(e.target.value)} />
      </label>
      <button type="submit" className="secondary" disabled={resend.isPending || !valid}>
        Resend all dead
      </button>
      {resend.data && (
        <span className="notice" role="status">
          {resend.data.resent === 0
            ? "No dead delivery since then."
            : `${resend.data.resent} dead ${resend.data.resent === 1 ? "delivery" : "deliveries"} queued again.`}
        </span>
      )}
      <ErrorBox error={resend.error as ConsoleError | null} />
    </form>
  );
}
