import { describe, expect, it } from "vitest";
import { EMPTY_EDITORIAL_PROFILE } from "@/server/lib/article-writing/article-brief";
import { checkDraft, draftOf, inputOf, profileOf, serverErrorsOf, type ProfileDraft } from "./profile-draft";

const blank: ProfileDraft = draftOf({ ...EMPTY_EDITORIAL_PROFILE, topic_sources: [], updated_at: null });

describe("the editorial profile form's draft", () => {
  it("sends blank fields as null and splits the lists (URLs a line, avoid by lines or commas)", () => {
    const input = inputOf({
      ...blank,
      niche: "  running shoes ",
      source_urls: "https://a.example/x\n\n  https://b.example/y  \n",
      avoid: "cheap, best ever\nguaranteed,,\n",
      example_text: "Line one.\n  Indented line two.",
    });
    expect(input).toEqual({
      niche: "running shoes",
      audience: null,
      tone: null,
      presentation: null,
      topic_sources: [],
      source_urls: ["https://a.example/x", "https://b.example/y"],
      avoid: ["cheap", "best ever", "guaranteed"],
      example_text: "Line one.\n  Indented line two.",
      locale: null,
    });
    expect(profileOf({ ...blank, avoid: "cheap" }).avoid).toEqual(["cheap"]);
  });

  it("fills the form from a saved profile and sends it back unchanged", () => {
    const saved = {
      niche: "bikes",
      audience: "commuters",
      tone: "calm",
      presentation: "short sections",
      topic_sources: ["wordstat" as const, "urls" as const],
      source_urls: ["https://a.example/"],
      avoid: ["cheap", "best ever"],
      example_text: "We ride.",
      locale: "en-GB",
    };
    expect(inputOf(draftOf({ ...saved, updated_at: "2026-01-01T00:00:00Z" }))).toEqual(saved);
  });

  it("finds what the server would refuse, naming the field and the line", () => {
    expect(checkDraft({ ...blank, niche: "shoes" })).toEqual({});
    expect(checkDraft(blank)).toEqual({}); // a profile without a niche can be saved, not used
    const errors = checkDraft({
      ...blank,
      niche: "n".repeat(501),
      source_urls: "https://ok.example/\nftp://files.example/",
      avoid: "x".repeat(101),
      locale: "Russian",
    });
    expect(errors.niche).toBe("must be at most 500 characters");
    expect(errors.source_urls).toBe("line 2: must be an http or https address");
    expect(errors.avoid).toBe("entry 1: must be at most 100 characters");
    expect(errors.locale).toBe("must be a language tag such as ru or en-GB");
    expect(Object.keys(errors).sort()).toEqual(["avoid", "locale", "niche", "source_urls"]);
  });

  it("reads the server's field errors by JSON Pointer, ignoring fields the form has not", () => {
    expect(
      serverErrorsOf([
        { field: "/profile/source_urls/0", message: "must be an http or https address" },
        { field: "/profile/tone", message: "must be at most 500 characters" },
        { field: "/source_urls", message: "outside the profile" },
        { field: "/tenantId", message: "Invalid UUID" },
      ]),
    ).toEqual({ source_urls: "line 1: must be an http or https address", tone: "must be at most 500 characters" });
    expect(serverErrorsOf(null)).toEqual({});
  });
});
