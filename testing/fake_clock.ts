/**
 * A manually driven {@link Clock} for tests (k8s.io/utils
 * `clock/testing.FakeClock`).
 *
 * @module
 */

import type { Clock } from "../api/clock.ts";
import { show } from "../api/validate.ts";
import { nextTurn } from "./turns.ts";

interface Sleeper {
  due: number;
  seq: number;
  resolve: () => void;
}

/**
 * A clock that only moves when told to. `sleep` registers a waiter;
 * `step(ms)` advances time and wakes due waiters in time order, letting the
 * woken code run (microtasks and one macrotask turn) before the next one
 * fires, so chained sleeps inside one step behave as they would in real
 * time. `waitForWaiters(n)` lets a test await "n sleepers are pending"
 * instead of sleeping on the wall clock.
 *
 * @example
 * ```ts
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 * const clock = new FakeClock(1_000);
 * let woke = false;
 * const p = clock.sleep(500).then(() => woke = true);
 * await clock.step(499);
 * assert.equal(woke, false);
 * await clock.step(1);
 * await p;
 * assert.equal(woke, true);
 * assert.equal(clock.now(), 1_500);
 * ```
 */
export class FakeClock implements Clock {
  #now: number;
  #sleepers: Sleeper[] = [];
  #seq = 0;
  #waiterWatchers: { n: number; resolve: () => void }[] = [];

  /**
   * Create a fake clock.
   * @param startMs initial time in epoch milliseconds (default 0)
   */
  constructor(startMs = 0) {
    if (typeof startMs !== "number" || !Number.isFinite(startMs)) {
      throw new TypeError(
        `new FakeClock: startMs must be a finite number of epoch milliseconds, got ${
          show(startMs)
        }`,
      );
    }
    this.#now = startMs;
  }

  /** Current fake time in epoch milliseconds. */
  now(): number {
    return this.#now;
  }

  /**
   * Resolve when fake time reaches now + `ms`; a non-positive `ms` resolves
   * on the next step. Rejects with `signal.reason` on abort, removing the
   * waiter.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const sleeper: Sleeper = {
        due: this.#now + Math.max(0, ms),
        seq: this.#seq++,
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.#remove(sleeper);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#sleepers.push(sleeper);
      this.#notifyWatchers();
    });
  }

  /**
   * Advance time by `ms`, waking each due sleeper in time order (ties in
   * registration order) at its due time. After each wake-up the woken code
   * gets a macrotask turn to run, so a sleep it registers within the step is
   * also honoured.
   */
  async step(ms: number): Promise<void> {
    if (typeof ms !== "number") {
      // "100" would be added as text: 1000 + "100" is "1000100".
      throw new TypeError(
        `FakeClock.step: ms must be a number of milliseconds, got ${show(ms)}`,
      );
    }
    if (!(ms >= 0)) {
      throw new RangeError(
        `Cannot step a FakeClock by a negative or NaN duration: ${ms}`,
      );
    }
    const target = this.#now + ms;
    for (;;) {
      const next = this.#earliest();
      if (!next || next.due > target) break;
      this.#remove(next);
      this.#now = Math.max(this.#now, next.due);
      next.resolve();
      await nextTurn();
    }
    this.#now = target;
    await nextTurn();
  }

  /** Set the time directly, firing sleepers due by then (like `step`). */
  async setTime(ms: number): Promise<void> {
    if (typeof ms !== "number") {
      throw new TypeError(
        `FakeClock.setTime: ms must be a number of epoch milliseconds, got ${
          show(ms)
        }`,
      );
    }
    return await this.step(Math.max(0, ms - this.#now));
  }

  /** Whether any sleeper is pending. */
  hasWaiters(): boolean {
    return this.#sleepers.length > 0;
  }

  /** Number of pending sleepers. */
  waiters(): number {
    return this.#sleepers.length;
  }

  /** Due time (epoch ms) of the earliest pending sleeper, if any. */
  nextDue(): number | undefined {
    return this.#earliest()?.due;
  }

  /**
   * Resolve once at least `n` sleepers are pending (default 1). Resolves on
   * registration of the n-th sleeper, without polling.
   */
  waitForWaiters(n = 1): Promise<void> {
    if (this.#sleepers.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiterWatchers.push({ n, resolve }));
  }

  #earliest(): Sleeper | undefined {
    let best: Sleeper | undefined;
    for (const s of this.#sleepers) {
      if (
        !best || s.due < best.due || (s.due === best.due && s.seq < best.seq)
      ) best = s;
    }
    return best;
  }

  #remove(s: Sleeper): void {
    const i = this.#sleepers.indexOf(s);
    if (i !== -1) this.#sleepers.splice(i, 1);
  }

  #notifyWatchers(): void {
    const count = this.#sleepers.length;
    this.#waiterWatchers = this.#waiterWatchers.filter((w) => {
      if (count >= w.n) {
        w.resolve();
        return false;
      }
      return true;
    });
  }
}
