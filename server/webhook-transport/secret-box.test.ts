import { beforeAll, describe, expect, it } from "vitest";
import { setTestEnv } from "@/server/testing/test-db";
import { newSigningSecret, openSecret, sealSecret } from "./secret-box";

beforeAll(() => {
  setTestEnv({ WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString("base64") });
});

describe("secret box", () => {
  it("makes whsec_ secrets of 32 random bytes, different each time", () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newSigningSecret()).not.toBe(a);
  });

  it("opens what it sealed, with a new IV each time, never holding the secret in clear", () => {
    const s = newSigningSecret();
    const a = sealSecret(s);
    const b = sealSecret(s);
    expect(a).not.toBe(b);
    expect(openSecret(a)).toBe(s);
    expect(openSecret(b)).toBe(s);
    for (const sealed of [a, b]) {
      expect(sealed).not.toContain(s);
      expect(sealed).not.toContain(s.slice(6));
      expect(Buffer.from(sealed.split(".")[3], "base64url").toString("latin1")).not.toContain(s.slice(6, 20));
    }
  });

  it("refuses a changed ciphertext, tag or IV and malformed text", () => {
    const sealed = sealSecret(newSigningSecret());
    const parts = sealed.split(".");
    const flip = (p: string) => {
      const b = Buffer.from(p, "base64url");
      b[0] ^= 1;
      return b.toString("base64url");
    };
    for (const i of [1, 2, 3]) {
      const bad = [...parts];
      bad[i] = flip(bad[i]);
      expect(() => openSecret(bad.join("."))).toThrow("sealed secret cannot be opened");
    }
    for (const bad of ["", "v1", "v2." + parts.slice(1).join("."), sealed + ".x", "v1.a.b.c"]) {
      expect(() => openSecret(bad)).toThrow("sealed secret cannot be opened");
    }
  });

  it("cannot be opened under another key", () => {
    const sealed = sealSecret("whsec_other");
    setTestEnv({ WEBHOOK_SECRET_KEY: Buffer.alloc(32, 9).toString("base64") });
    expect(() => openSecret(sealed)).toThrow("sealed secret cannot be opened");
    setTestEnv({ WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString("base64") });
    expect(openSecret(sealed)).toBe("whsec_other");
  });
});
