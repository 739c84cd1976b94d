"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ErrorBox, type ConsoleError } from "../_components/field-errors";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import { TableWrap } from "../_components/table-wrap";
import { LoadMoreButton } from "../_components/load-more";

/** Paid operations: the list (type, status, cost, conversation, error), spend limits, AI per channel, previews. */
export function OperationsPanel({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const settings = useQuery(trpc.operations.settings.queryOptions({ tenantId }));
  const list = useInfiniteQuery(
    trpc.operations.list.infiniteQueryOptions({ tenantId, limit: 20 }, { getNextPageParam: (last) => last.next }),
  );
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.operations.pathKey() });
  const setLimits = useMutation(trpc.operations.setLimits.mutationOptions({ onSuccess: refresh }));
  const setChannel = useMutation(trpc.operations.setChannelAi.mutationOptions({ onSuccess: refresh }));
  const s = settings.data;
  return (
    <>
      <h1>Operations</h1>
      <QueryState isLoading={settings.isLoading} error={settings.error}>
        {s && (
          <>
            <p data-testid="previews">
              Previews:{" "}
              {Object.entries(s.previews)
                .map(([name, on]) => `${name} ${on ? "on" : "off"}`)
                .join(", ")}
            </p>
            <h2>Spend limits</h2>
            <form
              className="row"
              onSubmit={(e) => {
                e.preventDefault();
                const f = new FormData(e.currentTarget);
                const daily = String(f.get("daily") ?? "").trim();
                setLimits.mutate({ tenantId, dailyLimit: daily || null, maxOperationCost: String(f.get("max")) });
              }}
            >
              <label>
                Daily spend limit, ₽
                <input
                  name="daily"
                  defaultValue={s.limits.daily_limit?.amount ?? ""}
                  placeholder="no limit"
                  inputMode="decimal"
                  disabled={!s.canEdit}
                />
              </label>
              <label>
                Maximum cost of one operation, ₽
                <input
                  name="max"
                  defaultValue={s.limits.max_operation_cost.amount}
                  inputMode="decimal"
                  disabled={!s.canEdit}
                />
              </label>
              {s.canEdit && (
                <button type="submit" className="secondary" disabled={setLimits.isPending}>
                  Save
                </button>
              )}
            </form>
            <ErrorBox error={setLimits.error as ConsoleError | null} />
            <h2>AI seller per channel</h2>
            <TableWrap label="AI seller per channel">
              <table>
                <thead>
                  <tr>
                    <th>Integration channel</th>
                    <th>AI replies a day</th>
                    <th>AI on</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {s.channels.map((c) => (
                    <tr key={c.integrationId}>
                      <td>{c.integrationName}</td>
                      <td colSpan={3}>
                        <form
                          className="row"
                          onSubmit={(e) => {
                            e.preventDefault();
                            const f = new FormData(e.currentTarget);
                            setChannel.mutate({
                              tenantId,
                              integrationId: c.integrationId,
                              aiDailyLimit: Number(f.get("limit")),
                              aiEnabled: f.get("enabled") === "on",
                            });
                          }}
                        >
                          <input
                            name="limit"
                            type="number"
                            min={0}
                            max={10000}
                            defaultValue={c.aiDailyLimit}
                            aria-label={`AI replies a day for ${c.integrationName}`}
                            disabled={!s.canEdit}
                            style={{ width: 100 }}
                          />
                          <input
                            name="enabled"
                            type="checkbox"
                            defaultChecked={c.aiEnabled}
                            aria-label={`AI on for ${c.integrationName}`}
                            disabled={!s.canEdit}
                          />
                          {s.canEdit && (
                            <button type="submit" className="secondary" disabled={setChannel.isPending}>
                              Save
                            </button>
                          )}
                        </form>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
            <ErrorBox error={setChannel.error as ConsoleError | null} />
            {!s.canEdit && <p className="hint">Changing limits needs the manage_integrations right.</p>}
          </>
        )}
      </QueryState>
      <h2>Operations</h2>
      <QueryState
        isLoading={list.isLoading}
        error={list.error}
        empty={list.data?.pages[0]?.operations.length === 0}
        emptyText="No paid operations yet."
      >
        <TableWrap label="Operations">
          <table data-testid="operations">
            <thead>
              <tr>
                <th>Created</th>
                <th>Type</th>
                <th>Status</th>
                <th>Cost, ₽</th>
                <th>Conversation</th>
                <th>Started by</th>
                <th>Error</th>
              </tr>
            </thead>
            <tbody>
              {list.data?.pages
                .flatMap((p) => p.operations)
                .map((o) => (
                  <tr key={o.id}>
                    <td>{new Date(o.createdAt).toLocaleString()}</td>
                    <td>
                      {o.type}
                      {o.livemode ? "" : " (test)"}
                    </td>
                    <td>{o.status}</td>
                    <td>{o.cost ?? `held ${o.hold}`}</td>
                    <td>
                      <code>{o.conversationId ?? ""}</code>
                    </td>
                    <td>{o.staffName !== null ? `Staff: ${o.staffName}` : o.integrationName}</td>
                    <td>{o.error ? `${o.error.code}: ${o.error.message}` : ""}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </TableWrap>
        <LoadMoreButton query={list} />
      </QueryState>
    </>
  );
}
