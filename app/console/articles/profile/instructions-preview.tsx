"use client";

import { useMemo } from "react";
import { DEFAULT_TARGET_WORDS } from "@/server/schemas/article-generation";
// The writer's own pure function (on the floor, server/lib, with the writer's contract), so the preview is
// the text the writer is given, not a copy that could drift.
import { writingInstructions } from "@/server/lib/article-writing/instructions";
import type { EditorialProfile } from "./profile-draft";

/**
 * "Instructions preview": the writing instructions the profile being typed produces, computed in the
 * browser by the writer's own pure function (writingInstructions), for an article of the default length
 * in the profile's language. What the writer is told is exactly this text, plus the order's keyword or
 * topic and the shop's products.
 */
export function InstructionsPreview({ profile }: { profile: EditorialProfile }) {
  const text = useMemo(() => writingInstructions(profile, { targetWords: DEFAULT_TARGET_WORDS }), [profile]);
  return (
    <section className="instructions-preview" aria-labelledby="instructions-preview-title">
      <h2 id="instructions-preview-title">Instructions preview</h2>
      <p className="hint">
        What the writer is told for an article of about {DEFAULT_TARGET_WORDS.toLocaleString("en")} words, besides its
        keyword or topic and your matching products. It follows the form as you type; save to use it.
      </p>
      <pre data-testid="instructions-preview">{text}</pre>
    </section>
  );
}
