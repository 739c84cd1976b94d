import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { editorialProfiles } from "@/db/schema";
import type { EditorialProfileView, PutEditorialProfile } from "@/server/schemas/article-generation";
import { livemodeOf, ownedBy, ownerOf, type Owner } from "../tenant-scope";
import {
  EMPTY_EDITORIAL_PROFILE as EMPTY,
  type EditorialProfile,
  type TopicSource,
} from "@/server/lib/article-writing/article-brief";

type ProfileRow = typeof editorialProfiles.$inferSelect;

/** An unsaved profile with lists of its own (a caller may change them without touching the shared one). */
const empty = (): EditorialProfile => ({ ...EMPTY, topic_sources: [], source_urls: [], avoid: [] });

const toProfile = (r: ProfileRow): EditorialProfile => ({
  niche: r.niche,
  audience: r.audience,
  tone: r.tone,
  presentation: r.presentation,
  topic_sources: r.topicSources as TopicSource[],
  source_urls: r.sourceUrls,
  avoid: r.avoid,
  example_text: r.exampleText,
  locale: r.locale,
});

/**
 * The editorial profile of the owner's tenant and mode (issue 72 item 1; the sandbox has its own), as the
 * writer reads it; every field unset when none was saved.
 */
export async function readEditorialProfile(db: Db, owner: Owner): Promise<EditorialProfile> {
  const [row] = await db.select().from(editorialProfiles).where(ownedBy(editorialProfiles, owner));
  return row ? toProfile(row) : empty();
}

/** `GET /articles/editorial-profile`: the profile with `updated_at` (null when never saved). */
export async function getEditorialProfile(db: Db, owner: Owner): Promise<EditorialProfileView> {
  const [row] = await db.select().from(editorialProfiles).where(ownedBy(editorialProfiles, owner));
  return row ? { ...toProfile(row), updated_at: row.updatedAt.toISOString() } : { ...empty(), updated_at: null };
}

/** A blank string is no value: stored as null. */
const orNull = (v: string | null | undefined) => (v && v.trim() ? v.trim() : null);

/**
 * `PUT /articles/editorial-profile` (and the console's form): replaces the whole profile of the owner's
 * tenant and mode; a string left out, null or blank is cleared, a list left out is emptied; the avoid list
 * keeps its first spelling of each word (case-insensitively).
 * @returns the saved profile
 */
export async function putEditorialProfile(
  db: Db,
  owner: Owner,
  input: PutEditorialProfile,
): Promise<EditorialProfileView> {
  const seen = new Set<string>();
  const avoid = (input.avoid ?? []).filter((w) => {
    const k = w.toLowerCase();
    return seen.has(k) ? false : (seen.add(k), true);
  });
  const values = {
    niche: orNull(input.niche),
    audience: orNull(input.audience),
    tone: orNull(input.tone),
    presentation: orNull(input.presentation),
    topicSources: input.topic_sources ?? [],
    sourceUrls: [...new Set(input.source_urls ?? [])],
    avoid,
    exampleText: orNull(input.example_text),
    locale: input.locale ?? null,
    updatedAt: new Date(),
  };
  const [row] = await db
    .insert(editorialProfiles)
    .values({ ...ownerOf(owner), ...values })
    .onConflictDoUpdate({ target: [editorialProfiles.tenantId, editorialProfiles.livemode], set: values })
    .returning();
  return { ...toProfile(row!), updated_at: row!.updatedAt.toISOString() };
}

/** True when the owner's profile names a niche: what generation needs (else 409 `editorial_profile_required`). */
export async function hasNiche(db: Db, owner: Owner): Promise<boolean> {
  const [row] = await db
    .select({ niche: editorialProfiles.niche })
    .from(editorialProfiles)
    .where(and(eq(editorialProfiles.tenantId, owner.tenantId), eq(editorialProfiles.livemode, livemodeOf(owner))));
  return !!row?.niche;
}
