/**
 * A `node:https` request answered by a fetch-style handler. The servers
 * that need what `Deno.serve` lacks run on `node:https` and bridge each
 * request: the webhook server (a certificate swapped in on the listening
 * socket, `setSecureContext`) and FakeApiServer's mutual TLS
 * (`requestCert`).
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Buffer } from "node:buffer";

/**
 * Read `req`, call `handler` with it as a `Request` of `origin`, write the
 * answer to `res`. A body past `maxBodyBytes` is read to its end but only
 * its first `maxBodyBytes + 1` bytes are kept (the handler sees that it is
 * too large without the process holding all of it).
 */
export async function bridge(
  req: IncomingMessage,
  res: ServerResponse,
  handler: (req: Request) => Promise<Response>,
  origin: string,
  maxBodyBytes = Infinity,
): Promise<void> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  try {
    for await (const c of req) {
      const chunk = c as Buffer;
      if (kept > maxBodyBytes) continue;
      chunks.push(chunk);
      kept += chunk.length;
    }
  } catch {
    res.destroy();
    return; // The client went away mid-body.
  }
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v === "string") headers.set(k, v);
    else if (Array.isArray(v)) { for (const x of v) headers.append(k, x); }
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  const request = new Request(`${origin}${req.url}`, {
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
