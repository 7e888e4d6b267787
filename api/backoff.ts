/**
 * The exponential backoff policy of the Reflector (client-go
 * `wait.Backoff` with `DelayWithReset`). Part of the API vocabulary; not
 * exported from `mod.ts`.
 *
 * @module
 */

import type { Clock } from "./clock.ts";

/** Options of {@link Backoff}; all durations in milliseconds. */
export interface BackoffOptions {
  /** First delay. Default 800. */
  initialMs?: number;
  /** Multiplier per failure. Default 2. */
  factor?: number;
  /** Upper bound of the base delay. Default 30 000. */
  maxMs?: number;
  /** Each delay is drawn from [d, d·(1+jitter)). Default 1.0. */
  jitter?: number;
  /** Back to `initialMs` when the previous failure is older than this. Default 120 000. */
  resetAfterMs?: number;
  /** Clock for the reset measurement. */
  clock: Clock;
  /** Random source in [0, 1). Default `Math.random`. */
  random?: () => number;
}

/**
 * Exponential backoff with jitter and reset after a quiet period: client-go's
 * `wait.Backoff` plus `DelayWithReset` as used by the Reflector (800 ms
 * doubling to 30 s, jitter 1.0, reset after 2 min).
 */
export class Backoff {
  #opts: Required<BackoffOptions>;
  #current: number;
  #lastFailure = -Infinity;

  constructor(opts: BackoffOptions) {
    this.#opts = {
      initialMs: 800,
      factor: 2,
      maxMs: 30_000,
      jitter: 1.0,
      resetAfterMs: 120_000,
      random: Math.random,
      ...opts,
    };
    for (const k of ["initialMs", "factor", "maxMs", "resetAfterMs"] as const) {
      const v = this.#opts[k];
      if (!(v >= 0) || !Number.isFinite(v)) {
        throw new RangeError(`Backoff option ${k} must be >= 0: got ${v}`);
      }
    }
    this.#current = this.#opts.initialMs;
  }

  /** The delay (ms) to wait after a failure happening now; advances the schedule. */
  next(): number {
    const now = this.#opts.clock.now();
    if (now - this.#lastFailure > this.#opts.resetAfterMs) {
      this.#current = this.#opts.initialMs;
    }
    this.#lastFailure = now;
    const base = this.#current;
    this.#current = Math.min(base * this.#opts.factor, this.#opts.maxMs);
    return base + base * this.#opts.jitter * this.#opts.random();
  }

  /** Start over at the initial delay. */
  reset(): void {
    this.#current = this.#opts.initialMs;
    this.#lastFailure = -Infinity;
  }
}
