import { describe, expect, it } from "vitest";
import { requestOrigin } from "./request-origin";

// Issue 76 item 5: the origin a request was sent to is the scheme it arrived with and the Host the
// client sent, not the host name Next.js was started with (which is what the request URL carries).

const at = (url: string, host?: string) =>
  requestOrigin(new Request(url, { headers: host === undefined ? {} : { host } }));

describe("requestOrigin", () => {
  it("takes the host from the Host header and the scheme from the URL", () => {
    expect(at("http://localhost:3000/api/trpc/x", "127.0.0.1:3000")).toBe("http://127.0.0.1:3000");
    expect(at("http://localhost:3000/api/trpc/x", "console.example.com")).toBe("http://console.example.com");
    expect(at("https://localhost:3000/api/trpc/x", "console.example.com")).toBe("https://console.example.com");
    expect(at("http://localhost:3000/", "[::1]:3000")).toBe("http://[::1]:3000");
  });

  it("serializes like a browser's Origin: lower case, the scheme's default port dropped", () => {
    expect(at("http://localhost:3000/", "Console.Example.COM:80")).toBe("http://console.example.com");
    expect(at("https://localhost:3000/", "console.example.com:443")).toBe("https://console.example.com");
  });

  it("uses the URL's host when there is no Host header (a Request made in process)", () => {
    expect(at("https://api.example.ru/api/trpc/x")).toBe("https://api.example.ru");
  });

  it("answers null for a Host that is not a host (path, user info, spaces, bad port)", () => {
    for (const host of ["evil.example/x", "a@evil.example", "evil example", "evil.example:99999x", "", "[zz]"])
      expect(at("http://localhost:3000/", host), host).toBeNull();
  });
});
