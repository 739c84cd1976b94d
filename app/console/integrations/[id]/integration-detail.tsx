"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ConfirmDialog } from "../../_components/confirm-dialog";
import { ErrorBox, type ConsoleError } from "../../_components/field-errors";
import { QueryState } from "../../_components/query-state";
import { useTRPC } from "../../_components/trpc-provider";
import { EditIntegration } from "./edit-integration";
import { KeysPanel } from "./keys-panel";
import { TableWrap } from "../../_components/table-wrap";

/** One integration: settings, effective scopes, `api` channel, status actions and keys. */
export function IntegrationDetail({ tenantId, integrationId }: { tenantId: string; integrationId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const q = useQuery(trpc.integrations.get.queryOptions({ tenantId, integrationId }));
  const overview = useQuery(trpc.tenants.overview.queryOptions({ tenantId }));
  const canManage = overview.data?.rights.includes("manage_integrations") ?? false;
  const setStatus = useMutation(
    trpc.integrations.setStatus.mutationOptions({
      onSuccess: () => qc.invalidateQueries({ queryKey: trpc.integrations.pathKey() }),
    }),
  );
  const i = q.data;
  const act = (status: "active" | "suspended" | "revoked") => setStatus.mutate({ tenantId, integrationId, status });
  return (
    <QueryState isLoading={q.isLoading} error={q.error}>
      {i && (
        <>
          <h1>
            {i.name} <span className={`badge ${i.status}`}>{i.status}</span>
          </h1>
          <TableWrap label="Settings">
            <table>
              <tbody>
                <tr>
                  <th scope="row">Role</th>
                  <td>{i.role}</td>
                </tr>
                <tr>
                  <th scope="row">Granted scopes</th>
                  <td>{i.scopes.join(", ")}</td>
                </tr>
                <tr>
                  <th scope="row">Effective scopes</th>
                  <td>
                    {i.effectiveScopes.length ? i.effectiveScopes.join(", ") : "none"}{" "}
                    <span className="hint">
                      (granted ∩ role ∩ owner&apos;s rights ∩ license, exactly as the API computes them)
                    </span>
                  </td>
                </tr>
                <tr>
                  <th scope="row">Not granted</th>
                  <td data-testid="not-granted">
                    {i.scopeVerdicts.some((v) => !v.granted) ? (
                      <ul className="plain">
                        {i.scopeVerdicts
                          .filter((v) => !v.granted)
                          .map((v) => (
                            <li key={v.scope}>
                              <code>{v.scope}</code>: {v.reason}
                            </li>
                          ))}
                      </ul>
                    ) : (
                      <span className="hint">none: every scope given is granted</span>
                    )}
                  </td>
                </tr>
                <tr>
                  <th scope="row">API channel</th>
                  <td>
                    <code>{i.channelId ?? "none"}</code>
                  </td>
                </tr>
                <tr>
                  <th scope="row">Recipient country</th>
                  <td>{i.piiCountry ?? "not set"}</td>
                </tr>
                <tr>
                  <th scope="row">Legal basis</th>
                  <td>{i.legalBasis ?? "not set"}</td>
                </tr>
                <tr>
                  <th scope="row">IP allowlist</th>
                  <td>{i.ipAllowlist?.join(", ") ?? "any address"}</td>
                </tr>
              </tbody>
            </table>
          </TableWrap>
          {canManage && i.status !== "revoked" && (
            <div className="row" style={{ marginTop: 12 }}>
              {i.status === "active" ? (
                <button
                  type="button"
                  className="secondary"
                  onClick={() => act("suspended")}
                  disabled={setStatus.isPending}
                >
                  Suspend
                </button>
              ) : (
                <button
                  type="button"
                  className="secondary"
                  onClick={() => act("active")}
                  disabled={setStatus.isPending}
                >
                  Reactivate
                </button>
              )}
              <ConfirmDialog
                trigger={
                  <button type="button" className="danger" disabled={setStatus.isPending}>
                    Revoke
                  </button>
                }
                title={`Revoke ${i.name}?`}
                description="The integration and all its keys stop working at once: every request with them is refused. This cannot be undone."
                confirmLabel="Revoke integration"
                onConfirm={() => act("revoked")}
              />
            </div>
          )}
          <ErrorBox error={setStatus.error as ConsoleError | null} />
          {canManage && i.status !== "revoked" && (
            <EditIntegration tenantId={tenantId} integration={i} ruCell={overview.data?.cell === "ru"} />
          )}
          <KeysPanel
            tenantId={tenantId}
            integrationId={integrationId}
            canManage={canManage && i.status === "active"}
            baseUrl={overview.data?.baseUrl ?? ""}
            testMode={overview.data?.testMode ?? { available: false, on: false }}
          />
        </>
      )}
    </QueryState>
  );
}
