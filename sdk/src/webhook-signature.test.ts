import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from "./webhook-signature";

// Unit tests of the receiver's check against signatures computed here with node:crypto, an implementation
// independent of the SDK's WebCrypto one. sdk/test/verify-webhook.int.test.ts checks real deliveries of the app.

const SECRET = "whsec_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG";
const OLD = "whsec_previousSecretpreviousSecretpreviousSecr";
const T = 1_780_000_000;
const NOW = T * 1000 + 2_000;
const body = JSON.stringify({
  id: "evt_1",
  type: "lead.created",
  api_version: "2026-10-01",
  created_at: "2026-06-01T00:00:00.000Z",
  livemode: true,
  data: { lead_id: "l1", version: 3 },
});
const hmac = (secret: string, t: number, raw: string | Buffer) =>
  createHmac("sha256", secret).update(`${t}.`).update(raw).digest("hex");

async function reason(p: Promise<unknown>): Promise<WebhookVerificationReason | string> {
  try {
    await p;
    return "accepted";
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.reason;
    throw e;
  }
}

describe("verifyWebhook", () => {
  it("accepts the platform's signature and returns the parsed event; string, Buffer and ArrayBuffer bodies; Headers or a plain object", async () => {
    const header = `t=${T},v1=${hmac(SECRET, T, body)}`;
    const event = await verifyWebhook(body, new Headers({ "Service-Signature": header }), SECRET, { now: NOW });
    expect(event).toMatchObject({ id: "evt_1", type: "lead.created", data: { lead_id: "l1", version: 3 } });
    if (event.type === "lead.created") expect(event.data.version).toBe(3);
    const buf = Buffer.from(body);
    await expect(verifyWebhook(buf, { "service-signature": header }, [SECRET], { now: NOW })).resolves.toEqual(event);
    await expect(
      verifyWebhook(
        buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length),
        { "Service-Signature": [header] },
        SECRET,
        { now: new Date(NOW) },
      ),
    ).resolves.toEqual(event);
  });

  it("signs bytes, not text: a UTF-8 body verifies as received", async () => {
    const utf = JSON.stringify({ id: "evt_2", type: "webhook.test", data: { note: "Привет, 👋" } });
    const header = `t=${T},v1=${hmac(SECRET, T, Buffer.from(utf, "utf8"))}`;
    await expect(
      verifyWebhook(Buffer.from(utf, "utf8"), { "service-signature": header }, SECRET, { now: NOW }),
    ).resolves.toMatchObject({ id: "evt_2" });
    await expect(verifyWebhook(utf, { "service-signature": header }, SECRET, { now: NOW })).resolves.toMatchObject({
      id: "evt_2",
    });
  });

  it("refuses a tampered body, a wrong secret and a signature moved to another t", async () => {
    const header = `t=${T},v1=${hmac(SECRET, T, body)}`;
    expect(
      await reason(
        verifyWebhook(body.replace('"version":3', '"version":4'), { "service-signature": header }, SECRET, {
          now: NOW,
        }),
      ),
    ).toBe("signature_mismatch");
    expect(await reason(verifyWebhook(body + " ", { "service-signature": header }, SECRET, { now: NOW }))).toBe(
      "signature_mismatch",
    );
    expect(await reason(verifyWebhook(body, { "service-signature": header }, OLD, { now: NOW }))).toBe(
      "signature_mismatch",
    );
    expect(
      await reason(
        verifyWebhook(body, { "service-signature": `t=${T + 1},v1=${hmac(SECRET, T, body)}` }, SECRET, { now: NOW }),
      ),
    ).toBe("signature_mismatch");
  });

  it("refuses a timestamp further than the tolerance, in the past or the future (default 300 s)", async () => {
    const at = (t: number) => ({ "service-signature": `t=${t},v1=${hmac(SECRET, t, body)}` });
    expect(await reason(verifyWebhook(body, at(T - 299), SECRET, { now: T * 1000 }))).toBe("accepted");
    expect(await reason(verifyWebhook(body, at(T - 301), SECRET, { now: T * 1000 }))).toBe(
      "timestamp_outside_tolerance",
    );
    expect(await reason(verifyWebhook(body, at(T + 301), SECRET, { now: T * 1000 }))).toBe(
      "timestamp_outside_tolerance",
    );
    expect(await reason(verifyWebhook(body, at(T - 3_600), SECRET, { now: T * 1000, toleranceSec: 7_200 }))).toBe(
      "accepted",
    );
    expect(await reason(verifyWebhook(body, at(T - 31), SECRET, { now: T * 1000, toleranceSec: 30 }))).toBe(
      "timestamp_outside_tolerance",
    );
  });

  it("during a rotation window: two v1 values; either secret alone, or both, verifies; the order does not matter", async () => {
    const header = `t=${T},v1=${hmac(SECRET, T, body)},v1=${hmac(OLD, T, body)}`;
    for (const secrets of [[SECRET], [OLD], [SECRET, OLD], [OLD, SECRET]]) {
      expect(
        await reason(verifyWebhook(body, { "service-signature": header }, secrets, { now: NOW })),
        secrets.join(),
      ).toBe("accepted");
    }
    // A receiver holding both secrets accepts a delivery signed with only the new one (after the window).
    expect(
      await reason(
        verifyWebhook(body, { "service-signature": `t=${T},v1=${hmac(SECRET, T, body)}` }, [OLD, SECRET], { now: NOW }),
      ),
    ).toBe("accepted");
    expect(await reason(verifyWebhook(body, { "service-signature": header }, ["whsec_other"], { now: NOW }))).toBe(
      "signature_mismatch",
    );
  });

  it("refuses missing and malformed headers; skips schemes it does not know", async () => {
    const v1 = hmac(SECRET, T, body);
    const cases: [Record<string, string>, string][] = [
      [{}, "missing_signature"],
      [{ "service-signature": "" }, "missing_signature"],
      [{ "service-signature": `v1=${v1}` }, "malformed_signature"],
      [{ "service-signature": `t=${T}` }, "malformed_signature"],
      [{ "service-signature": `t=${T},t=${T},v1=${v1}` }, "malformed_signature"],
      [{ "service-signature": `t=abc,v1=${v1}` }, "malformed_signature"],
      [{ "service-signature": `t=${T},v1=${v1.slice(2)}` }, "malformed_signature"],
      [{ "service-signature": `t=${T};v1=${v1}` }, "malformed_signature"],
      [{ "service-signature": `t=${T}, v0=deadbeef, v1=${v1}` }, "accepted"],
      [{ "service-signature": `t=${T},v1=${v1.toUpperCase()}` }, "accepted"],
    ];
    for (const [headers, want] of cases)
      expect(await reason(verifyWebhook(body, headers, SECRET, { now: NOW })), JSON.stringify(headers)).toBe(want);
  });

  it("parses only after verifying: a signed body that is not an event is invalid_payload; no secret is a TypeError", async () => {
    for (const raw of ["not json", "[]", '{"id":"x"}']) {
      const header = `t=${T},v1=${hmac(SECRET, T, raw)}`;
      expect(await reason(verifyWebhook(raw, { "service-signature": header }, SECRET, { now: NOW })), raw).toBe(
        "invalid_payload",
      );
    }
    await expect(verifyWebhook(body, {}, [], { now: NOW })).rejects.toThrow(TypeError);
    await expect(verifyWebhook(body, {}, "", { now: NOW })).rejects.toThrow(TypeError);
  });
});

describe("signWebhook", () => {
  it("makes the header the platform sends: t and one v1 per secret", async () => {
    expect(await signWebhook(body, SECRET, T)).toBe(`t=${T},v1=${hmac(SECRET, T, body)}`);
    expect(await signWebhook(Buffer.from(body), [SECRET, OLD], T)).toBe(
      `t=${T},v1=${hmac(SECRET, T, body)},v1=${hmac(OLD, T, body)}`,
    );
    const now = await signWebhook(body, SECRET);
    await expect(verifyWebhook(body, { "service-signature": now }, SECRET)).resolves.toMatchObject({ id: "evt_1" });
  });
});
