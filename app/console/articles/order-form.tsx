"use client";

import { keepPreviousData, useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { CreateGenerationJobSchema, DEFAULT_TARGET_WORDS } from "@/server/schemas/article-generation";
import { FieldMessage, fieldMessage } from "../_components/field-errors";
import { useTRPC } from "../_components/trpc-provider";
import { GenerationError, isTransient, type OrderError } from "./generation-error";

type Order = { topic_id?: string; keyword?: string; title?: string; target_words: number };
type OrderField = "topic_id" | "keyword" | "title" | "target_words";

/** An ordered job, for its progress line: its id and what it was ordered from. */
export interface OrderedJob {
  id: string;
  what: string;
}

/**
 * The "Generate article" form (issue 72 item 5): from a strategist topic (proposed or approved) or a
 * keyword, an optional title and the length (300-4,000 words). It shows "Up to N RUB", the most the order
 * can cost (the quote for that length), before the order is confirmed with "Generate article". Each
 * confirmed click sends a fresh key; "Try again" after a network failure or a 5xx sends the same order
 * with the same key, so a click that did reach the server is not ordered (nor charged) twice.
 */
export function OrderForm({
  tenantId,
  onOrdered,
  onCancel,
}: {
  tenantId: string;
  onOrdered: (job: OrderedJob) => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const topics = useQuery(trpc.articleGeneration.topics.queryOptions({ tenantId }));
  const [source, setSource] = useState<"topic" | "keyword">("keyword");
  const [topicId, setTopicId] = useState("");
  const [keyword, setKeyword] = useState("");
  const [title, setTitle] = useState("");
  const [words, setWords] = useState(String(DEFAULT_TARGET_WORDS));
  const [tried, setTried] = useState(false);
  // The click being sent: its key and order, sent again as they are by "Try again".
  const [last, setLast] = useState<{ key: string; order: Order; what: string } | null>(null);
  const generate = useMutation(trpc.articleGeneration.generate.mutationOptions());
  const error = generate.error as OrderError | null;

  const order: Order = {
    ...(source === "topic" ? { topic_id: topicId || undefined } : { keyword }),
    ...(title.trim() ? { title } : {}),
    target_words: words.trim() ? Number(words) : Number.NaN,
  };
  const parsed = CreateGenerationJobSchema.safeParse(order);
  const issues: Partial<Record<OrderField, string>> = {};
  if (source === "topic" && !topicId) issues.topic_id = "Choose a topic.";
  else if (source === "keyword" && !keyword.trim()) issues.keyword = "Type a keyword.";
  for (const i of parsed.success ? [] : parsed.error.issues) {
    const f = i.path[0] as OrderField;
    issues[f] ??= i.message;
  }
  const message = (f: OrderField) => (tried ? issues[f] : null) ?? fieldMessage(error, `/order/${f}`);
  const wordsOk = !issues.target_words;
  const quote = useQuery(
    trpc.articleGeneration.quote.queryOptions(
      { tenantId, target_words: wordsOk ? Number(words) : DEFAULT_TARGET_WORDS },
      { enabled: wordsOk, placeholderData: keepPreviousData },
    ),
  );
  const priced = wordsOk && quote.data && !quote.isPlaceholderData;
  const send = (click: { key: string; order: Order; what: string }) =>
    generate.mutate(
      { tenantId, key: click.key, order: click.order },
      { onSuccess: (r) => onOrdered({ id: r.jobId, what: click.what }) },
    );
  const topicTitle = topics.data?.find((t) => t.id === topicId)?.title ?? "Untitled topic";

  return (
    <form
      className="stack"
      aria-label="Order an article"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setTried(true);
        if (Object.keys(issues).length || !priced || !parsed.success) return;
        const what = source === "topic" ? `Topic “${topicTitle}”` : `Keyword “${keyword.trim()}”`;
        const click = { key: crypto.randomUUID(), order: parsed.data, what };
        setLast(click);
        send(click);
      }}
    >
      <fieldset>
        <legend>Order from</legend>
        <div className="row">
          <label className="check">
            <input type="radio" name="source" checked={source === "keyword"} onChange={() => setSource("keyword")} />A
            keyword
          </label>
          <label className="check">
            <input
              type="radio"
              name="source"
              checked={source === "topic"}
              disabled={!topics.data?.length}
              onChange={() => setSource("topic")}
            />
            A strategist topic
          </label>
          {topics.data?.length === 0 && <span className="hint">No proposed or approved topics yet.</span>}
        </div>
      </fieldset>
      {source === "keyword" ? (
        <label>
          Keyword <span className="hint">The search query the article targets.</span>
          <input
            value={keyword}
            aria-invalid={Boolean(message("keyword"))}
            aria-describedby="order-keyword-error"
            onChange={(e) => setKeyword(e.target.value)}
          />
          <FieldMessage id="order-keyword-error" message={message("keyword")} />
        </label>
      ) : (
        <label>
          Topic
          <select
            value={topicId}
            aria-invalid={Boolean(message("topic_id"))}
            aria-describedby="order-topic-error"
            onChange={(e) => setTopicId(e.target.value)}
          >
            <option value="">Choose a topic…</option>
            {topics.data?.map((t) => (
              <option key={t.id} value={t.id}>
                {t.title ?? "Untitled topic"} ({t.status})
              </option>
            ))}
          </select>
          <FieldMessage id="order-topic-error" message={message("topic_id")} />
        </label>
      )}
      <label>
        Title <span className="hint">Optional: empty, the writer makes one.</span>
        <input
          value={title}
          aria-invalid={Boolean(message("title"))}
          aria-describedby="order-title-error"
          onChange={(e) => setTitle(e.target.value)}
        />
        <FieldMessage id="order-title-error" message={message("title")} />
      </label>
      <label>
        Target words <span className="hint">300 to 4,000.</span>
        <input
          type="number"
          inputMode="numeric"
          min={300}
          max={4000}
          step={100}
          value={words}
          aria-invalid={Boolean(message("target_words"))}
          aria-describedby="order-words-error"
          onChange={(e) => setWords(e.target.value)}
        />
        <FieldMessage id="order-words-error" message={message("target_words")} />
      </label>
      <p className="notice" data-testid="generation-quote" aria-live="polite" aria-busy={wordsOk && !priced}>
        {!wordsOk ? (
          "The cost shows for a length of 300 to 4,000 words."
        ) : priced ? (
          <>
            <strong>
              Up to {quote.data.max_cost.amount} {quote.data.max_cost.currency}
            </strong>{" "}
            from the wallet of this mode ({quote.data.model}): held when you order, and only what the writing used is
            charged.
          </>
        ) : quote.error ? (
          `The cost cannot be read: ${quote.error.message}`
        ) : (
          "Reading the cost…"
        )}
      </p>
      <GenerationError tenantId={tenantId} error={error} />
      <div className="row">
        <button type="submit" disabled={generate.isPending || !priced}>
          Generate article
        </button>
        {error && isTransient(error) && last && (
          <button type="button" className="secondary" disabled={generate.isPending} onClick={() => send(last)}>
            Try again
          </button>
        )}
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
        {generate.isPending && <span className="hint">Ordering…</span>}
      </div>
    </form>
  );
}
