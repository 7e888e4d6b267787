/**
 * Internal: the notification fan-out of a shared informer (client-go
 * `shared_informer.go` `sharedProcessor` and `processorListener`), and
 * `processDeltas` from `controller.go`. Not exported from `mod.ts`.
 *
 * Each listener owns a ring buffer and its own async loop, so a slow
 * handler only delays its own notifications: distribution is a synchronous
 * push into every buffer and never waits for a handler. A buffer grows
 * without limit unless its registration set `maxPending`: then, while it
 * holds that many, the informer reads no further watch event
 * ({@link gateWatch}), so the slow handler holds back the watch instead of
 * the process's memory, and no notification is ever dropped.
 *
 * @module
 */

import type { Clock } from "../api/clock.ts";
import type { DeletedFinalStateUnknown } from "./keys.ts";
import type { KubeObject } from "../api/object.ts";
import type { Deltas } from "./delta_fifo.ts";
import type { SyncNotifier } from "./_synced.ts";
import type {
  ErrorHandler,
  InformerErrorContext,
  ResourceEventHandler,
} from "./event_handler.ts";
import { Ring } from "../api/ring.ts";
import type { CallbackResult } from "../api/callback.ts";
import { errorMessage } from "../api/validate.ts";
import { isPermissionDenied } from "./_reflector_state.ts";
import {
  hasNextBatch,
  type ListerWatcher,
  type WatchEvent,
} from "../api/listwatch.ts";

/**
 * A handler as the informer's internals call it, with the cache's objects
 * typed as stored (`T`). {@link ResourceEventHandler} types the same
 * objects `DeepReadonly<T>` for users; a generic `T` is not provably
 * assignable to `DeepReadonly<T>`, so the one cast is here, at the boundary.
 */
export interface ObjectHandler<T> {
  /** See {@link ResourceEventHandler.onAdd}. */
  onAdd?(obj: T, isInInitialList: boolean): CallbackResult;
  /** See {@link ResourceEventHandler.onUpdate}. */
  onUpdate?(oldObj: T, newObj: T): CallbackResult;
  /** See {@link ResourceEventHandler.onDelete}. */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): CallbackResult;
}

/** The user's handler as an {@link ObjectHandler} (the same object). */
export function objectHandler<T>(
  handler: ResourceEventHandler<T>,
): ObjectHandler<T> {
  return handler as unknown as ObjectHandler<T>;
}

/**
 * Whether an update is a sync: the same resourceVersion before and after
 * (a resync, or an object unchanged in a relist). Such an update reaches
 * only the handlers due for a resync at the latest resync tick: none
 * before the first tick, and never one whose resync period is 0.
 * (client-go marks a new handler "syncing" until the first tick, so a
 * relist in that window, or forever with resync 0, sends it every
 * unchanged object as an update; kubecache keeps the documented intent.)
 */
export function isSyncUpdate(
  oldObj: { metadata?: { resourceVersion?: string } },
  newObj: { metadata?: { resourceVersion?: string } },
): boolean {
  return oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion;
}

/** client-go `minimumResyncPeriod`: per-handler resync periods are at least 1 s. */
export const MINIMUM_RESYNC_PERIOD_MS = 1_000;

/**
 * How a listener's buffer holds a notification: three slots, its kind and
 * its one or two objects, so the watch path allocates no notification
 * object per event and listener.
 */
export type Kind = 0 | 1 | 2 | 3;
/** An add (`a`) not from the initial list. */
export const ADD = 0;
/** An add (`a`) from the initial list. */
export const ADD_INITIAL = 1;
/** An update from `a` to `b`. */
export const UPDATE = 2;
/** A delete of `a` (an object or a tombstone). */
export const DELETE = 3;

const KIND_NAMES = ["add", "add", "update", "delete"] as const;

const RESOLVED = Promise.resolve();

/** The default {@link ErrorHandler}: one line on stderr per error. */
export const defaultErrorHandler: ErrorHandler = (error, context) => {
  const what = context.source === "handler"
    ? `event handler failed on ${context.notification}`
    : context.source === "index"
    ? "index function failed (the object is cached, absent from that index)"
    : context.source === "process"
    ? "cannot apply deltas (dropped)"
    : "stopped on a fatal error";
  // A denied permission says all in its message ("Requires net access to
  // ..., run again with the --allow-net flag"): one line, no stack.
  const shown = isPermissionDenied(error) ? errorMessage(error) : error;
  console.error(`${context.informer}: ${what}:`, shown);
};

/** Call `handler`; what it throws is logged, never passed on. */
export function callErrorHandler(
  handler: ErrorHandler,
  error: unknown,
  context: InformerErrorContext,
): void {
  try {
    handler(error, context);
  } catch (handlerError) {
    console.error(`${context.informer}: error handler threw:`, handlerError);
  }
}

/** How a listener reports its handler's failures. */
export type ListenerErrorHandler = (
  error: unknown,
  notification: "add" | "update" | "delete",
) => void;

/**
 * Call the handler method of notification `kind` with `a` (and `b`, the
 * new object of an update). What it throws, or its promise rejects with,
 * goes to `report` and no further: a failing handler loses nothing for
 * the others, nor the rest of a key's deltas. Returns the promise of an
 * async handler, settled once it has (never rejected), so the caller can
 * wait for it before the next call.
 */
export function callHandler<T>(
  handler: ObjectHandler<T>,
  kind: Kind,
  a: T,
  b: T,
  report: ListenerErrorHandler,
): void | Promise<void> {
  let result: CallbackResult;
  try {
    switch (kind) {
      case ADD:
        result = handler.onAdd?.(a, false);
        break;
      case ADD_INITIAL:
        result = handler.onAdd?.(a, true);
        break;
      case UPDATE:
        result = handler.onUpdate?.(a, b);
        break;
      case DELETE:
        result = handler.onDelete?.(a);
        break;
    }
  } catch (error) {
    report(error, KIND_NAMES[kind]);
    return;
  }
  // Only a thenable is waited for; any other return value (e.g. from an
  // arrow function that returns what it pushed) means it ran synchronously.
  if (isPromiseLike(result)) {
    return Promise.resolve(result).then(
      undefined,
      (error) => report(error, KIND_NAMES[kind]),
    );
  }
}

/**
 * Relays notifications to one handler (client-go `processorListener`).
 * `push` only buffers; the listener's own loop awaits each handler call
 * before the next, so calls to one handler never overlap and keep their
 * order. It is also the registration handed back by `addEventHandler`.
 */
export class ProcessorListener<T> {
  readonly handler: ObjectHandler<T>;
  /** The resync period asked for, after the 1 s minimum (ms; 0 = none). */
  requestedResyncPeriod: number;
  /** The period in force: 0 when the informer does no resyncs (ms). */
  resyncPeriod: number;
  /** Earliest time (epoch ms) of this listener's next resync. */
  nextResync = 0;
  /** The registration's name, for health() and metrics. */
  readonly name: string;
  /** Notifications held at most before the watch is held back; 0 = no bound. */
  readonly maxPending: number;
  /** Told when a bounded buffer has dropped below its bound. */
  #roomFreed: (() => void) | undefined;

  /** Notifications as (kind, a, b) triples; see {@link Kind}. */
  #buffer = new Ring<unknown>(48);
  // Initial-list adds queued but not yet handled (client-go synctrack
  // SingleFileTracker): the registration is synced when this is 0.
  #initialPending = 0;
  #upstreamHasSynced: () => boolean;
  #errorHandler: ListenerErrorHandler;
  #syncNotifier: SyncNotifier | undefined;
  #closed = false;
  /** Settles when the delivery loop has ended (made by start). */
  #loop: PromiseWithResolvers<void> | undefined;
  /** A drain is queued as a microtask. */
  #scheduled = false;
  /** A handler's promise is in flight: the drain resumes when it settles. */
  #busy = false;

  constructor(
    handler: ResourceEventHandler<T>,
    opts: {
      requestedResyncPeriod: number;
      resyncPeriod: number;
      now: number;
      hasSynced: () => boolean;
      errorHandler: ListenerErrorHandler;
      /** Told when this listener's hasSynced may have turned true. */
      syncNotifier?: SyncNotifier;
      /** The registration's name. */
      name?: string;
      /** See {@link maxPending}. */
      maxPending?: number;
      /** Told when a bounded buffer drops below its bound. */
      roomFreed?: () => void;
    },
  ) {
    this.handler = objectHandler(handler);
    this.name = opts.name ?? "handler";
    this.maxPending = opts.maxPending ?? 0;
    this.#roomFreed = this.maxPending > 0 ? opts.roomFreed : undefined;
    this.requestedResyncPeriod = opts.requestedResyncPeriod;
    this.resyncPeriod = opts.resyncPeriod;
    this.#upstreamHasSynced = opts.hasSynced;
    this.#errorHandler = opts.errorHandler;
    this.#syncNotifier = opts.syncNotifier;
    opts.syncNotifier?.watch(this.hasSynced);
    this.determineNextResync(opts.now);
  }

  /**
   * The informer has synced and every initial-list add has been handled.
   * Bound, so `waitForCacheSync(signal, registration.hasSynced)` works and
   * wakes as soon as it turns true.
   */
  readonly hasSynced = (): boolean =>
    this.#upstreamHasSynced() && this.#initialPending <= 0;

  /** Number of notifications waiting for the handler. */
  pending(): number {
    return this.#buffer.size / 3;
  }

  /** Whether the buffer is bounded and holds its bound or more. */
  full(): boolean {
    return this.maxPending > 0 && this.#buffer.size >= this.maxPending * 3;
  }

  /** Queue a notification (its kind and objects); never blocks. Ignored once stopped. */
  push(
    kind: Kind,
    a: T | DeletedFinalStateUnknown<T>,
    b: T | undefined,
  ): void {
    if (this.#closed) return;
    if (kind === ADD_INITIAL) this.#initialPending++;
    const buffer = this.#buffer;
    buffer.push(kind);
    buffer.push(a);
    buffer.push(b);
    this.#schedule();
  }

  /** Start the delivery loop (once); resolves when the listener stops. */
  start(): Promise<void> {
    if (this.#loop === undefined) {
      this.#loop = Promise.withResolvers<void>();
      // What was buffered before start is handed over at once, as an
      // async loop's first synchronous run would.
      this.#drain();
    }
    return this.#loop.promise;
  }

  /**
   * Stop: pending notifications are dropped, a handler call in flight
   * finishes. Resolves when the loop has ended.
   */
  stop(): Promise<void> {
    this.#closed = true;
    this.#buffer.clear();
    this.#roomFreed?.();
    this.#schedule();
    return this.#loop?.promise ?? Promise.resolve();
  }

  shouldResync(now: number): boolean {
    return this.resyncPeriod !== 0 && now >= this.nextResync;
  }

  determineNextResync(now: number): void {
    this.nextResync = now + this.resyncPeriod;
  }

  /**
   * Wake the delivery loop: one microtask per burst of notifications (a
   * pre-bound callback, no promise or closure per notification).
   */
  #schedule(): void {
    if (this.#scheduled || this.#busy || this.#loop === undefined) return;
    this.#scheduled = true;
    // Deno's queueMicrotask wraps the callback in a closure; a reaction on
    // a settled promise does not.
    RESOLVED.then(this.#drain);
  }

  /**
   * The delivery loop (client-go `processorListener.run`): hand out
   * buffered notifications in order, one handler call at a time; a call
   * that returns a promise is awaited before the next (sync handlers run
   * back to back). Ends once stopped.
   */
  #drain = (): void => {
    this.#scheduled = false;
    if (this.#busy) return;
    const buffer = this.#buffer;
    while (buffer.size > 0) {
      const kind = buffer.shift() as Kind;
      const a = buffer.shift() as T;
      const b = buffer.shift() as T;
      const pending = callHandler(this.handler, kind, a, b, this.#errorHandler);
      if (pending !== undefined) {
        this.#busy = true;
        pending.then(() => this.#resume(kind));
        return;
      }
      this.#handled(kind);
    }
    if (this.#closed) this.#loop?.resolve();
  };

  /** An awaited handler call settled: count it and go on. */
  #resume(kind: Kind): void {
    this.#busy = false;
    this.#handled(kind);
    this.#drain();
  }

  #handled(kind: Kind): void {
    if (this.#roomFreed !== undefined && !this.full()) this.#roomFreed();
    if (
      kind === ADD_INITIAL &&
      --this.#initialPending === 0 && this.#syncNotifier?.waiting
    ) this.#syncNotifier.notify();
  }
}

/**
 * client-go `determineResyncPeriod`: the period a listener actually gets
 * given what it asked for and the informer's resync check period (ms).
 */
export function determineResyncPeriod(desired: number, check: number): number {
  if (desired === 0) return 0;
  if (check === 0) return 0; // this informer does no resyncs
  return desired < check ? check : desired;
}

/**
 * Fans notifications out to listeners (client-go `sharedProcessor`) and
 * keeps the informer's resync check period and per-listener resync state.
 */
export class SharedProcessor<T> {
  /** How often the Reflector asks {@link shouldResync} (ms; 0 = never). */
  resyncCheckPeriod: number;
  // listener → whether it was due at the latest resync tick. Same-RV
  // updates (a resync, or an object unchanged in a relist) reach only those.
  // A listener starts not due (client-go starts it "syncing", so before the
  // first tick, and forever with no resyncs, a relist's unchanged objects
  // reached every handler as spurious updates; docs/behaviour.md keeps the intent).
  #listeners = new Map<ProcessorListener<T>, boolean>();
  /** The keys of #listeners, for a loop without an iterator per event. */
  #all: ProcessorListener<T>[] = [];
  #loops = new Set<Promise<void>>();
  #started = false;
  #clock: Clock;
  #errorHandler: ListenerErrorHandler;
  /** The listeners with a `maxPending`. */
  #bounded: ProcessorListener<T>[] = [];
  /** Settles when no bounded listener is full; set while the watch waits. */
  #room: PromiseWithResolvers<void> | undefined;
  /** Names given to unnamed registrations: handler-1, handler-2, ... */
  #registrations = 0;

  /** `errorHandler` is told about each failed handler call; it must not throw. */
  constructor(opts: {
    resyncCheckPeriod: number;
    clock: Clock;
    errorHandler: ListenerErrorHandler;
  }) {
    this.resyncCheckPeriod = opts.resyncCheckPeriod;
    this.#clock = opts.clock;
    this.#errorHandler = opts.errorHandler;
  }

  /**
   * Make a listener with client-go's resync rounding
   * (`AddEventHandlerWithResyncPeriod`): at least 1 s; below the check
   * period it is raised to it once started, or lowers the check period (and
   * re-rounds every listener) before start.
   */
  newListener(
    handler: ResourceEventHandler<T>,
    opts: {
      resyncPeriod: number;
      started: boolean;
      hasSynced: () => boolean;
      syncNotifier?: SyncNotifier;
      name?: string;
      maxPending?: number;
    },
  ): ProcessorListener<T> {
    this.#registrations++;
    let requested = opts.resyncPeriod;
    if (requested > 0) {
      requested = Math.max(requested, MINIMUM_RESYNC_PERIOD_MS);
      if (requested < this.resyncCheckPeriod) {
        if (opts.started) {
          requested = this.resyncCheckPeriod;
        } else {
          this.resyncCheckPeriod = requested;
          this.#resyncCheckPeriodChanged();
        }
      }
    }
    return new ProcessorListener(handler, {
      requestedResyncPeriod: requested,
      resyncPeriod: determineResyncPeriod(requested, this.resyncCheckPeriod),
      now: this.#clock.now(),
      hasSynced: opts.hasSynced,
      errorHandler: this.#errorHandler,
      syncNotifier: opts.syncNotifier,
      name: opts.name ?? `handler-${this.#registrations}`,
      maxPending: opts.maxPending,
      roomFreed: this.#roomFreed,
    });
  }

  addListener(listener: ProcessorListener<T>): void {
    this.#listeners.set(listener, false);
    this.#all = [...this.#listeners.keys()];
    this.#bounded = this.#all.filter((l) => l.maxPending > 0);
    if (this.#started) this.#startListener(listener);
  }

  /** Remove and stop a listener; false when it was not registered. */
  removeListener(listener: ProcessorListener<T>): boolean {
    if (!this.#listeners.delete(listener)) return false;
    this.#all = [...this.#listeners.keys()];
    this.#bounded = this.#all.filter((l) => l.maxPending > 0);
    void listener.stop();
    this.#roomFreed();
    return true;
  }

  /**
   * Undefined when every bounded listener has room (the watch reads on);
   * else a promise that settles once all have (or they are removed, or the
   * processor stops). One check per watch event when no registration is
   * bounded: an empty array's length.
   */
  room(): Promise<void> | undefined {
    const bounded = this.#bounded;
    if (bounded.length === 0) return undefined;
    let full = false;
    for (let i = 0; i < bounded.length && !full; i++) full = bounded[i].full();
    if (!full) return undefined;
    this.#room ??= Promise.withResolvers<void>();
    return this.#room.promise;
  }

  /** A bounded listener handled one, or left: wake the watch if all have room. */
  #roomFreed = (): void => {
    const room = this.#room;
    if (room === undefined || this.#bounded.some((l) => l.full())) return;
    this.#room = undefined;
    room.resolve();
  };

  hasListener(listener: unknown): listener is ProcessorListener<T> {
    return this.#listeners.has(listener as ProcessorListener<T>);
  }

  listeners(): ProcessorListener<T>[] {
    return [...this.#listeners.keys()];
  }

  /**
   * Queue a notification for every listener; a sync notification (a
   * same-resourceVersion update) only for listeners that were due at the
   * latest {@link shouldResync} tick: none before the first tick, never one
   * with resync period 0.
   */
  push(
    kind: Kind,
    a: T | DeletedFinalStateUnknown<T>,
    b: T | undefined,
    sync: boolean,
  ): void {
    if (!sync) {
      const all = this.#all;
      for (let i = 0; i < all.length; i++) all[i].push(kind, a, b);
      return;
    }
    for (const [listener, syncing] of this.#listeners) {
      if (syncing) listener.push(kind, a, b);
    }
  }

  /** Start every listener's loop; later listeners start on add. */
  run(): void {
    this.#started = true;
    for (const listener of this.#listeners.keys()) {
      this.#startListener(listener);
    }
  }

  /** Stop every listener and wait for their loops (in-flight calls finish). */
  async stop(): Promise<void> {
    for (const listener of this.#listeners.keys()) void listener.stop();
    this.#listeners.clear();
    this.#all = [];
    this.#bounded = [];
    this.#roomFreed();
    this.#started = false;
    await Promise.all(this.#loops);
  }

  /**
   * client-go `sharedProcessor.shouldResync`: marks which listeners are due
   * now (scheduling their next resync) and says whether any is.
   */
  shouldResync(): boolean {
    const now = this.#clock.now();
    let needed = false;
    for (const listener of this.#listeners.keys()) {
      const due = listener.shouldResync(now);
      this.#listeners.set(listener, due);
      if (due) {
        needed = true;
        listener.determineNextResync(now);
      }
    }
    return needed;
  }

  #resyncCheckPeriodChanged(): void {
    for (const listener of this.#listeners.keys()) {
      listener.resyncPeriod = determineResyncPeriod(
        listener.requestedResyncPeriod,
        this.resyncCheckPeriod,
      );
    }
  }

  #startListener(listener: ProcessorListener<T>): void {
    // Removed listeners stay tracked until their loop ends, so stop()
    // also waits for a handler call still in flight there.
    const loop = listener.start();
    if (this.#loops.has(loop)) return;
    this.#loops.add(loop);
    loop.finally(() => this.#loops.delete(loop));
  }
}

/**
 * `lw` with its watches held back while `room` says to wait: each next
 * event (or batch of events, for a decoder that hands over a read's worth
 * at once) is asked for only once `room()` is undefined or its promise has
 * settled, so a full handler buffer stops the reads of the watch (and, its
 * socket unread, the server's writes) instead of growing. When `room()` is
 * undefined the event is asked for at once, with no extra promise.
 */
export function gateWatch<T extends KubeObject>(
  lw: ListerWatcher<T>,
  room: () => Promise<void> | undefined,
): ListerWatcher<T> {
  return {
    description: lw.description,
    expectedType: lw.expectedType,
    list: (opts, signal) => lw.list(opts, signal),
    watch: async (opts, signal) => {
      const events = await lw.watch(opts, signal);
      return {
        [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
          const it = events[Symbol.asyncIterator]();
          const gated = <R>(read: () => Promise<R>) => (): Promise<R> => {
            const wait = room();
            return wait === undefined
              ? read()
              : untilAborted(wait, signal).then(read);
          };
          const out: AsyncIterator<WatchEvent<T>> & {
            nextBatch?: () => Promise<IteratorResult<WatchEvent<T>[]>>;
          } = {
            next: gated(() => it.next()),
            return: (value?: unknown) =>
              it.return?.(value) ??
                Promise.resolve({ done: true as const, value: undefined }),
            throw: (err?: unknown) => it.throw?.(err) ?? Promise.reject(err),
          };
          // A decoder's batches (every event of a read) stay batches: the
          // Reflector's fast path; the gate then holds back per read.
          if (hasNextBatch(it)) out.nextBatch = gated(() => it.nextBatch());
          return out;
        },
      };
    },
  };
}

/**
 * `wait`, or sooner once `signal` aborts: a watch held back must still end
 * when the Reflector stops it (the next read then rejects at once).
 */
function untilAborted(
  wait: Promise<void>,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (signal === undefined) return wait;
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => resolve();
    signal.addEventListener("abort", onAbort, { once: true });
    wait.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

/** Whether a handler's return value is something to await. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then ===
    "function";
}

/**
 * What {@link processDeltas} writes to: a store addressed by key, so each
 * delta's key is computed once (the `Cache` behind newStore/newIndexer).
 */
export interface DeltaStore<T> {
  /** The store's key of an object or tombstone. */
  keyOf(obj: T | DeletedFinalStateUnknown<T>): string;
  getByKey(key: string): T | undefined;
  /** Add or update the object under its key. */
  updateByKey(key: string, obj: T): void;
  deleteByKey(key: string): void;
}

/** Where {@link processDeltas} applies deltas and whom it tells. */
export interface ProcessDeltasOptions<T> {
  handler: ObjectHandler<T>;
  store: DeltaStore<T>;
  /** Passed on to `onAdd`. */
  isInInitialList: boolean;
  /**
   * The key of every delta's object in `store`, when the caller knows it
   * (the queue's key under the same key function), so it is not computed
   * again per delta.
   */
  key?: string;
}

/**
 * client-go `processDeltas`: apply one key's deltas, oldest first, to the
 * store and tell the handler. Sync, Replaced, Added and Updated become an
 * update when the key is stored, else an add (with `isInInitialList`);
 * Deleted deletes and reports the object or its tombstone. A handler that
 * returns a promise is awaited before the next delta.
 */
export function processDeltas<T extends KubeObject>(
  deltas: Deltas<T>,
  opts: ProcessDeltasOptions<T>,
): void | Promise<void> {
  return applyDeltas(deltas, 0, opts);
}

/** Apply `deltas` from index `start` on; continues after an async handler. */
function applyDeltas<T extends KubeObject>(
  deltas: Deltas<T>,
  start: number,
  opts: ProcessDeltasOptions<T>,
): void | Promise<void> {
  for (let i = start; i < deltas.length; i++) {
    const result = applyDelta(deltas[i], opts);
    if (isPromiseLike(result)) {
      return Promise.resolve(result).then(() =>
        applyDeltas(deltas, i + 1, opts)
      );
    }
  }
}

function applyDelta<T extends KubeObject>(
  delta: Deltas<T>[number],
  opts: ProcessDeltasOptions<T>,
): CallbackResult {
  const { handler, store } = opts;
  const key = opts.key ?? store.keyOf(delta.object);
  if (delta.type === "Deleted") {
    store.deleteByKey(key);
    return handler.onDelete?.(delta.object);
  }
  const obj = delta.object as T;
  const old = store.getByKey(key);
  store.updateByKey(key, obj);
  return old === undefined
    ? handler.onAdd?.(obj, opts.isInInitialList)
    : handler.onUpdate?.(old, obj);
}
