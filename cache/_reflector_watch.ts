/**
 * The Reflector's watch plumbing that needs no Reflector state: opening a
 * watch, the liveness watchdog, racing `next()` against an abort, the
 * watch-list's scratch store, and the classification of failures for the
 * state machine (the list side is in `_reflector_list.ts`).
 * Internal module; `reflector.ts` uses it.
 *
 * @module
 */

import {
  isExpired,
  isTooLargeResourceVersion,
  isTooManyRequests,
  StatusError,
} from "../api/errors.ts";
import type { FailureKind } from "./_reflector_state.ts";
import type { Clock } from "../api/clock.ts";
import { metaNamespaceKeyFunc } from "./keys.ts";
import type {
  ListerWatcher,
  ListOptions,
  WatchEvent,
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

/**
 * Classify a failure for the state machine (client-go `isExpiredError`,
 * `isTooLargeResourceVersionError`, `isWatchErrorRetriable`: no Status at
 * all means no answer).
 */
export function classify(err: unknown): FailureKind {
  if (isExpired(err) || isTooLargeResourceVersion(err)) return "expired";
  if (isTooManyRequests(err)) return "throttled";
  if (!(err instanceof StatusError)) return "network";
  return "status";
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
