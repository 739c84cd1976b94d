"use client";

import { useState } from "react";
import { GenerationProgress } from "./generation-progress";
import { OrderForm, type OrderedJob } from "./order-form";

/**
 * The Articles page's "Generate article" (issue 72 item 5): "Generate article…" opening the order form, and the progress of every article ordered on this page, newest first.
 */
export function GenerateArticle({ tenantId }: { tenantId: string }) {
  const [open, setOpen] = useState(false);
  const [jobs, setJobs] = useState<OrderedJob[]>([]);
  return (
    <section aria-labelledby="generate-article-title">
      <h2 id="generate-article-title">Generate an article</h2>
      <p className="hint">
        A paid draft written by AI following your editorial profile, from a strategist topic or a keyword. You edit and
        approve it before it is published.
      </p>
      {open ? (
        <OrderForm
          tenantId={tenantId}
          onCancel={() => setOpen(false)}
          onOrdered={(job) => {
            setJobs((js) => [job, ...js]);
            setOpen(false);
          }}
        />
      ) : (
        <button type="button" onClick={() => setOpen(true)}>
          Generate article…
        </button>
      )}
      {jobs.length > 0 && (
        <ul className="plain generations" aria-label="Ordered articles">
          {jobs.map((j) => (
            <GenerationProgress key={j.id} tenantId={tenantId} jobId={j.id} what={j.what} />
          ))}
        </ul>
      )}
    </section>
  );
}
