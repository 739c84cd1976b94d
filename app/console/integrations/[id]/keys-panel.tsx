"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../../_components/confirm-dialog";
import { ErrorBox, fieldMessage, FieldMessage, parseList, type ConsoleError } from "../../_components/field-errors";
import { QueryState } from "../../_components/query-state";
import { useTRPC } from "../../_components/trpc-provider";
import { TableWrap } from "../../_components/table-wrap";
import { KeyNameDialog } from "./key-name-dialog";
import { RollKeyDialog } from "./roll-key-dialog";

/** A key just issued or rolled: its secret (shown once) and, after a roll, when the old key stops working. */
interface ShownKey {
  key: string;
  keyId: string;
  /** After a roll: the old key, when it stops working, and whether it already has. */
  old?: { keyId: string; expiresAt: string; stopped: boolean };
}

/**
 * Keys of an integration: list, name, issue and roll (full key shown once), revoke (after a confirmation).
 * For a tenant with the preview `test-mode` the list and the form follow the console's Test mode (issue 69
 * item 6): in it, the test keys and "Create test key"; out of it, the keys of live data and "Issue key"
 * for a live key. Without the preview a key's mode is chosen in the form, as before test mode.
 */
export function KeysPanel({
  tenantId,
  integrationId,
  canManage,
  baseUrl,
  testMode,
}: {
  tenantId: string;
  integrationId: string;
  canManage: boolean;
  baseUrl: string;
  /** The tenant's Test mode (`tenants.overview`): whether it has the preview, and whether it is on. */
  testMode: { available: boolean; on: boolean };
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const keys = useQuery(trpc.integrations.keys.queryOptions({ tenantId, integrationId }));
  const refresh = () =>
    qc.invalidateQueries({ queryKey: trpc.integrations.keys.queryKey({ tenantId, integrationId }) });
  const [shown, setShown] = useState<ShownKey | null>(null);
  const [copied, setCopied] = useState(false);
  const issue = useMutation(
    trpc.integrations.issueKey.mutationOptions({
      onSuccess: (k) => {
        setShown(k);
        void refresh();
      },
    }),
  );
  const roll = useMutation(
    trpc.integrations.rollKey.mutationOptions({
      onSuccess: (k, asked) => {
        setShown({ ...k, old: { ...k.old, stopped: asked.delay === "now" } });
        setCopied(false);
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.integrations.revokeKey.mutationOptions({ onSuccess: () => void refresh() }));
  const nameError = fieldMessage(issue.error as ConsoleError | null, "/name");
  return (
    <>
      <h2>API keys</h2>
      {shown && (
        <div className="secret" role="status" aria-live="polite">
          <p style={{ marginTop: 0 }}>
            <strong>Copy this key now.</strong> It is shown only once; we keep only a hash of it.
          </p>
          {shown.old && (
            <p data-testid="rolled-old">
              Key <code>{shown.old.keyId}</code>{" "}
              {shown.old.stopped
                ? "has stopped working."
                : `keeps working until ${new Date(shown.old.expiresAt).toLocaleString()}.`}
            </p>
          )}
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
        emptyText={testMode.on ? "No test keys yet." : "No keys yet."}
      >
        <TableWrap label="API keys">
          <table>
            <thead>
              <tr>
                <th>Key id</th>
                <th>Name</th>
                <th>Mode</th>
                <th>Created</th>
                <th>Last used</th>
                <th>Expires</th>
                <th>Allowlist</th>
                <th>Issued by</th>
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
                  <td>{k.name ?? <span className="hint">unnamed</span>}</td>
                  <td>{k.mode}</td>
                  <td>{new Date(k.createdAt).toLocaleString()}</td>
                  <td>
                    {k.lastUsedAt ? new Date(k.lastUsedAt).toLocaleString() : "never"}
                    {k.lastUsedAddress && <div className="hint">from {k.lastUsedAddress}</div>}
                  </td>
                  <td>
                    {k.replacedBy ? new Date(k.expiresAt).toLocaleString() : new Date(k.expiresAt).toLocaleDateString()}
                    {k.replacedBy && (
                      <div className="hint">
                        rolled to <code>{k.replacedBy}</code>
                      </div>
                    )}
                  </td>
                  <td>{k.ipAllowlist?.join(", ") ?? "any"}</td>
                  <td data-testid={`issuer-${k.keyId}`}>
                    {k.issuedBy ? (
                      (k.issuedBy.email ?? <span className="hint">a removed account</span>)
                    ) : (
                      <span className="hint">platform operator</span>
                    )}
                    {k.cutByIssuer.length > 0 && (
                      <ul className="plain hint">
                        {k.cutByIssuer.map((c) => (
                          <li key={c.scope}>
                            not <code>{c.scope}</code>: {c.reason}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td>
                    <span className={`badge ${k.state}`}>{k.state}</span>
                  </td>
                  <td>
                    {canManage && (
                      <div className="row">
                        <KeyNameDialog
                          tenantId={tenantId}
                          keyId={k.keyId}
                          name={k.name}
                          onSaved={() => void refresh()}
                        />
                        {k.state === "active" && !k.replacedBy && (
                          <RollKeyDialog
                            keyId={k.keyId}
                            disabled={roll.isPending}
                            onRoll={(delay) => roll.mutate({ tenantId, keyId: k.keyId, delay })}
                          />
                        )}
                        {k.state === "active" && (
                          <ConfirmDialog
                            trigger={
                              <button
                                type="button"
                                className="danger"
                                aria-label={`Revoke key ${k.keyId}`}
                                disabled={revoke.isPending}
                              >
                                Revoke
                              </button>
                            }
                            title={`Revoke key ${k.keyId}?`}
                            description="Requests with it will answer 401 at once. This cannot be undone."
                            confirmLabel="Revoke key"
                            onConfirm={() => revoke.mutate({ tenantId, keyId: k.keyId })}
                          />
                        )}
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
      <ErrorBox error={(revoke.error ?? roll.error) as ConsoleError | null} />
      {canManage && (
        <>
          <h2>{testMode.on ? "Create a test key" : "Issue a key"}</h2>
          {testMode.available && (
            <p className="hint">
              {testMode.on
                ? "A test key works in this tenant's sandbox only: sample data and the test wallet, never a real charge."
                : "Keys issued here work in live data. Test keys are created in Test mode."}
            </p>
          )}
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              const f = new FormData(e.currentTarget);
              const date = String(f.get("expiresAt") ?? "");
              issue.mutate({
                tenantId,
                integrationId,
                name: String(f.get("name") ?? ""),
                // With the preview the mode follows Test mode; without it the form's choice.
                mode: testMode.available ? (testMode.on ? "test" : "live") : f.get("mode") === "test" ? "test" : "live",
                expiresAt: date ? new Date(`${date}T23:59:59Z`).toISOString() : null,
                ipAllowlist: parseList(String(f.get("ipAllowlist") ?? "")),
              });
            }}
          >
            <label>
              Name <span className="hint">optional, such as &quot;shop backend&quot;</span>
              <input
                name="name"
                maxLength={100}
                aria-invalid={Boolean(nameError)}
                aria-describedby="issue-key-name-error"
              />
              <FieldMessage id="issue-key-name-error" message={nameError} />
            </label>
            {!testMode.available && (
              <label>
                Mode
                <select name="mode" defaultValue="live">
                  <option value="live">live</option>
                  <option value="test">test</option>
                </select>
              </label>
            )}
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
              {testMode.on
                ? issue.isPending
                  ? "Creating…"
                  : "Create test key"
                : issue.isPending
                  ? "Issuing…"
                  : "Issue key"}
            </button>
          </form>
        </>
      )}
    </>
  );
}
