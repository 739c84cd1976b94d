"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorBox, type ConsoleError } from "../_components/field-errors";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import { TableWrap } from "../_components/table-wrap";
import { KeysetPager, useKeysetTrail } from "../_components/keyset-pager";
import { FilterForm, useFilters, IntegrationFilter, RequestIdFilter } from "../_components/filter-form";

type Cursor = { createdAt: string; id: string };
type Filters = { integrationId?: string; resourceType?: string; from?: string; to?: string; requestId?: string };

const RESOURCE_TYPES = ["conversation", "message", "lead", "contact"] as const;

/**
 * The disclosure journal (spec general fact 6): who received which personal records, newest first, with
 * filters and a CSV export of what the filters select. Shown to staff with `view_personal_data`.
 */
export function JournalPanel({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const trail = useKeysetTrail<Cursor>();
  const form = useFilters<Filters>({}, trail.reset);
  const { draft, setDraft, filters } = form;
  const [exportError, setExportError] = useState<ConsoleError | null>(null);
  const [exporting, setExporting] = useState(false);
  const cursor = trail.cursor;
  const integrations = useQuery(trpc.integrations.list.queryOptions({ tenantId }));
  const page = useQuery(trpc.journal.list.queryOptions({ tenantId, filters, cursor, limit: 50 }));

  const download = async () => {
    setExporting(true);
    setExportError(null);
    try {
      const out = await qc.fetchQuery(trpc.journal.exportCsv.queryOptions({ tenantId, filters }, { staleTime: 0 }));
      const url = URL.createObjectURL(new Blob([out.csv], { type: "text/csv;charset=utf-8" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = `disclosure-journal-${new Date().toISOString().slice(0, 10)}.csv`;
      a.click();
      URL.revokeObjectURL(url);
      if (out.truncated)
        setExportError({ message: `Only the newest ${out.rows} rows were exported; narrow the filters.` });
    } catch (err) {
      setExportError(err as ConsoleError);
    } finally {
      setExporting(false);
    }
  };

  return (
    <>
      <h1>Disclosure journal</h1>
      <p className="hint">
        Every answer and webhook delivery that carried personal data, with the integration and key that received it.
        Kept for audits; only staff with the personal-data right see it.
      </p>
      <FilterForm
        label="Journal filters"
        state={form}
        actions={
          <button type="button" className="secondary" disabled={exporting} onClick={() => void download()}>
            {exporting ? "Exporting…" : "Export CSV"}
          </button>
        }
      >
        <IntegrationFilter
          integrations={integrations.data}
          value={draft.integrationId}
          onChange={(integrationId) => setDraft({ ...draft, integrationId })}
        />
        <label>
          Resource{" "}
          <select
            value={draft.resourceType ?? ""}
            onChange={(e) => setDraft({ ...draft, resourceType: e.target.value || undefined })}
          >
            <option value="">all</option>
            {RESOURCE_TYPES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          From{" "}
          <input type="date" value={draft.from ?? ""} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
        </label>
        <label>
          To <input type="date" value={draft.to ?? ""} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
        </label>
        <RequestIdFilter value={draft.requestId} onChange={(requestId) => setDraft({ ...draft, requestId })} />
      </FilterForm>
      <ErrorBox error={exportError} />
      <QueryState
        isLoading={page.isLoading}
        error={page.error}
        empty={page.data?.entries.length === 0}
        emptyText="No personal data left through the API or webhooks under these filters."
      >
        <TableWrap label="Disclosure journal">
          <table>
            <thead>
              <tr>
                <th>Time</th>
                <th>Integration</th>
                <th>Key</th>
                <th>Route</th>
                <th>Records</th>
                <th>Request id</th>
              </tr>
            </thead>
            <tbody>
              {page.data?.entries.map((e) => (
                <tr key={e.id}>
                  <td>{new Date(e.createdAt).toLocaleString()}</td>
                  <td>{e.integrationName}</td>
                  <td>{e.keyId ? <code>{e.keyId}</code> : <span className="hint">webhook</span>}</td>
                  <td>
                    <code>{e.route}</code>
                  </td>
                  <td>
                    {e.resourceIds.length} {e.resourceType}
                    {e.resourceIds.length === 1 ? "" : "s"}
                    <div className="hint">
                      {e.resourceIds.slice(0, 3).join(", ")}
                      {e.resourceIds.length > 3 ? ", …" : ""}
                    </div>
                  </td>
                  <td>
                    <code>{e.requestId}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
      <KeysetPager trail={trail} next={page.data?.next} />
    </>
  );
}
