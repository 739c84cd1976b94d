"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorBox, parseList, type ConsoleError } from "../../_components/field-errors";
import { QueryState } from "../../_components/query-state";
import { useTRPC } from "../../_components/trpc-provider";

/** Keys of an integration: list, issue (full key shown once), revoke. */
export function KeysPanel({
  tenantId,
  integrationId,
  canManage,
  baseUrl,
}: {
  tenantId: string;
  integrationId: string;
  canManage: boolean;
  baseUrl: string;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const keys = useQuery(trpc.integrations.keys.queryOptions({ tenantId, integrationId }));
  const refresh = () =>
    qc.invalidateQueries({ queryKey: trpc.integrations.keys.queryKey({ tenantId, integrationId }) });
  const [shown, setShown] = useState<{ key: string; keyId: string } | null>(null);
  const issue = useMutation(
    trpc.integrations.issueKey.mutationOptions({
      onSuccess: (k) => {
        setShown(k);
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.integrations.revokeKey.mutationOptions({ onSuccess: () => void refresh() }));
  const [copied, setCopied] = useState(false);
  return (
    <>
      <h2>API keys</h2>
      {shown && (
        <div className="secret" role="status" aria-live="polite">
          <p style={{ marginTop: 0 }}>
            <strong>Copy this key now.</strong> It is shown only once; we keep only a hash of it.
          </p>
          <pre data-testid="new-key">{shown.key}</pre>
          <div className="row">
            <button
              type="button"
              onClick={async () => {
                await navigator.clipboard?.writeText(shown.key).catch(() => {});
                setCopied(true);
              }}
            >
              {copied ? "Copied" : "Copy key"}
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setShown(null);
                setCopied(false);
              }}
            >
              I have stored it
            </button>
          </div>
          <p>Try it:</p>
          <pre data-testid="curl-line">{`curl -s ${baseUrl}/me -H "Authorization: Bearer ${shown.key}"`}</pre>
        </div>
      )}
      <QueryState
        isLoading={keys.isLoading}
        error={keys.error}
        empty={keys.data?.length === 0}
        emptyText="No keys yet."
      >
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Key id</th>
                <th>Mode</th>
                <th>Created</th>
                <th>Last used</th>
                <th>Expires</th>
                <th>Allowlist</th>
                <th>State</th>
                <th>
                  <span className="hint">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data?.map((k) => (
                <tr key={k.keyId}>
                  <td>
                    <code>{k.keyId}</code>
                  </td>
                  <td>{k.mode}</td>
                  <td>{new Date(k.createdAt).toLocaleString()}</td>
                  <td>
                    {k.lastUsedAt ? new Date(k.lastUsedAt).toLocaleString() : "never"}
                    {k.lastUsedAddress && <div className="hint">from {k.lastUsedAddress}</div>}
                  </td>
                  <td>{new Date(k.expiresAt).toLocaleDateString()}</td>
                  <td>{k.ipAllowlist?.join(", ") ?? "any"}</td>
                  <td>
                    <span className={`badge ${k.state}`}>{k.state}</span>
                  </td>
                  <td>
                    {canManage && k.state === "active" && (
                      <button
                        type="button"
                        className="danger"
                        aria-label={`Revoke key ${k.keyId}`}
                        disabled={revoke.isPending}
                        onClick={() =>
                          window.confirm(`Revoke ${k.keyId}? Requests with it will answer 401 at once.`) &&
                          revoke.mutate({ tenantId, keyId: k.keyId })
                        }
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </QueryState>
      <ErrorBox error={revoke.error as ConsoleError | null} />
      {canManage && (
        <>
          <h2>Issue a key</h2>
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              const f = new FormData(e.currentTarget);
              const date = String(f.get("expiresAt") ?? "");
              issue.mutate({
                tenantId,
                integrationId,
                mode: f.get("mode") === "test" ? "test" : "live",
                expiresAt: date ? new Date(`${date}T23:59:59Z`).toISOString() : null,
                ipAllowlist: parseList(String(f.get("ipAllowlist") ?? "")),
              });
            }}
          >
            <label>
              Mode
              <select name="mode" defaultValue="live">
                <option value="live">live</option>
                <option value="test">test</option>
              </select>
            </label>
            <label>
              Expires on <span className="hint">empty = one year from today; at most three years</span>
              <input name="expiresAt" type="date" />
            </label>
            <label>
              IP allowlist{" "}
              <span className="hint">
                addresses and CIDR networks, one per line; empty = the integration&apos;s list or any address
              </span>
              <textarea name="ipAllowlist" rows={2} placeholder={"203.0.113.10\n2001:db8::/56"} />
            </label>
            <ErrorBox error={issue.error as ConsoleError | null} />
            <button type="submit" disabled={issue.isPending}>
              {issue.isPending ? "Issuing…" : "Issue key"}
            </button>
          </form>
        </>
      )}
    </>
  );
}
