import { describe, expect, it } from "vitest";
import { classifyEvent, pagePathOf, type ClassifyInput } from "./classify";

// Issue 74 item 2: source and kind of an event from its utm tags and referrer, with AI assistants recognised.

const PAGE = "https://shop.example.ru/catalog/boots?color=red&email=a@b.c#top";
const view = (o: Partial<ClassifyInput>): ClassifyInput => ({ type: "page_view", pageUrl: PAGE, ...o });
const pick = (o: Partial<ClassifyInput>) => {
  const c = classifyEvent(view(o));
  return `${c.source}/${c.kind}`;
};

describe("classifyEvent", () => {
  it("names search engines by referrer host and by utm_source, but not their other services", () => {
    expect(pick({ referrer: "https://www.google.com/" })).toBe("google/search");
    expect(pick({ referrer: "https://google.co.uk/search?q=boots" })).toBe("google/search");
    expect(pick({ referrer: "https://yandex.ru/search/?text=boots" })).toBe("yandex/search");
    expect(pick({ referrer: "https://ya.ru/" })).toBe("yandex/search");
    expect(pick({ referrer: "https://www.bing.com/" })).toBe("bing/search");
    expect(pick({ utmSource: "google" })).toBe("google/search");
    expect(pick({ utmSource: "Yandex.ru" })).toBe("yandex/search");
    expect(pick({ referrer: "https://mail.google.com/mail/u/0" })).toBe("other/other");
  });

  it("recognises AI assistants, before the search engine whose domain they live on", () => {
    expect(pick({ referrer: "https://chatgpt.com/" })).toBe("chatgpt/ai_assistant");
    expect(pick({ referrer: "https://chat.openai.com/c/1" })).toBe("chatgpt/ai_assistant");
    expect(pick({ utmSource: "chatgpt.com" })).toBe("chatgpt/ai_assistant");
    expect(pick({ referrer: "https://www.perplexity.ai/search" })).toBe("perplexity/ai_assistant");
    for (const host of [
      "claude.ai",
      "gemini.google.com",
      "copilot.microsoft.com",
      "chat.deepseek.com",
      "you.com",
      "alice.yandex.ru",
    ])
      expect(pick({ referrer: `https://${host}/` }), host).toBe("ai_other/ai_assistant");
  });

  it("recognises social networks by host and by utm_source", () => {
    for (const host of ["vk.com", "t.me", "l.facebook.com", "instagram.com", "x.com", "t.co", "ok.ru", "dzen.ru"])
      expect(pick({ referrer: `https://${host}/x` }), host).toBe("social/social");
    expect(pick({ referrer: "https://m.youtube.com/watch" })).toBe("social/social");
    expect(pick({ utmSource: "telegram" })).toBe("social/social");
    expect(pick({ utmSource: "linkedin" })).toBe("social/social");
  });

  it("takes a paid utm_medium as ads, whatever the source", () => {
    for (const medium of ["cpc", "PPC", "paid", "cpm", "paid_social", "paid-search", "display", "ads", "social_ads"])
      expect(pick({ utmSource: "google", utmMedium: medium, referrer: "https://google.com/" }), medium).toBe("ads/ads");
    expect(pick({ utmSource: "newsletter", utmMedium: "email" })).toBe("other/other");
    expect(pick({ utmMedium: "broadcast" })).toBe("other/other");
  });

  it("direct without referrer and utm; internal navigation is direct and starts no session", () => {
    expect(classifyEvent(view({}))).toEqual({
      source: "direct",
      kind: "direct",
      sessionStart: true,
      pagePath: "/catalog/boots",
    });
    const inner = classifyEvent(view({ referrer: "https://www.shop.example.ru/" }));
    expect(inner).toMatchObject({ source: "direct", kind: "direct", sessionStart: false });
    expect(classifyEvent(view({ referrer: "/cart" })).sessionStart).toBe(false);
    // Tagged internal navigation keeps its tag's source, still without a new session.
    expect(classifyEvent(view({ referrer: "https://shop.example.ru/a", utmSource: "google" }))).toMatchObject({
      source: "google",
      sessionStart: false,
    });
  });

  it("anything else is other; only page views start sessions", () => {
    expect(pick({ referrer: "https://blog.example.com/post" })).toBe("other/other");
    expect(pick({ referrer: "android-app://com.slack" })).toBe("other/other");
    expect(classifyEvent(view({ type: "purchase" })).sessionStart).toBe(false);
    expect(classifyEvent({ type: "page_view" })).toEqual({
      source: "direct",
      kind: "direct",
      sessionStart: true,
      pagePath: null,
    });
  });

  it("keeps the path of a page address without its query", () => {
    expect(pagePathOf("https://shop.example.ru")).toBe("/");
    expect(pagePathOf("/pricing?plan=pro#faq")).toBe("/pricing");
    expect(pagePathOf(null)).toBeNull();
  });
});
