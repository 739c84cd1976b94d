"use client";

import type { StrategistTurn } from "@/server/schemas/strategist-writes";
import { ActionDecision } from "./action-decision";

/** A turn is unfinished while its operation is queued or running. */
export const turnRunning = (t: Pick<StrategistTurn, "status">) => t.status === "queued" || t.status === "running";

/**
 * One chat turn (issue 73 item 5): the staff member's message, the strategist's reply, what the turn cost
 * ("running…" until it finishes; a failed turn shows its error and cost nothing), and the topics it
 * proposed, each with Confirm and Cancel.
 */
export function ChatTurn({ tenantId, turn }: { tenantId: string; turn: StrategistTurn }) {
  const running = turnRunning(turn);
  return (
    <li className="card" data-testid="strategist-turn" aria-busy={running}>
      <p style={{ margin: "0 0 6px" }}>
        <strong>You:</strong> {turn.content}
      </p>
      {turn.reply && (
        <div data-testid="strategist-reply">
          <strong>Strategist:</strong>
          <p style={{ margin: "2px 0 6px", whiteSpace: "pre-wrap" }}>{turn.reply}</p>
        </div>
      )}
      <p className="hint" data-testid="turn-cost" style={{ margin: 0 }}>
        {running
          ? "Cost: running…"
          : turn.usage
            ? `Cost: ${turn.usage.cost.amount} ${turn.usage.cost.currency} (${turn.usage.model})`
            : "Cost: nothing charged"}
      </p>
      {turn.status === "failed" && (
        <p className="error" role="alert" style={{ margin: "6px 0 0" }}>
          {turn.error?.message ?? "The strategist could not answer; nothing was charged."}
        </p>
      )}
      {turn.actions.length > 0 && (
        <>
          <h4>Proposed</h4>
          <ul className="plain" aria-label="Proposed actions">
            {turn.actions.map((a) => (
              <li key={a.id} data-testid="turn-action" style={{ marginBottom: 6 }}>
                {a.title ?? "Untitled action"} <span className={`badge ${a.status}`}>{a.status}</span>
                <ActionDecision tenantId={tenantId} action={a} />
              </li>
            ))}
          </ul>
        </>
      )}
    </li>
  );
}
