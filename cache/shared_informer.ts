/**
 * The shared informer of client-go `tools/cache/shared_informer.go`: one
 * list/watch, one indexed cache and any number of event handlers, each fed
 * through its own unbounded buffer so none can hold up another or the
 * Reflector. Also {@link waitForCacheSync}.
 *
 * @module
 */

import { type Clock, realClock } from "../api/clock.ts";
import { deletionHandlingMetaNamespaceKeyFunc } from "./keys.ts";
import type { DeletedFinalStateUnknown } from "./keys.ts";
import type { ListerWatcher } from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import { DeltaFIFO, type Deltas } from "./delta_fifo.ts";
import type { Indexers } from "./index.ts";
import type { Indexer, Store } from "./store.ts";
import { Cache } from "./_cache.ts";
import type { ReflectorHealth, WatchErrorHandler } from "./reflector.ts";
import { Controller } from "./controller.ts";
import type {
  HandlerErrorReporter,
  ResourceEventHandler,
} from "./event_handler.ts";
import {
  type MutationDetector,
  newCacheMutationDetector,
} from "./mutation_detector.ts";
import {
  consoleHandlerErrorReporter,
  processDeltas,
  ProcessorListener,
  SharedProcessor,
} from "./_processor.ts";

/**
 * The handle of one `addEventHandler` call (client-go
 * `ResourceEventHandlerRegistration`): give it back to `removeEventHandler`,
 * or ask whether this handler has seen the whole initial list.
 */
export interface ResourceEventHandlerRegistration {
  /**
   * True once the informer has synced and this handler has finished
   * handling every add of the initial list (for a handler added after
   * start: every object cached when it was added).
   */
  hasSynced(): boolean;
}

/** Options of {@link SharedIndexInformer.addEventHandler}. */
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
  /** Receives errors thrown by handlers. Default: `console.error`. */
  onHandlerError?: HandlerErrorReporter;
  /**
   * Check that handlers do not modify cached objects (see
   * `mutation_detector.ts`). Default: `KUBECACHE_MUTATION_DETECTOR=true`.
   * A mutation makes {@link SharedIndexInformer.run} reject with a
   * `CacheMutationError`.
   */
  detectMutations?: boolean;
}

/**
 * Resolve when every `hasSynced` function returns true (client-go
 * `cache.WaitForCacheSync`), checking at once and then every 100 ms.
 * Resolves `false` if the signal aborts first.
 *
 * The first argument is the signal, or `{ signal, clock }` to poll on a
 * given clock (a `FakeClock` in tests).
 *
 * @param signal stops waiting (the result is then `false`)
 * @param hasSynced the conditions, e.g. `informer.hasSynced` (bound) or
 *   `registration.hasSynced`
 * @returns whether all synced before the signal aborted
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
  const opts = signal instanceof AbortSignal ? { signal } : signal;
  const clock = opts.clock ?? realClock;
  for (;;) {
    if (hasSynced.every((synced) => synced())) return true;
    if (opts.signal.aborted) return false;
    try {
      await clock.sleep(SYNCED_POLL_PERIOD_MS, opts.signal);
    } catch {
      return false;
    }
  }
}

/** client-go `syncedPollPeriod`: how often {@link waitForCacheSync} checks (ms). */
const SYNCED_POLL_PERIOD_MS = 100;

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
  return new SharedIndexInformer(lw, opts);
}

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
 * throws is reported through `onHandlerError` and keeps getting
 * notifications. Handlers must not modify the objects they get.
 *
 * Relists and resyncs (details on {@link ResourceEventHandler}): a relist
 * sends adds, updates and tombstone deletes for what changed; an object it
 * finds unchanged, like a resync, is a same-resourceVersion update, sent only
 * to the handlers due at the latest resync tick — never to a handler with
 * resync period 0, and to none before the first tick.
 *
 * Waiting: `waitForCacheSync(signal, informer.hasSynced)` resolves once the
 * first full list is in the cache (`hasSynced` is bound, so it can be passed
 * as is, like client-go's `cache.WaitForCacheSync(stop, informer.HasSynced)`;
 * `() => informer.hasSynced()` works too). A registration's `hasSynced`
 * also waits until that handler got the initial list. Neither says anything
 * about a write you made yourself: the cache catches up only when the watch
 * delivers it. To wait until the informer has seen your own write, resolve a
 * promise from a handler when the object (by key, or at least the
 * `resourceVersion` the server returned) arrives, as below, or poll the
 * lister (`getStore().getByKey(key)`) on a clock until it shows that version.
 *
 * @example Wait for the initial list, then for your own write
 * ```ts
 * import { newSharedIndexInformer, waitForCacheSync } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 * const source = new FakeControllerSource();
 * const informer = newSharedIndexInformer(source);
 * const seen = Promise.withResolvers<void>();
 * informer.addEventHandler({
 *   onAdd: (obj) => {
 *     if (obj.metadata.name === "mine") seen.resolve();
 *   },
 * });
 * const ac = new AbortController();
 * const running = informer.run(ac.signal);
 * assert.equal(await waitForCacheSync(ac.signal, informer.hasSynced), true);
 * source.add({ metadata: { namespace: "default", name: "mine" } }); // "the write"
 * // The watch delivers it asynchronously: not in the cache yet.
 * assert.equal(informer.getStore().getByKey("default/mine"), undefined);
 * await seen.promise;
 * assert.ok(informer.getStore().getByKey("default/mine"));
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
  #processor: SharedProcessor<T>;
  #clock: Clock;
  #defaultResyncPeriod: number;
  #detector: MutationDetector;
  #transform: ((obj: T) => T) | undefined;
  #watchErrorHandler: WatchErrorHandler | undefined;
  #controller: Controller<T> | undefined;
  #running: Promise<void> | undefined;
  #started = false;
  #stopped = false;
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
    const resync = opts.resyncPeriod ?? 0;
    if (!(resync >= 0)) {
      throw new RangeError(
        `Cannot create informer: resyncPeriod must be >= 0 ms, got ${resync}`,
      );
    }
    this.#lw = lw;
    this.#opts = opts;
    this.#clock = opts.clock ?? realClock;
    this.#defaultResyncPeriod = resync;
    this.#transform = opts.transform;
    this.#indexer = new Cache<T>(
      deletionHandlingMetaNamespaceKeyFunc,
      opts.indexers ?? {},
    );
    this.#processor = new SharedProcessor<T>({
      resyncCheckPeriod: resync,
      clock: this.#clock,
      reportError: opts.onHandlerError ?? consoleHandlerErrorReporter,
    });
    this.#detector = newCacheMutationDetector(opts.name ?? "informer", {
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
   */
  addEventHandler(
    handler: ResourceEventHandler<T>,
    opts: AddEventHandlerOptions = {},
  ): ResourceEventHandlerRegistration {
    if (this.#stopped) {
      throw new Error(
        "Cannot add event handler: the informer has stopped already",
      );
    }
    const listener = this.#processor.newListener(handler, {
      resyncPeriod: opts.resyncPeriod ?? this.#defaultResyncPeriod,
      started: this.#started,
      hasSynced: () => this.hasSynced(),
    });
    this.#processor.addListener(listener);
    if (this.#started) {
      // Nothing else runs until we return, so no delta can slip in between
      // this snapshot and the handler joining (client-go's blockDeltas).
      for (const obj of this.#indexer.list()) {
        listener.add({ type: "add", obj, isInInitialList: true });
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

  /** The cache, as a Store. Read only: writing breaks notifications. */
  getStore(): Store<T> {
    return this.#indexer;
  }

  /** The cache, as an Indexer. Read only: writing breaks notifications. */
  getIndexer(): Indexer<T> {
    return this.#indexer;
  }

  /**
   * Add indexes, before or after start (the existing objects are indexed
   * at once).
   * @param indexers the new indexes
   * @throws {Error} when the informer has stopped, or a name exists already
   */
  addIndexers(indexers: Indexers<T>): void {
    if (this.#stopped) {
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
    if (this.#started) {
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
    if (this.#started) {
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
   */
  run(signal: AbortSignal): Promise<void> {
    if (this.#running) return this.#running;
    if (this.#stopped) return Promise.resolve();
    this.#running = this.#run(signal);
    return this.#running;
  }

  /**
   * Whether the first full list has been delivered to the cache. Bound to
   * its informer, so it can be passed on as is, as client-go code passes
   * `informer.HasSynced`: `waitForCacheSync(signal, informer.hasSynced)`.
   */
  readonly hasSynced = (): boolean => this.#controller?.hasSynced() ?? false;

  /** The resourceVersion last seen from the server; `""` before run. */
  lastSyncResourceVersion(): string {
    return this.#controller?.lastSyncResourceVersion() ?? "";
  }

  /** Whether the informer has stopped; a stopped informer never restarts. */
  isStopped(): boolean {
    return this.#stopped;
  }

  /**
   * Health of the list/watch: last event time, watch restarts, relists,
   * last error (from the Reflector). `undefined` before run.
   */
  health(): ReflectorHealth | undefined {
    return this.#controller?.health();
  }

  /** Stop (as if the run signal aborted) and wait until stopped. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#disposer.abort();
    if (!this.#running) this.#stopped = true;
    await this.#running?.catch(() => {});
  }

  async #run(signal: AbortSignal): Promise<void> {
    const done = new AbortController();
    const stop = AbortSignal.any([signal, this.#disposer.signal, done.signal]);
    const queue = new DeltaFIFO<T>({
      knownObjects: this.#indexer,
      emitDeltaTypeReplaced: true,
      transformer: this.#transform,
    });
    this.#controller = new Controller<T>({
      queue,
      listerWatcher: this.#lw,
      process: (deltas, isInInitialList) =>
        this.#handleDeltas(deltas, isInInitialList),
      fullResyncPeriod: this.#processor.resyncCheckPeriod,
      shouldResync: () => this.#processor.shouldResync(),
      watchErrorHandler: this.#watchErrorHandler,
      watchListPageSize: this.#opts.pageSize,
      useWatchList: this.#opts.useWatchList,
      name: this.#opts.name,
      clock: this.#clock,
    });
    this.#started = true;
    this.#processor.run();
    let mutation: { error: unknown } | undefined;
    const detecting = this.#detector.run(stop).catch((error) => {
      mutation = { error };
      done.abort(); // a mutated cache cannot be trusted: stop (client-go panics)
    });
    try {
      await this.#controller.run(stop);
    } finally {
      this.#stopped = true; // no new handlers from here on
      done.abort();
      await this.#stopProcessor();
      await detecting;
    }
    if (mutation) throw mutation.error;
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

  // client-go HandleDeltas: synchronous, so handler joins never interleave.
  #handleDeltas(deltas: Deltas<T>, isInInitialList: boolean): void {
    void processDeltas(deltas, {
      handler: this.#distributor,
      store: this.#indexer,
      isInInitialList,
    });
  }

  // The informer's own handler: it records objects for the mutation
  // detector and fans out to the listeners; it never returns a promise.
  #distributor: ResourceEventHandler<T> = {
    onAdd: (obj, isInInitialList) => {
      this.#detector.addObject(obj);
      this.#processor.distribute({ type: "add", obj, isInInitialList }, false);
    },
    onUpdate: (oldObj, newObj) => {
      // Same resourceVersion: a resync (or an object unchanged in a
      // relist), only for the handlers due at the latest resync tick.
      const isSync = oldObj.metadata?.resourceVersion ===
        newObj.metadata?.resourceVersion;
      this.#detector.addObject(newObj);
      this.#processor.distribute({ type: "update", oldObj, newObj }, isSync);
    },
    onDelete: (obj: T | DeletedFinalStateUnknown<T>) => {
      this.#processor.distribute({ type: "delete", obj }, false);
    },
  };
}
