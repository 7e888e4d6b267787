/**
 * The manager's HTTP endpoints: `GET /metrics` (Prometheus text), and
 * `GET /healthz`, `/readyz` with the apiserver's `?verbose` listing
 * (controller-runtime `pkg/healthz`, `pkg/metrics/server`).
 *
 * @module
 */

import { checkOptions, checkPort, show } from "./_check.ts";
import { MetricsRegistry } from "./metrics.ts";

/**
 * Where an endpoint server listens: `port` (0 picks a free one) on
 * `hostname` (default `127.0.0.1`: only this machine; use `0.0.0.0` in a
 * pod so the kubelet's probes and Prometheus reach it).
 *
 * @example
 * ```ts
 * import type { ServeOptions } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const inPod: ServeOptions = { port: 8081, hostname: "0.0.0.0" };
 * assert.equal(inPod.port, 8081);
 * ```
 */
export interface ServeOptions {
  /** TCP port; 0 picks a free one. */
  port: number;
  /** Address to listen on. Default `127.0.0.1`. */
  hostname?: string;
}

/**
 * One named health check: passes by returning `true`, fails by returning
 * `false` or a reason, or by throwing.
 *
 * @example A check on a flag
 * ```ts
 * import type { HealthCheck } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * let synced = false;
 * const check: HealthCheck = { name: "informer-sync", check: () => synced || "not synced" };
 * assert.equal(check.check(), "not synced");
 * synced = true;
 * assert.equal(check.check(), true);
 * ```
 */
export interface HealthCheck {
  /** Shown in the `?verbose` listing: `[+]name ok`. */
  name: string;
  /** `true` when healthy; `false` or a reason otherwise. */
  check(): boolean | string;
}

/**
 * What an {@link EndpointServer} answers: the registry for `/metrics`,
 * and the checks of `/healthz` and `/readyz`. A server given none of a
 * path answers 404 there.
 *
 * @example Health only
 * ```ts
 * import type { Endpoints } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const endpoints: Endpoints = { healthz: () => [{ name: "ping", check: () => true }] };
 * assert.equal(endpoints.healthz!()[0].name, "ping");
 * ```
 */
export interface Endpoints {
  /** Served on `GET /metrics`. */
  metrics?: MetricsRegistry;
  /** Checks of `GET /healthz`. */
  healthz?: () => readonly HealthCheck[];
  /** Checks of `GET /readyz`. */
  readyz?: () => readonly HealthCheck[];
}

/**
 * A small HTTP server (`Deno.serve`) for a controller's endpoints, as the
 * Manager runs it for its `metrics` and `health` options:
 *
 * - `GET /metrics`: the registry's Prometheus text (format 0.0.4);
 * - `GET /healthz`, `GET /readyz`: 200 `ok` when every check passes, else
 *   503 listing each check as kube-apiserver does (`[+]name ok`,
 *   `[-]name failed: reason withheld`, then `readyz check failed`);
 *   `?verbose` lists them on success too (`readyz check passed`), and
 *   `?exclude=name` skips a check.
 *
 * @example Serve a readiness check
 * ```ts
 * import { EndpointServer } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * let synced = false;
 * await using server = new EndpointServer({ port: 0 }, {
 *   readyz: () => [{ name: "informer-sync", check: () => synced }],
 * });
 * const url = `http://127.0.0.1:${server.addr.port}/readyz`;
 * let res = await fetch(url);
 * assert.equal(res.status, 503);
 * assert.equal(await res.text(), "[-]informer-sync failed: reason withheld\nreadyz check failed\n");
 * synced = true;
 * res = await fetch(`${url}?verbose`);
 * assert.equal(res.status, 200);
 * assert.equal(await res.text(), "[+]informer-sync ok\nreadyz check passed\n");
 * ```
 */
export class EndpointServer implements AsyncDisposable {
  /** Where it listens (the port chosen, when 0 was asked). */
  readonly addr: Deno.NetAddr;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #endpoints: Endpoints;

  /**
   * Start listening.
   * @param opts port and hostname
   * @param endpoints what to serve
   * @throws {TypeError} when `opts` or `endpoints` is not an object, or the hostname not a string
   * @throws {RangeError} when the port is not 0-65535
   * @throws {Deno.errors.AddrInUse} when the port is taken
   */
  constructor(opts: ServeOptions, endpoints: Endpoints) {
    checkOptions("new EndpointServer", "opts", opts);
    checkPort("new EndpointServer", "opts.port", opts?.port);
    if (opts.hostname !== undefined && typeof opts.hostname !== "string") {
      throw new TypeError(
        `new EndpointServer: opts.hostname must be a string, got ${
          show(opts.hostname)
        }`,
      );
    }
    checkOptions("new EndpointServer", "endpoints", endpoints);
    this.#endpoints = endpoints;
    this.#server = Deno.serve({
      port: opts.port,
      hostname: opts.hostname ?? "127.0.0.1",
      onListen: () => {},
    }, (req) => this.#handle(req));
    this.addr = this.#server.addr;
  }

  /** Stop listening and wait for open connections to end. */
  async close(): Promise<void> {
    await this.#server.shutdown();
  }

  /** Same as {@link EndpointServer.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #handle(req: Request): Response {
    const url = new URL(req.url);
    const e = this.#endpoints;
    const route = url.pathname === "/metrics" && e.metrics
      ? "metrics"
      : url.pathname === "/healthz" && e.healthz
      ? "healthz"
      : url.pathname === "/readyz" && e.readyz
      ? "readyz"
      : undefined;
    if (!route) return text(404, "404 page not found\n");
    if (req.method !== "GET" && req.method !== "HEAD") {
      return text(405, "method not allowed\n");
    }
    if (route === "metrics") {
      return new Response(e.metrics!.expose(), {
        headers: { "Content-Type": MetricsRegistry.CONTENT_TYPE },
      });
    }
    const checks = (route === "healthz" ? e.healthz! : e.readyz!)();
    return probe(route, checks, url.searchParams);
  }
}

function text(status: number, body: string): Response {
  return new Response(body, {
    status,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

/** kube-apiserver's `healthz.handleRootHealth`, in short. */
function probe(
  name: string,
  checks: readonly HealthCheck[],
  query: URLSearchParams,
): Response {
  const excluded = new Set(
    query.getAll("exclude").flatMap((v) => v.split(",")),
  );
  const lines: string[] = [];
  let failed = false;
  for (const c of checks) {
    if (excluded.has(c.name)) {
      lines.push(`[+]${c.name} excluded: ok`);
      continue;
    }
    let ok: boolean | string;
    try {
      ok = c.check();
    } catch (err) {
      ok = err instanceof Error ? err.message : String(err);
    }
    if (ok === true) lines.push(`[+]${c.name} ok`);
    else {
      failed = true;
      lines.push(`[-]${c.name} failed: reason withheld`);
    }
  }
  const verbose = query.has("verbose");
  if (failed) {
    return text(503, `${lines.join("\n")}\n${name} check failed\n`);
  }
  if (!verbose) return text(200, "ok");
  return text(200, `${lines.join("\n")}\n${name} check passed\n`);
}
