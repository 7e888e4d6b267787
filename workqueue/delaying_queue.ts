/**
 * {@link DelayingQueue}: a {@link WorkQueue} that can add an item later
 * (client-go `util/workqueue/delaying_queue.go`), on the injected clock.
 *
 * @module
 */

import { type Clock, realClock } from "../api/clock.ts";
import { show } from "../api/validate.ts";
import { WorkQueue, type WorkQueueOptions } from "./queue.ts";

interface Waiting<T> {
  item: T;
  readyAt: number;
  /** Insertion order: ties on readyAt go in the order they were asked for. */
  seq: number;
  /** Position in the heap array. */
  index: number;
}

/**
 * A work queue with {@link DelayingQueue.addAfter}: the item is added once
 * `delayMs` has passed on the queue's clock (client-go
 * `TypedDelayingInterface`). An item waiting to be added is held once: a
 * second `addAfter` for it only moves its time earlier, never later
 * (earliest time wins). Waiting items are not in `len()` and are dropped
 * at shut down, which also releases the timer, so a shut-down queue keeps
 * no timer alive.
 *
 * One timer (a `clock.sleep`) runs for the earliest waiting item; nothing
 * polls.
 *
 * @typeParam T the item type (usually a `string` key)
 *
 * @example Add a key after a delay, driven by a FakeClock
 * ```ts
 * import { DelayingQueue } from "@kubecache/core/workqueue";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const queue = new DelayingQueue<string>({ clock });
 * queue.addAfter("default/a", 1_000);
 * queue.addAfter("default/a", 200); // earlier: wins
 * await clock.step(199);
 * assert.equal(queue.len(), 0);
 * await clock.step(1);
 * assert.equal(queue.len(), 1);
 * assert.equal(await queue.get(), "default/a");
 * queue.shutDown();
 * ```
 */
export class DelayingQueue<T> extends WorkQueue<T> {
  readonly #clock: Clock;
  /** Min-heap of waiting entries by (readyAt, seq); `#waiting` maps each item to its entry. */
  #heap: Waiting<T>[] = [];
  readonly #waiting = new Map<T, Waiting<T>>();
  #seq = 0;
  /** The pending sleep, for the heap's earliest entry (or earlier). */
  #timer: { due: number; stop: AbortController } | undefined;

  /**
   * Create a delaying queue.
   * @param opts name (for metrics) and clock (of the delays)
   */
  constructor(opts: WorkQueueOptions = {}) {
    super(opts);
    this.#clock = opts.clock ?? realClock;
  }

  /**
   * Add `item` after `delayMs` (client-go `AddAfter`); 0 or less adds it
   * now. If the item is already waiting, the earlier of the two times is
   * kept. Counts as a retry in the metrics. Ignored after shut down.
   * @param item the item
   * @param delayMs delay in ms
   * @throws {RangeError} when `delayMs` is NaN or infinite
   * @throws {TypeError} when `item` is `undefined`
   */
  addAfter(item: T, delayMs: number): void {
    if (typeof delayMs !== "number") {
      throw new TypeError(
        `DelayingQueue.addAfter: delayMs must be a number of milliseconds, got ${
          show(delayMs)
        }`,
      );
    }
    if (!Number.isFinite(delayMs)) {
      throw new RangeError(
        `DelayingQueue.addAfter: delayMs must be a finite number of milliseconds, got ${delayMs}`,
      );
    }
    if (item === undefined) {
      throw new TypeError("Cannot add undefined to a WorkQueue");
    }
    if (this.shuttingDown()) return;
    this.countRetry();
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const readyAt = this.#clock.now() + delayMs;
    const entry = this.#waiting.get(item);
    if (entry) {
      if (readyAt >= entry.readyAt) return;
      entry.readyAt = readyAt;
      this.#up(entry.index);
    } else {
      const e = { item, readyAt, seq: this.#seq++, index: this.#heap.length };
      this.#heap.push(e);
      this.#waiting.set(item, e);
      this.#up(e.index);
    }
    this.#arm();
  }

  /** Shut down (see {@link WorkQueue.shutDown}), dropping the waiting items and the timer. */
  override shutDown(): void {
    super.shutDown();
    this.#stopWaiting();
  }

  /** Shut down with drain (see {@link WorkQueue.shutDownWithDrain}), dropping the waiting items and the timer. */
  override shutDownWithDrain(): Promise<void> {
    const drained = super.shutDownWithDrain();
    this.#stopWaiting();
    return drained;
  }

  #stopWaiting(): void {
    this.#heap = [];
    this.#waiting.clear();
    this.#timer?.stop.abort();
    this.#timer = undefined;
  }

  /** Make sure a sleep is pending for the earliest entry. */
  #arm(): void {
    const first = this.#heap[0];
    if (!first) {
      this.#timer?.stop.abort();
      this.#timer = undefined;
      return;
    }
    // A pending sleep due no later than the first entry re-arms when it fires.
    if (this.#timer && this.#timer.due <= first.readyAt) return;
    this.#timer?.stop.abort();
    const stop = new AbortController();
    const timer = { due: first.readyAt, stop };
    this.#timer = timer;
    this.#clock.sleep(first.readyAt - this.#clock.now(), stop.signal).then(
      () => {
        if (this.#timer !== timer) return;
        this.#timer = undefined;
        this.#fire();
      },
      () => {}, // stopped: a newer timer or shut down took over
    );
  }

  /** Add every entry that is due, then wait for the next one. */
  #fire(): void {
    const now = this.#clock.now();
    while (this.#heap.length > 0 && this.#heap[0].readyAt <= now) {
      const e = this.#pop();
      this.#waiting.delete(e.item);
      this.add(e.item);
    }
    this.#arm();
  }

  #less(a: Waiting<T>, b: Waiting<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  #swap(i: number, j: number): void {
    const h = this.#heap;
    [h[i], h[j]] = [h[j], h[i]];
    h[i].index = i;
    h[j].index = j;
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(this.#heap[i], this.#heap[parent])) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #pop(): Waiting<T> {
    const h = this.#heap;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      last.index = 0;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < h.length && this.#less(h[l], h[m])) m = l;
        if (r < h.length && this.#less(h[r], h[m])) m = r;
        if (m === i) break;
        this.#swap(i, m);
        i = m;
      }
    }
    return top;
  }
}
