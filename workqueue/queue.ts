/**
 * {@link WorkQueue}: the work queue of client-go `util/workqueue`
 * (`queue.go`, type `Typed`), the queue controllers put keys on from their
 * event handlers and take them off in workers.
 *
 * @module
 */

import { type Clock, realClock } from "../api/clock.ts";
import {
  checkClock,
  checkOptionalString,
  checkOptions,
  checkSignal,
} from "../api/validate.ts";
import { MetricsRecorder } from "./_metrics.ts";
import type { WorkQueueMetrics } from "./metrics.ts";
import { Ring } from "../api/ring.ts";

/**
 * Options of a {@link WorkQueue} and of the queues built on it.
 *
 * @example A named queue on a FakeClock
 * ```ts
 * import { DelayingQueue, type WorkQueueOptions } from "@kubecache/core/workqueue";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const opts: WorkQueueOptions = { name: "configmaps", clock };
 * const queue = new DelayingQueue<string>(opts);
 * queue.addAfter("default/a", 100);
 * await clock.step(100);
 * assert.equal(queue.len(), 1);
 * queue.shutDown();
 * ```
 */
export interface WorkQueueOptions {
  /**
   * Name shown in metrics and errors (client-go `QueueConfig.Name`).
   * Default "". A named queue measures its durations for `metrics()`; an
   * anonymous one (without `onDuration`) reads no clock per item and
   * reports them as 0, as client-go measures only named queues.
   */
  name?: string;
  /** Clock of metrics and delays. Default: the real clock. */
  clock?: Clock;
  /**
   * Told each duration as it is measured, for a histogram (client-go's
   * `queueMetrics` observes `workqueue_queue_duration_seconds` and
   * `workqueue_work_duration_seconds` per item): `"queue"` is the wait
   * between add and get, `"work"` between get and done (ms).
   * `metrics()` keeps only count, total and maximum. Given, it makes the
   * queue measure durations even without a `name`.
   */
  onDuration?: (which: "queue" | "work", ms: number) => void;
}

/**
 * Options of {@link WorkQueue.get}.
 *
 * @example Stop waiting for work
 * ```ts
 * import { type QueueGetOptions, WorkQueue } from "@kubecache/core/workqueue";
 * import assert from "node:assert/strict";
 *
 * const queue = new WorkQueue<string>();
 * const opts: QueueGetOptions = { signal: AbortSignal.abort(new Error("stopping")) };
 * await assert.rejects(queue.get(opts), /stopping/);
 * queue.shutDown();
 * ```
 */
export interface QueueGetOptions {
  /**
   * Stop waiting: `get` rejects with `signal.reason` and hands out nothing.
   * An item already handed out is never lost to an abort.
   */
  signal?: AbortSignal;
}

interface Waiter<T> {
  resolve(item: T | undefined): void;
  detach(): void;
}

/**
 * A work queue with client-go's guarantees (`workqueue.Typed`): a FIFO of
 * items plus a *dirty* set (items that need processing) and a *processing*
 * set (items handed out by {@link WorkQueue.get} and not yet
 * {@link WorkQueue.done}).
 *
 * - **Fair**: items are handed out in the order they were added.
 * - **Stingy**: an item added again while it waits is queued once.
 * - **Never concurrent**: an item is handed to one worker at a time. Added
 *   again while a worker has it, it waits in the dirty set and is queued
 *   again when that worker calls `done`, so the change is not lost and no
 *   second worker races the first.
 * - **Shut down**: after {@link WorkQueue.shutDown}, adds are ignored,
 *   `get` still hands out what is queued and then resolves `undefined`.
 *   {@link WorkQueue.shutDownWithDrain} also waits until every item handed
 *   out is done.
 *
 * Items are compared with SameValueZero (a `Set`), so use strings such as
 * `"namespace/name"` keys, never objects rebuilt per event. Every method is
 * synchronous except `get` and `shutDownWithDrain`; nothing yields halfway
 * through a change.
 *
 * Consume it with {@link runWorkers}, or by hand: `for await (const key of
 * queue)` calls `get` until the queue is shut down and empty, and the loop
 * body must call `done(key)` when it is finished with the key.
 *
 * @typeParam T the item type (usually a `string` key)
 *
 * @example A worker loop, by hand
 * ```ts
 * import { WorkQueue } from "@kubecache/core/workqueue";
 * import assert from "node:assert/strict";
 *
 * const queue = new WorkQueue<string>();
 * queue.add("default/a");
 * queue.add("default/b");
 * queue.add("default/a"); // still waiting: collapses into the first
 * assert.equal(queue.len(), 2);
 * queue.shutDown(); // what is queued is still handed out
 * const seen: string[] = [];
 * for await (const key of queue) {
 *   try {
 *     seen.push(key);
 *   } finally {
 *     queue.done(key);
 *   }
 * }
 * assert.deepEqual(seen, ["default/a", "default/b"]);
 * ```
 *
 * @example Re-added while processing: queued again at done, never twice at once
 * ```ts
 * import { WorkQueue } from "@kubecache/core/workqueue";
 * import assert from "node:assert/strict";
 *
 * const queue = new WorkQueue<string>();
 * queue.add("k");
 * const key = await queue.get();
 * queue.add("k"); // changed while a worker has it
 * assert.equal(queue.len(), 0); // not handed to a second worker
 * queue.done(key!);
 * assert.equal(queue.len(), 1); // queued again now
 * assert.equal(await queue.get(), "k");
 * queue.shutDown();
 * ```
 */
export class WorkQueue<T> implements Disposable {
  /** Queued items, oldest first; each is dirty and not processing. */
  #items = new Ring<T>();
  /**
   * When each queued item became dirty (in step with `#items`), kept only
   * when the queue is timed.
   */
  #addedAt = new Ring<number>();
  /**
   * Every item that is queued or processing (client-go's `dirty` and
   * `processing` sets in one). An item in it is processing exactly when it
   * is `#last` (while `#lastOpen`) or in `#started`, so with one worker a
   * key costs one lookup, one insert and one delete from add to done, what
   * a hand-written Set-dedupe queue pays.
   */
  readonly #keys = new Set<T>();
  /** Processing items added again (dirty), with the time of that add: queued again at done. */
  readonly #readded = new Map<T, number>();
  /**
   * The item get handed out last and when, while it is processing: a
   * worker's done usually names it. Other processing items are in
   * `#started`, with their start times (0 when the queue is not timed).
   */
  #last: T | undefined;
  #lastAt = 0;
  #lastOpen = false;
  readonly #started = new Map<T, number>();
  /** How many items are processing (shutDownWithDrain waits for 0). */
  #processing = 0;
  /** Callers of get waiting for an item; only non-empty while nothing is queued. */
  #waiters: Waiter<T>[] = [];
  /** Callers of shutDownWithDrain waiting for the processing set to empty. */
  #drainers: (() => void)[] = [];
  #shuttingDown = false;
  #drain = false;
  readonly #metrics: MetricsRecorder;
  readonly #clock: Clock;
  /**
   * Whether the queue reads the clock for its durations: only a named queue
   * or one with `onDuration` (client-go measures only queues with a name
   * and a metrics provider), so an anonymous queue pays no clock reading.
   */
  readonly #timed: boolean;

  /**
   * Create a queue.
   * @param opts name (for metrics) and clock
   */
  constructor(opts: WorkQueueOptions = {}) {
    checkQueueOptions(new.target.name, opts);
    this.#clock = opts.clock ?? realClock;
    const name = opts.name ?? "";
    this.#timed = name !== "" || opts.onDuration !== undefined;
    this.#metrics = new MetricsRecorder(name, opts.onDuration);
  }

  /**
   * Mark `item` as needing processing (client-go `Add`). Queued at the tail
   * unless it is already waiting (then nothing changes) or being processed
   * (then it is queued again at its `done`). Ignored after shut down.
   * @param item the item, usually a key
   * @throws {TypeError} when `item` is `undefined` (`get` uses it to say "shut down")
   */
  add(item: T): void {
    if (item === undefined) {
      throw new TypeError(
        "Cannot add undefined to a WorkQueue: get() resolves undefined to mean shut down",
      );
    }
    if (this.#shuttingDown) return;
    if (!this.#keys.has(item)) {
      this.#keys.add(item);
      this.#metrics.adds++;
      this.#push(item, this.#timed ? this.#clock.now() : 0);
      return;
    }
    // Queued already, or processing and added again already: nothing changes.
    if (!this.#isProcessing(item) || this.#readded.has(item)) return;
    this.#metrics.adds++;
    // Processing: queued again at its done.
    this.#readded.set(item, this.#timed ? this.#clock.now() : 0);
  }

  /** Number of items waiting to be handed out (client-go `Len`); items being processed do not count. */
  len(): number {
    return this.#items.size;
  }

  /**
   * Take the next item, waiting for one (client-go `Get`). The item moves
   * to the processing set: call {@link WorkQueue.done} when finished with
   * it, whatever the outcome. Waiting callers are served in call order.
   * @param opts `signal` to stop waiting
   * @returns the item, or `undefined` once the queue is shut down and
   *   nothing is queued
   * @throws the `signal`'s reason when it is aborted before an item is handed out
   */
  get(opts?: QueueGetOptions): Promise<T | undefined> {
    // A worker's get() without options skips the checks (the hot path).
    let signal: AbortSignal | undefined;
    if (opts !== undefined) {
      try {
        checkOptions("WorkQueue.get", "opts", opts);
        if (opts.signal !== undefined) {
          checkSignal("WorkQueue.get", "opts.signal", opts.signal);
        }
      } catch (err) {
        return Promise.reject(err);
      }
      signal = opts.signal;
      if (signal?.aborted) return Promise.reject(signal.reason);
    }
    if (this.#items.size > 0) return Promise.resolve(this.#take());
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(signal!.reason);
      };
      const waiter: Waiter<T> = {
        resolve,
        detach: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /**
   * Mark `item` as done (client-go `Done`): it leaves the processing set,
   * and if it was added again meanwhile it is queued now. An item not
   * being processed is ignored.
   * @param item an item `get` handed out
   */
  done(item: T): void {
    let started: number;
    if (this.#lastOpen && this.#last === item) {
      started = this.#lastAt;
      this.#lastOpen = false;
      this.#last = undefined;
    } else {
      const at = this.#started.get(item);
      if (at === undefined) return; // not processing
      started = at;
      this.#started.delete(item);
    }
    this.#processing--;
    if (this.#timed) this.#metrics.worked(this.#clock.now() - started);
    const again = this.#readded.size === 0
      ? undefined
      : this.#readded.get(item);
    if (again !== undefined) {
      this.#readded.delete(item);
      this.#push(item, again);
    } else {
      this.#keys.delete(item);
      if (this.#processing === 0 && this.#drainers.length > 0) {
        this.#wakeDrainers();
      }
    }
  }

  /**
   * Stop accepting items (client-go `ShutDown`): later adds are ignored;
   * `get` hands out what is still queued, then resolves `undefined`, and
   * every caller waiting in `get` gets `undefined` now. Also ends a
   * {@link WorkQueue.shutDownWithDrain} wait. Idempotent.
   */
  shutDown(): void {
    this.#drain = false;
    this.#shutDown();
    this.#wakeDrainers();
  }

  /**
   * Shut down like {@link WorkQueue.shutDown}, then wait until every item
   * handed out is done (client-go `ShutDownWithDrain`). Workers must go on
   * calling `done`; a later `shutDown` ends the wait early.
   * @returns once nothing is being processed
   */
  shutDownWithDrain(): Promise<void> {
    this.#drain = true;
    this.#shutDown();
    if (this.#processing === 0 || !this.#drain) return Promise.resolve();
    return new Promise((resolve) => this.#drainers.push(resolve));
  }

  /** Whether shut down has begun (client-go `ShuttingDown`). */
  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * A snapshot of the queue's metrics (client-go's `workqueue_*` series),
   * as plain numbers. The durations (`queueLatency`, `workDuration`,
   * `unfinishedWorkMs`, `longestRunningProcessorMs`) are measured only for
   * a queue with a `name` or an `onDuration` hook, as client-go measures
   * only named queues; an anonymous queue reads no clock and reports them
   * as 0. Depth, processing, adds and retries are always counted.
   */
  metrics(): WorkQueueMetrics {
    return this.#metrics.snapshot(
      this.#timed ? this.#clock.now() : 0,
      this.len(),
      this.#processing,
      this.#timed ? this.#startTimes() : [],
    );
  }

  /** When each item being processed was handed out. */
  *#startTimes(): Generator<number> {
    if (this.#lastOpen) yield this.#lastAt;
    yield* this.#started.values();
  }

  /**
   * `get` until the queue is shut down and empty. The loop body still
   * calls `done` for each item.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for (;;) {
      const item = await this.get();
      if (item === undefined) return;
      yield item;
    }
  }

  /** {@link WorkQueue.shutDown}, for `using`. */
  [Symbol.dispose](): void {
    this.shutDown();
  }

  /**
   * Count a retry in {@link WorkQueue.metrics} (client-go
   * `queueMetrics.retry`): the seam through which `DelayingQueue.addAfter`
   * counts its re-adds without reaching the private recorder.
   */
  protected countRetry(): void {
    this.#metrics.retries++;
  }

  /** Whether `item` (queued or processing) is processing. */
  #isProcessing(item: T): boolean {
    return (this.#lastOpen && this.#last === item) || this.#started.has(item);
  }

  /** Queue `item`, dirty since `addedAt`; hand it to the oldest waiting get, if any. */
  #push(item: T, addedAt: number): void {
    this.#items.push(item);
    if (this.#timed) this.#addedAt.push(addedAt);
    // Waiters exist only while nothing was queued: serve the oldest now.
    if (this.#waiters.length > 0) {
      const waiter = this.#waiters.shift()!;
      waiter.detach();
      waiter.resolve(this.#take());
    }
  }

  #take(): T {
    const item = this.#items.shift() as T;
    let now = 0;
    if (this.#timed) {
      now = this.#clock.now();
      this.#metrics.queued(now - this.#addedAt.shift()!);
    }
    // The previous one is still processing (several workers): keep its start.
    if (this.#lastOpen) this.#started.set(this.#last as T, this.#lastAt);
    this.#last = item;
    this.#lastAt = now;
    this.#lastOpen = true;
    this.#processing++;
    return item;
  }

  #shutDown(): void {
    this.#shuttingDown = true;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) {
      w.detach();
      w.resolve(undefined);
    }
  }

  #wakeDrainers(): void {
    const drainers = this.#drainers;
    this.#drainers = [];
    for (const resolve of drainers) resolve();
  }
}

/**
 * The checks of a queue constructor's options; `call` names the class
 * constructed (`new RateLimitingQueue`).
 */
function checkQueueOptions(call: string, opts: unknown): void {
  const c = `new ${call}`;
  checkOptions(c, "opts", opts);
  const o = (opts ?? {}) as WorkQueueOptions;
  checkOptionalString(c, "opts.name", o.name);
  checkClock(c, "opts.clock", o.clock);
}
