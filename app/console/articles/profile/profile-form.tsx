"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState, type ReactNode } from "react";
import type { EditorialProfileView } from "@/server/schemas/article-generation";
import { ErrorBox, FieldMessage, type ConsoleError } from "../../_components/field-errors";
import { useTRPC } from "../../_components/trpc-provider";
import { InstructionsPreview } from "./instructions-preview";
import {
  checkDraft,
  draftOf,
  inputOf,
  profileOf,
  serverErrorsOf,
  TOPIC_SOURCES,
  type ProfileDraft,
  type ProfileErrors,
  type ProfileField,
  type TopicSource,
} from "./profile-draft";

/** The topic sources' names in the form. */
const SOURCE_LABELS: Record<TopicSource, string> = {
  own_site: "Own site",
  wordstat: "Yandex Wordstat",
  search_console: "Google Search Console",
  competitors: "Competitors",
  manual: "Chosen by hand",
  urls: "URLs listed below",
};

/** Language tags offered in the locale field; any other tag may be typed. */
const LOCALES = ["ru", "en", "en-GB", "id", "de", "kk", "uz"];

/**
 * The editorial profile form (issue 72 item 1) beside the live "Instructions preview". Checked in the
 * browser against the server's schema (PutEditorialProfileSchema): a field's message shows once it was
 * left or a save was tried, and a draft with one is not sent; the server's field errors show under their
 * fields too. "Save profile" replaces the whole profile and says "Profile saved."; the form then holds the
 * profile as saved (trimmed, repeated avoid entries merged).
 */
export function ProfileForm({ tenantId, saved }: { tenantId: string; saved: EditorialProfileView }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [draft, setDraft] = useState<ProfileDraft>(() => draftOf(saved));
  const [touched, setTouched] = useState<Set<ProfileField>>(new Set());
  const [tried, setTried] = useState(false);
  const [done, setDone] = useState(false);
  const save = useMutation(
    trpc.articleGeneration.saveProfile.mutationOptions({
      onSuccess: (p) => {
        qc.setQueryData(trpc.articleGeneration.profile.queryKey({ tenantId }), p);
        setDraft(draftOf(p));
        setTried(false);
        setTouched(new Set());
        setDone(true);
      },
      onError: () => setDone(false),
    }),
  );
  const error = save.error as ConsoleError | null;
  const client = checkDraft(draft);
  const server: ProfileErrors = serverErrorsOf(error?.data?.errors);
  const message = (f: ProfileField) => ((tried || touched.has(f)) && client[f]) || server[f] || null;
  const profile = useMemo(() => profileOf(draft), [draft]);
  const unsaved = JSON.stringify(inputOf(draft)) !== JSON.stringify(inputOf(draftOf(saved)));

  const set = (f: ProfileField, v: ProfileDraft[ProfileField]) => {
    setDraft((d) => ({ ...d, [f]: v }));
    setDone(false);
  };
  const leave = (f: ProfileField) => () => setTouched((t) => new Set(t).add(f));
  const field = (f: ProfileField, label: string, hint: ReactNode, rows?: number, placeholder?: string) => {
    const props = {
      name: f,
      value: draft[f] as string,
      placeholder,
      "aria-invalid": Boolean(message(f)),
      "aria-describedby": `profile-${f}-error`,
      onBlur: leave(f),
      onChange: (e: { target: { value: string } }) => set(f, e.target.value),
    };
    return (
      <label>
        {label} {hint && <span className="hint">{hint}</span>}
        {rows ? <textarea rows={rows} {...props} /> : <input {...props} />}
        <FieldMessage id={`profile-${f}-error`} message={message(f)} />
      </label>
    );
  };

  return (
    <div className="profile-layout">
      <form
        className="stack"
        aria-label="Editorial profile"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          setTried(true);
          setDone(false);
          if (Object.keys(client).length) return;
          save.mutate({ tenantId, profile: inputOf(draft) });
        }}
      >
        {field("niche", "Niche", "Required to generate articles: what they are about.", undefined, "running shoes")}
        {field("audience", "Audience", "Who reads them.", 2)}
        {field("tone", "Tone", "The voice, e.g. friendly and expert.")}
        {field("presentation", "Presentation", "How the text is laid out: lists, tables, length of sections.", 2)}
        <fieldset aria-describedby="profile-topic_sources-error">
          <legend>Topic sources</legend>
          <div className="scopes">
            {TOPIC_SOURCES.map((s) => (
              <label key={s}>
                <input
                  type="checkbox"
                  checked={draft.topic_sources.includes(s)}
                  onChange={(e) =>
                    set(
                      "topic_sources",
                      e.target.checked
                        ? TOPIC_SOURCES.filter((x) => x === s || draft.topic_sources.includes(x))
                        : draft.topic_sources.filter((x) => x !== s),
                    )
                  }
                />
                {SOURCE_LABELS[s]}
              </label>
            ))}
          </div>
          <FieldMessage id="profile-topic_sources-error" message={message("topic_sources")} />
        </fieldset>
        {field("source_urls", "Source URLs", "One http or https address a line, at most 20.", 3)}
        {field("avoid", "Avoid", "Words and phrases never to use: one a line or comma-separated.", 3)}
        {field("example_text", "Example text", "A sample of your own writing: its style is followed, never copied.", 8)}
        <label>
          Locale <span className="hint">A language tag such as ru or en-GB; empty: your region&apos;s language.</span>
          <input
            name="locale"
            list="profile-locales"
            value={draft.locale}
            aria-invalid={Boolean(message("locale"))}
            aria-describedby="profile-locale-error"
            onBlur={leave("locale")}
            onChange={(e) => set("locale", e.target.value)}
          />
          <datalist id="profile-locales">
            {LOCALES.map((l) => (
              <option key={l} value={l} />
            ))}
          </datalist>
          <FieldMessage id="profile-locale-error" message={message("locale")} />
        </label>
        <ErrorBox error={error} />
        {tried && Object.keys(client).length > 0 && (
          <p className="error" role="alert">
            Correct the fields marked above; nothing was saved.
          </p>
        )}
        <div className="row">
          <button type="submit" disabled={save.isPending}>
            Save profile
          </button>
          {done && !unsaved && <span role="status">Profile saved.</span>}
          {unsaved && <span className="hint">Unsaved changes.</span>}
          {!unsaved && !draft.niche.trim() && (
            <span className="hint">Without a niche, articles cannot be generated yet.</span>
          )}
        </div>
      </form>
      <InstructionsPreview profile={profile} />
    </div>
  );
}
