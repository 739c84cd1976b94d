"use client";

import { useQuery } from "@tanstack/react-query";
import { Dialog } from "radix-ui";
import { useState } from "react";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";

const when = (iso: string) => new Date(iso).toLocaleString();

/**
 * "Attempts" of one delivery (issue 75 item 2): a dialog listing every HTTP attempt, oldest first, with its
 * time, answer status (or error code), duration, the allow-listed answer headers and the first 2 KB of the
 * answer body. Read when opened, so the journal page never loads attempt logs it does not show.
 */
export function AttemptsDialog({
  tenantId,
  subscriptionId,
  deliveryId,
  eventType,
}: {
  tenantId: string;
  subscriptionId: string;
  deliveryId: string;
  eventType: string;
}) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const d = useQuery({
    ...trpc.webhooks.delivery.queryOptions({ tenantId, subscriptionId, deliveryId }),
    enabled: open,
    // Attempts are added while the journal is open: each opening reads the log afresh.
    staleTime: 0,
  });
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <button type="button" className="secondary" aria-label={`Attempts of delivery ${deliveryId}`}>
          Attempts
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="console dialog-content attempts-dialog">
          <Dialog.Title>Attempts of {eventType}</Dialog.Title>
          <Dialog.Description className="hint">
            Every HTTP attempt of delivery {deliveryId}, oldest first. Answer headers are limited to content-type,
            retry-after, date and server; bodies to their first 2 KB.
          </Dialog.Description>
          <QueryState
            isLoading={d.isLoading}
            error={d.error}
            empty={d.data?.attempts.length === 0}
            emptyText="No attempt yet: the delivery is waiting for its first one."
          >
            <ol className="attempts">
              {d.data?.attempts.map((a, i) => (
                <li key={`${a.attempted_at}-${i}`} aria-label={`Attempt ${i + 1}`}>
                  <div className="row">
                    <strong>Attempt {i + 1}</strong>
                    <span>{when(a.attempted_at)}</span>
                    {a.response_status !== null && <span className="badge">HTTP {a.response_status}</span>}
                    {a.error && <code>{a.error}</code>}
                    {a.duration_ms !== null && <span className="hint">{a.duration_ms} ms</span>}
                  </div>
                  {a.response_headers && Object.keys(a.response_headers).length > 0 && (
                    <dl className="attempt-headers">
                      {Object.entries(a.response_headers).map(([name, value]) => (
                        <div key={name}>
                          <dt>{name}</dt>
                          <dd>
                            <code>{value}</code>
                          </dd>
                        </div>
                      ))}
                    </dl>
                  )}
                  {a.response_body !== null ? (
                    a.response_body === "" ? (
                      <p className="hint">Empty answer body.</p>
                    ) : (
                      <pre aria-label={`Answer body of attempt ${i + 1}`}>{a.response_body}</pre>
                    )
                  ) : (
                    <p className="hint">No answer: the connection failed, was refused or timed out.</p>
                  )}
                </li>
              ))}
            </ol>
          </QueryState>
          <div className="row dialog-actions">
            <Dialog.Close asChild>
              <button type="button" className="secondary">
                Close
              </button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
