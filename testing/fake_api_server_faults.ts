/**
 * Fault injection of the fake API server: `FakeApiServerFaults` (the
 * `server.faults` object) and the byte splitter that cuts response bodies at
 * chosen or random offsets. `fake_api_server.ts` re-exports the public
 * names (`FakeApiServerFaults`, `FailNextOptions`, `SplitMode`); the fault
 * state and the splitter are internal.
 *
 * @module
 */

import type { Status } from "../api/object.ts";
import { defaultFaultStatus } from "./_apiserver_status.ts";
import { Rng } from "./rng.ts";

/**
 * Options of {@link FakeApiServerFaults.failNext}.
 *
 * @example Throttle the next list
 * ```ts
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import { ConfigMaps, isTooManyRequests, KubeClient, KubeConfig, StatusError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * server.faults.failNext(1, {
 *   status: 429,
 *   retryAfterSeconds: 2,
 *   match: (req) => new URL(req.url).pathname.endsWith("/configmaps"),
 * });
 * await assert.rejects(client.list(ConfigMaps), (err) => {
 *   assert.ok(err instanceof StatusError && isTooManyRequests(err));
 *   assert.equal(err.retryAfterSeconds, 2);
 *   return true;
 * });
 * assert.equal((await client.list(ConfigMaps)).items.length, 0); // only the next one failed
 * ```
 */
export interface FailNextOptions {
  /** HTTP status code to answer, e.g. 429, 500, 503, 504. */
  status: number;
  /**
   * Response body: a Status object (sent as JSON) or a string (sent as
   * text/plain). Default: the Status kube-apiserver sends for that code (for
   * 504, a "Too large resource version" Timeout with a
   * `ResourceVersionTooLarge` cause).
   */
  body?: Status | string;
  /** Sets the `Retry-After` header and `details.retryAfterSeconds`. */
  retryAfterSeconds?: number;
  /** Only requests for which this returns true fail (and count). Default: all. */
  match?: (req: Request) => boolean;
}

interface FailRule extends FailNextOptions {
  remaining: number;
}

/** What the faults need of an open watch. */
export interface FaultableWatch {
  /** End now. */
  close(): void;
  /** End after `n` more events. */
  closeAfter(n: number): void;
  /** Hold or release events. */
  setStalled(on: boolean): void;
}

/** The fault settings the server reads. */
export interface FaultState {
  rules: FailRule[];
  stalled: boolean;
  closeAfter?: number;
  split?: { mode: SplitMode; seed: number };
  latencyMs: number;
}

const STATES = new WeakMap<FakeApiServerFaults, FaultState>();

/** The settings behind a faults object. */
export function faultState(f: FakeApiServerFaults): FaultState {
  return STATES.get(f)!;
}

/** The failure to answer `req` with, consuming one count of its rule. */
export function takeFailure(
  s: FaultState,
  req: Request,
): FailNextOptions | undefined {
  const i = s.rules.findIndex((r) => !r.match || r.match(req));
  if (i === -1) return undefined;
  const rule = s.rules[i];
  if (--rule.remaining <= 0) s.rules.splice(i, 1);
  return rule;
}

/**
 * How response bodies are cut: explicit byte offsets, or random cuts.
 *
 * @example Cut every response into small writes
 * ```ts
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" }, data: { k: "é" } });
 * server.faults.splitWrites([1, 2, 3], 7); // cut after bytes 1, 2 and 3, then at random
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const list = await client.list(ConfigMaps);
 * assert.equal(list.items[0].data?.k, "é");
 * ```
 */
export type SplitMode = "random" | number[];

/**
 * Faults a test can inject into a running `FakeApiServer` (reach it as
 * `server.faults`). Every fault lasts until {@link FakeApiServerFaults.clear}
 * unless said otherwise. Mirrors what client-go's `FakeControllerSource`
 * offers (`ResetWatch`) plus the wire-level failures a real apiserver and
 * network produce.
 *
 * @example Throttle the next request
 * ```ts
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * server.faults.failNext(1, { status: 429, retryAfterSeconds: 2 });
 * const res = await fetch(`${server.url}/api/v1/namespaces/default/pods`);
 * assert.equal(res.status, 429);
 * assert.equal(res.headers.get("retry-after"), "2");
 * assert.equal((await res.json()).reason, "TooManyRequests");
 * const ok = await fetch(`${server.url}/api/v1/namespaces/default/pods`);
 * assert.equal(ok.status, 200);
 * await ok.body?.cancel();
 * ```
 */
export class FakeApiServerFaults {
  #s: FaultState = { rules: [], stalled: false, latencyMs: 0 };
  #watches: () => Iterable<FaultableWatch>;

  /**
   * Create the faults of a server; `FakeApiServer` does this.
   * @param watches the open watches of the server
   */
  constructor(watches: () => Iterable<FaultableWatch>) {
    this.#watches = watches;
    STATES.set(this, this.#s);
  }

  /** End every open watch stream now (cleanly: the body ends). */
  closeWatches(): void {
    for (const w of [...this.#watches()]) w.close();
  }

  /**
   * End every watch after `n` more events: the watches open now, and each
   * watch opened later (after its own first `n` events), until `clear()`.
   * Every event counts, BOOKMARKs included.
   * @throws {RangeError} when `n` is not a non-negative integer
   */
  closeWatchesAfter(n: number): void {
    if (!Number.isInteger(n) || n < 0) {
      throw new RangeError(
        `Cannot close watches after a negative or fractional number of events: ${n}`,
      );
    }
    this.#s.closeAfter = n;
    for (const w of [...this.#watches()]) w.closeAfter(n);
  }

  /**
   * Fail the next `n` requests (matching `opts.match`) with `opts.status`.
   * Rules queue up: each request consumes the first rule that matches it.
   * @throws {RangeError} when `n` is not a positive integer or the status is not 100–599
   */
  failNext(n: number, opts: FailNextOptions): void {
    if (!Number.isInteger(n) || n < 1) {
      throw new RangeError(
        `Cannot fail a non-positive or fractional number of requests: ${n}`,
      );
    }
    if (
      !Number.isInteger(opts.status) || opts.status < 100 || opts.status > 599
    ) {
      throw new RangeError(
        `Cannot fail requests with an invalid HTTP status: ${opts.status}`,
      );
    }
    this.#s.rules.push({ ...opts, remaining: n });
  }

  /**
   * Stall watches (`on` = true): every open watch, and every watch opened
   * while stalled, stays open and silent (no events, no bookmarks, no
   * timeout); `stallWatches(false)` delivers what was held back.
   */
  stallWatches(on: boolean): void {
    this.#s.stalled = on;
    for (const w of [...this.#watches()]) w.setStalled(on);
  }

  /**
   * Cut every response body into several writes: at the given byte offsets
   * (counted from the start of each body), or at random offsets (`"random"`,
   * reproducible with `seed`) — including inside multi-byte UTF-8
   * characters. The pieces are written with a pause between them so the
   * client reads them separately.
   * @throws {RangeError} when an offset is negative or not an integer
   */
  splitWrites(mode: SplitMode, seed = 1): void {
    if (Array.isArray(mode)) {
      for (const o of mode) {
        if (!Number.isInteger(o) || o < 0) {
          throw new RangeError(
            `Cannot split writes at a negative or fractional offset: ${o}`,
          );
        }
      }
    }
    this.#s.split = {
      mode: Array.isArray(mode) ? [...mode].sort((a, b) => a - b) : mode,
      seed,
    };
  }

  /**
   * Delay every request by `ms` milliseconds (on the server's clock) before
   * it is handled. 0 turns it off.
   * @throws {RangeError} when `ms` is negative or not finite
   */
  latency(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) {
      throw new RangeError(`Cannot add a negative or infinite latency: ${ms}`);
    }
    this.#s.latencyMs = ms;
  }

  /**
   * Drop every fault: pending failures, stalls (held events are delivered),
   * close-after counts, split writes and latency.
   */
  clear(): void {
    this.#s.rules = [];
    this.#s.closeAfter = undefined;
    this.#s.split = undefined;
    this.#s.latencyMs = 0;
    this.stallWatches(false);
  }
}

/** Build the response of an injected failure. */
export function failureResponse(f: FailNextOptions): Response {
  const headers = new Headers();
  if (f.retryAfterSeconds !== undefined) {
    headers.set("retry-after", String(f.retryAfterSeconds));
  }
  if (typeof f.body === "string") {
    headers.set("content-type", "text/plain; charset=utf-8");
    return new Response(f.body, { status: f.status, headers });
  }
  headers.set("content-type", "application/json");
  const body = f.body ?? defaultFaultStatus(f.status, f.retryAfterSeconds);
  return new Response(JSON.stringify(body), { status: f.status, headers });
}

/**
 * Re-chunk a body: cut at `offsets` (absolute) or randomly, pausing between
 * pieces via `pause` so each piece becomes its own write.
 */
export function splitBody(
  body: ReadableStream<Uint8Array>,
  split: { mode: SplitMode; seed: number },
  pause: () => Promise<void>,
): ReadableStream<Uint8Array> {
  const rng = split.mode === "random" ? new Rng(split.seed) : undefined;
  const random = rng && (() => rng.next());
  const offsets = Array.isArray(split.mode) ? split.mode : [];
  let pos = 0;
  let next = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        const cuts: number[] = [];
        if (random) {
          const n = 1 + Math.floor(random() * 3);
          for (let i = 0; i < n && chunk.length > 1; i++) {
            cuts.push(1 + Math.floor(random() * (chunk.length - 1)));
          }
          cuts.sort((a, b) => a - b);
        } else {
          while (next < offsets.length && offsets[next] < pos + chunk.length) {
            if (offsets[next] > pos) cuts.push(offsets[next] - pos);
            next++;
          }
        }
        pos += chunk.length;
        let start = 0;
        for (const c of cuts) {
          if (c <= start) continue;
          controller.enqueue(chunk.subarray(start, c));
          start = c;
          await pause();
        }
        controller.enqueue(chunk.subarray(start));
      },
    }),
  );
}
