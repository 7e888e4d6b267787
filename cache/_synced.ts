// Internal: waitForCacheSync (re-exported by shared_informer.ts), which
// wakes when an informer's sync state may
// have changed instead of polling. A `hasSynced` function handed out by an
// informer (its bound `hasSynced`, a registration's `hasSynced`) carries a
// SyncWatch under the SYNC_WATCH symbol; plain functions are still polled.

import { checkClock, checkFunction, show } from "./_validate.ts";
import { type Clock, realClock } from "../api/clock.ts";

/** Where a watchable `hasSynced` function keeps its {@link SyncWatch}. */
export const SYNC_WATCH: unique symbol = Symbol("kubecache.syncWatch");

/** How to be told when a `hasSynced` function may give a new answer. */
export interface SyncWatch {
  /** Call `wake` on every possible change until the returned function is called. */
  subscribe(wake: () => void): () => void;
  /** True once the informer stopped: an unsynced function will stay so. */
  stopped(): boolean;
}

/** A `hasSynced` function, possibly watchable. */
export type SyncedFunc = (() => boolean) & { [SYNC_WATCH]?: SyncWatch };

/** The waiters of one informer; `notify` is cheap when nobody waits. */
export class SyncNotifier implements SyncWatch {
  #waiters = new Set<() => void>();
  #stopped: () => boolean;

  constructor(stopped: () => boolean) {
    this.#stopped = stopped;
  }

  /** Whether anyone waits (callers skip work otherwise). */
  get waiting(): boolean {
    return this.#waiters.size > 0;
  }

  subscribe(wake: () => void): () => void {
    this.#waiters.add(wake);
    return () => this.#waiters.delete(wake);
  }

  stopped(): boolean {
    return this.#stopped();
  }

  /** Wake every waiter (each re-checks its condition). */
  notify(): void {
    for (const wake of [...this.#waiters]) wake();
  }

  /** Mark `fn` as watched by this notifier and return it. */
  watch<F extends () => boolean>(fn: F): F {
    (fn as SyncedFunc)[SYNC_WATCH] = this;
    return fn;
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
