/**
 * A KubeClient that counts its requests in flight, so a test on a
 * {@link FakeClock} can let real HTTP settle before the next clock step
 * without sleeping on the wall clock.
 *
 * @module
 */

import {
  checkDuration,
  checkFunction,
  checkOptions,
  show,
} from "../api/validate.ts";
import { KubeClient, type RawRequestOptions } from "../client/rest.ts";
import { FakeClock } from "./fake_clock.ts";

/**
 * A {@link KubeClient} whose `inFlight` is the number of its JSON requests
 * (`request`, hence get, create, update, patch, delete; not list or watch)
 * not yet settled. Tests that drive a FakeClock yield to the event loop until every
 * client reads 0 before stepping the clock again. No client-go counterpart:
 * a test aid.
 *
 * @example
 * ```ts
 * import { FakeApiServer, TrackedClient } from "@kubecache/core/testing";
 * import { ConfigMaps, KubeConfig } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * const client = new TrackedClient(KubeConfig.fromOptions({ server: server.url }));
 * server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
 * const getting = client.get(ConfigMaps, "a", { namespace: "default" });
 * assert.equal(client.inFlight, 1);
 * assert.equal((await getting).metadata.name, "a");
 * assert.equal(client.inFlight, 0);
 * client.close();
 * ```
 */
export class TrackedClient extends KubeClient {
  /** Requests sent and not yet settled (resolved or rejected). */
  inFlight = 0;

  /**
   * {@link KubeClient.request}, counted in `inFlight` until it settles.
   * @throws whatever {@link KubeClient.request} throws (StatusError...)
   */
  override async request<R>(
    method: string,
    path: string,
    opts?: RawRequestOptions,
  ): Promise<R> {
    this.inFlight++;
    try {
      return await super.request<R>(method, path, opts);
    } finally {
      this.inFlight--;
    }
  }
}

/**
 * Options of {@link settle}.
 *
 * @example Step 10 ms at a time until a flag is set, for at most 5 s
 * ```ts
 * import { FakeClock, type SettleOptions } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * let done = false;
 * const opts: SettleOptions = { clock: new FakeClock(), until: () => done, stepMs: 10, maxMs: 5_000 };
 * assert.equal(opts.until!(), false);
 * done = true;
 * assert.equal(opts.until!(), true);
 * ```
 */
export interface SettleOptions {
  /** The clock to step while `until` is false; required with `until`. */
  clock?: FakeClock;
  /** Keep settling and stepping `clock` until this holds. Default: settle once. */
  until?: () => boolean;
  /** What `until` waits for, for the failure message. Default "the condition". */
  what?: string;
  /** Fake time per step (ms). Default 50. */
  stepMs?: number;
  /** Fail once this much fake time (ms) has passed without `until`. Default 30 000. */
  maxMs?: number;
}

/**
 * Let real HTTP settle between FakeClock steps, never sleeping on the wall
 * clock: yield event-loop turns until none of `clients` has a request in
 * flight for 3 turns in a row (at most 2 000 turns, so a request to a
 * server made to hang does not hang the test). With `until`, repeat
 * "settle, check, step `clock` by `stepMs`" until `until()` holds, and
 * throw after `maxMs` of fake time. No client-go counterpart: a test aid
 * for code driven by a {@link FakeClock} against a FakeApiServer.
 *
 * @param clients the clients whose requests are awaited
 * @param opts the condition and the clock to step
 * @throws {TypeError} when `clients` is not a TrackedClient or an array of them, or `until` is given without a FakeClock
 * @throws {RangeError} when `opts.stepMs` or `opts.maxMs` is not a finite number of ms (`stepMs` > 0)
 * @throws {Error} "settle: gave up waiting for <what> after <maxMs> ms of fake time"
 *
 * @example Run a Manager until its reconciler saw an object
 * ```ts
 * import { Manager } from "@kubecache/core/controller";
 * import { ConfigMaps, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer, FakeClock, settle, TrackedClient } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock(Date.UTC(2026, 0, 1));
 * await using server = await FakeApiServer.start({ clock });
 * await using client = new TrackedClient(KubeConfig.fromOptions({ server: server.url }));
 * await using manager = new Manager(client, { clock });
 * const seen: string[] = [];
 * manager.controller("test", ConfigMaps).complete((req) => {
 *   seen.push(req.name);
 * });
 * const stop = new AbortController();
 * const running = manager.run(stop.signal);
 * server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
 * await settle(client, { clock, until: () => seen.includes("a"), what: "a reconcile of a" });
 * stop.abort();
 * await running;
 * assert.deepEqual(seen, ["a"]);
 * ```
 */
export async function settle(
  clients: TrackedClient | readonly TrackedClient[],
  opts: SettleOptions = {},
): Promise<void> {
  const call = "settle";
  const list = Array.isArray(clients) ? clients : [clients];
  list.forEach((c, i) => {
    if (typeof (c as TrackedClient)?.inFlight !== "number") {
      throw new TypeError(
        `${call}: clients${
          Array.isArray(clients) ? `[${i}]` : ""
        } must be a TrackedClient, got ${show(c)}`,
      );
    }
  });
  checkOptions(call, "opts", opts);
  const { clock, until } = opts;
  if (until !== undefined) {
    checkFunction(call, "opts.until", until);
    if (!(clock instanceof FakeClock)) {
      throw new TypeError(
        `${call}: opts.clock must be a FakeClock when opts.until is given, got ${
          show(clock)
        }`,
      );
    }
  }
  checkDuration(call, "opts.stepMs", opts.stepMs);
  checkDuration(call, "opts.maxMs", opts.maxMs);
  if (opts.stepMs === 0) {
    throw new RangeError(`${call}: opts.stepMs must be > 0, got 0`);
  }
  const quiet = async () => {
    for (let idle = 0, turns = 0; idle < 3 && turns < 2_000; turns++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      idle = list.some((c) => c.inFlight > 0) ? 0 : idle + 1;
    }
  };
  if (until === undefined || !clock) return await quiet();
  const maxMs = opts.maxMs ?? 30_000;
  const started = clock.now();
  for (;;) {
    await quiet();
    if (until()) return;
    if (clock.now() - started > maxMs) {
      throw new Error(
        `${call}: gave up waiting for ${
          opts.what ?? "the condition"
        } after ${maxMs} ms of fake time`,
      );
    }
    await clock.step(opts.stepMs ?? 50);
  }
}
