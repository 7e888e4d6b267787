/**
 * Injected time. Every kubecache component with timing (Reflector backoff and
 * resync, ExpirationCache, informers, the factory) takes a {@link Clock} so
 * tests can drive time with `FakeClock` from `@kubecache/core/testing`.
 * Mirrors k8s.io/utils `clock.Clock`.
 *
 * @module
 */

/**
 * A source of time and of cancellable sleeps (k8s.io/utils `clock.Clock`).
 * Times are epoch milliseconds, durations milliseconds.
 *
 * @example A component taking a clock
 * ```ts
 * import { type Clock, realClock } from "@kubecache/core";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * async function timeout(ms: number, clock: Clock = realClock): Promise<string> {
 *   await clock.sleep(ms);
 *   return `waited until ${clock.now()}`;
 * }
 * const clock = new FakeClock(1_000);
 * const done = timeout(500, clock);
 * await clock.step(500); // no real waiting
 * assert.equal(await done, "waited until 1500");
 * ```
 */
export interface Clock {
  /** Current time in epoch milliseconds. */
  now(): number;
  /**
   * Resolve after `ms` milliseconds. Rejects with `signal.reason` when the
   * signal aborts first (at once if it is already aborted); the timer is
   * always released.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The wall clock: `Date.now()` and `setTimeout` (k8s.io/utils `clock.RealClock`).
 *
 * @example
 * ```ts
 * import { RealClock } from "@kubecache/core";
 * const clock = new RealClock();
 * await clock.sleep(1);
 * ```
 */
export class RealClock implements Clock {
  /** Current time in epoch milliseconds (`Date.now()`). */
  now(): number {
    return Date.now();
  }

  /**
   * Resolve after `ms` milliseconds, or reject with `signal.reason` on abort.
   * Removes its abort listener and timer on every path, so nothing leaks.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, Math.max(0, ms));
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/**
 * The shared default clock used when no `clock` option is given.
 *
 * @example The wall clock, shared
 * ```ts
 * import { realClock } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const before = Date.now();
 * await realClock.sleep(1);
 * assert.ok(realClock.now() >= before + 1);
 * ```
 */
export const realClock: Clock = new RealClock();
