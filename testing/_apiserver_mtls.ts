/**
 * HTTPS with client-certificate verification for the fake API server.
 * `Deno.serve` cannot ask clients for certificates, so when a CA is given
 * the server runs on `node:https` (`requestCert`, `rejectUnauthorized`)
 * and bridges each request to the same fetch-style handler. Internal to
 * `FakeApiServer`.
 *
 * @module
 */

import { listenError } from "../api/listen_error.ts";
import https from "node:https";
import { bridge } from "../controller/_https_bridge.ts";

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
  const server = https.createServer(
    {
      cert: opts.cert,
      key: opts.key,
      ca: opts.ca,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) =>
      void bridge(req, res, handler, `https://127.0.0.1:${opts.port}`),
  );
  return new Promise((resolve, reject) => {
    server.once(
      "error",
      (err) =>
        reject(listenError("FakeApiServer", "127.0.0.1", opts.port, err)),
    );
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
