/**
 * The shared informer of client-go `tools/cache/shared_informer.go`: one
 * list/watch, one indexed cache and any number of event handlers, each fed
 * through its own unbounded buffer so none can hold up another or the
 * Reflector. Also {@link waitForCacheSync}.
 *
 * @module
 */

import {
  checkClock,
  checkDuration,
  checkFunction,
  checkHandler,
  checkInteger,
  checkListerWatcher,
  checkOptions,
  checkSignal,
  checkString,
  show,
} from "./_validate.ts";
import { type Clock, realClock } from "../api/clock.ts";
import { deletionHandlingMetaNamespaceKeyFunc } from "./keys.ts";
import type { DeletedFinalStateUnknown } from "./keys.ts";
import type { ListerWatcher } from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import { DeltaFIFO, type Deltas } from "./delta_fifo.ts";
import type { Indexers } from "./index.ts";
import {
  type ReadonlyIndexer,
  readonlyIndexer,
  type ReadonlyStore,
} from "./store.ts";
import type { DeepReadonly } from "../api/readonly.ts";
import { Cache } from "./_cache.ts";
import { SYNC_WATCH, type SyncedFunc, SyncNotifier } from "./_synced.ts";
import type {
  ReflectorHealth,
  ReflectorStatusListener,
  WatchErrorHandler,
} from "./reflector.ts";
import { Controller } from "./controller.ts";
import type {
  ErrorHandler,
  InformerErrorContext,
  ResourceEventHandler,
} from "./event_handler.ts";
import type { IndexFunctionError } from "./thread_safe_store.ts";
import {
  type MutationDetector,
  newCacheMutationDetector,
} from "./mutation_detector.ts";
import {
  ADD,
  ADD_INITIAL,
  callErrorHandler,
  defaultErrorHandler,
  DELETE,
  gateWatch,
  isSyncUpdate,
  type ObjectHandler,
  processDeltas,
  type ProcessDeltasOptions,
  ProcessorListener,
  SharedProcessor,
  UPDATE,
} from "./_processor.ts";

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
  /**
   * The registration's name in {@link SharedIndexInformer.health} and the
   * controller metrics' `kubecache_listener_pending{handler}`. Default
   * `handler-<n>`, in the order of registration.
   */
  name?: string;
  /**
   * The most notifications this handler's buffer holds before the informer
   * stops reading the watch: it reads the next watch event only once the
   * handler has worked the buffer below this bound (kube-rs's bounded
   * channels; client-go's buffer has no bound). Nothing is dropped, so a
   * slow handler delays every handler of the informer and the cache
   * itself, instead of growing without limit. Notifications read before
   * the bound was reached (a list's, the queue's backlog, the rest of one
   * socket read's) are still delivered, so the buffer may hold more. A
   * watch held back long enough may be ended by the server (a relist then
   * follows). A handler that waits for the informer itself to move on (an
   * object to appear in its cache) must not be bounded: it would wait for
   * a watch that waits for it. Default: no bound.
   */
  maxPending?: number;
}

/**
 * A handler registration's buffer, as {@link SharedIndexInformer.health}
 * reports it.
 *
 * @example Read the buffers of an informer's handlers
 * ```ts
 * import { type KubeObject, type ListenerHealth, newSharedIndexInformer, waitForCacheSync } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const source = new FakeControllerSource<KubeObject>();
 * source.add({ metadata: { name: "a", namespace: "default" } });
 * const informer = newSharedIndexInformer(source);
 * informer.addEventHandler({ onAdd: () => {} }, { name: "audit", maxPending: 100 });
 * const run = new AbortController();
 * const done = informer.run(run.signal);
 * await waitForCacheSync(run.signal, informer.hasSynced);
 * const audit: ListenerHealth | undefined = informer.health()?.listeners[0];
 * assert.deepEqual(audit, { name: "audit", pending: 0, maxPending: 100 });
 * run.abort();
 * await done;
 * ```
 */
export interface ListenerHealth {
  /** The registration's name (`AddEventHandlerOptions.name`). */
  name: string;
  /** Notifications waiting for the handler. */
  pending: number;
  /** Its bound; 0 when it has none. */
  maxPending: number;
}

/**
 * What {@link SharedIndexInformer.health} reports: the Reflector's health
 * and each handler registration's buffer.
 *
 * @example The parts of an informer's health
 * ```ts
 * import type { InformerHealth } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const healthy = (h: InformerHealth) =>
 *   h.failures === 0 && h.listeners.every((l) => l.maxPending === 0 || l.pending < l.maxPending);
 * assert.equal(typeof healthy, "function");
 * ```
 */
export interface InformerHealth extends ReflectorHealth {
  /** Each registered handler's buffer, in the order of registration. */
  listeners: ListenerHealth[];
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

/**
 * How long a stopping informer waits for handler calls in flight before
 * `run` settles anyway (a handler that never returns must not hang
 * shutdown; its call goes on, its later notifications are dropped).
 */
const HANDLER_STOP_GRACE_MS = 1_000;

/**
 * Make a shared informer (client-go `NewSharedIndexInformerWithOptions`).
 *
 * It does no resyncs if `opts.resyncPeriod` is 0. Otherwise each handler
 * with a non-zero resync period gets resyncs at that period rounded up to
 * the informer's resync check period, which is fixed when the informer
 * starts: the smallest of `opts.resyncPeriod` and the periods of handlers
 * added before start, and at least 1 s.
 *
 * @typeParam T the object type
 * @param lw where objects come from
 * @param opts resync period, indexers, clock, transform
 * @returns an informer, not yet running
 * @throws {TypeError} when `lw` is not a ListerWatcher or an option has
 *   the wrong type
 * @throws {RangeError} when `opts.resyncPeriod` is negative
 *
 * @example Watch a fake source
 * ```ts
 * import { newSharedIndexInformer } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 * const source = new FakeControllerSource();
 * source.add({ metadata: { namespace: "default", name: "web-1" } });
 * const informer = newSharedIndexInformer(source);
 * const added = Promise.withResolvers<string>();
 * informer.addEventHandler({ onAdd: (pod) => added.resolve(pod.metadata.name!) });
 * const ac = new AbortController();
 * const running = informer.run(ac.signal);
 * assert.equal(await added.promise, "web-1");
 * assert.deepEqual(informer.getStore().listKeys(), ["default/web-1"]);
 * ac.abort();
 * await running;
 * ```
 */
export function newSharedIndexInformer<T extends KubeObject>(
  lw: ListerWatcher<T>,
  opts: SharedIndexInformerOptions<T> = {},
): SharedIndexInformer<T> {
  checkInformerArgs("newSharedIndexInformer", lw, opts);
  return new SharedIndexInformer(lw, opts);
}

/**
 * An informer's one life: `new` until `run`, `running`, then `stopped` for
 * good (its run signal, `[Symbol.asyncDispose]`, or a fatal error). `run`
 * is the promise `run()` returned (absent when disposed before it ran);
 * `fatal` the error that stops it, set as soon as it happens, so
 * `hasSynced()` turns false before the informer has finished stopping.
 */
type Lifecycle = {
  phase: "new" | "running" | "stopped";
  run?: Promise<void>;
  fatal?: { error: unknown };
};

/**
 * A shared informer with an indexed cache (client-go
 * `SharedIndexInformer`).
 *
 * The cache is eventually consistent with the server: for each object the
 * states it shows are a subsequence of the server's, in order; nothing is
 * promised about ordering across objects. Objects are keyed `namespace/name`
 * (or `name`); the uid is not part of the key, so a delete and re-create
 * missed during a disconnection shows up as one update.
 *
 * Handlers: notifications to one handler come one at a time and in order
 * (an async handler is awaited before its next notification); different
 * handlers are not coordinated. Each notification comes after the cache and
 * its indexes were updated, and the cache may have moved on further by the
 * time it is handled. A handler added after start first gets an `onAdd`
 * (with `isInInitialList` true) for every cached object. A handler that
 * throws is reported to the `errorHandler` option and keeps getting
 * notifications. Handlers must not modify the objects they get.
 *
 * Errors: failed lists and watches go to the watch error handler and are
 * retried. Everything else goes to `errorHandler` and into
 * `health().lastError`: a handler that throws, an index function that
 * throws (the object is cached all the same, absent from that index only,
 * reported once per object and resourceVersion), and a fatal error (the
 * mutation detector firing, or the Reflector failing for good). After a
 * fatal error the informer stops, `hasSynced()` is false for good and `run`
 * rejects with the error: it never keeps serving a stale cache silently.
 *
 * Relists and resyncs (details on {@link ResourceEventHandler}): a relist
 * sends adds, updates and tombstone deletes for what changed; an object it
 * finds unchanged, like a resync, is a same-resourceVersion update, sent only
 * to the handlers due at the latest resync tick — never to a handler with
 * resync period 0, and to none before the first tick.
 *
 * Waiting: `waitForCacheSync(signal, informer.hasSynced)` resolves once the
 * first full list is in the cache, as soon as it is (no polling for the
 * functions informers hand out; `hasSynced` is bound, so it can be passed as
 * is, like client-go's `cache.WaitForCacheSync(stop, informer.HasSynced)`).
 * A registration's `hasSynced` also waits until that handler got the
 * initial list. Neither says anything about a write you made yourself: the
 * cache catches up only when the watch delivers it. To wait for that, use
 * {@link SharedIndexInformer.waitFor} with the key and the
 * `resourceVersion` the server returned (or a predicate).
 *
 * @example Wait for the initial list, then for your own write
 * ```ts
 * import { newSharedIndexInformer, waitForCacheSync } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 * const source = new FakeControllerSource();
 * const informer = newSharedIndexInformer(source);
 * const ac = new AbortController();
 * const running = informer.run(ac.signal);
 * assert.equal(await waitForCacheSync(ac.signal, informer.hasSynced), true);
 * const written = source.add({ metadata: { namespace: "default", name: "mine" } });
 * // The watch delivers it asynchronously: not in the cache yet.
 * assert.equal(informer.getStore().getByKey("default/mine"), undefined);
 * const cached = await informer.waitFor({
 *   key: "default/mine",
 *   resourceVersion: written.metadata.resourceVersion,
 * });
 * assert.equal(informer.getStore().getByKey("default/mine"), cached);
 * ac.abort();
 * await running;
 * ```
 *
 * @typeParam T the object type
 */
export class SharedIndexInformer<T extends KubeObject>
  implements AsyncDisposable {
  #lw: ListerWatcher<T>;
  #opts: SharedIndexInformerOptions<T>;
  #indexer: Cache<T>;
  /** What getStore/getIndexer hand out: the reading half of #indexer. */
  #reader: ReadonlyIndexer<T>;
  #processor: SharedProcessor<T>;
  /** What #handleDeltas hands processDeltas, reused for every pop. */
  #deltaOpts: ProcessDeltasOptions<T>;
  #clock: Clock;
  #defaultResyncPeriod: number;
  #detector: MutationDetector;
  #transform: ((obj: T) => T) | undefined;
  #watchErrorHandler: WatchErrorHandler | undefined;
  #controller: Controller<T> | undefined;
  /** Where the informer is in its one life (new → running → stopped). */
  #lifecycle: Lifecycle = { phase: "new" };
  #name: string;
  #errorHandler: ErrorHandler;
  #lastError: unknown;
  #lastErrorAt: number | undefined;
  // "index\0key" → resourceVersion of the object last reported for it, so
  // a resync or an unchanged relist does not report the same failure again
  #indexFailures = new Map<string, string | undefined>();
  // wakes waitForCacheSync when hasSynced may have changed
  #syncNotifier = new SyncNotifier(() => this.#lifecycle.phase === "stopped");
  #syncCheckQueued = false;
  #objectWaiters = new ObjectWaiters<T>();
  // aborted by [Symbol.asyncDispose]
  #disposer = new AbortController();

  /**
   * Make an informer; prefer {@link newSharedIndexInformer}.
   * @param lw where objects come from
   * @param opts resync period, indexers, clock, transform
   */
  constructor(
    lw: ListerWatcher<T>,
    opts: SharedIndexInformerOptions<T> = {},
  ) {
    checkInformerArgs("new SharedIndexInformer", lw, opts);
    const resync = opts.resyncPeriod ?? 0;
    this.#lw = lw;
    this.#opts = opts;
    this.#clock = opts.clock ?? realClock;
    this.#defaultResyncPeriod = resync;
    this.#transform = opts.transform;
    this.#name = opts.name ?? "informer";
    this.#errorHandler = opts.errorHandler ?? defaultErrorHandler;
    this.#indexer = new Cache<T>(
      deletionHandlingMetaNamespaceKeyFunc,
      opts.indexers ?? {},
      { errorHandler: (error) => this.#indexFailed(error) },
    );
    this.#reader = readonlyIndexer(this.#indexer);
    this.#deltaOpts = {
      handler: this.#distributor,
      store: this.#indexer,
      isInInitialList: false,
    };
    this.#processor = new SharedProcessor<T>({
      resyncCheckPeriod: resync,
      clock: this.#clock,
      errorHandler: (error, notification) =>
        this.#report(error, { source: "handler", notification }),
    });
    this.#detector = newCacheMutationDetector(this.#name, {
      enabled: opts.detectMutations,
      clock: this.#clock,
    });
  }

  /**
   * Add a handler (client-go `AddEventHandler` and
   * `AddEventHandlerWithResyncPeriod`). Returns at once; once the informer
   * runs, the handler first gets an add for every cached object.
   *
   * @param handler the handler
   * @param opts this handler's resync period
   * @returns the registration, for `removeEventHandler` and `hasSynced`
   * @throws {Error} when the informer has stopped
   * @throws {TypeError} when `handler` is not an object
   */
  addEventHandler(
    handler: ResourceEventHandler<T>,
    opts: AddEventHandlerOptions = {},
  ): ResourceEventHandlerRegistration {
    const call = "SharedIndexInformer.addEventHandler";
    checkHandler(call, "handler", handler);
    checkOptions(call, "opts", opts);
    checkDuration(call, "opts.resyncPeriod", opts.resyncPeriod);
    if (opts.name !== undefined) checkString(call, "opts.name", opts.name);
    if (opts.maxPending !== undefined) {
      checkInteger(call, "opts.maxPending", opts.maxPending, 1);
    }
    if (this.#lifecycle.phase === "stopped") {
      throw new Error(
        "Cannot add event handler: the informer has stopped already",
      );
    }
    const listener = this.#processor.newListener(handler, {
      resyncPeriod: opts.resyncPeriod ?? this.#defaultResyncPeriod,
      started: this.#started(),
      hasSynced: this.hasSynced,
      syncNotifier: this.#syncNotifier,
      name: opts.name,
      maxPending: opts.maxPending,
    });
    this.#processor.addListener(listener);
    if (this.#started()) {
      // Nothing else runs until we return, so no delta can slip in between
      // this snapshot and the handler joining (client-go's blockDeltas).
      for (const obj of this.#indexer.list()) {
        listener.push(ADD_INITIAL, obj, undefined);
      }
    }
    return listener;
  }

  /**
   * Remove a handler (idempotent). Its pending notifications are dropped;
   * a call in progress finishes.
   * @param registration what `addEventHandler` returned
   */
  removeEventHandler(registration: ResourceEventHandlerRegistration): void {
    if (registration instanceof ProcessorListener) {
      this.#processor.removeListener(registration);
    }
  }

  /**
   * The cache, read only (kube-rs `Store`; the informer keeps the writer):
   * the handle has no write methods, in its type or at run time, and its
   * objects are typed {@link DeepReadonly}. Copy one with `deepCopy` to
   * derive a changed object.
   * @returns the same handle on every call
   */
  getStore(): ReadonlyStore<T> {
    return this.#reader;
  }

  /**
   * The cache with its indexes, read only, as {@link getStore}.
   * @returns the same handle on every call
   */
  getIndexer(): ReadonlyIndexer<T> {
    return this.#reader;
  }

  /**
   * Add indexes, before or after start (the existing objects are indexed
   * at once).
   * @param indexers the new indexes
   * @throws {Error} when the informer has stopped, or a name exists already
   */
  addIndexers(indexers: Indexers<T>): void {
    if (this.#lifecycle.phase === "stopped") {
      throw new Error("Cannot add indexers: the informer has stopped already");
    }
    this.#indexer.addIndexers(indexers);
  }

  /**
   * Set the function called on each object before it is cached.
   * @param transform the function; it may modify the object it is given
   * @throws {Error} when the informer has started
   */
  setTransform(transform: (obj: T) => T): void {
    if (this.#started()) {
      throw new Error("Cannot set transform: the informer has started already");
    }
    this.#transform = transform;
  }

  /**
   * Set the function told about each failed list or watch (the informer
   * then backs off and retries). Last one wins.
   * @param handler the function
   * @throws {Error} when the informer has started
   */
  setWatchErrorHandler(handler: WatchErrorHandler): void {
    if (this.#started()) {
      throw new Error(
        "Cannot set watch error handler: the informer has started already",
      );
    }
    this.#watchErrorHandler = handler;
  }

  /**
   * Run until `signal` aborts (or the informer is disposed): list, watch,
   * fill the cache and notify handlers. Resolves once the Reflector and
   * every handler loop have stopped (a handler call in progress finishes;
   * pending notifications are dropped). Calling `run` again returns the
   * same promise; a stopped informer never runs again.
   *
   * @param signal stops the informer
   * @returns a promise settling when everything has stopped
   * @throws {CacheMutationError} (rejection) when mutation detection is on
   *   and a cached object was modified
   * @throws {TypeError} (rejection) when `signal` is not an AbortSignal
   */
  run(signal: AbortSignal): Promise<void> {
    try {
      checkSignal("SharedIndexInformer.run", "signal", signal);
    } catch (err) {
      return Promise.reject(err);
    }
    const lc = this.#lifecycle;
    if (lc.phase !== "new") return lc.run ?? Promise.resolve();
    const run = Promise.withResolvers<void>();
    this.#lifecycle = { phase: "running", run: run.promise };
    this.#run(signal).then(run.resolve, run.reject);
    return run.promise;
  }

  /**
   * Whether the first full list has been delivered to the cache; false
   * again for good once the informer has stopped on a fatal error. Bound to
   * its informer, so it can be passed on as is, as client-go code passes
   * `informer.HasSynced`: `waitForCacheSync(signal, informer.hasSynced)`.
   */
  readonly hasSynced: () => boolean = this.#syncNotifier.watch(() =>
    this.#lifecycle.fatal === undefined &&
    (this.#controller?.hasSynced() ?? false)
  );

  /** The resourceVersion last seen from the server; `""` before run. */
  lastSyncResourceVersion(): string {
    return this.#controller?.lastSyncResourceVersion() ?? "";
  }

  /**
   * Wait until the cache holds an object matching `condition`, and resolve
   * with it: the usual way to wait until the informer has seen your own
   * write. Event-driven: the informer tests each object it caches against
   * the waits pending (no polling, no cost when nobody waits). An object
   * cached already resolves at once.
   *
   * `condition` is either a predicate on the cached object, or
   * `{ key, resourceVersion? }`: the object under `key` (`"ns/name"`, or
   * `"name"` for cluster-scoped objects) at that resourceVersion or newer
   * (resourceVersions are compared as numbers when both are decimal
   * integers, as every apiserver's are, since a relist may skip versions;
   * else they must be equal). Without `resourceVersion`, any version.
   * A delete never satisfies a wait.
   *
   * @param condition a predicate, or `{ key, resourceVersion? }`
   * @param opts `signal` cancels the wait
   * @returns the cached object (shared: do not modify it)
   * @throws {TypeError} when `condition` is neither
   * @throws {unknown} (rejection) `signal.reason` when the signal aborts
   * @throws {Error} (rejection) when the informer stops first (`cause`: its
   *   fatal error, if any)
   *
   * @example Wait for your own write to reach the cache
   * ```ts
   * import {
   *   type ConfigMap,
   *   ConfigMaps,
   *   KubeClient,
   *   KubeConfig,
   *   listWatch,
   *   newSharedIndexInformer,
   * } from "@kubecache/core";
   * import { FakeApiServer } from "@kubecache/core/testing";
   * import assert from "node:assert/strict";
   * await using server = await FakeApiServer.start();
   * await using client = new KubeClient(
   *   KubeConfig.fromOptions({ server: server.url }),
   * );
   * const informer = newSharedIndexInformer<ConfigMap>(
   *   listWatch(client, ConfigMaps),
   * );
   * const stop = new AbortController();
   * const running = informer.run(stop.signal);
   *
   * const created = await client.create(ConfigMaps, {
   *   metadata: { namespace: "default", name: "app" },
   *   data: { color: "blue" },
   * });
   * const cached = await informer.waitFor(
   *   { key: "default/app", resourceVersion: created.metadata.resourceVersion },
   *   { signal: stop.signal },
   * );
   * assert.equal(cached.data?.color, "blue");
   * // A predicate works too, e.g. for a name generated by the server.
   * const blue = await informer.waitFor((cm) => cm.data?.color === "blue");
   * assert.equal(blue, cached);
   * stop.abort();
   * await running;
   * ```
   */
  waitFor(
    condition: WaitForCondition<T>,
    opts: { signal?: AbortSignal } = {},
  ): Promise<DeepReadonly<T>> {
    const matches = matcher(condition);
    if (this.#lifecycle.phase === "stopped") {
      return Promise.reject(this.#stoppedError());
    }
    // The cached object itself, typed as what readers may not write.
    return this.#objectWaiters.wait(matches, () => {
      if (typeof condition !== "function") {
        const obj = this.#indexer.getByKey(condition.key);
        return obj !== undefined && matches(condition.key, obj)
          ? obj
          : undefined;
      }
      for (const key of this.#indexer.listKeys()) {
        const obj = this.#indexer.getByKey(key)!;
        if (matches(key, obj)) return obj;
      }
    }, opts.signal) as Promise<DeepReadonly<T>>;
  }

  #stoppedError(): Error {
    const fatal = this.#lifecycle.fatal;
    return new Error(
      `Cannot wait for object: informer "${this.#name}" has stopped`,
      fatal ? { cause: fatal.error } : undefined,
    );
  }

  /** Whether `run` has started the informer (it may have stopped since). */
  #started(): boolean {
    return this.#lifecycle.run !== undefined;
  }

  /** Whether the informer has stopped; a stopped informer never restarts. */
  isStopped(): boolean {
    return this.#lifecycle.phase === "stopped";
  }

  /**
   * Health of the list/watch: last event time, watch restarts, relists
   * (from the Reflector), and the last error: the later of the last failed
   * list or watch and the last error reported to `errorHandler`; and
   * each handler's buffer (`listeners`: its pending notifications and
   * bound). `undefined` before run.
   */
  health(): InformerHealth | undefined {
    const reflector = this.#controller?.health();
    if (reflector === undefined) return undefined;
    const health: InformerHealth = {
      ...reflector,
      listeners: this.#processor.listeners().map((l) => ({
        name: l.name,
        pending: l.pending(),
        maxPending: l.maxPending,
      })),
    };
    if (
      health && this.#lastErrorAt !== undefined &&
      !(health.lastErrorAt !== undefined &&
        health.lastErrorAt > this.#lastErrorAt)
    ) {
      health.lastError = this.#lastError;
      health.lastErrorAt = this.#lastErrorAt;
    }
    return health;
  }

  /** Stop (as if the run signal aborted) and wait until stopped. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#disposer.abort();
    const lc = this.#lifecycle;
    if (lc.phase === "new") {
      this.#lifecycle = { phase: "stopped" };
      this.#objectWaiters.rejectAll(this.#stoppedError());
    }
    this.#syncNotifier.notify();
    await lc.run?.catch(() => {});
  }

  async #run(signal: AbortSignal): Promise<void> {
    const done = new AbortController();
    const stop = AbortSignal.any([signal, this.#disposer.signal, done.signal]);
    const queue = new InformerQueue<T>({
      knownObjects: this.#indexer,
      emitDeltaTypeReplaced: true,
      transformer: this.#transform,
    }, () => this.#syncChanged());
    this.#controller = new Controller<T>({
      queue,
      // A handler's full buffer holds back the watch (maxPending).
      listerWatcher: gateWatch(this.#lw, () => this.#processor.room()),
      process: (deltas, isInInitialList, key) =>
        this.#handleDeltas(deltas, isInInitialList, key),
      fullResyncPeriod: this.#processor.resyncCheckPeriod,
      shouldResync: () => this.#processor.shouldResync(),
      watchErrorHandler: this.#watchErrorHandler,
      errorHandler: (error) => this.#report(error, { source: "process" }),
      onStatus: this.#opts.onStatus,
      pageSize: this.#opts.pageSize,
      useWatchList: this.#opts.useWatchList,
      name: this.#opts.name,
      clock: this.#clock,
    });
    this.#processor.run();
    const fail = (error: unknown) => {
      if (this.#lifecycle.fatal) return;
      // hasSynced() turns false at once.
      this.#lifecycle = { ...this.#lifecycle, fatal: { error } };
      this.#syncNotifier.notify();
      done.abort();
    };
    // A mutated cache cannot be trusted: stop (client-go panics).
    const detecting = this.#detector.run(stop).catch(fail);
    try {
      await this.#controller.run(stop);
    } catch (error) {
      fail(error); // the Reflector failed for good
    } finally {
      // No new handlers from here on.
      this.#lifecycle = { ...this.#lifecycle, phase: "stopped" };
      this.#syncNotifier.notify();
      if (this.#objectWaiters.size > 0) {
        this.#objectWaiters.rejectAll(this.#stoppedError());
      }
      done.abort();
      await this.#stopProcessor();
      await detecting;
    }
    const fatal = this.#lifecycle.fatal;
    if (fatal) {
      this.#report(fatal.error, { source: "fatal" });
      throw fatal.error;
    }
  }

  /** Record `error` for health() and tell the error handler. */
  #report(
    error: unknown,
    context: Omit<InformerErrorContext, "informer">,
  ): void {
    this.#lastError = error;
    this.#lastErrorAt = this.#clock.now();
    callErrorHandler(this.#errorHandler, error, {
      informer: this.#name,
      ...context,
    });
  }

  // Called by the store once a write is done (the object is stored, absent
  // from the failing index); reports each object version once.
  #indexFailed(error: IndexFunctionError): void {
    const id = `${error.indexName}\0${error.key}`;
    const rv = this.#indexer.getByKey(error.key)?.metadata?.resourceVersion;
    if (this.#indexFailures.has(id) && this.#indexFailures.get(id) === rv) {
      return;
    }
    this.#indexFailures.set(id, rv);
    this.#report(error, { source: "index" });
  }

  /** Stop the handlers' loops, waiting at most the grace period for calls in flight. */
  async #stopProcessor(): Promise<void> {
    const grace = new AbortController();
    const expired = this.#clock.sleep(HANDLER_STOP_GRACE_MS, grace.signal)
      .catch(() => {});
    try {
      await Promise.race([this.#processor.stop(), expired]);
    } finally {
      grace.abort();
    }
  }

  #checkWaiters(obj: T): void {
    this.#objectWaiters.check(this.#indexer.keyOf(obj), obj);
  }

  #forgetIndexFailures(obj: T | DeletedFinalStateUnknown<T>): void {
    const key = this.#indexer.keyOf(obj);
    for (const name of Object.keys(this.#indexer.getIndexers())) {
      this.#indexFailures.delete(`${name}\0${key}`);
    }
  }

  // client-go HandleDeltas: synchronous, so handler joins never interleave.
  #handleDeltas(
    deltas: Deltas<T>,
    isInInitialList: boolean,
    key: string | undefined,
  ): void {
    // One options object for every pop: processDeltas runs synchronously
    // here (the distributor never returns a promise).
    const opts = this.#deltaOpts;
    opts.isInInitialList = isInInitialList;
    // The queue's key is the indexer's: the same key function, computed on
    // the same (transformed) object.
    opts.key = key;
    void processDeltas(deltas, opts);
    // The queue counts an initial item done after this returns: look once
    // the current burst of pops has yielded (one check per burst).
    if (isInInitialList) this.#syncChanged();
  }

  // hasSynced may have changed: wake waiters (coalesced, and only if any).
  #syncChanged(): void {
    if (this.#syncCheckQueued || !this.#syncNotifier.waiting) return;
    this.#syncCheckQueued = true;
    queueMicrotask(() => {
      this.#syncCheckQueued = false;
      if (this.hasSynced()) this.#syncNotifier.notify();
    });
  }

  // The informer's own handler: it records objects for the mutation
  // detector and fans out to the listeners; it never returns a promise.
  #distributor: ObjectHandler<T> = {
    onAdd: (obj, isInInitialList) => {
      this.#detector.addObject(obj);
      this.#processor.push(
        isInInitialList ? ADD_INITIAL : ADD,
        obj,
        undefined,
        false,
      );
      if (this.#objectWaiters.size > 0) this.#checkWaiters(obj);
    },
    onUpdate: (oldObj, newObj) => {
      this.#detector.addObject(newObj);
      this.#processor.push(
        UPDATE,
        oldObj,
        newObj,
        isSyncUpdate(oldObj, newObj),
      );
      if (this.#objectWaiters.size > 0) this.#checkWaiters(newObj);
    },
    onDelete: (obj: T | DeletedFinalStateUnknown<T>) => {
      if (this.#indexFailures.size > 0) this.#forgetIndexFailures(obj);
      this.#processor.push(DELETE, obj, undefined, false);
    },
  };
}

/** The informer's DeltaFIFO, telling it when a list was stored (hasSynced may turn true). */
class InformerQueue<T extends KubeObject> extends DeltaFIFO<T> {
  #onReplace: () => void;

  constructor(
    opts: ConstructorParameters<typeof DeltaFIFO<T>>[0],
    onReplace: () => void,
  ) {
    super(opts);
    this.#onReplace = onReplace;
  }

  override replace(list: T[], resourceVersion: string): void {
    super.replace(list, resourceVersion);
    this.#onReplace();
  }
}

/** The checks of {@link newSharedIndexInformer} and the constructor. */
function checkInformerArgs(call: string, lw: unknown, opts: unknown): void {
  checkListerWatcher(call, "lw", lw);
  checkOptions(call, "opts", opts);
  const o = (opts ?? {}) as Record<string, unknown>;
  checkDuration(call, "opts.resyncPeriod", o.resyncPeriod);
  checkClock(call, "opts.clock", o.clock);
  checkOptions(call, "opts.indexers", o.indexers);
  if (o.transform !== undefined) {
    checkFunction(call, "opts.transform", o.transform);
  }
}

/**
 * Resolve when every `hasSynced` function returns true (client-go
 * `cache.WaitForCacheSync`). Resolves `false` if the signal aborts first,
 * or if an informer whose `hasSynced` was passed stops before it synced
 * (a fatal error, or its own run signal), since it never will then.
 *
 * Event-driven for the functions informers hand out (`informer.hasSynced`,
 * `registration.hasSynced`, both bound): it resolves as soon as the last one
 * turns true, without polling, and at once when all already are. Any other
 * function is checked at once and then every 100 ms on the clock.
 *
 * The first argument is the signal, or `{ signal, clock }` to poll on a
 * given clock (a `FakeClock` in tests).
 *
 * @param signal stops waiting (the result is then `false`)
 * @param hasSynced the conditions, e.g. `informer.hasSynced` (bound) or
 *   `registration.hasSynced`
 * @returns whether all synced before the signal aborted
 * @throws {TypeError} (as a rejection) when `signal` is neither an
 *   AbortSignal nor `{ signal, clock? }`, or a condition is not a function
 *
 * @example
 * ```ts
 * import { waitForCacheSync } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const ac = new AbortController();
 * assert.equal(await waitForCacheSync(ac.signal, () => true), true);
 * ac.abort();
 * assert.equal(await waitForCacheSync(ac.signal, () => false), false);
 * ```
 */
export async function waitForCacheSync(
  signal: AbortSignal | { signal: AbortSignal; clock?: Clock },
  ...hasSynced: (() => boolean)[]
): Promise<boolean> {
  const call = "waitForCacheSync";
  if (!(signal instanceof AbortSignal)) {
    if (!(signal?.signal instanceof AbortSignal)) {
      throw new TypeError(
        `${call}: signal must be an AbortSignal or { signal, clock? }, got ${
          show(signal)
        }`,
      );
    }
    checkClock(call, "clock", signal.clock);
  }
  hasSynced.forEach((f, i) => checkFunction(call, `hasSynced[${i}]`, f));
  const opts = signal instanceof AbortSignal ? { signal } : signal;
  const clock = opts.clock ?? realClock;
  const watches = hasSynced.map((fn) => (fn as SyncedFunc)[SYNC_WATCH]);
  const poll = watches.includes(undefined);
  for (;;) {
    if (hasSynced.every((synced) => synced())) return true;
    if (opts.signal.aborted) return false;
    if (watches.some((w, i) => w?.stopped() && !hasSynced[i]())) return false;
    // Wait for a possible change, the abort, or the next poll.
    const woken = Promise.withResolvers<void>();
    const wake = () => woken.resolve();
    const unsubscribe = watches.map((w) => w?.subscribe(wake));
    opts.signal.addEventListener("abort", wake, { once: true });
    const timer = poll ? new AbortController() : undefined;
    if (timer) {
      clock.sleep(SYNCED_POLL_PERIOD_MS, timer.signal).then(wake, () => {});
    }
    try {
      await woken.promise;
    } finally {
      for (const u of unsubscribe) u?.();
      opts.signal.removeEventListener("abort", wake);
      timer?.abort();
    }
  }
}

/** client-go `syncedPollPeriod`: how often {@link waitForCacheSync} checks plain functions (ms). */
const SYNCED_POLL_PERIOD_MS = 100;

// The waiters of SharedIndexInformer.waitFor. The informer calls `check`
// with each object it has just cached (only while someone waits), so a wait
// ends on the event that satisfies it, with no polling.

interface Waiter<T> {
  matches: (key: string, obj: T) => boolean;
  resolve: (obj: T) => void;
  reject: (reason: unknown) => void;
}

/** Pending waits of one informer. */
class ObjectWaiters<
  T extends { metadata?: { resourceVersion?: string } },
> {
  #waiters = new Set<Waiter<T>>();

  /** Whether anyone waits: the informer skips `check` otherwise. */
  get size(): number {
    return this.#waiters.size;
  }

  /**
   * Wait for an object `matches` accepts; `current` finds a match among the
   * objects cached now.
   */
  wait(
    matches: (key: string, obj: T) => boolean,
    current: () => T | undefined,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const found = current();
    if (found !== undefined) return Promise.resolve(found);
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    const onAbort = () => waiter.reject(signal!.reason);
    const done = () => {
      this.#waiters.delete(waiter);
      signal?.removeEventListener("abort", onAbort);
    };
    const waiter: Waiter<T> = {
      matches,
      resolve: (obj) => {
        done();
        resolve(obj);
      },
      reject: (reason) => {
        done();
        reject(reason);
      },
    };
    this.#waiters.add(waiter);
    signal?.addEventListener("abort", onAbort, { once: true });
    return promise;
  }

  /** `obj` was just cached under `key`: resolve the waits it satisfies. */
  check(key: string, obj: T): void {
    for (const waiter of this.#waiters) {
      if (waiter.matches(key, obj)) waiter.resolve(obj);
    }
  }

  /** The informer stopped: no wait can end well any more. */
  rejectAll(reason: unknown): void {
    for (const waiter of this.#waiters) waiter.reject(reason);
  }
}

/**
 * The test of `condition` against an object cached under a key.
 * @throws {TypeError} when `condition` is neither a function nor `{ key }`
 */
function matcher<
  T extends { metadata?: { resourceVersion?: string } },
>(
  condition: WaitForCondition<T>,
): (key: string, obj: T) => boolean {
  if (typeof condition === "function") {
    // The predicate gets the cached object, typed as readers see it.
    return (_key, obj) => condition(obj as DeepReadonly<T>);
  }
  if (
    typeof condition !== "object" || condition === null ||
    typeof condition.key !== "string"
  ) {
    throw new TypeError(
      `SharedIndexInformer.waitFor: condition must be a function or { key, resourceVersion? }, got ${
        condition === null ? "null" : typeof condition
      }`,
    );
  }
  const { key, resourceVersion: wanted } = condition;
  if (wanted !== undefined && typeof wanted !== "string") {
    throw new TypeError(
      `SharedIndexInformer.waitFor: resourceVersion must be a string, got ${typeof wanted}`,
    );
  }
  if (wanted === undefined) return (k) => k === key;
  return (k, obj) =>
    k === key && atLeast(obj.metadata?.resourceVersion, wanted);
}

const DECIMAL = /^[0-9]+$/;

/**
 * `have` is `wanted`, or newer. resourceVersions are opaque strings; where
 * both are decimal integers (every real apiserver's) a larger one is newer,
 * so a wait still ends when the informer skips to a later version (a relist
 * merges changes).
 */
function atLeast(have: string | undefined, wanted: string): boolean {
  if (have === undefined) return false;
  if (have === wanted) return true;
  if (!DECIMAL.test(have) || !DECIMAL.test(wanted)) return false;
  return BigInt(have) > BigInt(wanted);
}
