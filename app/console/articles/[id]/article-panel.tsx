"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ErrorBox, type ConsoleError } from "../../_components/field-errors";
import { QueryState } from "../../_components/query-state";
import { useTRPC } from "../../_components/trpc-provider";
import { ArticleEditor, elementsNotKept } from "./article-editor";
import { PublicationBox } from "./publication-box";

type Fields = { title: string; slug: string; meta_title: string; meta_description: string };

/**
 * One article (issue 71 item 6): its edit form (title, slug, meta fields, body in the rich-text editor)
 * saved under the etag the page read (a stale save shows "This article was changed by someone else" and
 * never overwrites), Approve, the reader view of the cleaned HTML the API answers, and the publication
 * box (Publish, state, history).
 */
export function ArticlePanel({ tenantId, id }: { tenantId: string; id: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const detail = useQuery(trpc.articles.get.queryOptions({ tenantId, id }));
  const [fields, setFields] = useState<Fields | null>(null);
  const [body, setBody] = useState<string | null>(null);
  const [error, setError] = useState<ConsoleError | null>(null);
  const [stale, setStale] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const a = detail.data?.article;
  const form: Fields | null =
    fields ??
    (a
      ? {
          title: a.title,
          slug: a.slug ?? "",
          meta_title: a.meta_title ?? "",
          meta_description: a.meta_description ?? "",
        }
      : null);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.articles.get.queryKey() });
  const reset = () => {
    setFields(null);
    setBody(null);
    setError(null);
  };
  const onError = (e: unknown) => {
    const err = e as ConsoleError;
    setSaved(null);
    if (err.data?.code === "precondition_failed") setStale(true);
    else setError(err);
  };
  const update = useMutation(
    trpc.articles.update.mutationOptions({
      onSuccess: async () => {
        reset();
        await refresh();
        setSaved("Saved.");
      },
      onError,
    }),
  );
  const approve = useMutation(
    trpc.articles.approve.mutationOptions({
      onSuccess: async () => {
        setError(null);
        await refresh();
        setSaved("Approved.");
      },
      onError,
    }),
  );
  const save = () => {
    if (!a || !form || !detail.data) return;
    setSaved(null);
    const change: Record<string, string | null> = {};
    if (form.title !== a.title) change.title = form.title;
    if (form.slug !== (a.slug ?? "")) change.slug = form.slug || null;
    if (form.meta_title !== (a.meta_title ?? "")) change.meta_title = form.meta_title || null;
    if (form.meta_description !== (a.meta_description ?? "")) change.meta_description = form.meta_description || null;
    if (body !== null) change.content = body;
    update.mutate({ tenantId, id, etag: detail.data.etag, change });
  };
  const set = (k: keyof Fields) => (e: { target: { value: string } }) =>
    form && setFields({ ...form, [k]: e.target.value });
  const lost = a ? elementsNotKept(a.content) : [];
  return (
    <>
      <p>
        <Link href={`/console/articles?tenant=${tenantId}`}>← Articles</Link>
      </p>
      <QueryState isLoading={detail.isLoading} error={detail.error}>
        {a && form && detail.data && (
          <>
            <h1>{a.title}</h1>
            <p className="hint" data-testid="article-state">
              Status <strong>{a.status}</strong> · version {detail.data.version} · {a.word_count} words
              {a.updated_at ? ` · updated ${new Date(a.updated_at).toLocaleString()}` : ""}
            </p>
            {stale && (
              <div className="error" role="alert">
                <p style={{ margin: 0 }}>
                  This article was changed by someone else since you opened it; your edit was not saved. Reload to see
                  the current version, then apply your change again.
                </p>
                <button
                  type="button"
                  onClick={() => {
                    setStale(false);
                    reset();
                    void refresh();
                  }}
                >
                  Reload
                </button>
              </div>
            )}
            {saved && !stale && <p role="status">{saved}</p>}
            <ErrorBox error={error} />
            {(a.status === "draft" || a.status === "review") && (
              <div className="row">
                <button type="button" disabled={approve.isPending} onClick={() => approve.mutate({ tenantId, id })}>
                  Approve
                </button>
                <span className="hint">An approved article can be published.</span>
              </div>
            )}
            <form
              className="stack wide"
              aria-label="Edit article"
              onSubmit={(e) => {
                e.preventDefault();
                save();
              }}
            >
              <label>
                Title <input value={form.title} required maxLength={500} onChange={set("title")} />
              </label>
              <label>
                Slug{" "}
                <input
                  value={form.slug}
                  maxLength={200}
                  pattern="[a-z0-9]+(-[a-z0-9]+)*"
                  title="lowercase letters, digits and single hyphens"
                  onChange={set("slug")}
                />
              </label>
              <label>
                Meta title <input value={form.meta_title} maxLength={300} onChange={set("meta_title")} />
              </label>
              <label>
                Meta description{" "}
                <textarea rows={3} value={form.meta_description} maxLength={1000} onChange={set("meta_description")} />
              </label>
              <div>
                <span className="label" id="body-label">
                  Body
                </span>
                {lost.length > 0 && (
                  <p className="hint">
                    The editor does not keep {lost.join(", ")}: editing the body turns them into plain text.
                  </p>
                )}
                {/* Remounted on every new version, so it starts from the saved HTML. */}
                <ArticleEditor key={detail.data.etag} html={a.content} onChange={setBody} />
              </div>
              <div className="row">
                <button type="submit" disabled={update.isPending}>
                  Save
                </button>
                {body !== null && <span className="hint">The body has unsaved changes.</span>}
              </div>
            </form>
            <PublicationBox tenantId={tenantId} id={id} article={a} history={detail.data.history} say={setSaved} />
            <section aria-labelledby="reader-view">
              <h2 id="reader-view">Reader view</h2>
              <p className="hint">The cleaned HTML the API answers for this article, as a reader sees it.</p>
              {/* Sanitized on the server (cleanArticleHtml): no scripts, no on* or style attributes. */}
              <article className="reader" dangerouslySetInnerHTML={{ __html: a.content }} />
            </section>
          </>
        )}
      </QueryState>
    </>
  );
}
