"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../../_components/confirm-dialog";
import { ErrorBox, type ConsoleError } from "../../_components/field-errors";
import { TableWrap } from "../../_components/table-wrap";
import { useTRPC } from "../../_components/trpc-provider";

type Publication = { target: string; state: string; published_url: string | null; error: string | null } | null;
type Job = {
  id: string;
  version: number;
  state: string;
  publishMode: string;
  siteDomain: string;
  publishedUrl: string | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
};

/** Statuses a publish starts from (the API's rule: approved, or published and edited; none also handed_off). */
const PUBLISHABLE = new Set(["approved", "published", "handed_off"]);

/**
 * The article's publication (issue 71 item 6): its current state, Publish (a dialog asking the target: one
 * of the tenant's sites with the mode draft or publish, or "none — we publish it ourselves"), the
 * confirmation of a publication of your own (`published_url`) for a handed-off article, and the history of
 * jobs sent to site connectors (version, state, site, address, error, times).
 */
export function PublicationBox({
  tenantId,
  id,
  article,
  history,
  say,
}: {
  tenantId: string;
  id: string;
  article: { status: string; publication: Publication };
  history: Job[];
  /** Shows the outcome in the page's one status line (null clears it). */
  say: (message: string | null) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const sites = useQuery(trpc.sites.list.queryOptions({ tenantId }));
  const [target, setTarget] = useState<string>("none");
  const [mode, setMode] = useState<"draft" | "publish">("draft");
  const [url, setUrl] = useState("");
  const [error, setError] = useState<ConsoleError | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.articles.get.queryKey() });
  const onError = (e: unknown) => {
    say(null);
    setError(e as ConsoleError);
  };
  const publish = useMutation(
    trpc.articles.publish.mutationOptions({
      onSuccess: async (r) => {
        setError(null);
        await refresh();
        // The service's type narrows status to v1's; under the preview it may be handed_off.
        const handedOff = String(r.article.status) === "handed_off";
        say(
          handedOff ? "Handed off: publish it yourself, then confirm its address." : "Queued for the site's connector.",
        );
      },
      onError,
    }),
  );
  const confirm = useMutation(
    trpc.articles.update.mutationOptions({
      onSuccess: async () => {
        setError(null);
        setUrl("");
        await refresh();
        say("Published.");
      },
      onError,
    }),
  );
  const etag = qc.getQueryData(trpc.articles.get.queryKey({ tenantId, id }))?.etag ?? "*";
  const site = sites.data?.find((s) => s.id === target);
  const p = article.publication;
  const go = () =>
    publish.mutate(
      target === "none"
        ? { tenantId, id, target: "none" }
        : { tenantId, id, target: "connector", site_id: target, publish_mode: mode },
    );
  return (
    <section aria-labelledby="publication">
      <h2 id="publication">Publication</h2>
      <p data-testid="publication-state">
        {p ? (
          <>
            {p.target === "none" ? "Published by you" : "Site connector"}: <strong>{p.state}</strong>
            {p.published_url && (
              <>
                {" "}
                at <a href={p.published_url}>{p.published_url}</a>
              </>
            )}
            {p.error && <> · {p.error}</>}
          </>
        ) : (
          <span className="hint">Not published yet.</span>
        )}
      </p>
      <ErrorBox error={error} />
      {PUBLISHABLE.has(article.status) ? (
        <ConfirmDialog
          trigger={<button type="button">Publish</button>}
          title="Publish this article"
          description="Where should it go? A site's connector writes it to the site; with none, you publish it yourself and confirm its address here."
          confirmLabel="Publish"
          destructive={false}
          onConfirm={go}
        >
          <div className="stack">
            <label>
              Target
              <select value={target} onChange={(e) => setTarget(e.target.value)}>
                <option value="none">none — we publish it ourselves</option>
                {sites.data?.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.domain} ({s.status.replace("_", " ")})
                  </option>
                ))}
              </select>
            </label>
            {site && (
              <fieldset>
                <legend>Mode</legend>
                {(["draft", "publish"] as const).map((m) => (
                  <label key={m} className="check">
                    <input type="radio" name="publish-mode" checked={mode === m} onChange={() => setMode(m)} />
                    {m === "draft" ? "Draft on the site" : "Published on the site"}
                  </label>
                ))}
                {site.drafts_only && <p className="hint">This site takes drafts only: it arrives as a draft.</p>}
              </fieldset>
            )}
          </div>
        </ConfirmDialog>
      ) : (
        <p className="hint">Approve the article to publish it.</p>
      )}
      {article.status === "handed_off" && (
        <form
          className="row publish-confirm"
          aria-label="Confirm your publication"
          onSubmit={(e) => {
            e.preventDefault();
            confirm.mutate({ tenantId, id, etag, change: { published_url: url } });
          }}
        >
          <label>
            Published at{" "}
            <input type="url" required value={url} placeholder="https://…" onChange={(e) => setUrl(e.target.value)} />
          </label>
          <button type="submit" disabled={confirm.isPending}>
            Confirm publication
          </button>
        </form>
      )}
      <h3>History</h3>
      {history.length === 0 ? (
        <p className="hint">No job was sent to a site connector yet.</p>
      ) : (
        <TableWrap label="Publication history">
          <table>
            <thead>
              <tr>
                <th>Version</th>
                <th>State</th>
                <th>Site</th>
                <th>Mode</th>
                <th>Address</th>
                <th>Error</th>
                <th>Queued</th>
                <th>Updated</th>
              </tr>
            </thead>
            <tbody>
              {history.map((j) => (
                <tr key={j.id}>
                  <td>{j.version}</td>
                  <td>{j.state}</td>
                  <td>{j.siteDomain}</td>
                  <td>{j.publishMode}</td>
                  <td>{j.publishedUrl ? <a href={j.publishedUrl}>{j.publishedUrl}</a> : "—"}</td>
                  <td>{j.error ?? "—"}</td>
                  <td>{new Date(j.createdAt).toLocaleString()}</td>
                  <td>{new Date(j.updatedAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}
