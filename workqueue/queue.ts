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
  /** Name shown in metrics and errors (client-go `QueueConfig.Name`). Default "". */
  name?: string;
  /** Clock of metrics and delays. Default: the real clock. */
  clock?: Clock;
  /**
   * Told each duration as it is measured, for a histogram (client-go's
   * `queueMetrics` observes `workqueue_queue_duration_seconds` and
   * `workqueue_work_duration_seconds` per item): `"queue"` is the wait
   * between add and get, `"work"` between get and done (ms).
   * `metrics()` keeps only count, total and maximum.
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
  /** When each queued item became dirty (in step with `#items`). */
  #addedAt = new Ring<number>();
  /**
   * Every item that is queued or processing (client-go's `dirty` and
   * `processing` sets), with the sequence number of its latest push. Items
   * leave the FIFO in push order, so an item is queued exactly when that
   * number is at least `#taken`, and processing otherwise: handing one out
   * changes no map. Values stay small integers (no allocation per key), so
   * a key costs one lookup, one insert and one delete from add to done,
   * what a hand-written Set-dedupe queue pays.
   */
  readonly #seq = new Map<T, number>();
  /** Pushes so far (the next push's sequence number). */
  #pushed = 0;
  /** Items handed out so far. */
  #taken = 0;
  /** Processing items added again (dirty), with the time of that add: queued again at done. */
  readonly #readded = new Map<T, number>();
  /**
   * The item get handed out last and when, while it is processing: a
   * worker's done usually names it. Start times of other processing items
   * are in `#started`.
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
   * Create a queue.
   * @param opts name (for metrics) and clock
   */
  constructor(opts: WorkQueueOptions = {}) {
    checkQueueOptions(new.target.name, opts);
    this.#clock = opts.clock ?? realClock;
    this.#metrics = new MetricsRecorder(opts.name ?? "", opts.onDuration);
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
    const seq = this.#seq.get(item);
    if (seq === undefined) {
      this.#metrics.adds++;
      this.#push(item, this.#clock.now());
      return;
    }
    // Queued already, or processing and added again already: nothing changes.
    if (seq >= this.#taken || this.#readded.has(item)) return;
    this.#metrics.adds++;
    // Processing: queued again at its done.
    this.#readded.set(item, this.#clock.now());
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
    if (this.len() > 0) return Promise.resolve(this.#take());
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
    this.#metrics.worked(this.#clock.now() - started);
    const again = this.#readded.size === 0
      ? undefined
      : this.#readded.get(item);
    if (again !== undefined) {
      this.#readded.delete(item);
      this.#push(item, again);
    } else {
      this.#seq.delete(item);
      if (this.#processing === 0) this.#wakeDrainers();
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

  /** A snapshot of the queue's metrics (client-go's `workqueue_*` series), as plain numbers. */
  metrics(): WorkQueueMetrics {
    return this.#metrics.snapshot(
      this.#clock.now(),
      this.len(),
      this.#startTimes(),
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

  /** Queue `item`, dirty since `addedAt`; hand it to the oldest waiting get, if any. */
  #push(item: T, addedAt: number): void {
    this.#seq.set(item, this.#pushed++);
    this.#items.push(item);
    this.#addedAt.push(addedAt);
    // Waiters exist only while nothing was queued: serve the oldest now.
    if (this.#waiters.length > 0) {
      const waiter = this.#waiters.shift()!;
      waiter.detach();
      waiter.resolve(this.#take());
    }
  }

  #take(): T {
    const item = this.#items.shift() as T;
    const addedAt = this.#addedAt.shift()!;
    this.#taken++;
    const now = this.#clock.now();
    this.#metrics.queued(now - addedAt);
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
