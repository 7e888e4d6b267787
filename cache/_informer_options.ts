// Internal: the option and registration types of SharedIndexInformer
// (re-exported by shared_informer.ts, their public home), kept apart so
// shared_informer.ts stays one concept of readable length.

import type { Clock } from "../api/clock.ts";
import type { ErrorHandler } from "./event_handler.ts";
import type { Indexers } from "./index.ts";
import type { KubeObject } from "../api/object.ts";
import type { ReflectorStatusListener } from "./reflector.ts";
import type { DeepReadonly } from "../api/readonly.ts";

/**
 * The handle of one `addEventHandler` call (client-go
 * `ResourceEventHandlerRegistration`): give it back to `removeEventHandler`,
 * or ask whether this handler has seen the whole initial list.
 *
 * @example Wait until one handler has seen the initial list
 * ```ts
 * import { type KubeObject, newSharedIndexInformer, waitForCacheSync } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const source = new FakeControllerSource<KubeObject>();
 * source.add({ metadata: { namespace: "default", name: "a" } });
 * const informer = newSharedIndexInformer(source);
 * const seen: string[] = [];
 * const registration = informer.addEventHandler({ onAdd: (obj) => void seen.push(obj.metadata.name!) });
 * const stop = new AbortController();
 * const running = informer.run(stop.signal);
 * assert.equal(await waitForCacheSync(stop.signal, registration.hasSynced), true);
 * assert.deepEqual(seen, ["a"]);
 * informer.removeEventHandler(registration);
 * stop.abort();
 * await running;
 * ```
 */
export interface ResourceEventHandlerRegistration {
  /**
   * True once the informer has synced and this handler has finished
   * handling every add of the initial list (for a handler added after
   * start: every object cached when it was added). Bound, so
   * `waitForCacheSync(signal, registration.hasSynced)` works, and wakes as
   * soon as it turns true.
   */
  hasSynced(): boolean;
}

/**
 * Options of {@link SharedIndexInformer.addEventHandler}.
 *
 * @example A handler with its own resync period
 * ```ts
 * import { type AddEventHandlerOptions, type KubeObject, newSharedIndexInformer } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const informer = newSharedIndexInformer(new FakeControllerSource<KubeObject>(), { resyncPeriod: 60_000 });
 * const opts: AddEventHandlerOptions = { resyncPeriod: 300_000 }; // every cached object again every 5 min
 * const registration = informer.addEventHandler({ onUpdate: () => {} }, opts);
 * assert.equal(registration.hasSynced(), false); // not started yet
 * ```
 */
export interface AddEventHandlerOptions {
  /**
   * How often this handler wants every cached object again as an update
   * (ms); 0 for never. Default: the informer's `resyncPeriod`. Raised to at
   * least 1 s, and, once the informer runs, to its resync check period.
   */
  resyncPeriod?: number;
}

/**
 * Options of {@link newSharedIndexInformer} (client-go
 * `SharedIndexInformerOptions`).
 *
 * @typeParam T the object type
 *
 * @example Indexes and a transform
 * ```ts
 * import { type KubeObject, newSharedIndexInformer, type SharedIndexInformerOptions, stripManagedFields, waitForCacheSync } from "@kubecache/core";
 * import { FakeClock, FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const source = new FakeControllerSource();
 * source.add({ metadata: { namespace: "default", name: "a", labels: { app: "web" }, managedFields: [{ manager: "kubectl" }] } });
 * const opts: SharedIndexInformerOptions<KubeObject> = {
 *   resyncPeriod: 0,
 *   indexers: { byApp: (obj) => [obj.metadata.labels?.app ?? ""] },
 *   clock: new FakeClock(),
 *   transform: stripManagedFields,
 * };
 * const informer = newSharedIndexInformer(source, opts);
 * const stop = new AbortController();
 * const running = informer.run(stop.signal);
 * await waitForCacheSync(stop.signal, informer.hasSynced);
 * const [cached] = informer.getIndexer().byIndex("byApp", "web");
 * assert.equal(cached.metadata.name, "a");
 * assert.equal(cached.metadata.managedFields, undefined);
 * stop.abort();
 * await running;
 * ```
 */
export interface SharedIndexInformerOptions<T extends KubeObject> {
  /**
   * Default resync period of handlers, and the informer's resync check
   * period (ms). Default 0: no resyncs at all, for any handler.
   */
  resyncPeriod?: number;
  /** Indexes of the cache, besides the key. */
  indexers?: Indexers<T>;
  /** Clock for every timer. Default: the real clock. */
  clock?: Clock;
  /** Called on each object before it is cached (e.g. to drop managedFields). */
  transform?: (obj: T) => T;
  /** Name of the informer, for logs, health and mutation errors. */
  name?: string;
  /** Page size of the Reflector's lists. */
  pageSize?: number;
  /** Stream the initial state with a watch-list request. Default false. */
  useWatchList?: boolean;
  /**
   * Told about the Reflector's status changes: a failed list or watch with
   * its root cause and the wait before the retry, the recovery, skipped
   * objects (see `ReflectorStatus`). Default: `logReflectorStatus` (one
   * stderr line per new cause), unless a watch error handler is set.
   */
  onStatus?: ReflectorStatusListener;
  /**
   * Receives every error the informer reports except failed lists and
   * watches (those go to the watch error handler): handler failures, index
   * function failures, deltas that cannot be applied, and the fatal error
   * an informer stops on (see {@link ErrorHandler}). Default: one line on
   * `console.error` per error.
   */
  errorHandler?: ErrorHandler;
  /**
   * Check that handlers do not modify cached objects (see
   * `mutation_detector.ts`). Default: `KUBECACHE_MUTATION_DETECTOR=true`.
   * A mutation stops the informer: `errorHandler` gets the
   * `CacheMutationError` (source `"fatal"`), {@link SharedIndexInformer.run}
   * rejects with it and `hasSynced()` is false from then on.
   */
  detectMutations?: boolean;
}

/**
 * What {@link SharedIndexInformer.waitFor} waits for: a predicate on a
 * cached object, or the object under `key` (`"ns/name"` or `"name"`) at
 * `resourceVersion` or newer (any version when it is left out).
 *
 * @typeParam T the object type
 *
 * @example Wait for a version, or for a predicate
 * ```ts
 * import type { ConfigMap, WaitForCondition } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const byVersion: WaitForCondition<ConfigMap> = { key: "default/settings", resourceVersion: "42" };
 * const byContent: WaitForCondition<ConfigMap> = (cm) => cm.data?.color === "blue";
 * assert.equal(typeof byContent === "function" && byContent({ metadata: {}, data: { color: "blue" } }), true);
 * assert.equal("key" in byVersion && byVersion.key, "default/settings");
 * ```
 */
export type WaitForCondition<T> =
  | ((obj: DeepReadonly<T>) => boolean)
  | { key: string; resourceVersion?: string };
