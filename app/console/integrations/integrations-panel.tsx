"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { PII_SCOPES, ROLE_NAMES, type Scope } from "@/server/schemas/scopes";
import { ErrorBox, parseList, type ConsoleError } from "../_components/field-errors";
import { QueryState } from "../_components/query-state";
import { useTRPC } from "../_components/trpc-provider";
import { ScopeChecklist } from "./scope-checklist";
import { TableWrap } from "../_components/table-wrap";

/** Integrations of the tenant and the form to create one. */
export function IntegrationsPanel({ tenantId }: { tenantId: string }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.integrations.list.queryOptions({ tenantId }));
  const overview = useQuery(trpc.tenants.overview.queryOptions({ tenantId }));
  const canManage = overview.data?.rights.includes("manage_integrations") ?? false;
  return (
    <>
      <h1>Integrations</h1>
      <QueryState
        isLoading={list.isLoading}
        error={list.error}
        empty={list.data?.length === 0}
        emptyText="No integrations yet. Create one below to issue API keys."
      >
        <TableWrap label="Integrations">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Status</th>
                <th>Role</th>
                <th>Effective scopes</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data?.map((i) => (
                <tr key={i.id}>
                  <td>
                    <Link href={`/console/integrations/${i.id}?tenant=${tenantId}`}>{i.name}</Link>
                  </td>
                  <td>
                    <span className={`badge ${i.status}`}>{i.status}</span>
                  </td>
                  <td>{i.role}</td>
                  <td>
                    {i.effectiveScopes.length ? i.effectiveScopes.join(", ") : <span className="hint">none</span>}
                  </td>
                  <td>{new Date(i.createdAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
      {canManage ? (
        <CreateIntegration tenantId={tenantId} ruCell={overview.data?.cell === "ru"} />
      ) : (
        overview.data && <p className="hint">Creating integrations needs the manage_integrations right.</p>
      )}
    </>
  );
}

function CreateIntegration({ tenantId, ruCell }: { tenantId: string; ruCell: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(["cards:read", "cards:write"]));
  const create = useMutation(
    trpc.integrations.create.mutationOptions({
      onSuccess: () => qc.invalidateQueries({ queryKey: trpc.integrations.list.queryKey({ tenantId }) }),
    }),
  );
  const pii = [...scopes].some((s) => PII_SCOPES.has(s));
  return (
    <>
      <h2>Create an integration</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          create.mutate(
            {
              tenantId,
              name: String(f.get("name")),
              role: String(f.get("role")),
              scopes: [...scopes],
              piiCountry: String(f.get("piiCountry") ?? "") || null,
              legalBasis: String(f.get("legalBasis") ?? "") || null,
              ipAllowlist: parseList(String(f.get("ipAllowlist") ?? "")),
            },
            { onSuccess: () => (e.target as HTMLFormElement).reset() },
          );
        }}
      >
        <label>
          Name
          <input name="name" required maxLength={100} />
        </label>
        <label>
          Role <span className="hint">the most the integration may ever hold</span>
          <select name="role" defaultValue="full">
            {ROLE_NAMES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <ScopeChecklist value={scopes} onChange={setScopes} />
        {ruCell && pii && (
          <p className="notice" role="note">
            Personal-data scopes (conversations, leads, AI seller) on the RU cell: personal data goes only to recipients
            hosted in Russia. Set the recipient country to RU, the legal basis of transfer, and an IP allowlist of
            single addresses or networks no wider than IPv4 /24 or IPv6 /56.
          </p>
        )}
        <label>
          Recipient country <span className="hint">where the receiving system is hosted, ISO code such as RU</span>
          <input name="piiCountry" maxLength={2} placeholder="RU" />
        </label>
        <label>
          Legal basis of transfer
          <input name="legalBasis" maxLength={500} />
        </label>
        <label>
          IP allowlist <span className="hint">addresses and CIDR networks, one per line; empty = any address</span>
          <textarea name="ipAllowlist" rows={3} placeholder={"203.0.113.10\n198.51.100.0/24"} />
        </label>
        <ErrorBox error={create.error as ConsoleError | null} />
        {create.isSuccess && (
          <p className="notice" role="status">
            Integration created. Open it to issue a key.
          </p>
        )}
        <button type="submit" disabled={create.isPending || scopes.size === 0}>
          {create.isPending ? "Creating…" : "Create integration"}
        </button>
      </form>
    </>
  );
}
