"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ErrorBox, type ConsoleError } from "../_components/field-errors";
import { KeysetPager, useKeysetTrail } from "../_components/keyset-pager";
import { QueryState } from "../_components/query-state";
import { TableWrap } from "../_components/table-wrap";
import { useTRPC } from "../_components/trpc-provider";

const STATUSES = ["new", "qualified", "proposal", "negotiation", "won", "lost"] as const;
type Status = (typeof STATUSES)[number];
type Cursor = [string, string];

/** The Leads list with its filters, and the CRM settings (mode, status map) below it. */
export function LeadsPanel({ tenantId, canManage }: { tenantId: string; canManage: boolean }) {
  const trpc = useTRPC();
  const trail = useKeysetTrail<Cursor>();
  const [status, setStatus] = useState<Status | undefined>(undefined);
  const [archived, setArchived] = useState(false);
  const page = useQuery(trpc.leads.list.queryOptions({ tenantId, status, archived, cursor: trail.cursor, limit: 50 }));
  return (
    <>
      <h1>Leads</h1>
      <p className="hint">
        The CRM&apos;s leads, as the API shows them; open one to edit it, see its timeline and scores.
      </p>
      <div className="row">
        <label>
          Status{" "}
          <select
            value={status ?? ""}
            onChange={(e) => {
              setStatus((e.target.value || undefined) as Status | undefined);
              trail.reset();
            }}
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input
            type="checkbox"
            checked={archived}
            onChange={(e) => {
              setArchived(e.target.checked);
              trail.reset();
            }}
          />{" "}
          Archived only
        </label>
      </div>
      <QueryState
        isLoading={page.isLoading}
        error={page.error}
        empty={page.data?.leads.length === 0}
        emptyText="No leads under these filters."
      >
        <TableWrap label="Leads">
          <table>
            <thead>
              <tr>
                <th>Title</th>
                <th>Status</th>
                <th>Contact</th>
                <th>Score</th>
                <th>Version</th>
                <th>Updated</th>
              </tr>
            </thead>
            <tbody>
              {page.data?.leads.map((l) => (
                <tr key={l.id}>
                  <td>
                    <Link href={`/console/leads/${l.id}?tenant=${tenantId}`}>{l.title || "(untitled)"}</Link>
                  </td>
                  <td>{l.status}</td>
                  <td>{[l.contact?.first_name, l.contact?.last_name].filter(Boolean).join(" ") || "—"}</td>
                  <td>{l.score?.grade ? `${l.score.grade} (${l.score.score})` : "—"}</td>
                  <td>{l.version}</td>
                  <td>{new Date(l.updated_at).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
      <KeysetPager trail={trail} next={page.data?.next} />
      <CrmSettings tenantId={tenantId} canManage={canManage} />
    </>
  );
}

/** The CRM mode switch and the status map editor (one `external status = canonical` per line). */
function CrmSettings({ tenantId, canManage }: { tenantId: string; canManage: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const crm = useQuery(trpc.leads.crm.queryOptions({ tenantId }));
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<ConsoleError | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.leads.crm.queryKey() });
  const setMode = useMutation(
    trpc.leads.setCrmMode.mutationOptions({ onSuccess: refresh, onError: (e) => setError(e as ConsoleError) }),
  );
  const putMap = useMutation(
    trpc.leads.putStatusMap.mutationOptions({
      onSuccess: () => {
        setText(null);
        setError(null);
        void refresh();
      },
      onError: (e) => setError(e as ConsoleError),
    }),
  );
  const mapText =
    text ??
    Object.entries(crm.data?.statusMap.map ?? {})
      .map(([k, v]) => `${k} = ${v}`)
      .join("\n");
  const save = () => {
    const map: Record<string, string> = {};
    for (const line of mapText.split("\n")) {
      const at = line.lastIndexOf("=");
      if (at > 0) map[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
    putMap.mutate({ tenantId, map: map as Record<string, Status> });
  };
  return (
    <section aria-labelledby="crm-settings">
      <h2 id="crm-settings">CRM settings</h2>
      <ErrorBox error={error} />
      <p>
        CRM mode: <strong>{crm.data?.mode ?? "…"}</strong>{" "}
        {canManage && crm.data && (
          <button
            type="button"
            className="secondary"
            disabled={setMode.isPending}
            onClick={() => setMode.mutate({ tenantId, mode: crm.data.mode === "external" ? "internal" : "external" })}
          >
            Switch to {crm.data.mode === "external" ? "internal" : "external"}
          </button>
        )}
      </p>
      <p className="hint">
        In external mode the external CRM owns lead statuses: status changes here and through the API are refused.
      </p>
      <label htmlFor="status-map">Status map (one &quot;external status = canonical status&quot; per line)</label>
      <textarea
        id="status-map"
        rows={6}
        value={mapText}
        readOnly={!canManage}
        onChange={(e) => setText(e.target.value)}
      />
      {canManage && (
        <div className="row">
          <button type="button" disabled={putMap.isPending} onClick={save}>
            Save status map
          </button>
        </div>
      )}
    </section>
  );
}
