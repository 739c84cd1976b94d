"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorBox } from "../_components/field-errors";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import { ChatTurn, turnRunning } from "./chat-turn";
import { MessageForm } from "./message-form";

/** The selected session's turns, read every second while one runs, and the message form under them. */
function SessionView({ tenantId, id }: { tenantId: string; id: string }) {
  const trpc = useTRPC();
  const session = useQuery(
    trpc.strategist.session.queryOptions(
      { tenantId, id },
      { refetchInterval: (q) => (q.state.data?.turns.some(turnRunning) ? 1000 : false), staleTime: 0 },
    ),
  );
  const running = session.data?.turns.some(turnRunning) ?? false;
  return (
    <div className="stack" aria-label="Chat session" role="group">
      <QueryState
        isLoading={session.isLoading}
        error={session.error}
        empty={session.data?.turns.length === 0}
        emptyText="No messages yet. Ask about your figures, or what to write next."
      >
        <ul className="plain stack" aria-label="Turns">
          {session.data?.turns.map((t) => (
            <ChatTurn key={t.id} tenantId={tenantId} turn={t} />
          ))}
        </ul>
      </QueryState>
      {session.data && <MessageForm tenantId={tenantId} sessionId={id} running={running} />}
    </div>
  );
}

/**
 * The Chat section (issue 73 item 5): the staff member's own sessions with the strategist (newest first),
 * "New session" (free), and the selected session's turns with the message form. Each turn is paid.
 */
export function ChatSection({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const sessions = useQuery(trpc.strategist.sessions.queryOptions({ tenantId }));
  const [picked, setPicked] = useState<string | null>(null);
  const create = useMutation(
    trpc.strategist.createSession.mutationOptions({
      onSuccess: (s) => {
        setPicked(s.id);
        void qc.invalidateQueries({ queryKey: trpc.strategist.sessions.queryKey({ tenantId }) });
      },
    }),
  );
  const selected = picked ?? sessions.data?.[0]?.id ?? null;
  return (
    <section aria-labelledby="strategist-chat-title">
      <h2 id="strategist-chat-title">Chat</h2>
      <p className="hint">
        Ask the strategist about your figures or what to write next. Your sessions are yours; each answer is paid.
      </p>
      <div className="row">
        <button type="button" disabled={create.isPending} onClick={() => create.mutate({ tenantId })}>
          New session
        </button>
      </div>
      <ErrorBox error={create.error} />
      <QueryState
        isLoading={sessions.isLoading}
        error={sessions.error}
        empty={sessions.data?.length === 0}
        emptyText="No sessions yet: start one with New session."
      >
        <div role="group" aria-label="Chat sessions" className="row">
          {sessions.data?.map((s) => (
            <button
              key={s.id}
              type="button"
              className={s.id === selected ? undefined : "secondary"}
              aria-pressed={s.id === selected}
              onClick={() => setPicked(s.id)}
            >
              {new Date(s.created_at).toLocaleString()}
            </button>
          ))}
        </div>
      </QueryState>
      {selected && <SessionView key={selected} tenantId={tenantId} id={selected} />}
    </section>
  );
}
