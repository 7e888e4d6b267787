/**
 * The public types of the Reflector's contract: what it writes to, its
 * options, backoff policy, error handler and health. Internal module;
 * `reflector.ts` re-exports every name.
 *
 * @module
 */

import type { Clock } from "../api/clock.ts";
import type { ReflectorStatusListener } from "./_reflector_status.ts";

/**
 * What a {@link Reflector} writes to: a `DeltaFIFO`, or any `Store`. Each
 * call is synchronous; `replace` takes ownership of the list.
 *
 * @typeParam T the object type
 *
 * @example Any object with the five writes fits
 * ```ts
 * import { type KubeObject, metaNamespaceKeyFunc, newStore, Reflector, type ReflectorStore } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const source = new FakeControllerSource();
 * source.add({ metadata: { namespace: "default", name: "a" } });
 * const store = newStore<KubeObject>(metaNamespaceKeyFunc);
 * const listed = Promise.withResolvers<string>();
 * const target: ReflectorStore<KubeObject> = {
 *   add: (obj) => store.add(obj),
 *   update: (obj) => store.update(obj),
 *   delete: (obj) => store.delete(obj),
 *   replace: (list, resourceVersion) => {
 *     store.replace(list, resourceVersion);
 *     listed.resolve(resourceVersion);
 *   },
 *   resync: () => {},
 * };
 * const stop = new AbortController();
 * const running = new Reflector(source, target).run(stop.signal);
 * assert.equal(await listed.promise, source.resourceVersion());
 * assert.deepEqual(store.listKeys(), ["default/a"]);
 * stop.abort();
 * await running;
 * ```
 */
export interface ReflectorStore<T> {
  /** An object was added (watch ADDED). */
  add(obj: T): void;
  /** An object changed (watch MODIFIED). */
  update(obj: T): void;
  /** An object was deleted (watch DELETED); `obj` is its last state. */
  delete(obj: T): void;
  /** The full state at `resourceVersion` (a list or a watch-list). */
  replace(list: T[], resourceVersion: string): void;
  /** The periodic resync (every `resyncPeriod`). */
  resync(): void;
}

/**
 * A backoff schedule: `next()` is the delay (ms) to wait after a failure
 * happening now, `reset()` starts over. The default is 800 ms doubling to
 * 30 s, each delay drawn from [d, 2d), back to 800 ms after 2 min without
 * failure (client-go's Reflector `backoffManager`).
 *
 * @example A fixed delay
 * ```ts
 * import { type BackoffPolicy, metaNamespaceKeyFunc, newStore, Reflector } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const fixed: BackoffPolicy = { next: () => 5_000, reset: () => {} };
 * const reflector = new Reflector(new FakeControllerSource(), newStore(metaNamespaceKeyFunc), { backoff: fixed });
 * assert.equal(fixed.next(), 5_000);
 * void reflector;
 * ```
 */
export interface BackoffPolicy {
  /** The delay in milliseconds to wait after a failure happening now. */
  next(): number;
  /** Start over at the initial delay. */
  reset(): void;
}

/**
 * Told about every failed list or watch, once per failure, before the
 * Reflector backs off and retries (client-go `WatchErrorHandler`). Should
 * return quickly.
 *
 * @example Count failed lists and watches
 * ```ts
 * import { type KubeObject, newSharedIndexInformer, type WatchErrorHandler } from "@kubecache/core";
 * import { FakeClock, FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const source = new FakeControllerSource<KubeObject>();
 * source.failNext("list", new Error("connection refused"));
 * const failures: string[] = [];
 * const handler: WatchErrorHandler = (_reflector, error) => void failures.push((error as Error).message);
 * const informer = newSharedIndexInformer(source, { clock });
 * informer.setWatchErrorHandler(handler);
 * const stop = new AbortController();
 * const running = informer.run(stop.signal);
 * await clock.waitForWaiters(); // backing off after the failed list
 * assert.deepEqual(failures, ["connection refused"]);
 * stop.abort();
 * await running;
 * ```
 */
export type WatchErrorHandler = (
  reflector: { readonly name: string },
  error: unknown,
) => void;

/**
 * Options of a {@link Reflector}; durations in milliseconds.
 *
 * @example Name, clock, backoff and error handler
 * ```ts
 * import { metaNamespaceKeyFunc, newStore, Reflector, type ReflectorOptions } from "@kubecache/core";
 * import { FakeClock, FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const source = new FakeControllerSource();
 * source.failNext("list", new Error("connection refused"));
 * const failures: string[] = [];
 * const opts: ReflectorOptions = {
 *   name: "configmaps",
 *   resyncPeriod: 0,
 *   pageSize: 500,
 *   clock,
 *   backoff: { next: () => 1_000, reset: () => {} }, // instead of 800 ms doubling to 30 s
 *   watchErrorHandler: (r, err) => failures.push(`${r.name}: ${(err as Error).message}`),
 * };
 * const reflector = new Reflector(source, newStore(metaNamespaceKeyFunc), opts);
 * const stop = new AbortController();
 * const running = reflector.run(stop.signal);
 * await clock.waitForWaiters(); // backing off, on the fake clock
 * assert.deepEqual(failures, ["configmaps: connection refused"]);
 * stop.abort();
 * await running;
 * ```
 */
export interface ReflectorOptions {
  /**
   * Name used in logs, errors and status lines.
   * @default {the ListerWatcher's `description` (e.g. "configmaps in team-a"), else "reflector"}
   */
  name?: string;
  /** How often to call the store's `resync`; 0 = never. @default {0} */
  resyncPeriod?: number;
  /** Asked before each resync; `false` skips it. @default {() => true} */
  shouldResync?: () => boolean;
  /**
   * `limit` of every list page, continue pages included (client-go
   * `WatchListPageSize`). When unset, lists at RV "0" and "" ask for 500 per
   * page and lists at an exact RV are not paged (so the apiserver's watch
   * cache can serve them), unless the first list at "0" came back paged.
   */
  pageSize?: number;
  /** Time source for every timer. @default {realClock} */
  clock?: Clock;
  /** Backoff between failures. @default 800 ms ×2 up to 30 s, jitter 1.0, reset after 2 min */
  backoff?: BackoffPolicy;
  /**
   * Told about each failed list or watch (client-go `WatchErrorHandler`).
   * Setting one turns the default log off unless `onStatus` is set too.
   * @default {none: failures reach the default log through `onStatus`}
   */
  watchErrorHandler?: WatchErrorHandler;
  /**
   * Told about each {@link ReflectorStatus} change: failures with their
   * root cause and the wait before the retry, recoveries, skipped objects.
   * @default {logReflectorStatus, unless `watchErrorHandler` is set}
   */
  onStatus?: ReflectorStatusListener;
  /**
   * The apiVersion and kind every watched object must have (client-go's
   * expected GVK); an object that names another is skipped, never applied
   * and never moving the resume RV. Objects without apiVersion/kind pass.
   * @default {the ListerWatcher's `expectedType`; none: no check}
   */
  expectedType?: ExpectedType;
  /**
   * Fetch the initial state with a watch-list (`sendInitialEvents=true`)
   * instead of a list; falls back to list+watch when the server rejects it
   * (400/422) or sends no end-of-initial-events bookmark. @default {false}
   */
  useWatchList?: boolean;
}

/**
 * The Reflector's health, for probes and dashboards. Times are epoch ms
 * on the Reflector's clock.
 *
 * @example A readiness probe
 * ```ts
 * import { type KubeObject, newSharedIndexInformer, type ReflectorHealth, waitForCacheSync } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const ready = (h: ReflectorHealth | undefined) => h !== undefined && h.failures === 0 && h.lastSyncResourceVersion !== "";
 * const informer = newSharedIndexInformer(new FakeControllerSource<KubeObject>());
 * assert.equal(ready(informer.health()), false); // not running
 * const stop = new AbortController();
 * const running = informer.run(stop.signal);
 * await waitForCacheSync(stop.signal, informer.hasSynced);
 * assert.equal(ready(informer.health()), true);
 * stop.abort();
 * await running;
 * ```
 */
export interface ReflectorHealth {
  /** When the last watch event (bookmarks included) arrived; undefined before any. */
  lastEventAt: number | undefined;
  /** Watches opened after the first one. */
  watchRestarts: number;
  /** Successful lists (or watch-lists) after the first one. */
  relists: number;
  /** The last failure reported to the watch error handler; undefined before any. */
  lastError: unknown;
  /** When {@link lastError} happened. */
  lastErrorAt: number | undefined;
  /** Same as `Reflector.lastSyncResourceVersion()`. */
  lastSyncResourceVersion: string;
  /** Watched objects skipped for an unexpected apiVersion/kind. */
  skippedObjects: number;
  /**
   * When the watched objects began to be skipped in a row (every one since
   * was of an unexpected apiVersion/kind, so none reached the cache: it is
   * going stale); undefined when the last watched object was applied. A
   * health check should treat a set value as unhealthy.
   */
  skippingSince: number | undefined;
  /** Failures since the last success; 0 when healthy. */
  failures: number;
}

/**
 * The apiVersion and kind a Reflector expects every watched object to have (client-go's expected GVK).
 *
 * @example Skip objects of another kind
 * ```ts
 * import type { ExpectedType } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const expected: ExpectedType = { apiVersion: "apps/v1", kind: "Deployment" };
 * const fits = (o: { apiVersion?: string; kind?: string }) =>
 *   (o.apiVersion ?? expected.apiVersion) === expected.apiVersion && (o.kind ?? expected.kind) === expected.kind;
 * assert.equal(fits({ apiVersion: "apps/v1", kind: "Deployment" }), true);
 * assert.equal(fits({ apiVersion: "v1", kind: "Pod" }), false);
 * ```
 */
export interface ExpectedType {
  /** e.g. `"apps/v1"`, `"v1"`. */
  apiVersion: string;
  /** e.g. `"Deployment"`. */
  kind: string;
}
