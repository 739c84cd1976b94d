"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { TURN_CONTENT_MAX } from "@/server/schemas/strategist-writes";
import { GenerationError, isTransient, type OrderError } from "../articles/generation-error";
import { useTRPC } from "../_components/trpc-provider";

/**
 * The chat's "Message" and Send (issue 73 item 5): a paid turn. It shows the most a turn can cost before
 * sending; Send is disabled while a turn of the session runs (one at a time). Each Send makes a fresh click
 * key; "Try again" after a network failure or a 5xx sends the same message with the same key, so a click that
 * did reach the server is neither sent nor charged twice. A refusal shows as the console's errors (402 with
 * a link to the wallet).
 */
export function MessageForm({
  tenantId,
  sessionId,
  running,
}: {
  tenantId: string;
  sessionId: string;
  running: boolean;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [content, setContent] = useState("");
  const [last, setLast] = useState<{ clickKey: string; content: string } | null>(null);
  const quote = useQuery(trpc.strategist.quote.queryOptions({ tenantId }));
  const send = useMutation(
    trpc.strategist.sendTurn.mutationOptions({
      onSuccess: () => {
        setContent("");
        void qc.invalidateQueries({ queryKey: trpc.strategist.session.queryKey({ tenantId, id: sessionId }) });
      },
    }),
  );
  const error = send.error as OrderError | null;
  const empty = !content.trim();
  const go = (click: { clickKey: string; content: string }) => send.mutate({ tenantId, sessionId, ...click });
  return (
    <form
      className="stack wide"
      aria-label="Send a message to the strategist"
      onSubmit={(e) => {
        e.preventDefault();
        if (empty || running) return;
        const click = { clickKey: crypto.randomUUID(), content };
        setLast(click);
        go(click);
      }}
    >
      <label>
        Message
        <textarea rows={3} maxLength={TURN_CONTENT_MAX} value={content} onChange={(e) => setContent(e.target.value)} />
      </label>
      <p className="notice" data-testid="turn-quote" aria-live="polite" style={{ margin: 0 }}>
        {quote.data ? (
          <>
            <strong>
              Up to {quote.data.max_cost.amount} {quote.data.max_cost.currency}
            </strong>{" "}
            a turn from the wallet of this mode ({quote.data.model}): held when you send, and only what the answer used
            is charged; a failed turn costs nothing.
          </>
        ) : quote.error ? (
          `The cost cannot be read: ${quote.error.message}`
        ) : (
          "Reading the cost…"
        )}
      </p>
      <GenerationError tenantId={tenantId} error={error} />
      <div className="row">
        <button type="submit" disabled={send.isPending || running || empty}>
          Send
        </button>
        {error && isTransient(error) && last && (
          <button type="button" className="secondary" disabled={send.isPending || running} onClick={() => go(last)}>
            Try again
          </button>
        )}
        {running && <span className="hint">The strategist is answering; send the next message after it.</span>}
        {send.isPending && <span className="hint">Sending…</span>}
      </div>
    </form>
  );
}
