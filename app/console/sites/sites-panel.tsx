"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../_components/confirm-dialog";
import { ErrorBox, FieldMessage, fieldMessage, type ConsoleError } from "../_components/field-errors";
import { QueryState } from "../_components/query-state";
import { TableWrap } from "../_components/table-wrap";
import { useTRPC } from "../_components/trpc-provider";
import { TokenBox } from "./token-box";

/** How a site's status reads, and its badge's colour class. */
const STATUS: Record<string, { text: string; badge: string }> = {
  not_linked: { text: "not linked", badge: "pending" },
  working: { text: "working", badge: "ok" },
  not_working: { text: "not working", badge: "failed" },
};

/**
 * The tenant's sites (issue 71 item 6): domain, the connector's status with its last poll, the drafts-only
 * ceiling; with `manage_integrations`, "Add site" (the token shown once), "Rotate token" (a new one shown
 * once; the old stops working at once) and "Revoke" after a confirmation.
 */
export function SitesPanel({ tenantId, canManage }: { tenantId: string; canManage: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(trpc.sites.list.queryOptions({ tenantId }));
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.sites.list.queryKey() });
  const [issued, setIssued] = useState<{ domain: string; token: string } | null>(null);
  const [error, setError] = useState<ConsoleError | null>(null);
  const onError = (e: unknown) => setError(e as ConsoleError);
  const rotate = useMutation(trpc.sites.rotate.mutationOptions({ onError, onSuccess: () => void refresh() }));
  const revoke = useMutation(
    trpc.sites.revoke.mutationOptions({
      onError,
      onSuccess: () => {
        setIssued(null);
        void refresh();
      },
    }),
  );
  return (
    <>
      <h1>Sites</h1>
      <p className="hint">
        Websites your articles are published to. Each runs a site connector that polls this platform with the
        site&apos;s token and writes the articles you publish (to a folder of a static site or to WordPress). A site is
        working when its connector polled within the last 5 minutes. &quot;Drafts only&quot; is the site owner&apos;s
        ceiling: every publication to it arrives as a draft.
      </p>
      {issued && <TokenBox domain={issued.domain} token={issued.token} onDone={() => setIssued(null)} />}
      <ErrorBox error={error} />
      <QueryState
        isLoading={list.isLoading}
        error={list.error}
        empty={list.data?.length === 0}
        emptyText="No sites yet."
      >
        <TableWrap label="Sites">
          <table>
            <thead>
              <tr>
                <th>Domain</th>
                <th>Status</th>
                <th>Last seen</th>
                <th>Ceiling</th>
                {canManage && <th>Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.data?.map((s) => (
                <tr key={s.id}>
                  <td>{s.domain}</td>
                  <td>
                    <span className={`badge ${STATUS[s.status]?.badge ?? ""}`}>
                      {STATUS[s.status]?.text ?? s.status}
                    </span>
                  </td>
                  <td>{s.last_seen_at ? new Date(s.last_seen_at).toLocaleString() : "never"}</td>
                  <td>{s.drafts_only ? "drafts only" : "drafts and publish"}</td>
                  {canManage && (
                    <td>
                      <div className="row">
                        <ConfirmDialog
                          trigger={
                            <button type="button" className="secondary" aria-label={`Rotate token of ${s.domain}`}>
                              Rotate token
                            </button>
                          }
                          title={`Rotate the token of ${s.domain}?`}
                          description="A new token is shown once; the current one stops working at once, so the connector fails until it is started with the new one."
                          confirmLabel="Rotate token"
                          onConfirm={() =>
                            rotate.mutate(
                              { tenantId, id: s.id },
                              { onSuccess: (r) => setIssued({ domain: s.domain, token: r.connectorToken }) },
                            )
                          }
                        />
                        <ConfirmDialog
                          trigger={
                            <button type="button" className="danger" aria-label={`Revoke ${s.domain}`}>
                              Revoke
                            </button>
                          }
                          title={`Revoke ${s.domain}?`}
                          description="Its token stops working at once and the site leaves the list; articles can no longer be published to it. Its publication history stays."
                          confirmLabel="Revoke site"
                          onConfirm={() => revoke.mutate({ tenantId, id: s.id })}
                        />
                      </div>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </QueryState>
      {canManage ? (
        <AddSite tenantId={tenantId} onAdded={(domain, token) => setIssued({ domain, token })} />
      ) : (
        <p className="hint">
          Adding a site, rotating and revoking its token need the <code>manage_integrations</code> right in this tenant.
        </p>
      )}
    </>
  );
}

/** The "Add site" form: a domain and the drafts-only ceiling; the new token goes to `onAdded`, once. */
function AddSite({ tenantId, onAdded }: { tenantId: string; onAdded: (domain: string, token: string) => void }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [domain, setDomain] = useState("");
  const [draftsOnly, setDraftsOnly] = useState(false);
  const [error, setError] = useState<ConsoleError | null>(null);
  const create = useMutation(
    trpc.sites.create.mutationOptions({
      onSuccess: (r, input) => {
        onAdded(input.domain.trim().toLowerCase(), r.connectorToken);
        setDomain("");
        setDraftsOnly(false);
        setError(null);
        void qc.invalidateQueries({ queryKey: trpc.sites.list.queryKey() });
      },
      onError: (e) => setError(e as ConsoleError),
    }),
  );
  const domainError = fieldMessage(error, "/domain");
  return (
    <section aria-labelledby="add-site">
      <h2 id="add-site">Add site</h2>
      {!domainError && <ErrorBox error={error} />}
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ tenantId, domain, draftsOnly });
        }}
      >
        <label>
          Domain
          <input
            value={domain}
            required
            placeholder="blog.example.com"
            aria-invalid={Boolean(domainError)}
            aria-describedby="site-domain-error"
            onChange={(e) => setDomain(e.target.value)}
          />
          <FieldMessage id="site-domain-error" message={domainError} />
        </label>
        <label className="check">
          <input type="checkbox" checked={draftsOnly} onChange={(e) => setDraftsOnly(e.target.checked)} />
          Drafts only
          <span className="hint">Every article published to this site arrives as a draft, whatever is asked.</span>
        </label>
        <div className="row">
          <button type="submit" disabled={create.isPending}>
            Add site
          </button>
        </div>
      </form>
    </section>
  );
}
