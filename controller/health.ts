/**
 * The manager's HTTP endpoints: `GET /metrics` (Prometheus text), and
 * `GET /healthz`, `/readyz` with the apiserver's `?verbose` listing
 * (controller-runtime `pkg/healthz`, `pkg/metrics/server`).
 *
 * @module
 */

import { type Clock, realClock } from "../api/clock.ts";
import { listenError } from "../api/listen_error.ts";
import {
  checkClock,
  checkDuration,
  checkOptions,
  checkPort,
  show,
} from "./_check.ts";
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
 * A health check's function (controller-runtime `healthz.Checker`): it
 * passes by returning (or resolving to) `true`, and fails by returning
 * `false` or a reason string, by throwing or rejecting, or by not settling
 * within the endpoint's `checkTimeout`. Anything else, `undefined`
 * included, fails too, so a check that forgot its `return` is seen at
 * once. `signal` aborts when the time is up, to cancel a request.
 *
 * @example A check that asks the API server
 * ```ts
 * import type { HealthChecker } from "@kubecache/core/controller";
 * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const apiReachable: HealthChecker = async (signal) => {
 *   await client.list(ConfigMaps, { namespace: "default", limit: 1, signal });
 *   return true;
 * };
 * assert.equal(await apiReachable(new AbortController().signal), true);
 * ```
 */
export type HealthChecker = (
  signal: AbortSignal,
) => boolean | string | Promise<boolean | string>;

/**
 * One named health check.
 *
 * @example A check on a flag
 * ```ts
 * import type { HealthCheck } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * let synced = false;
 * const check: HealthCheck = { name: "informer-sync", check: () => synced || "not synced" };
 * assert.equal(check.check(new AbortController().signal), "not synced");
 * synced = true;
 * assert.equal(check.check(new AbortController().signal), true);
 * ```
 */
export interface HealthCheck {
  /** Shown in the `?verbose` listing (`[+]name ok`), skipped by `?exclude=name`, served alone on `/healthz/name`. */
  name: string;
  /** The check; see {@link HealthChecker}. */
  check: HealthChecker;
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
  /**
   * How long one check may take (ms) before it counts as failed; the
   * checks run at once, so an answer takes at most about this long.
   * Default 500: under the kubelet's default probe timeout (1 s), so a
   * slow check is named in the answer rather than the whole probe timing
   * out with no reason.
   */
  checkTimeout?: number;
  /** Clock of the check timeout. Default the real clock. */
  clock?: Clock;
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
 *   `?exclude=name` skips a check. The checks run at once, each bounded
 *   by `checkTimeout`;
 * - `GET /healthz/<name>`, `GET /readyz/<name>`: that check alone, 200
 *   `ok` or 503 `internal server error: <reason>` (the apiserver's
 *   per-check paths).
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
   * @throws {Deno.errors.AddrInUse} when the port is taken, naming the server and the address ("the metrics server cannot listen on 127.0.0.1:8080: the port is in use …")
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
    if (endpoints.checkTimeout !== undefined) {
      checkDuration(
        "new EndpointServer",
        "endpoints.checkTimeout",
        endpoints.checkTimeout,
      );
    }
    if (endpoints.clock !== undefined) {
      checkClock("new EndpointServer", "endpoints.clock", endpoints.clock);
    }
    this.#endpoints = endpoints;
    const hostname = opts.hostname ?? "127.0.0.1";
    try {
      this.#server = Deno.serve({
        port: opts.port,
        hostname,
        onListen: () => {},
      }, (req) => this.#handle(req));
    } catch (err) {
      const serves = [
        endpoints.metrics ? "metrics" : "",
        endpoints.healthz || endpoints.readyz ? "health" : "",
      ].filter((w) => w !== "").join(" and ");
      throw listenError(
        `the ${serves || "endpoint"} server`,
        hostname,
        opts.port,
        err,
      );
    }
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

  #handle(req: Request): Response | Promise<Response> {
    const url = new URL(req.url);
    const e = this.#endpoints;
    const [, first, ...rest] = url.pathname.split("/");
    const route = url.pathname === "/metrics" && e.metrics
      ? "metrics"
      : first === "healthz" && e.healthz
      ? "healthz"
      : first === "readyz" && e.readyz
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
    const run = (c: HealthCheck) =>
      runCheck(
        c,
        e.checkTimeout ?? DEFAULT_CHECK_TIMEOUT,
        e.clock ?? realClock,
      );
    const sub = rest.join("/");
    if (sub === "") return probe(route, checks, url.searchParams, run);
    const one = checks.find((c) => c.name === sub);
    if (!one) return text(404, "404 page not found\n");
    return run(one).then((ok) =>
      ok === true
        ? text(200, "ok")
        : text(503, `internal server error: ${ok}\n`)
    );
  }
}

/** How long one check may take by default (ms); see {@link Endpoints.checkTimeout}. */
const DEFAULT_CHECK_TIMEOUT = 500;

/**
 * Run one check within `timeout`: `true` when it passed, else the reason
 * it failed. A check that never settles is left behind (its signal
 * aborted), never waited for.
 */
async function runCheck(
  c: HealthCheck,
  timeout: number,
  clock: Clock,
): Promise<true | string> {
  const expired = new AbortController();
  const timer = new AbortController();
  let result: unknown;
  try {
    result = await Promise.race([
      Promise.resolve().then(() => c.check(expired.signal)),
      clock.sleep(timeout, timer.signal).then(() => {
        const reason = `did not answer within ${timeout} ms`;
        expired.abort(new Error(reason));
        return reason;
      }, () => undefined),
    ]);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    timer.abort();
  }
  if (result === true) return true;
  if (typeof result === "string") return result;
  return result === false ? "false" : `answered ${show(result)}, not true`;
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

/**
 * kube-apiserver's `healthz.handleRootHealth`, in short: every check not
 * excluded runs at once; the answer lists them in the order given.
 */
async function probe(
  name: string,
  checks: readonly HealthCheck[],
  query: URLSearchParams,
  run: (c: HealthCheck) => Promise<true | string>,
): Promise<Response> {
  const excluded = new Set(
    query.getAll("exclude").flatMap((v) => v.split(",")),
  );
  const results = await Promise.all(
    checks.map((c) => excluded.has(c.name) ? undefined : run(c)),
  );
  const lines: string[] = [];
  let failed = false;
  checks.forEach((c, i) => {
    const ok = results[i];
    if (ok === undefined) lines.push(`[+]${c.name} excluded: ok`);
    else if (ok === true) lines.push(`[+]${c.name} ok`);
    else {
      failed = true;
      lines.push(`[-]${c.name} failed: reason withheld`);
    }
  });
  const verbose = query.has("verbose");
  if (failed) {
    return text(503, `${lines.join("\n")}\n${name} check failed\n`);
  }
  if (!verbose) return text(200, "ok");
  return text(200, `${lines.join("\n")}\n${name} check passed\n`);
}
