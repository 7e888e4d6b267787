/**
 * Rate limiters of client-go `util/workqueue/default_rate_limiters.go`:
 * how long a {@link RateLimitingQueue} waits before an item comes back.
 *
 * @module
 */

import { type Clock, realClock } from "../api/clock.ts";
import {
  checkClock,
  checkDuration,
  checkInteger,
  checkOptions,
  checkPositive,
} from "../api/validate.ts";
import { checkRateLimiter } from "./_validate.ts";

/**
 * Decides how long an item waits before it is retried (client-go
 * `TypedRateLimiter`). Durations are ms.
 *
 * @typeParam T the item type
 *
 * @example A limiter of your own: always one second
 * ```ts
 * import type { RateLimiter } from "@kubecache/core/workqueue";
 * import assert from "node:assert/strict";
 *
 * const oneSecond: RateLimiter<string> = {
 *   when: () => 1_000,
 *   forget: () => {},
 *   numRequeues: () => 0,
 * };
 * assert.equal(oneSecond.when("a"), 1_000);
 * ```
 */
export interface RateLimiter<T> {
  /** How long (ms) `item` should wait now; records one more failure of it. */
  when(item: T): number;
  /** Stop tracking `item` (it succeeded, or was given up on). */
  forget(item: T): void;
  /** How many times `item` has failed since it was last forgotten. */
  numRequeues(item: T): number;
}

function checkDelay(what: string, name: string, ms: unknown): void {
  checkDuration(`new ${what}`, name, ms, true);
}

/**
 * Exponential backoff per item (client-go
 * `ItemExponentialFailureRateLimiter`): the n-th failure of an item waits
 * `baseDelayMs · 2^(n-1)`, capped at `maxDelayMs`.
 *
 * @typeParam T the item type
 *
 * @example 5 ms doubling, capped at 1000 s
 * ```ts
 * import { ItemExponentialFailureRateLimiter } from "@kubecache/core/workqueue";
 * import assert from "node:assert/strict";
 *
 * const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
 * assert.deepEqual([1, 2, 3].map(() => limiter.when("a")), [5, 10, 20]);
 * assert.equal(limiter.numRequeues("a"), 3);
 * limiter.forget("a");
 * assert.equal(limiter.when("a"), 5);
 * ```
 */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  readonly #failures = new Map<T, number>();
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;

  /**
   * Create the limiter.
   * @param baseDelayMs delay of the first failure (ms)
   * @param maxDelayMs the cap (ms)
   * @throws {RangeError} when a delay is negative, NaN or infinite
   */
  constructor(baseDelayMs: number, maxDelayMs: number) {
    const what = "ItemExponentialFailureRateLimiter";
    checkDelay(what, "baseDelayMs", baseDelayMs);
    checkDelay(what, "maxDelayMs", maxDelayMs);
    this.#baseDelayMs = baseDelayMs;
    this.#maxDelayMs = maxDelayMs;
  }

  /** `baseDelayMs · 2^failures` (ms), capped; then counts one more failure. */
  when(item: T): number {
    const exp = this.#failures.get(item) ?? 0;
    this.#failures.set(item, exp + 1);
    // 2^exp grows to Infinity, never NaN, so the cap always applies.
    return Math.min(this.#baseDelayMs * 2 ** exp, this.#maxDelayMs);
  }

  /** Reset `item`'s failures. */
  forget(item: T): void {
    this.#failures.delete(item);
  }

  /** Failures of `item` since it was last forgotten. */
  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }
}

/**
 * Retries quickly a few times, then slowly (client-go
 * `ItemFastSlowRateLimiter`): the first `maxFastAttempts` failures of an
 * item wait `fastDelayMs`, later ones `slowDelayMs`.
 *
 * @typeParam T the item type
 *
 * @example Two fast attempts, then slow
 * ```ts
 * import { ItemFastSlowRateLimiter } from "@kubecache/core/workqueue";
 * import assert from "node:assert/strict";
 *
 * const limiter = new ItemFastSlowRateLimiter<string>(10, 5_000, 2);
 * assert.deepEqual([1, 2, 3].map(() => limiter.when("a")), [10, 10, 5_000]);
 * ```
 */
export class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {
  readonly #attempts = new Map<T, number>();
  readonly #fastDelayMs: number;
  readonly #slowDelayMs: number;
  readonly #maxFastAttempts: number;

  /**
   * Create the limiter.
   * @param fastDelayMs delay of the first `maxFastAttempts` failures (ms)
   * @param slowDelayMs delay of later failures (ms)
   * @param maxFastAttempts how many failures wait `fastDelayMs`
   * @throws {RangeError} when a delay is negative, NaN or infinite, or
   *   `maxFastAttempts` is not an integer >= 0
   */
  constructor(
    fastDelayMs: number,
    slowDelayMs: number,
    maxFastAttempts: number,
  ) {
    const what = "ItemFastSlowRateLimiter";
    checkDelay(what, "fastDelayMs", fastDelayMs);
    checkDelay(what, "slowDelayMs", slowDelayMs);
    checkInteger(`new ${what}`, "maxFastAttempts", maxFastAttempts, 0);
    this.#fastDelayMs = fastDelayMs;
    this.#slowDelayMs = slowDelayMs;
    this.#maxFastAttempts = maxFastAttempts;
  }

  /** `fastDelayMs` for the first `maxFastAttempts` failures, then `slowDelayMs`. */
  when(item: T): number {
    const attempts = (this.#attempts.get(item) ?? 0) + 1;
    this.#attempts.set(item, attempts);
    return attempts <= this.#maxFastAttempts
      ? this.#fastDelayMs
      : this.#slowDelayMs;
  }

  /** Reset `item`'s attempts. */
  forget(item: T): void {
    this.#attempts.delete(item);
  }

  /** Failures of `item` since it was last forgotten. */
  numRequeues(item: T): number {
    return this.#attempts.get(item) ?? 0;
  }
}

/**
 * An overall token bucket, the same for every item (client-go
 * `BucketRateLimiter` over `golang.org/x/time/rate.Limiter`): the bucket
 * holds up to `burst` tokens and refills at `qps` tokens per second on the
 * clock; each `when` takes a token, and when none is left returns how long
 * until its token will have been refilled (reservations queue up, so
 * delays grow by `1000 / qps` ms per call). It tracks no item:
 * `numRequeues` is 0 and `forget` does nothing.
 *
 * @typeParam T the item type
 *
 * @example 10 qps, burst 100
 * ```ts
 * import { BucketRateLimiter } from "@kubecache/core/workqueue";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const limiter = new BucketRateLimiter<string>(10, 100, { clock });
 * for (let i = 0; i < 100; i++) assert.equal(limiter.when(`k${i}`), 0);
 * assert.equal(limiter.when("k100"), 100); // the 101st waits a token
 * assert.equal(limiter.when("k101"), 200);
 * await clock.step(1_000); // refills 10 tokens, 2 of them already promised
 * assert.equal(limiter.when("k102"), 0);
 * ```
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  /** Tokens at `#last`; negative when reservations are promised ahead. */
  #tokens: number;
  #last: number;

  /**
   * Create the limiter, its bucket full.
   * @param qps tokens added per second (> 0; `Infinity`: never wait)
   * @param burst bucket size (an integer >= 1)
   * @param opts `clock` the bucket refills on; default the real clock
   * @throws {RangeError} when `qps` is not > 0 or `burst` not an integer >= 1
   */
  constructor(qps: number, burst: number, opts: { clock?: Clock } = {}) {
    const call = "new BucketRateLimiter";
    checkPositive(call, "qps", qps);
    checkInteger(call, "burst", burst, 1);
    checkOptions(call, "opts", opts);
    checkClock(call, "opts.clock", opts.clock);
    this.#qps = qps;
    this.#burst = burst;
    this.#clock = opts.clock ?? realClock;
    this.#tokens = burst;
    this.#last = this.#clock.now();
  }

  /** Take a token; the wait (ms) until it is available, 0 when the bucket has one. */
  when(_item: T): number {
    if (this.#qps === Infinity) return 0;
    const now = this.#clock.now();
    // rate.Limiter.advance: refill for the time since the last reservation.
    if (now > this.#last) {
      this.#tokens = Math.min(
        this.#burst,
        this.#tokens + (now - this.#last) * this.#qps / 1000,
      );
      this.#last = now;
    }
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : -this.#tokens * 1000 / this.#qps;
  }

  /** Nothing to forget: the bucket is shared by all items. */
  forget(_item: T): void {}

  /** Always 0: the bucket does not count items. */
  numRequeues(_item: T): number {
    return 0;
  }
}

/**
 * The longest delay of several limiters (client-go `MaxOfRateLimiter`):
 * `when` asks every limiter (each records the failure) and returns the
 * largest; `numRequeues` is the largest count; `forget` forgets in all.
 *
 * @typeParam T the item type
 *
 * @example Per-item backoff and an overall bucket
 * ```ts
 * import {
 *   BucketRateLimiter,
 *   ItemExponentialFailureRateLimiter,
 *   MaxOfRateLimiter,
 * } from "@kubecache/core/workqueue";
 * import assert from "node:assert/strict";
 *
 * const limiter = new MaxOfRateLimiter<string>(
 *   new ItemExponentialFailureRateLimiter(5, 1_000_000),
 *   new BucketRateLimiter(10, 100),
 * );
 * assert.equal(limiter.when("a"), 5);
 * assert.equal(limiter.when("a"), 10);
 * assert.equal(limiter.numRequeues("a"), 2);
 * ```
 */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  readonly #limiters: RateLimiter<T>[];

  /**
   * Combine limiters.
   * @param limiters at least one limiter
   * @throws {RangeError} when no limiter is given
   */
  constructor(...limiters: RateLimiter<T>[]) {
    if (limiters.length === 0) {
      throw new RangeError("new MaxOfRateLimiter: needs at least one limiter");
    }
    limiters.forEach((limiter, i) =>
      checkRateLimiter("new MaxOfRateLimiter", `limiters[${i}]`, limiter)
    );
    this.#limiters = limiters;
  }

  /** The largest delay (ms) of the limiters, each asked once. */
  when(item: T): number {
    let max = 0;
    for (const l of this.#limiters) max = Math.max(max, l.when(item));
    return max;
  }

  /** Forget `item` in every limiter. */
  forget(item: T): void {
    for (const l of this.#limiters) l.forget(item);
  }

  /** The largest failure count of the limiters. */
  numRequeues(item: T): number {
    let max = 0;
    for (const l of this.#limiters) max = Math.max(max, l.numRequeues(item));
    return max;
  }
}

/**
 * The rate limiter client-go controllers use
 * (`DefaultTypedControllerRateLimiter`): the larger of per-item exponential
 * backoff from 5 ms doubling to 1000 s and an overall token bucket of 10
 * qps with burst 100.
 *
 * @typeParam T the item type
 * @param opts `clock` of the bucket; default the real clock
 * @returns a new limiter
 *
 * @example
 * ```ts
 * import { defaultControllerRateLimiter } from "@kubecache/core/workqueue";
 * import assert from "node:assert/strict";
 *
 * const limiter = defaultControllerRateLimiter<string>();
 * assert.equal(limiter.when("a"), 5);
 * assert.equal(limiter.when("a"), 10);
 * for (let i = 0; i < 30; i++) limiter.when("a");
 * assert.equal(limiter.when("a"), 1_000_000); // capped at 1000 s
 * ```
 */
export function defaultControllerRateLimiter<T>(
  opts: { clock?: Clock } = {},
): RateLimiter<T> {
  checkOptions("defaultControllerRateLimiter", "opts", opts);
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1_000_000),
    new BucketRateLimiter<T>(10, 100, opts),
  );
}
