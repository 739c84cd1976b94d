"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { ConsoleError } from "../_components/field-errors";
import { ErrorBox } from "../_components/field-errors";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import { DeliveriesPanel } from "./deliveries-panel";
import { PausedBanners } from "./paused-banner";
import { SecretBox } from "./secret-box";
import { SubscriptionForm } from "./subscription-form";
import { TableWrap } from "../_components/table-wrap";
import { ConfirmDialog } from "../_components/confirm-dialog";

/** Webhook subscriptions of the chosen integration: list, create, edit, pause/resume, rotate, test, delete. */
export function WebhooksPanel({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const integrations = useQuery(trpc.integrations.list.queryOptions({ tenantId }));
  const overview = useQuery(trpc.tenants.overview.queryOptions({ tenantId }));
  const [picked, setPicked] = useState<string | null>(null);
  const integrationId = picked ?? integrations.data?.[0]?.id ?? null;
  const canManage = overview.data?.rights.includes("manage_webhooks") ?? false;
  return (
    <>
      <h1>Webhooks</h1>
      <QueryState
        isLoading={integrations.isLoading}
        error={integrations.error}
        empty={integrations.data?.length === 0}
        emptyText="No integrations yet. Webhook subscriptions belong to an integration; create one first."
      >
        <label>
          Integration{" "}
          <select value={integrationId ?? ""} onChange={(e) => setPicked(e.target.value)}>
            {integrations.data?.map((i) => (
              <option key={i.id} value={i.id}>
                {i.name} ({i.status})
              </option>
            ))}
          </select>
        </label>
        {overview.data && !canManage && (
          <p className="hint">Webhook subscriptions need the manage_webhooks right in this tenant.</p>
        )}
        {canManage && integrationId && (
          <Subscriptions key={integrationId} tenantId={tenantId} integrationId={integrationId} />
        )}
      </QueryState>
    </>
  );
}

function Subscriptions({ tenantId, integrationId }: { tenantId: string; integrationId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(trpc.webhooks.list.queryOptions({ tenantId, integrationId }));
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey({ tenantId, integrationId }) });
  const [secret, setSecret] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [journal, setJournal] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: (r) => {
        setSecret(r.secret);
        void refresh();
      },
    }),
  );
  const update = useMutation(
    trpc.webhooks.update.mutationOptions({
      onSuccess: () => {
        setEditing(null);
        void refresh();
      },
    }),
  );
  const setStatus = useMutation(trpc.webhooks.setStatus.mutationOptions({ onSuccess: () => void refresh() }));
  const rotate = useMutation(
    trpc.webhooks.rotateSecret.mutationOptions({
      onSuccess: (r) => {
        setSecret(r.secret);
        void refresh();
      },
    }),
  );
  const test = useMutation(
    trpc.webhooks.sendTest.mutationOptions({
      onSuccess: (r) => setNotice(`Test event ${r.eventId} queued; it shows in the journal.`),
    }),
  );
  const remove = useMutation(
    trpc.webhooks.remove.mutationOptions({
      onSuccess: (r) => {
        if (journal === r.id) setJournal(null);
        void refresh();
      },
    }),
  );
  const actionError = (setStatus.error ?? rotate.error ?? test.error ?? remove.error) as ConsoleError | null;
  const busy = setStatus.isPending || rotate.isPending || test.isPending || remove.isPending;
  const editedRow = list.data?.find((w) => w.id === editing);
  return (
    <>
      {secret && <SecretBox secret={secret} onDone={() => setSecret(null)} />}
      {list.data && <PausedBanners tenantId={tenantId} integrationId={integrationId} webhooks={list.data} />}
      <h2>Subscriptions</h2>
      <QueryState
        isLoading={list.isLoading}
        error={list.error}
        empty={list.data?.length === 0}
        emptyText="No subscriptions for this integration yet."
      >
        <TableWrap label="Subscriptions">
          <table>
            <thead>
              <tr>
                <th>URL</th>
                <th>Events</th>
                <th>Status</th>
                <th>Personal data</th>
                <th>Old secret signs until</th>
                <th>
                  <span className="hint">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data?.map((w) => (
                <tr key={w.id}>
                  <td>
                    <code>{w.url}</code>
                    {w.description && <div className="hint">{w.description}</div>}
                  </td>
                  <td>{w.events.join(", ")}</td>
                  <td>
                    <span className={`badge ${w.status}`}>{w.status}</span>
                  </td>
                  <td>{w.include_pii ? "included" : "no"}</td>
                  <td>
                    {w.previous_secret_expires_at ? (
                      new Date(w.previous_secret_expires_at).toLocaleString()
                    ) : (
                      <span className="hint">no rotation window</span>
                    )}
                  </td>
                  <td>
                    <div className="row">
                      <button type="button" className="secondary" onClick={() => setEditing(w.id)}>
                        Edit
                      </button>
                      <button
                        type="button"
                        className="secondary"
                        disabled={busy}
                        onClick={() =>
                          setStatus.mutate({
                            tenantId,
                            subscriptionId: w.id,
                            status: w.status === "active" ? "paused" : "active",
                          })
                        }
                      >
                        {w.status === "active" ? "Pause" : "Resume"}
                      </button>
                      <ConfirmDialog
                        trigger={
                          <button type="button" className="secondary" disabled={busy}>
                            Rotate secret
                          </button>
                        }
                        title="Issue a new signing secret?"
                        description="The current one keeps signing for 24 hours, so receivers can switch."
                        confirmLabel="Rotate secret"
                        destructive={false}
                        onConfirm={() => rotate.mutate({ tenantId, subscriptionId: w.id })}
                      />
                      <button
                        type="button"
                        className="secondary"
                        disabled={busy || w.status !== "active"}
                        title={w.status === "active" ? undefined : "Test deliveries need an active subscription"}
                        onClick={() => test.mutate({ tenantId, subscriptionId: w.id })}
                      >
                        Send test
                      </button>
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => setJournal(w.id)}
                        aria-pressed={journal === w.id}
                      >
                        Journal
                      </button>
                      <ConfirmDialog
                        trigger={
                          <button
                            type="button"
                            className="danger"
                            aria-label={`Delete subscription ${w.url}`}
                            disabled={busy}
                          >
                            Delete
                          </button>
                        }
                        title={`Delete the subscription to ${w.url}?`}
                        description="Its delivery journal is deleted with it."
                        confirmLabel="Delete subscription"
                        onConfirm={() => remove.mutate({ tenantId, subscriptionId: w.id })}
                      />
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
      <ErrorBox error={actionError} />
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {editedRow && (
        <>
          <h2>Edit subscription</h2>
          <SubscriptionForm
            key={editedRow.id}
            initial={editedRow}
            submitLabel="Save changes"
            pending={update.isPending}
            error={update.error as ConsoleError | null}
            onSubmit={(fields) => update.mutate({ tenantId, subscriptionId: editedRow.id, ...fields })}
            onCancel={() => {
              setEditing(null);
              update.reset();
            }}
          />
        </>
      )}
      {journal && <DeliveriesPanel key={journal} tenantId={tenantId} subscriptionId={journal} />}
      <h2>Create a subscription</h2>
      <SubscriptionForm
        submitLabel="Create subscription"
        pending={create.isPending}
        error={create.error as ConsoleError | null}
        onSubmit={(fields) => create.mutate({ tenantId, integrationId, ...fields })}
      />
    </>
  );
}
