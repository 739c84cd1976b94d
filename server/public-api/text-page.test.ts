import { describe, expect, it } from "vitest";
import { TextPage } from "./define-route";

const item = (n: number) => JSON.stringify({ id: `lead_${n}`, name: `Customer ${n}`, notes: 'ü€ "quoted"' });

describe("TextPage.json", () => {
  it.each([0, 1, 2, 25])("splices %i item texts into {data, next_cursor} exactly", (n) => {
    const texts = Array.from({ length: n }, (_, i) => item(i));
    const page = new TextPage(
      texts,
      texts.map((_, i) => `lead_${i}`),
    );
    for (const cursor of [null, "eyJ0IjoiYSJ9.c2ln"]) {
      const text = page.json(cursor);
      expect(JSON.parse(text)).toEqual({ data: texts.map((t) => JSON.parse(t)), next_cursor: cursor });
      // The same bytes as the plain concatenation it replaced: no spaces, items in order.
      expect(text).toBe(
        `{"data":[${texts.join(",")}],"next_cursor":${cursor === null ? "null" : JSON.stringify(cursor)}}`,
      );
    }
  });
});
