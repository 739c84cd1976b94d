"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ErrorBox, type ConsoleError } from "../../_components/field-errors";
import { QueryState } from "../../_components/query-state";
import { TableWrap } from "../../_components/table-wrap";
import { useTRPC } from "../../_components/trpc-provider";
import { ScoreBox } from "./score-box";

const STATUSES = ["new", "qualified", "proposal", "negotiation", "won", "lost"] as const;
type Status = (typeof STATUSES)[number];
type Draft = { title: string; status: Status; next_action: string; lost_reason: string };

/**
 * One lead: an edit form sent with the etag the page read (the API's If-Match rule: a stale edit is
 * refused with "changed by someone else" and never overwrites), its timeline, scorings and disclosures.
 */
export function LeadPanel({ tenantId, id, canScore }: { tenantId: string; id: string; canScore: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const detail = useQuery(trpc.leads.get.queryOptions({ tenantId, id }));
  const [draft, setDraft] = useState<Draft | null>(null);
  const [error, setError] = useState<ConsoleError | null>(null);
  const [stale, setStale] = useState(false);
  const [saved, setSaved] = useState(false);
  const lead = detail.data?.lead;
  const form: Draft | null =
    draft ??
    (lead
      ? {
          title: lead.title ?? "",
          status: lead.status,
          next_action: lead.next_action ?? "",
          lost_reason: lead.lost_reason ?? "",
        }
      : null);
  const reload = async () => {
    setStale(false);
    setDraft(null);
    setError(null);
    await qc.invalidateQueries({ queryKey: trpc.leads.get.queryKey() });
  };
  const update = useMutation(
    trpc.leads.update.mutationOptions({
      onSuccess: (l) => {
        qc.setQueryData(trpc.leads.get.queryKey({ tenantId, id }), (old) => (old ? { ...old, lead: l } : old));
        void qc.invalidateQueries({ queryKey: trpc.leads.get.queryKey() });
        setDraft(null);
        setError(null);
        setSaved(true);
      },
      onError: (e) => {
        const err = e as ConsoleError;
        if (err.data?.code === "precondition_failed") setStale(true);
        else setError(err);
      },
    }),
  );
  const save = () => {
    if (!lead || !form) return;
    setSaved(false);
    const change: Record<string, unknown> = {};
    if (form.title !== (lead.title ?? "")) change.title = form.title;
    if (form.status !== lead.status) change.status = form.status;
    if (form.next_action !== (lead.next_action ?? "")) change.next_action = form.next_action || null;
    if (form.lost_reason !== (lead.lost_reason ?? "")) change.lost_reason = form.lost_reason || null;
    update.mutate({ tenantId, id, etag: lead.etag, change });
  };
  return (
    <>
      <p>
        <Link href={`/console/leads?tenant=${tenantId}`}>← Leads</Link>
      </p>
      <QueryState isLoading={detail.isLoading} error={detail.error}>
        {lead && form && (
          <>
            <h1>{lead.title || "(untitled lead)"}</h1>
            <p className="hint">
              Version {lead.version} · owner {lead.owner} · updated {new Date(lead.updated_at).toLocaleString()}
            </p>
            {stale && (
              <div className="error" role="alert">
                <p style={{ margin: 0 }}>
                  This lead was changed by someone else since you opened it; your edit was not saved. Reload to see the
                  current version, then apply your change again.
                </p>
                <button type="button" onClick={() => void reload()}>
                  Reload
                </button>
              </div>
            )}
            {saved && !stale && <p role="status">Saved: version {lead.version}.</p>}
            <ErrorBox error={error} />
            <form
              aria-label="Edit lead"
              onSubmit={(e) => {
                e.preventDefault();
                save();
              }}
            >
              <label>
                Title <input value={form.title} onChange={(e) => setDraft({ ...form, title: e.target.value })} />
              </label>
              <label>
                Status{" "}
                <select value={form.status} onChange={(e) => setDraft({ ...form, status: e.target.value as Status })}>
                  {STATUSES.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Next action{" "}
                <input value={form.next_action} onChange={(e) => setDraft({ ...form, next_action: e.target.value })} />
              </label>
              <label>
                Lost reason{" "}
                <input value={form.lost_reason} onChange={(e) => setDraft({ ...form, lost_reason: e.target.value })} />
              </label>
              <div className="row">
                <button type="submit" disabled={update.isPending}>
                  Save
                </button>
              </div>
            </form>
            <ScoreBox
              tenantId={tenantId}
              id={id}
              score={lead.score}
              price={detail.data!.scorePrice}
              canScore={canScore}
            />
            <h2>Contact</h2>
            <p>
              {lead.contact
                ? [lead.contact.first_name, lead.contact.last_name, lead.contact.email, lead.contact.phone]
                    .filter(Boolean)
                    .join(" · ")
                : "No contact"}
            </p>
            <h2>Timeline</h2>
            <TableWrap label="Timeline">
              <table>
                <thead>
                  <tr>
                    <th>Version</th>
                    <th>Change</th>
                    <th>Fields</th>
                    <th>By</th>
                    <th>When</th>
                  </tr>
                </thead>
                <tbody>
                  {detail.data!.timeline.map((c) => (
                    <tr key={`${c.version}-${c.at}`}>
                      <td>{c.version}</td>
                      <td>
                        {c.kind}
                        {c.from && c.to ? ` (${c.from} → ${c.to})` : ""}
                      </td>
                      <td>{c.fields.join(", ")}</td>
                      <td>
                        <code>{c.actor}</code>
                      </td>
                      <td>{new Date(c.at).toLocaleString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
            <h2>Scores</h2>
            {detail.data!.scores.length === 0 ? (
              <p className="hint">
                No scoring yet (the Score button above, or POST /leads/{"{id}"}/score through the API).
              </p>
            ) : (
              <TableWrap label="Scores">
                <table>
                  <thead>
                    <tr>
                      <th>Score</th>
                      <th>Reason</th>
                      <th>Model</th>
                      <th>When</th>
                    </tr>
                  </thead>
                  <tbody>
                    {detail.data!.scores.map((s) => (
                      <tr key={s.id}>
                        <td>
                          {s.grade} ({s.score})
                        </td>
                        <td>{s.reason}</td>
                        <td>{s.model}</td>
                        <td>{new Date(s.at).toLocaleString()}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
            <h2>Disclosures</h2>
            {detail.data!.disclosures.length === 0 ? (
              <p className="hint">No integration received this lead yet.</p>
            ) : (
              <TableWrap label="Disclosures">
                <table>
                  <thead>
                    <tr>
                      <th>When</th>
                      <th>Integration</th>
                      <th>Route</th>
                      <th>Request id</th>
                    </tr>
                  </thead>
                  <tbody>
                    {detail.data!.disclosures.map((d) => (
                      <tr key={d.id}>
                        <td>{new Date(d.createdAt).toLocaleString()}</td>
                        <td>{d.integrationName}</td>
                        <td>
                          <code>{d.route}</code>
                        </td>
                        <td>
                          <code>{d.requestId}</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
          </>
        )}
      </QueryState>
    </>
  );
}
