import type { RequestListener } from "node:http";
import { Readable } from "node:stream";
import { PEER_HEADER } from "@/server/lib/client-ip";
import { handlePublicRequest } from "@/server/public-api/pipeline";
import { publicRouter } from "@/server/public-api/routes";

/**
 * A node:http listener serving /api/public/v1 from the pipeline (no Next.js), for the test processes
 * (api-process.ts, cluster-api-process.ts). Every request comes from 127.0.0.1 as far as the pipeline
 * knows. `extraHeaders` are added to every answer (a test process names itself with them).
 */
export function publicApiListener(extraHeaders: Record<string, string> = {}): RequestListener {
  return (req, res) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    headers.set(PEER_HEADER, "127.0.0.1");
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : (Readable.toWeb(req) as ReadableStream);
    const request = new Request(`https://api.example.ru${req.url}`, {
      method: req.method,
      headers,
      body,
      duplex: "half",
    } as RequestInit);
    void handlePublicRequest(request, publicRouter).then(async (r) => {
      res.writeHead(r.status, { ...Object.fromEntries(r.headers), ...extraHeaders });
      res.end(Buffer.from(await r.arrayBuffer()));
    });
  };
}
