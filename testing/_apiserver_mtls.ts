/**
 * HTTPS with client-certificate verification for the fake API server.
 * `Deno.serve` cannot ask clients for certificates, so when a CA is given
 * the server runs on `node:https` (`requestCert`, `rejectUnauthorized`)
 * and bridges each request to the same fetch-style handler. Internal to
 * `FakeApiServer`.
 *
 * @module
 */

import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Buffer } from "node:buffer";

/** The part of `Deno.HttpServer` the fake server uses. */
export interface ServerHandle {
  /** Listening address. */
  addr: { hostname: string; port: number };
  /** Stop accepting, end open connections, resolve when closed. */
  shutdown(): Promise<void>;
}

/** Listen on 127.0.0.1 with mutual TLS, answering with `handler`. */
export function serveMutualTls(
  opts: { port: number; cert: string; key: string; ca: string },
  handler: (req: Request) => Promise<Response>,
): Promise<ServerHandle> {
  const server = https.createServer({
    cert: opts.cert,
    key: opts.key,
    ca: opts.ca,
    requestCert: true,
    rejectUnauthorized: true,
  }, (req, res) => void bridge(req, res, handler, opts.port));
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, "127.0.0.1", () => {
      const a = server.address() as { address: string; port: number };
      resolve({
        addr: { hostname: a.address, port: a.port },
        shutdown: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

async function bridge(
  req: IncomingMessage,
  res: ServerResponse,
  handler: (req: Request) => Promise<Response>,
  port: number,
): Promise<void> {
  const chunks: Uint8Array[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v === "string") headers.set(k, v);
    else if (Array.isArray(v)) { for (const x of v) headers.append(k, x); }
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  const request = new Request(`https://127.0.0.1:${port}${req.url}`, {
    method,
    headers,
    body: hasBody ? concat(chunks) : undefined,
  });
  const response = await handler(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The client went away.
  }
  res.end();
}

function concat(chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let i = 0;
  for (const c of chunks) {
    out.set(c, i);
    i += c.length;
  }
  return out;
}
