"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ACTION_STATUSES } from "@/server/schemas/strategist";
import { KeysetPager, useKeysetTrail } from "../_components/keyset-pager";
import { QueryState } from "../_components/query-state";
import { TableWrap } from "../_components/table-wrap";
import { useTRPC } from "../_components/trpc-provider";
import { ActionDecision } from "./action-decision";

type Status = (typeof ACTION_STATUSES)[number];

/**
 * The Actions section (issue 73 item 5): every action the strategist proposed in the tenant (in chats of
 * API integrations and of staff), newest first, with a status filter; Confirm or Cancel a proposed one. A
 * proposed action expires 7 days after it was made.
 */
export function ActionsSection({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const trail = useKeysetTrail<[string, string]>();
  const [status, setStatus] = useState<Status | undefined>(undefined);
  const page = useQuery(trpc.strategist.actions.queryOptions({ tenantId, status, cursor: trail.cursor, limit: 20 }));
  return (
    <section aria-labelledby="strategist-actions-title">
      <h2 id="strategist-actions-title">Actions</h2>
      <p className="hint">
        What the strategist proposes to do. Confirm a topic proposal to add the topic to Topics; an action waits 7 days
        for a decision, then expires.
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
            {ACTION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </div>
      <QueryState
        isLoading={page.isLoading}
        error={page.error}
        empty={page.data?.actions.length === 0}
        emptyText="No actions under this filter."
      >
        <TableWrap label="Actions">
          <table>
            <thead>
              <tr>
                <th>Title</th>
                <th>Status</th>
                <th>Created</th>
                <th>Expires</th>
                <th>Decision</th>
              </tr>
            </thead>
            <tbody>
              {page.data?.actions.map((a) => (
                <tr key={a.id}>
                  <td>{a.title ?? "Untitled action"}</td>
                  <td>
                    <span className={`badge ${a.status}`}>{a.status}</span>
                  </td>
                  <td>{new Date(a.created_at).toLocaleString()}</td>
                  <td>{a.status === "proposed" ? new Date(a.expires_at).toLocaleString() : "—"}</td>
                  <td>
                    <ActionDecision tenantId={tenantId} action={a} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
      <KeysetPager trail={trail} next={page.data?.next} />
    </section>
  );
}
