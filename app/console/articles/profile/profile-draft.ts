import {
  EditorialProfileSchema,
  PutEditorialProfileSchema,
  type EditorialProfileView,
  type PutEditorialProfile,
} from "@/server/schemas/article-generation";

/** The profile as the writer reads it (article-brief.ts `EditorialProfile`), from the contract's schema. */
export type EditorialProfile = Omit<EditorialProfileView, "updated_at">;

/** Where topics come from (`topic_sources`), in the contract's order. */
export const TOPIC_SOURCES = EditorialProfileSchema.shape.topic_sources.element.options;
export type TopicSource = (typeof TOPIC_SOURCES)[number];

/**
 * The editorial profile form as typed (issue 72 item 1): every field a string as in its input, except the
 * topic sources (the ticked boxes). `source_urls` holds one address a line; `avoid` one entry a line or
 * comma-separated.
 */
export interface ProfileDraft {
  niche: string;
  audience: string;
  tone: string;
  presentation: string;
  topic_sources: TopicSource[];
  source_urls: string;
  avoid: string;
  example_text: string;
  locale: string;
}

/** A field of the form: the key its messages are shown under. */
export type ProfileField = keyof ProfileDraft;

/** Messages per field of the form, the first problem of each; empty when the draft is valid. */
export type ProfileErrors = Partial<Record<ProfileField, string>>;

/** The form filled from the saved profile (an unsaved one is all blank). */
export function draftOf(p: EditorialProfileView): ProfileDraft {
  return {
    niche: p.niche ?? "",
    audience: p.audience ?? "",
    tone: p.tone ?? "",
    presentation: p.presentation ?? "",
    topic_sources: [...p.topic_sources],
    source_urls: p.source_urls.join("\n"),
    avoid: p.avoid.join("\n"),
    example_text: p.example_text ?? "",
    locale: p.locale ?? "",
  };
}

/** One entry a line, trimmed, blank lines left out. */
export function splitLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** One entry a line or between commas (a phrase keeps its spaces), trimmed, blanks left out. */
export function splitAvoid(text: string): string[] {
  return text
    .split(/[\r\n,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

const orNull = (s: string) => (s.trim() ? s.trim() : null);

/** What "Save profile" sends: blank strings as null (the server clears them), lists split. */
export function inputOf(d: ProfileDraft): PutEditorialProfile {
  return {
    niche: orNull(d.niche),
    audience: orNull(d.audience),
    tone: orNull(d.tone),
    presentation: orNull(d.presentation),
    topic_sources: d.topic_sources,
    source_urls: splitLines(d.source_urls),
    avoid: splitAvoid(d.avoid),
    // The sample keeps its own line breaks and indent; only a blank one is cleared.
    example_text: d.example_text.trim() ? d.example_text : null,
    locale: orNull(d.locale),
  };
}

/** The profile the draft stands for, as the writer reads one: the input of the instructions preview. */
export function profileOf(d: ProfileDraft): EditorialProfile {
  const i = inputOf(d);
  return {
    niche: i.niche ?? null,
    audience: i.audience ?? null,
    tone: i.tone ?? null,
    presentation: i.presentation ?? null,
    topic_sources: i.topic_sources ?? [],
    source_urls: i.source_urls ?? [],
    avoid: i.avoid ?? [],
    example_text: i.example_text ?? null,
    locale: i.locale ?? null,
  };
}

const FIELDS: readonly string[] = [
  "niche",
  "audience",
  "tone",
  "presentation",
  "topic_sources",
  "source_urls",
  "avoid",
  "example_text",
  "locale",
];

/**
 * Messages per field from schema issues (zod's, or the server's `validation_failed` field errors turned
 * into paths): an issue of one list entry names its line (`source_urls`) or entry (`avoid`), counted
 * from 1. An issue of no known field is left out (the error box above the form shows the server's).
 */
export function errorsOf(issues: readonly { path: readonly PropertyKey[]; message: string }[]): ProfileErrors {
  const out: ProfileErrors = {};
  for (const { path, message } of issues) {
    const [field, index] = path;
    if (typeof field !== "string" || !FIELDS.includes(field) || out[field as ProfileField]) continue;
    const n = typeof index === "number" ? index + 1 : Number.NaN;
    const where = Number.isNaN(n) ? "" : field === "source_urls" ? `line ${n}: ` : `entry ${n}: `;
    out[field as ProfileField] = `${where}${message}`;
  }
  return out;
}

/** The draft checked against the server's own schema (PutEditorialProfileSchema, the same limits). */
export function checkDraft(d: ProfileDraft): ProfileErrors {
  const r = PutEditorialProfileSchema.safeParse(inputOf(d));
  return r.success ? {} : errorsOf(r.error.issues);
}

/**
 * The server's field errors as messages per field: JSON Pointers into the procedure's input, where the
 * profile is under `profile` (`/profile/source_urls/2`); a pointer outside it is left out.
 */
export function serverErrorsOf(
  errors: readonly { field: string; message: string }[] | null | undefined,
): ProfileErrors {
  return errorsOf(
    (errors ?? [])
      .filter((e) => e.field.startsWith("/profile/"))
      .map((e) => ({
        path: e.field
          .slice("/profile".length)
          .split("/")
          .slice(1)
          .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, "/").replace(/~0/g, "~"))),
        message: e.message,
      })),
  );
}
