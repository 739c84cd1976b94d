import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signatureHeader, verifySignature } from "./signature";

const body = JSON.stringify({ id: "evt", type: "lead.created", data: { lead_id: "l1" } });
const now = new Date("2026-10-01T12:00:00Z");
const t = Math.floor(now.getTime() / 1000);

describe("webhook signature", () => {
  it("signs t.body with HMAC-SHA256 in hex, as a receiver following the spec computes it", () => {
    const header = signatureHeader(body, ["whsec_a"], t);
    const hex = createHmac("sha256", "whsec_a").update(`${t}.${body}`).digest("hex");
    expect(header).toBe(`t=${t},v1=${hex}`);
    expect(verifySignature(header, body, ["whsec_a"], { now })).toBe(true);
    expect(verifySignature(header, Buffer.from(body), ["whsec_a"], { now })).toBe(true);
  });

  it("carries one v1 per secret, and any of them matching suffices", () => {
    const header = signatureHeader(body, ["whsec_new", "whsec_old"], t);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifySignature(header, body, ["whsec_new"], { now })).toBe(true);
    expect(verifySignature(header, body, ["whsec_old"], { now })).toBe(true);
    expect(verifySignature(header, body, ["whsec_other", "whsec_old"], { now })).toBe(true);
    expect(verifySignature(header, body, ["whsec_other"], { now })).toBe(false);
  });

  it("refuses a tampered body, a wrong secret and a changed t", () => {
    const header = signatureHeader(body, ["whsec_a"], t);
    expect(verifySignature(header, body.replace("l1", "l2"), ["whsec_a"], { now })).toBe(false);
    expect(verifySignature(header, body + " ", ["whsec_a"], { now })).toBe(false);
    expect(verifySignature(header, body, ["whsec_b"], { now })).toBe(false);
    expect(verifySignature(header.replace(`t=${t}`, `t=${t + 1}`), body, ["whsec_a"], { now })).toBe(false);
  });

  it("accepts t within the tolerance either side and refuses beyond it", () => {
    const at = (sec: number) => signatureHeader(body, ["s"], t + sec);
    expect(verifySignature(at(-300), body, ["s"], { now })).toBe(true);
    expect(verifySignature(at(300), body, ["s"], { now })).toBe(true);
    expect(verifySignature(at(-301), body, ["s"], { now })).toBe(false);
    expect(verifySignature(at(301), body, ["s"], { now })).toBe(false);
    expect(verifySignature(at(-600), body, ["s"], { now, toleranceSec: 600 })).toBe(true);
  });

  it("refuses missing or malformed headers", () => {
    const hex = createHmac("sha256", "s").update(`${t}.${body}`).digest("hex");
    for (const h of [
      null,
      undefined,
      "",
      `v1=${hex}`,
      `t=${t}`,
      `t=abc,v1=${hex}`,
      `t=${t},v1=zz`,
      `t=${t},t=${t},v1=${hex}`,
      `garbage`,
    ]) {
      expect(verifySignature(h, body, ["s"], { now })).toBe(false);
    }
    // An unknown scheme beside a valid v1 is ignored.
    expect(verifySignature(`t=${t},v0=abc,v1=${hex}`, body, ["s"], { now })).toBe(true);
  });
});
