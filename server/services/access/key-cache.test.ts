import { describe, expect, it } from "vitest";
import { KeyCache } from "./key-cache";

const row = (tenantId: string, n = 0) => ({ tenantId, n });

function cache(freshMs = 5000) {
  let now = 1_000_000;
  const c = new KeyCache<{ tenantId: string; n: number }>({ freshMs, now: () => now });
  return { c, advance: (ms: number) => (now += ms) };
}

describe("KeyCache", () => {
  it("serves a stored row while fresh, for its day only, and reads again after the fresh time", () => {
    const { c, advance } = cache(5000);
    c.setConnected(true);
    c.put("kid_a", "2026-11-24", row("t1"), c.begin());
    expect(c.get("kid_a", "2026-11-24")).toEqual(row("t1"));
    expect(c.get("kid_a", "2026-11-25")).toBeUndefined();
    advance(4999);
    expect(c.get("kid_a", "2026-11-24")).toEqual(row("t1"));
    advance(1);
    expect(c.get("kid_a", "2026-11-24")).toBeUndefined();
  });

  it("never trusts more than 10 s whatever it is told", () => {
    const { c, advance } = cache(60_000);
    c.setConnected(true);
    c.put("kid_a", "d", row("t1"), c.begin());
    advance(10_000);
    expect(c.get("kid_a", "d")).toBeUndefined();
  });

  it("is bypassed while the listener is disconnected, and starts empty when it is back", () => {
    const { c } = cache();
    c.put("kid_a", "d", row("t1"), c.begin());
    expect(c.get("kid_a", "d")).toBeUndefined(); // never connected yet: nothing stored
    c.setConnected(true);
    c.put("kid_a", "d", row("t1"), c.begin());
    c.setConnected(false);
    expect(c.get("kid_a", "d")).toBeUndefined();
    const token = c.begin();
    c.put("kid_a", "d", row("t1"), token); // a read finished while disconnected is not kept
    c.setConnected(true);
    expect(c.get("kid_a", "d")).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it("drops a tenant's rows on its notification and keeps other tenants'", () => {
    const { c } = cache();
    c.setConnected(true);
    c.put("kid_a", "d", row("t1"), c.begin());
    c.put("kid_b", "d", row("t1"), c.begin());
    c.put("kid_c", "d", row("t2"), c.begin());
    c.invalidate("t1");
    expect(c.get("kid_a", "d")).toBeUndefined();
    expect(c.get("kid_b", "d")).toBeUndefined();
    expect(c.get("kid_c", "d")).toEqual(row("t2"));
    c.invalidate("*");
    expect(c.get("kid_c", "d")).toBeUndefined();
  });

  it("does not store a row read while a change of its tenant was announced (it may predate the change)", () => {
    const { c } = cache();
    c.setConnected(true);
    const token = c.begin();
    c.invalidate("t9"); // another tenant: no matter
    c.put("kid_b", "d", row("t2"), token);
    expect(c.get("kid_b", "d")).toEqual(row("t2"));
    c.invalidate("t1");
    c.put("kid_a", "d", row("t1", 1), token);
    expect(c.get("kid_a", "d")).toBeUndefined();
    const t2 = c.begin();
    c.invalidate("*");
    c.put("kid_a", "d", row("t1", 1), t2);
    expect(c.get("kid_a", "d")).toBeUndefined();
    c.put("kid_a", "d", row("t1", 2), c.begin());
    expect(c.get("kid_a", "d")).toEqual(row("t1", 2));
  });

  it("holds at most maxEntries rows, dropping the oldest", () => {
    const c = new KeyCache<{ tenantId: string }>({ maxEntries: 2 });
    c.setConnected(true);
    for (const k of ["a", "b", "c"]) c.put(k, "d", { tenantId: `t_${k}` }, c.begin());
    expect(c.size).toBe(2);
    expect(c.get("a", "d")).toBeUndefined();
    expect(c.get("c", "d")).toEqual({ tenantId: "t_c" });
  });
});
