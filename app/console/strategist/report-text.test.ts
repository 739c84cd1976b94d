import { describe, expect, it } from "vitest";
import { humanKey, itemParts, plainText } from "./report-text";

// A report's open items as the console shows them (issue 73 item 5): readable text, never JSON.
describe("report items as text", () => {
  it("splits an item into its title, its text and its other fields", () => {
    expect(itemParts({ title: "Blog traffic up", detail: "Three articles reached the top 10.", change: 12 })).toEqual({
      title: "Blog traffic up",
      text: "Three articles reached the top 10.",
      rest: [["Change", "12"]],
    });
    expect(itemParts({ metric: "leads", values: { current: 4, previous: 2 } })).toEqual({
      title: null,
      text: null,
      rest: [
        ["Metric", "leads"],
        ["Values", "Current: 4, Previous: 2"],
      ],
    });
  });

  it("writes lists, nulls and names plainly", () => {
    expect(plainText(["a", 1, null])).toBe("a; 1; —");
    expect(humanKey("expected_effect")).toBe("Expected effect");
  });
});
