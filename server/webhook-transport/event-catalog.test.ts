import { describe, expect, it } from "vitest";
import {
  allowsIncludePii,
  EVENT_TYPES,
  familyOf,
  isEventPattern,
  isPiiEnrichedType,
  matchesEvent,
  piiScopeGroups,
} from "./event-catalog";

describe("event catalog", () => {
  it("holds every type of the spec's table once", () => {
    expect(EVENT_TYPES).toHaveLength(21);
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    expect(EVENT_TYPES).toContain("article.generation.failed");
    expect(EVENT_TYPES).toContain("webhook.test");
  });

  it("names the family by the text before the first dot", () => {
    expect(familyOf("article.generation.failed")).toBe("article");
    expect(familyOf("api_key.expiring")).toBe("api_key");
    expect(familyOf("lead.*")).toBe("lead");
  });

  it.each([
    ["lead.created", true],
    ["lead.*", true],
    ["article.*", true],
    ["api_key.*", true],
    ["webhook.*", true],
    ["contact.*", true],
    ["nosuch.*", false],
    ["*", false],
    [".*", false],
    ["lead.", false],
    ["lead.unknown", false],
    ["article.generation.*", false],
    ["LEAD.*", false],
    ["constructor.*", false],
    ["", false],
  ])("pattern %j valid: %s", (p, ok) => {
    expect(isEventPattern(p)).toBe(ok);
  });

  it("matches exact types and family patterns, nothing else", () => {
    expect(matchesEvent(["lead.created"], "lead.created")).toBe(true);
    expect(matchesEvent(["lead.*"], "lead.scored")).toBe(true);
    expect(matchesEvent(["lead.*"], "lead.some_future_type")).toBe(true);
    expect(matchesEvent(["article.*"], "article.generation.failed")).toBe(true);
    expect(matchesEvent(["lead.created"], "lead.updated")).toBe(false);
    expect(matchesEvent(["conversation.*"], "message.created")).toBe(false);
    expect(matchesEvent([], "lead.created")).toBe(false);
  });

  it("lets include_pii only when every event is of lead, contact or conversation", () => {
    expect(allowsIncludePii(["lead.*", "contact.merged", "conversation.created"])).toBe(true);
    expect(allowsIncludePii(["lead.*", "message.created"])).toBe(false);
    expect(allowsIncludePii(["task.*"])).toBe(false);
    expect(allowsIncludePii([])).toBe(false);
  });

  it("enriches exactly the spec's list of types", () => {
    const enriched = EVENT_TYPES.filter(isPiiEnrichedType);
    expect(enriched).toEqual([
      "conversation.created",
      "conversation.handoff_requested",
      "conversation.summary_ready",
      "lead.created",
      "lead.updated",
      "lead.scored",
      "lead.status_changed",
      "lead.action_requested",
      "contact.merged",
    ]);
  });

  it("needs leads:read for lead.*, conversations:read for conversation.*, either for contact.*", () => {
    expect(piiScopeGroups(["lead.created", "lead.*"])).toEqual([["leads:read"]]);
    expect(piiScopeGroups(["conversation.created"])).toEqual([["conversations:read"]]);
    expect(piiScopeGroups(["contact.merged"])).toEqual([["leads:read", "conversations:read"]]);
    expect(piiScopeGroups(["task.*"])).toEqual([]);
  });
});
