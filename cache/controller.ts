/**
 * The low-level controller of client-go `tools/cache/controller.go`: a
 * Reflector fills a DeltaFIFO from a ListerWatcher while a loop pops each
 * key's deltas and processes them. {@link newInformer} and
 * {@link newIndexerInformer} build one that keeps a store up to date and
 * calls a {@link ResourceEventHandler}; shared informers build on it too.
 *
 * @module
 */

import {
  checkClock,
  checkDuration,
  checkFunction,
  checkHandler,
  checkIndexers,
  checkListerWatcher,
  checkMethods,
  checkOptions,
  show,
} from "./_validate.ts";
import { type Clock, realClock } from "../api/clock.ts";
import {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
} from "./keys.ts";
import type { ListerWatcher } from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import type { DeepReadonly } from "../api/readonly.ts";
import { DeltaFIFO, type Deltas } from "./delta_fifo.ts";
import type { PopProcessFunc } from "./fifo.ts";
import type { Indexers } from "./index.ts";
import type { Indexer, Store } from "./store.ts";
import { Cache } from "./_cache.ts";
import {
  Reflector,
  type ReflectorHealth,
  type ReflectorStatusListener,
  type WatchErrorHandler,
} from "./reflector.ts";
import {
  ADD,
  ADD_INITIAL,
  callErrorHandler,
  callHandler,
  defaultErrorHandler,
  DELETE,
  isSyncUpdate,
  type ObjectHandler,
  objectHandler,
  processDeltas,
  UPDATE,
} from "./_processor.ts";
import type {
  ErrorHandler,
  InformerErrorContext,
  ResourceEventHandler,
} from "./event_handler.ts";
import type { CallbackResult } from "../api/callback.ts";

/**
 * A handler that forwards only objects passing `filter` (client-go
 * `cache.FilteringResourceEventHandler`). An update whose object starts
 * passing becomes an add (with `isInInitialList` false), one whose object
 * stops passing becomes a delete of the old object. A tombstone is judged
 * by the last known object it carries (and forwarded when it has none).
 *
 * @typeParam T the object type
 *
 * @example
 * ```ts
 * import {
 *   FilteringResourceEventHandler,
 *   type KubeObject,
 * } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const seen: string[] = [];
 * const h = new FilteringResourceEventHandler<KubeObject>(
 *   (o) => o.metadata.labels?.app === "web",
 *   { onAdd: (o) => void seen.push(`add ${o.metadata.name}`), onDelete: () => void seen.push("delete") },
 * );
 * h.onAdd({ metadata: { name: "a", labels: { app: "web" } } }, true);
 * h.onAdd({ metadata: { name: "b" } }, true);
 * h.onUpdate({ metadata: { name: "a", labels: { app: "web" } } }, { metadata: { name: "a" } });
 * assert.deepEqual(seen, ["add a", "delete"]);
 * ```
 */
export class FilteringResourceEventHandler<T extends KubeObject>
  implements ResourceEventHandler<T> {
  #filter: (obj: DeepReadonly<T>) => boolean;
  #handler: ResourceEventHandler<T>;

  /**
   * Wrap a handler.
   * @param filter which objects the handler hears about; must not modify them
   * @param handler the handler to forward to
   * @throws {TypeError} when `filter` is not a function or `handler` not an object
   */
  constructor(
    filter: (obj: DeepReadonly<T>) => boolean,
    handler: ResourceEventHandler<T>,
  ) {
    checkFunction("new FilteringResourceEventHandler", "filter", filter);
    checkHandler("new FilteringResourceEventHandler", "handler", handler);
    this.#filter = filter;
    this.#handler = handler;
  }

  /** Forward the add when the object passes the filter. */
  onAdd(obj: DeepReadonly<T>, isInInitialList: boolean): CallbackResult {
    if (this.#filter(obj)) return this.#handler.onAdd?.(obj, isInInitialList);
  }

  /** Forward as update, add or delete depending on which side passes. */
  onUpdate(
    oldObj: DeepReadonly<T>,
    newObj: DeepReadonly<T>,
  ): CallbackResult {
    const newer = this.#filter(newObj);
    const older = this.#filter(oldObj);
    if (newer && older) return this.#handler.onUpdate?.(oldObj, newObj);
    if (newer) return this.#handler.onAdd?.(newObj, false);
    if (older) return this.#handler.onDelete?.(oldObj);
  }

  /** Forward the delete when the object passes the filter. */
  onDelete(
    obj: DeepReadonly<T> | DeletedFinalStateUnknown<DeepReadonly<T>>,
  ): CallbackResult {
    const last = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    if (last === undefined || this.#filter(last)) {
      return this.#handler.onDelete?.(obj);
    }
  }
}

/**
 * Everything a {@link Controller} needs (client-go `cache.Config`).
 *
 * @typeParam T the object type
 *
 * @example The parts of a Controller
 * ```ts
 * import { type ControllerConfig, DeltaFIFO, type KubeObject, metaNamespaceKeyFunc } from "@kubecache/core";
 * import { FakeClock, FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const config: ControllerConfig<KubeObject> = {
 *   queue: new DeltaFIFO({ keyFunction: metaNamespaceKeyFunc }),
 *   listerWatcher: new FakeControllerSource(),
 *   process: () => {},
 *   fullResyncPeriod: 0,
 *   clock: new FakeClock(),
 *   name: "configmaps",
 * };
 * assert.equal(config.name, "configmaps");
 * ```
 */
export interface ControllerConfig<T extends KubeObject> {
  /** The queue the Reflector fills and the controller pops: a DeltaFIFO. */
  queue: DeltaFIFO<T>;
  /** Where objects come from. */
  listerWatcher: ListerWatcher<T>;
  /**
   * Handles one popped key's deltas. An error it throws is reported to
   * `errorHandler` (source `"process"`) and the item is dropped (client-go
   * `RetryOnError` false); a promise it returns is awaited before the next
   * pop.
   */
  process: PopProcessFunc<Deltas<T>>;
  /** How often the Reflector considers a resync (ms). Default 0: never. */
  fullResyncPeriod?: number;
  /** Asked at each resync period; the queue is resynced when it says true. */
  shouldResync?: () => boolean;
  /** Called once per failed list or watch, before backing off. */
  watchErrorHandler?: WatchErrorHandler;
  /**
   * Page size of the Reflector's lists (client-go `WatchListPageSize`; the
   * same `pageSize` as the Reflector's, the informers' and the factory's).
   */
  pageSize?: number;
  /** Told about the Reflector's status changes (failures, recoveries); see `ReflectorOptions.onStatus`. */
  onStatus?: ReflectorStatusListener;
  /** Stream the initial state with a watch-list request. Default false. */
  useWatchList?: boolean;
  /** Name of the Reflector, for logs and health. */
  name?: string;
  /** Clock for every timer. Default: the real clock. */
  clock?: Clock;
  /** Receives errors thrown by `process`. Default: `console.error`. */
  errorHandler?: ErrorHandler;
}

/**
 * The low-level controller (client-go `cache.Controller`): `run` starts a
 * Reflector feeding `config.queue` and pops it into `config.process` until
 * the signal aborts.
 *
 * @typeParam T the object type
 *
 * @example A Reflector feeding a DeltaFIFO you pop yourself
 * ```ts
 * import { Controller, DeltaFIFO, type Deltas, type KubeObject, metaNamespaceKeyFunc } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const source = new FakeControllerSource();
 * source.add({ metadata: { namespace: "default", name: "web-1" } });
 * const popped = Promise.withResolvers<Deltas<KubeObject>>();
 * const controller = new Controller<KubeObject>({
 *   queue: new DeltaFIFO({ keyFunction: metaNamespaceKeyFunc }),
 *   listerWatcher: source,
 *   process: (deltas) => popped.resolve(deltas),
 * });
 * const stop = new AbortController();
 * const running = controller.run(stop.signal);
 * const deltas = await popped.promise;
 * assert.equal(deltas[0].type, "Sync"); // the initial list, without emitDeltaTypeReplaced
 * assert.equal(controller.hasSynced(), true);
 * stop.abort();
 * await running;
 * ```
 */
export class Controller<T extends KubeObject> {
  #config: ControllerConfig<T>;
  #reflector: Reflector<T> | undefined;
  #running: Promise<void> | undefined;

  /**
   * Make a controller; nothing happens until {@link Controller.run}.
   * @param config queue, source, process function and timing options
   * @throws {TypeError} when `config` or one of its fields has the wrong type
   * @throws {RangeError} when `config.fullResyncPeriod` is negative
   */
  constructor(config: ControllerConfig<T>) {
    const call = "new Controller";
    if (typeof config !== "object" || config === null) {
      throw new TypeError(
        `${call}: config must be a ControllerConfig object, got ${
          show(config)
        }`,
      );
    }
    checkMethods(call, "config.queue", config.queue, "a DeltaFIFO", [
      "pop",
      "close",
    ]);
    checkMethods(
      call,
      "config.listerWatcher",
      config.listerWatcher,
      "a ListerWatcher",
      ["list", "watch"],
    );
    checkFunction(call, "config.process", config.process);
    checkDuration(call, "config.fullResyncPeriod", config.fullResyncPeriod);
    checkClock(call, "config.clock", config.clock);
    this.#config = config;
  }

  /**
   * Run the Reflector and the process loop until `signal` aborts; resolves
   * once both have stopped. The queue is closed on abort. Calling `run`
   * again returns the same promise: there is never a second loop.
   *
   * @param signal stops the controller
   * @returns a promise settling when everything has stopped
   * @throws {TypeError} (rejection) when `signal` is not an AbortSignal
   */
  run(signal: AbortSignal): Promise<void> {
    if (!(signal instanceof AbortSignal)) {
      return Promise.reject(
        new TypeError(
          `Controller.run: signal must be an AbortSignal, got ${show(signal)}`,
        ),
      );
    }
    this.#running ??= this.#run(signal);
    return this.#running;
  }

  /** Whether the queue has delivered the first full list (client-go `HasSynced`). */
  hasSynced(): boolean {
    return this.#config.queue.hasSynced();
  }

  /** The resourceVersion of the last list or watch event; `""` before run. */
  lastSyncResourceVersion(): string {
    return this.#reflector?.lastSyncResourceVersion() ?? "";
  }

  /** The Reflector's health; `undefined` before {@link Controller.run}. */
  health(): ReflectorHealth | undefined {
    return this.#reflector?.health();
  }

  async #run(signal: AbortSignal): Promise<void> {
    const { queue } = this.#config;
    const close = () => queue.close();
    signal.addEventListener("abort", close, { once: true });
    const reflector = new Reflector<T>(this.#config.listerWatcher, queue, {
      name: this.#config.name,
      resyncPeriod: this.#config.fullResyncPeriod,
      shouldResync: this.#config.shouldResync,
      pageSize: this.#config.pageSize,
      clock: this.#config.clock ?? realClock,
      watchErrorHandler: this.#config.watchErrorHandler,
      onStatus: this.#config.onStatus,
      useWatchList: this.#config.useWatchList,
    });
    this.#reflector = reflector;
    let failure: { error: unknown } | undefined;
    const reflecting = reflector.run(signal).catch((error) => {
      failure = { error };
      queue.close(); // a dead Reflector must not leave pop() waiting forever
    });
    try {
      if (signal.aborted) queue.close();
      await this.#processLoop(signal);
    } finally {
      signal.removeEventListener("abort", close);
      queue.close();
      await reflecting;
    }
    if (failure) throw failure.error;
  }

  // client-go processLoop: pop until the queue is closed.
  #processLoop(signal: AbortSignal): Promise<void> {
    const { queue, process } = this.#config;
    const handler = this.#config.errorHandler ?? defaultErrorHandler;
    const context: InformerErrorContext = {
      informer: this.#config.name ?? "controller",
      source: "process",
    };
    return queue.popEach(process, {
      signal,
      errorHandler: (error) => callErrorHandler(handler, error, context),
    });
  }
}

/**
 * Options of {@link newInformer} and {@link newIndexerInformer}.
 *
 * @example Options of newInformer
 * ```ts
 * import { type InformerOptions, type KubeObject, newInformer, stripManagedFields } from "@kubecache/core";
 * import { FakeClock, FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const opts: InformerOptions<KubeObject> = { resyncPeriod: 0, transform: stripManagedFields, clock: new FakeClock(), name: "pods" };
 * const { store } = newInformer(new FakeControllerSource(), {}, opts);
 * assert.deepEqual(store.list(), []); // filled once the controller runs
 * ```
 */
export interface InformerOptions<T extends KubeObject> {
  /**
   * Resync period (ms): every period each cached object is delivered again
   * as an update. Default 0: never.
   */
  resyncPeriod?: number;
  /** Called on each object before it is stored and handed to the handler. */
  transform?: (obj: T) => T;
  /** Clock for every timer. Default: the real clock. */
  clock?: Clock;
  /** Page size of the Reflector's lists. */
  pageSize?: number;
  /** Called once per failed list or watch. */
  watchErrorHandler?: WatchErrorHandler;
  /**
   * Receives the errors of the handler, of index functions and of applying
   * deltas (see {@link ErrorHandler}). Default: `console.error`.
   */
  errorHandler?: ErrorHandler;
  /** Name, for logs and error reports. Default `"informer"`. */
  name?: string;
}

/**
 * A store kept in sync with a ListerWatcher, notifying one handler
 * (client-go `cache.NewInformer`). Read from the returned store only:
 * writing to it makes the notifications wrong. The handler is called in
 * order, one notification at a time; a throwing handler is reported and
 * the next notification still arrives.
 *
 * Returns `{ store, controller }` (Go's two results, named): run the
 * controller with a signal to start.
 *
 * @typeParam T the object type
 * @param lw where objects come from
 * @param handler what to tell about changes
 * @param opts resync period, transform, clock
 * @returns the store and the controller that fills it
 * @throws {TypeError} when `lw` is not a ListerWatcher, `handler` not an
 *   object or an option has the wrong type
 * @throws {RangeError} when `opts.resyncPeriod` is negative
 *
 * @example
 * ```ts
 * import { newInformer } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 * const source = new FakeControllerSource();
 * source.add({ metadata: { namespace: "default", name: "web-1" } });
 * const added = Promise.withResolvers<boolean>();
 * const { store, controller } = newInformer(source, {
 *   onAdd: (_pod, isInInitialList) => added.resolve(isInInitialList),
 * });
 * const ac = new AbortController();
 * const running = controller.run(ac.signal);
 * assert.equal(await added.promise, true);
 * assert.deepEqual(store.listKeys(), ["default/web-1"]);
 * ac.abort();
 * await running;
 * ```
 */
export function newInformer<T extends KubeObject>(
  lw: ListerWatcher<T>,
  handler: ResourceEventHandler<T>,
  opts: InformerOptions<T> = {},
): { store: Store<T>; controller: Controller<T> } {
  checkInformerArgs("newInformer", lw, handler, opts);
  const store = new Cache<T>(deletionHandlingMetaNamespaceKeyFunc, {});
  return { store, controller: informerController(lw, handler, store, opts) };
}

/**
 * Like {@link newInformer}, with an Indexer (client-go
 * `cache.NewIndexerInformer`).
 *
 * @typeParam T the object type
 * @param lw where objects come from
 * @param handler what to tell about changes
 * @param opts indexers, resync period, transform, clock
 * @returns the indexer and the controller that fills it
 * @throws {TypeError} when `lw` is not a ListerWatcher, `handler` not an
 *   object or an option has the wrong type
 * @throws {RangeError} when `opts.resyncPeriod` is negative
 *
 * @example An informer with an index, without the shared machinery
 * ```ts
 * import { newIndexerInformer } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * type Pod = { metadata: { namespace: string; name: string }; spec: { nodeName: string } };
 * const source = new FakeControllerSource<Pod>();
 * source.add({ metadata: { namespace: "default", name: "web-1" }, spec: { nodeName: "node-a" } });
 * const synced = Promise.withResolvers<void>();
 * const { indexer, controller } = newIndexerInformer<Pod>(
 *   source,
 *   { onAdd: () => synced.resolve() },
 *   { indexers: { byNode: (pod) => [pod.spec.nodeName] } },
 * );
 * const stop = new AbortController();
 * const running = controller.run(stop.signal);
 * await synced.promise;
 * assert.deepEqual(indexer.byIndex("byNode", "node-a").map((p) => p.metadata.name), ["web-1"]);
 * stop.abort();
 * await running;
 * ```
 */
export function newIndexerInformer<T extends KubeObject>(
  lw: ListerWatcher<T>,
  handler: ResourceEventHandler<T>,
  opts: InformerOptions<T> & { indexers?: Indexers<T> } = {},
): { indexer: Indexer<T>; controller: Controller<T> } {
  checkInformerArgs("newIndexerInformer", lw, handler, opts);
  checkIndexers("newIndexerInformer", "opts.indexers", opts.indexers);
  const errorHandler = opts.errorHandler ?? defaultErrorHandler;
  const context: InformerErrorContext = {
    informer: opts.name ?? "informer",
    source: "index",
  };
  const indexer = new Cache<T>(
    deletionHandlingMetaNamespaceKeyFunc,
    opts.indexers ?? {},
    { errorHandler: (e) => callErrorHandler(errorHandler, e, context) },
  );
  return {
    indexer,
    controller: informerController(lw, handler, indexer, opts),
  };
}

/** The checks of {@link newInformer} and {@link newIndexerInformer}. */
function checkInformerArgs(
  call: string,
  lw: unknown,
  handler: unknown,
  opts: unknown,
): void {
  checkListerWatcher(call, "lw", lw);
  checkHandler(call, "handler", handler);
  checkOptions(call, "opts", opts);
  const o = (opts ?? {}) as Record<string, unknown>;
  checkDuration(call, "opts.resyncPeriod", o.resyncPeriod);
  checkClock(call, "opts.clock", o.clock);
}

function informerController<T extends KubeObject>(
  lw: ListerWatcher<T>,
  handler: ResourceEventHandler<T>,
  store: Cache<T>,
  opts: InformerOptions<T>,
): Controller<T> {
  // The one handler is due at every resync tick, so a sync update
  // (isSyncUpdate) reaches it once a tick has happened: never with resync 0
  // (client-go's NewInformer sends a relist's unchanged objects always).
  let ticked = false;
  const name = opts.name ?? "informer";
  const errorHandler = opts.errorHandler ?? defaultErrorHandler;
  const safe = reportingHandler(
    handler,
    (error, notification) =>
      callErrorHandler(errorHandler, error, {
        informer: name,
        source: "handler",
        notification,
      }),
    () => ticked,
  );
  // The store is the queue's knownObjects, so resyncs and relists produce
  // the right Sync and Deleted deltas.
  const queue = new DeltaFIFO<T>({
    knownObjects: store,
    emitDeltaTypeReplaced: true,
    transformer: opts.transform,
  });
  return new Controller<T>({
    queue,
    listerWatcher: lw,
    fullResyncPeriod: opts.resyncPeriod,
    shouldResync: () => ticked = true,
    clock: opts.clock,
    pageSize: opts.pageSize,
    watchErrorHandler: opts.watchErrorHandler,
    errorHandler,
    name: opts.name,
    process: (deltas, isInInitialList) =>
      processDeltas(deltas, { handler: safe, store, isInInitialList }),
  });
}

// A handler error must not abort the rest of a key's deltas (the store
// would miss them): callHandler reports it and goes on.
function reportingHandler<T extends KubeObject>(
  userHandler: ResourceEventHandler<T>,
  report: (error: unknown, notification: "add" | "update" | "delete") => void,
  resynced: () => boolean,
): ObjectHandler<T> {
  const handler = objectHandler(userHandler);
  return {
    onAdd: (obj, initial) =>
      callHandler(handler, initial ? ADD_INITIAL : ADD, obj, obj, report),
    onUpdate: (o, n) => {
      if (isSyncUpdate(o, n) && !resynced()) return;
      return callHandler(handler, UPDATE, o, n, report);
    },
    onDelete: (obj) => callHandler(handler, DELETE, obj as T, obj as T, report),
  };
}
