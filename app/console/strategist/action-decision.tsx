"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { StrategistAction } from "@/server/schemas/strategist";
import { ErrorBox } from "../_components/field-errors";
import { useTRPC } from "../_components/trpc-provider";

/**
 * Confirm and Cancel of a proposed action (issue 73 item 5), and what a decision did: a confirmed
 * `propose_topic` is executed at once and names the topic it created (in Topics, proposed, or
 * `duplicate` when an open topic has its title), or failed with its error. Every strategist list is read
 * again after a decision.
 */
export function ActionDecision({ tenantId, action }: { tenantId: string; action: StrategistAction }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.strategist.pathKey() });
  const confirm = useMutation(trpc.strategist.confirmAction.mutationOptions({ onSuccess: refresh }));
  const cancel = useMutation(trpc.strategist.cancelAction.mutationOptions({ onSuccess: refresh }));
  const busy = confirm.isPending || cancel.isPending;
  const name = action.title ?? "untitled action";
  // The decision's answer, else the action as listed (read again after the decision).
  const a = confirm.data ?? cancel.data ?? action;
  return (
    <div data-testid="action-decision">
      {a.status === "proposed" && (
        <div className="row">
          <button
            type="button"
            disabled={busy}
            aria-label={`Confirm ${name}`}
            onClick={() => confirm.mutate({ tenantId, id: action.id })}
          >
            Confirm
          </button>
          <button
            type="button"
            className="secondary"
            disabled={busy}
            aria-label={`Cancel ${name}`}
            onClick={() => cancel.mutate({ tenantId, id: action.id })}
          >
            Cancel
          </button>
        </div>
      )}
      {a.status === "executed" && a.result && (
        <span className="hint" role={confirm.data ? "status" : undefined}>
          Topic created: <ActionTopic tenantId={tenantId} topicId={a.result.topic_id} />
        </span>
      )}
      {a.status === "failed" && a.error && (
        <p className="error" role="alert" style={{ margin: 0 }}>
          {a.error.message}
        </p>
      )}
      <ErrorBox error={confirm.error ?? cancel.error} />
    </div>
  );
}

/** The title and status of the topic an executed action created (its id while it is read). */
function ActionTopic({ tenantId, topicId }: { tenantId: string; topicId: string }) {
  const trpc = useTRPC();
  const topic = useQuery(trpc.strategist.topic.queryOptions({ tenantId, id: topicId }));
  return topic.data ? (
    <>
      “{topic.data.title ?? "Untitled topic"}” ({topic.data.status})
    </>
  ) : (
    <code>{topicId}</code>
  );
}
