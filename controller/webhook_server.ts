/**
 * The HTTPS server of a program's webhooks (controller-runtime
 * `webhook.Server` with `certwatcher`): serves a {@link WebhookRegistry}
 * from a certificate and key file pair that it re-reads when they change,
 * without giving up its port, and counts every call in controller-runtime's
 * webhook metrics.
 *
 * @module
 */

import type { Clock } from "../api/clock.ts";
import { realClock } from "../api/clock.ts";
import { listenError } from "../api/listen_error.ts";
import {
  checkClock,
  checkFunction,
  checkObject,
  checkOptionalString,
  checkString,
  errorMessage,
  show,
} from "../api/validate.ts";
import {
  CERT_CHECK_INTERVAL_MS,
  CertFiles,
  type CertPair,
} from "../client/_cert_files.ts";
import https from "node:https";
import { checkPort } from "./_check.ts";
import { bridge } from "./_https_bridge.ts";
import { exponentialBuckets } from "./_workqueue_metrics.ts";
import type { Counter, Gauge, Histogram, MetricsRegistry } from "./metrics.ts";
import { WebhookRegistry } from "./webhook.ts";

/**
 * Where and with what the webhook server listens (the Manager's `webhook`
 * option; controller-runtime `webhook.Options`).
 *
 * @example In a pod, with cert-manager's secret mounted
 * ```ts
 * import type { WebhookServerOptions } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const opts: WebhookServerOptions = {
 *   port: 9443,
 *   certFile: "/tmp/k8s-webhook-server/serving-certs/tls.crt",
 *   keyFile: "/tmp/k8s-webhook-server/serving-certs/tls.key",
 * };
 * assert.equal(opts.port, 9443);
 * ```
 */
export interface WebhookServerOptions {
  /** TCP port; 0 picks a free one. controller-runtime's default is 9443. */
  port: number;
  /** PEM certificate (chain) file, e.g. a mounted secret's `tls.crt`. */
  certFile: string;
  /** PEM private key file, e.g. `tls.key`. */
  keyFile: string;
  /**
   * Address to listen on. Default `0.0.0.0`, as controller-runtime's: the
   * API server reaches the webhook through a Service, from outside the pod.
   */
  hostname?: string;
}

/**
 * What a {@link WebhookServer} serves and reports to.
 *
 * @example Serve a registry, counted in a metrics registry
 * ```ts
 * import { MetricsRegistry, WebhookRegistry, type WebhookServerContext } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const ctx: WebhookServerContext = { registry: new WebhookRegistry(), metrics: new MetricsRegistry() };
 * assert.ok(ctx.metrics);
 * ```
 */
export interface WebhookServerContext {
  /** The webhooks served. */
  registry: WebhookRegistry;
  /** Where `controller_runtime_webhook_*` are counted; none when absent. */
  metrics?: MetricsRegistry;
  /** Paces the look at the files (once a second). Default the real clock. */
  clock?: Clock;
  /** Told when new files cannot be used (the pair read before stays in use). Default `console.warn`. */
  onWarning?: (message: string) => void;
}

/** controller-runtime's `maxRequestSize` (7 MiB): past it, only this much is kept. */
const MAX_BODY_BYTES = 7 * 1024 * 1024;

/**
 * controller-runtime's `ExponentialBuckets(10e-9, 10, 12)` for
 * `controller_runtime_webhook_latency_seconds`.
 */
const LATENCY_BUCKETS = exponentialBuckets(10e-9, 10, 12);

/**
 * An HTTPS server for a {@link WebhookRegistry}, as controller-runtime's
 * webhook server with its certificate watcher:
 *
 * - `start()` reads the certificate and key files and listens; it rejects
 *   when they cannot be read or do not make a TLS server.
 * - The files are looked at once a second (modification time, size,
 *   inode: cert-manager and the kubelet replace a mounted secret's files
 *   through a symlink swap). When they changed and the new pair is good,
 *   the listening socket's TLS context is replaced (`setSecureContext`, as
 *   certwatcher's `GetCertificate` answers each handshake with the latest
 *   pair): the port is never closed, new connections get the new
 *   certificate and open ones go on with theirs. A
 *   half-written or mismatched pair is not used; the last good one stays
 *   and `onWarning` says why, once per bad version.
 * - Each registered path is counted as controller-runtime's
 *   `InstrumentedHook` does: `controller_runtime_webhook_requests_total{webhook,code}`
 *   (the HTTP code; 200 and 500 are there from the start),
 *   `controller_runtime_webhook_latency_seconds{webhook}`,
 *   `controller_runtime_webhook_requests_in_flight{webhook}`, with the path
 *   as the `webhook` label.
 * - `close()` stops listening, lets calls in flight finish, and resolves.
 *
 * @example Serve a validating webhook over HTTPS
 * ```ts
 * import { WebhookRegistry, WebhookServer } from "@kubecache/core/controller";
 * import { ConfigMaps } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const registry = new WebhookRegistry();
 * registry.webhook(ConfigMaps).validator({
 *   delete() { throw new Error("configmaps are forever"); },
 * });
 * // In a pod: cert-manager's secret mounted at /tmp/k8s-webhook-server/serving-certs.
 * const dir = "/tmp/k8s-webhook-server/serving-certs";
 * await using server = new WebhookServer(
 *   { port: 0, hostname: "127.0.0.1", certFile: `${dir}/tls.crt`, keyFile: `${dir}/tls.key` },
 *   { registry, onWarning: () => {} },
 * );
 * try {
 *   await server.start();
 *   assert.ok(server.listening); // where the secret is mounted
 * } catch (err) {
 *   assert.match(String(err), /cannot use certificate/); // elsewhere
 * }
 * ```
 */
export class WebhookServer implements AsyncDisposable {
  readonly #opts: Required<WebhookServerOptions>;
  readonly #registry: WebhookRegistry;
  readonly #clock: Clock;
  readonly #files: CertFiles;
  readonly #stop = new AbortController();
  readonly #metrics:
    | { total: Counter; latency: Histogram; inFlight: Gauge }
    | undefined;
  #server: https.Server | undefined;
  #pair: CertPair | undefined;
  #addr: Deno.NetAddr | undefined;
  #watching: Promise<void> | undefined;
  #closed = false;
  readonly #warn: (message: string) => void;

  /**
   * A server, not yet listening.
   * @param opts port, files and hostname
   * @param ctx the registry, and where metrics and warnings go
   * @throws {TypeError} when an option has the wrong type
   * @throws {RangeError} when the port is not 0-65535
   */
  constructor(opts: WebhookServerOptions, ctx: WebhookServerContext) {
    const call = "new WebhookServer";
    checkObject(call, "opts", opts);
    checkPort(call, "opts.port", opts.port);
    checkString(call, "opts.certFile", opts.certFile);
    checkString(call, "opts.keyFile", opts.keyFile);
    checkOptionalString(call, "opts.hostname", opts.hostname);
    checkObject(call, "ctx", ctx);
    if (!(ctx.registry instanceof WebhookRegistry)) {
      throw new TypeError(
        `${call}: ctx.registry must be a WebhookRegistry, got ${
          show(ctx.registry)
        }`,
      );
    }
    if (ctx.clock !== undefined) checkClock(call, "ctx.clock", ctx.clock);
    if (ctx.onWarning !== undefined) {
      checkFunction(call, "ctx.onWarning", ctx.onWarning);
    }
    this.#opts = { hostname: "0.0.0.0", ...opts };
    this.#warn = ctx.onWarning ?? ((message) => console.warn(message));
    this.#registry = ctx.registry;
    this.#clock = ctx.clock ?? realClock;
    this.#files = new CertFiles(
      { certFile: opts.certFile, keyFile: opts.keyFile },
      {
        clock: this.#clock,
        onWarning: (message) => this.#warn(message),
        purpose: "webhook serving certificate",
      },
    );
    const m = ctx.metrics;
    if (m) {
      this.#metrics = {
        latency: m.histogram(
          "controller_runtime_webhook_latency_seconds",
          "Histogram of the latency of processing admission requests",
          { labelNames: ["webhook"], buckets: LATENCY_BUCKETS },
        ),
        total: m.counter(
          "controller_runtime_webhook_requests_total",
          "Total number of admission requests by HTTP status code.",
          { labelNames: ["webhook", "code"] },
        ),
        inFlight: m.gauge(
          "controller_runtime_webhook_requests_in_flight",
          "Current number of admission requests being served.",
          { labelNames: ["webhook"] },
        ),
      };
    }
  }

  /** Where it listens once started (the port chosen, when 0 was asked). */
  get addr(): Deno.NetAddr | undefined {
    return this.#addr;
  }

  /** Whether it is listening: started and not closed (its `/readyz` check). */
  get listening(): boolean {
    return this.#server !== undefined && !this.#closed;
  }

  /**
   * Read the files and listen; then watch the files until `close()`.
   * @throws {Error} when the files cannot be read or are not a usable pair
   * @throws {Deno.errors.AddrInUse} when the port is taken
   */
  async start(): Promise<void> {
    if (this.#server) throw new Error("WebhookServer.start: started already");
    if (this.#closed) throw new Error("WebhookServer.start: closed");
    const pair = await this.#files.current();
    if (!pair) {
      throw new Error(
        `WebhookServer.start: cannot use certificate ${this.#opts.certFile} with key ${this.#opts.keyFile}`,
      );
    }
    const routes = new Set(this.#registry.paths());
    for (const path of routes) {
      // Known at start, as controller-runtime's InstrumentedHook does.
      this.#metrics?.total.with({ webhook: path, code: "200" });
      this.#metrics?.total.with({ webhook: path, code: "500" });
      this.#metrics?.latency.with({ webhook: path });
      this.#metrics?.inFlight.with({ webhook: path }).set(0);
    }
    const server = https.createServer(
      { cert: pair.cert, key: pair.key },
      (req, res) =>
        void bridge(
          req,
          res,
          (r) => this.#serve(r),
          "https://webhook",
          MAX_BODY_BYTES,
        ),
    );
    await new Promise<void>((resolve, reject) => {
      const failed = (err: unknown) =>
        reject(
          listenError(
            "the webhook server",
            this.#opts.hostname ?? "0.0.0.0",
            this.#opts.port,
            err,
          ),
        );
      server.once("error", failed);
      server.listen(this.#opts.port, this.#opts.hostname, () => {
        server.off("error", failed);
        resolve();
      });
    });
    const a = server.address() as { address: string; port: number };
    this.#server = server;
    this.#pair = pair;
    this.#addr = { transport: "tcp", hostname: a.address, port: a.port };
    this.#watching = this.#watch();
  }

  /** Stop listening, let open calls finish, stop watching the files. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stop.abort();
    await this.#watching;
    const server = this.#server;
    if (!server) return;
    // Stop listening; calls in flight finish, idle kept-alive connections end.
    const closed = new Promise<void>((resolve) =>
      server.close(() => resolve())
    );
    server.closeIdleConnections();
    await closed;
  }

  /** Same as {@link WebhookServer.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #watch(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      try {
        await this.#clock.sleep(CERT_CHECK_INTERVAL_MS, signal);
      } catch {
        return;
      }
      const pair = await this.#files.current();
      if (!pair || pair === this.#pair || signal.aborted) continue;
      this.#pair = pair; // tried once per version of the files
      try {
        // New handshakes get the new pair; open connections go on.
        this.#server!.setSecureContext({ cert: pair.cert, key: pair.key });
      } catch (err) {
        this.#warn(
          `Cannot serve webhooks with certificate ${this.#opts.certFile}: ${
            errorMessage(err)
          }; serving the one read before`,
        );
      }
    }
  }

  async #serve(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    const m = this.#metrics;
    if (!m || !this.#registry.paths().includes(path)) {
      return await this.#registry.serve(req);
    }
    const label = { webhook: path };
    const inFlight = m.inFlight.with(label);
    inFlight.inc();
    const started = performance.now();
    let code = 500;
    try {
      const res = await this.#registry.serve(req);
      code = res.status;
      return res;
    } finally {
      inFlight.dec();
      m.latency.with(label).observe((performance.now() - started) / 1000);
      m.total.with({ webhook: path, code: String(code) }).inc();
    }
  }
}
