"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorBox, type ConsoleError } from "../../_components/field-errors";
import { useTRPC } from "../../_components/trpc-provider";

/** The lead's current score as the API's Lead carries it (`score`), or null before the first scoring. */
type LeadScore = { score: number | null; grade: string | null; reason: string | null } | null;

/**
 * The lead's score and, for staff with the right (`view_personal_data`, the right of `leads:score`), the
 * Score button (issue 70 item 6): a paid scoring by the tenant's wallet (the sandbox's in Test mode). The
 * button sends a key made once per scoring and renewed only after a success, so a double submit or a retry
 * of the same click answers the first scoring and charges nothing twice. A refusal (insufficient funds, a
 * spend limit) is shown with the server's words and nothing is charged.
 */
export function ScoreBox({
  tenantId,
  id,
  score,
  price,
  canScore,
}: {
  tenantId: string;
  id: string;
  score: LeadScore;
  /** Price of one scoring, decimal RUB ("2.00"). */
  price: string;
  canScore: boolean;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  // The key of the next scoring: kept across a repeat or a refusal, renewed after a success.
  const [key, setKey] = useState(() => crypto.randomUUID());
  const [error, setError] = useState<ConsoleError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = useMutation(
    trpc.leads.score.mutationOptions({
      onSuccess: (r) => {
        setKey(crypto.randomUUID());
        setError(null);
        setDone(`Scored: ${r.score.grade} (${r.score.score}) for ${r.usage.cost.amount} ${r.usage.cost.currency}.`);
        void qc.invalidateQueries({ queryKey: trpc.leads.get.queryKey() });
      },
      onError: (e) => {
        setDone(null);
        setError(e as ConsoleError);
      },
    }),
  );
  const click = () => run.mutate({ tenantId, id, key });
  return (
    <section aria-label="Lead score">
      <h2>Score</h2>
      <p data-testid="lead-score">
        {score?.grade ? (
          <>
            <strong>
              {score.grade} ({score.score})
            </strong>{" "}
            {score.reason}
          </>
        ) : (
          <span className="hint">Not scored yet.</span>
        )}
      </p>
      {canScore && (
        <div className="row">
          <button type="button" onClick={click} disabled={run.isPending}>
            {run.isPending ? "Scoring…" : "Score"}
          </button>
          <span className="hint">Paid: {price} RUB from the wallet of this mode.</span>
        </div>
      )}
      {done && <p role="status">{done}</p>}
      <ErrorBox error={error} />
    </section>
  );
}
