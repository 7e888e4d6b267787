/**
 * The watch side of the Reflector: opening a watch, consuming it (applying
 * each event to the store and moving the resume RV of the `Watching` state
 * or of a watch-list's scratch target, as client-go `handleAnyWatch`), the
 * liveness watchdog, racing `next()` against an abort, the watch-list's
 * scratch store and the resync timer. It takes no decision of the cycle:
 * how a watch ended goes back to `reflector.ts` as a `WatchOutcome`, for
 * the state machine (`_reflector_state.ts`). The list side is in
 * `_reflector_list.ts`. Internal module; `reflector.ts` uses it.
 *
 * @module
 */

import { StatusError } from "../api/errors.ts";
import { VERY_SHORT_WATCH_MS } from "./_reflector_state.ts";
import type { StatusReporter } from "./reflector_status.ts";
import type { ExpectedType } from "../api/listwatch.ts";
import type { ReflectorStore } from "./store.ts";
import type { Clock } from "../api/clock.ts";
import { metaNamespaceKeyFunc } from "./keys.ts";
import {
  hasNextBatch,
  type ListerWatcher,
  type ListOptions,
  type WatchEvent,
} from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";

/** Watches time out after a random duration in [this, 2·this) seconds (client-go `defaultMinWatchTimeout`). */
const MIN_WATCH_TIMEOUT_S = 300;
/** A watch silent this long past its `timeoutSeconds` is presumed dead. */
export const WATCHDOG_MARGIN_MS = 60_000;
/** A watch-list silent this long before its end bookmark falls back to list. */
export const WATCH_LIST_END_WAIT_MS = 10_000;
/** Annotation of the BOOKMARK that ends a watch-list's initial events. */
export const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

/** An open watch and what the Reflector tracks about it. */
export interface OpenWatch<T> {
  iterator: AsyncIterator<WatchEvent<T>>;
  /** Aborting it cancels the request and the body. */
  controller: AbortController;
  timeoutMs: number;
  openedAt: number;
  lastActivity: number;
  /** Set when the watchdog abandoned the watch. */
  stalled: boolean;
  /** Events of a taken batch not applied yet (after a watch-list's end bookmark). */
  rest?: WatchEvent<T>[];
}

/** Open a watch with bookmarks and a timeout jittered over [5, 10) min, as client-go does. */
export async function openWatch<T extends KubeObject>(
  lw: ListerWatcher<T>,
  clock: Clock,
  extra: ListOptions,
  signal: AbortSignal,
): Promise<OpenWatch<T>> {
  const timeoutSeconds = Math.floor(MIN_WATCH_TIMEOUT_S * (1 + Math.random()));
  const controller = new AbortController();
  // Start the clock before the request: some proxies hold headers until the first event.
  const openedAt = clock.now();
  const iterable = await lw.watch({
    ...extra,
    allowWatchBookmarks: true,
    timeoutSeconds,
  }, AbortSignal.any([signal, controller.signal]));
  return {
    iterator: iterable[Symbol.asyncIterator](),
    controller,
    timeoutMs: timeoutSeconds * 1000,
    openedAt,
    lastActivity: openedAt,
    stalled: false,
  };
}

/** Abandon `w` (abort its request) once it has been silent for `limitMs`. */
export async function watchdog<T>(
  w: OpenWatch<T>,
  limitMs: number,
  clock: Clock,
  done: AbortSignal,
  name: string,
): Promise<void> {
  while (!done.aborted) {
    const due = w.lastActivity + limitMs;
    const now = clock.now();
    if (now >= due) {
      w.stalled = true;
      w.controller.abort(new Error(`${name}: watch went silent`));
      return;
    }
    try {
      await clock.sleep(due - now, done);
    } catch {
      return;
    }
  }
}

/** Cancel a watch's request and release its iterator; returns undefined. */
export function closeWatch<T>(w: OpenWatch<T> | undefined): undefined {
  if (!w) return undefined;
  w.controller.abort();
  // Not awaited: a generator's return() waits for a pending next().
  Promise.resolve(w.iterator.return?.()).catch(() => {});
  return undefined;
}

/**
 * Races each `next()` of an iterator against one abort signal, with a single
 * abort listener for the iterator's whole life (adding and removing a
 * listener per event cost ~14% of the watch path's CPU). A `next()` resolves
 * `undefined` once the signal aborts, even if the iterator ignores it.
 */
export class AbortableNext<R> {
  #settle: ((r: IteratorResult<R> | undefined) => void) | undefined;
  #onAbort = () => this.#settle?.(undefined);

  constructor(
    readonly iterator: AsyncIterator<R>,
    readonly signal: AbortSignal,
  ) {
    signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  next(): Promise<IteratorResult<R> | undefined> {
    if (this.signal.aborted) return Promise.resolve(undefined);
    return new Promise(this.#start);
  }

  // Pre-bound: no closure per next().
  #start = (
    resolve: (r: IteratorResult<R> | undefined) => void,
    reject: (err: unknown) => void,
  ): void => {
    this.#settle = resolve;
    this.iterator.next().then(resolve, reject);
  };

  [Symbol.dispose](): void {
    this.signal.removeEventListener("abort", this.#onAbort);
    this.#settle = undefined;
  }
}

// ---- consuming a watch ------------------------------------------------------

/** Where a consumed watch moves the resume RV: the `Watching` state, or a watch-list's scratch. */
export interface RVTarget {
  rv: string;
  /** Initial ADDEDs of a watch from "" / "0" do not move `rv` (client-go `propagateRVFromStart`). */
  holdRV: boolean;
}

/** How one pass over a watch ended. */
export interface WatchOutcome {
  /**
   * `clean`: the stream ended (or the signal aborted); `broken`: the
   * iterator rejected; `stalled`: the watchdog abandoned it; `error`: an
   * ERROR event; `initialEnd`: a watch-list's end-of-initial-events bookmark
   * arrived (the watch stays open).
   */
  end: "clean" | "broken" | "stalled" | "error" | "initialEnd";
  /** Events applied (an ERROR event not counted). */
  events: number;
  /** An ERROR event's Status, or the iterator's rejection. */
  error?: unknown;
}

/** What {@link consumeWatch} needs from its Reflector. */
export interface WatchHost {
  readonly name: string;
  readonly clock: Clock;
  readonly expected: ExpectedType | undefined;
  /** Counts and tells the objects skipped for an unexpected apiVersion/kind. */
  readonly status: StatusReporter;
  /** Whether an outage is in progress (failures not yet followed by a success). */
  readonly failing: boolean;
  /**
   * During an outage, the watch proved the server healthy (its first
   * event, or with `confirmRecovery` a second without failing): told at
   * most once per pass, so the Reflector's state machine ends the outage.
   */
  healthy(): void;
  /** Events arrived at `at` (epoch ms): the Reflector's `health().lastEventAt`. */
  eventsArrived(at: number): void;
  /** A store call threw: client-go logs it and keeps watching. */
  report(err: unknown): void;
}

/** Options of one {@link consumeWatch} pass. */
export interface ConsumeOptions {
  /** Abandon the watch once it has been silent this long (ms). */
  silenceLimitMs: number;
  /** Watch-list: end the pass at the end-of-initial-events bookmark. */
  stopAtInitialEnd?: boolean;
  /**
   * During an outage, a watch that stays up for a second without an event
   * proves the server healthy too.
   */
  confirmRecovery?: boolean;
}

/** What one pass over a watch carries from event to event. */
interface ConsumeContext<T extends KubeObject> {
  host: WatchHost;
  store: ReflectorStore<T>;
  target: RVTarget;
  stopAtInitialEnd: boolean;
  /** Events applied so far (an ERROR event not counted). */
  events: number;
  /** {@link WatchHost.healthy} is still to be told. */
  unconfirmed: boolean;
}

/**
 * client-go `handleAnyWatch`: apply events to `store` until the stream
 * ends, fails, goes silent past `silenceLimitMs`, or (watch-list) the
 * end-of-initial-events bookmark arrives. Moves `target.rv` per event.
 */
export async function consumeWatch<T extends KubeObject>(
  host: WatchHost,
  w: OpenWatch<T>,
  store: ReflectorStore<T>,
  signal: AbortSignal,
  target: RVTarget,
  opts: ConsumeOptions,
): Promise<WatchOutcome> {
  const clock = host.clock;
  const done = new AbortController();
  const stop = AbortSignal.any([signal, w.controller.signal]);
  w.lastActivity = clock.now();
  const dog = watchdog(w, opts.silenceLimitMs, clock, done.signal, host.name);
  const c: ConsumeContext<T> = {
    host,
    store,
    target,
    stopAtInitialEnd: opts.stopAtInitialEnd === true,
    events: 0,
    unconfirmed: host.failing,
  };
  const confirm = c.unconfirmed && opts.confirmRecovery
    ? confirmRecovery(c, done.signal)
    : undefined;
  const it = w.iterator;
  // A decoder that hands over a whole chunk costs one promise per chunk
  // instead of one per event; its events are applied synchronously with
  // the same per-event rules (handleEvent).
  using batches = hasNextBatch(it)
    ? new AbortableNext({ next: () => it.nextBatch() }, stop)
    : undefined;
  using single = batches ? undefined : new AbortableNext(it, stop);
  // Events a watch-list's pass left after its end bookmark come first.
  let evs = w.rest;
  w.rest = undefined;
  try {
    for (;;) {
      if (evs === undefined) {
        let r: IteratorResult<WatchEvent<T> | WatchEvent<T>[]> | undefined;
        try {
          r = await (batches ?? single!).next();
        } catch (error) {
          if (stop.aborted) r = undefined;
          else return { end: "broken", events: c.events, error };
        }
        if (r === undefined) {
          return { end: w.stalled ? "stalled" : "clean", events: c.events };
        }
        if (r.done) return { end: "clean", events: c.events };
        if (single !== undefined) {
          arrived(host, w);
          const out = handleEvent(r.value as WatchEvent<T>, c);
          if (out !== undefined) return out;
          continue;
        }
        evs = r.value as WatchEvent<T>[];
      }
      if (evs.length > 0) arrived(host, w);
      for (let i = 0; i < evs.length; i++) {
        // A store or error handler may abort synchronously: stop where
        // the per-event path's next() would, keeping the rest.
        if (stop.aborted) {
          w.rest = evs.slice(i);
          return { end: w.stalled ? "stalled" : "clean", events: c.events };
        }
        const out = handleEvent(evs[i], c);
        if (out !== undefined) {
          // The watch-list's watch goes on: its next pass starts here.
          if (out.end === "initialEnd" && i + 1 < evs.length) {
            w.rest = evs.slice(i + 1);
          }
          return out;
        }
      }
      evs = undefined;
    }
  } finally {
    done.abort();
    await dog;
    await confirm;
  }
}

/** Events arrived (once per chunk): the watchdog's and health's clock reading. */
function arrived<T>(host: WatchHost, w: OpenWatch<T>): void {
  const now = host.clock.now();
  w.lastActivity = now;
  host.eventsArrived(now);
}

/**
 * One watch event (client-go `handleAnyWatch`'s loop body): the outcome
 * that ends the pass, or undefined to go on. Per-event work stays field
 * writes: no closure, no promise.
 */
function handleEvent<T extends KubeObject>(
  ev: WatchEvent<T>,
  c: ConsumeContext<T>,
): WatchOutcome | undefined {
  if (ev.type === "ERROR") {
    return {
      end: "error",
      events: c.events,
      error: StatusError.fromStatus(ev.object),
    };
  }
  c.events++;
  if (c.unconfirmed) confirmed(c);
  const obj = ev.object;
  const expected = c.host.expected;
  if (
    expected !== undefined && ev.type !== "BOOKMARK" &&
    !isExpectedType(obj, expected)
  ) {
    c.host.status.skip(
      obj,
      ev.type,
      `${expected.apiVersion} ${expected.kind}`,
    );
    return undefined;
  }
  const status = c.host.status;
  if (status.streak !== 0 && ev.type !== "BOOKMARK") status.applied();
  apply(c, ev);
  const target = c.target;
  if (ev.type !== "ADDED") target.holdRV = false;
  const rv = obj?.metadata?.resourceVersion;
  if (rv && !target.holdRV) target.rv = rv;
  if (
    c.stopAtInitialEnd && ev.type === "BOOKMARK" &&
    obj.metadata?.annotations?.[INITIAL_EVENTS_END] === "true"
  ) {
    return { end: "initialEnd", events: c.events };
  }
  return undefined;
}

function apply<T extends KubeObject>(
  c: ConsumeContext<T>,
  ev: WatchEvent<T>,
): void {
  const store = c.store;
  try {
    switch (ev.type) {
      case "ADDED":
        store.add(ev.object);
        break;
      case "MODIFIED":
        store.update(ev.object);
        break;
      case "DELETED":
        store.delete(ev.object);
        break;
      case "BOOKMARK":
        break;
      default:
        throw new TypeError(
          `Cannot apply a watch event of unknown type: ${
            (ev as { type: unknown }).type
          }`,
        );
    }
  } catch (err) {
    // client-go logs a store error and keeps watching.
    c.host.report(err);
  }
}

/** A watch that stays up for a second without failing proves the server healthy. */
async function confirmRecovery<T extends KubeObject>(
  c: ConsumeContext<T>,
  done: AbortSignal,
): Promise<void> {
  try {
    await c.host.clock.sleep(VERY_SHORT_WATCH_MS, done);
  } catch {
    return;
  }
  if (c.unconfirmed) confirmed(c);
}

function confirmed<T extends KubeObject>(c: ConsumeContext<T>): void {
  c.unconfirmed = false;
  c.host.healthy();
}

/** The scratch store a watch-list fills before `replace` (client-go's temporary `Store`). */
export class ScratchStore<T extends KubeObject> {
  #items = new Map<string, T>();
  add(obj: T): void {
    this.#items.set(metaNamespaceKeyFunc(obj), obj);
  }
  update(obj: T): void {
    this.add(obj);
  }
  delete(obj: T): void {
    this.#items.delete(metaNamespaceKeyFunc(obj));
  }
  replace(): void {}
  resync(): void {}
  list(): T[] {
    return [...this.#items.values()];
  }
}

/** An object passes unless it names another apiVersion or kind than `expected`. */
export function isExpectedType(
  obj: KubeObject,
  expected: { apiVersion: string; kind: string },
): boolean {
  return (!obj.apiVersion || obj.apiVersion === expected.apiVersion) &&
    (!obj.kind || obj.kind === expected.kind);
}

/**
 * Calls `resync` every `periodMs` on `clock` until stopped (client-go's
 * resync goroutine of one `ListAndWatch`). A throwing `resync` stops the
 * timer and aborts {@link ResyncTimer.failed} with the error.
 */
export class ResyncTimer {
  /** Aborted with the error when `resync` threw. */
  readonly failed: AbortSignal;
  #stop = new AbortController();
  #done: Promise<void>;

  constructor(clock: Clock, periodMs: number, resync: () => void) {
    const failed = new AbortController();
    this.failed = failed.signal;
    this.#done = (async () => {
      const signal = this.#stop.signal;
      while (!signal.aborted) {
        try {
          await clock.sleep(periodMs, signal);
        } catch {
          return;
        }
        try {
          resync();
        } catch (err) {
          failed.abort(err);
          return;
        }
      }
    })();
  }

  /** Stop and wait until the timer is gone. */
  stop(): Promise<void> {
    this.#stop.abort();
    return this.#done;
  }
}
