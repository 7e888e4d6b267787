/**
 * The queue interface of client-go's `tools/cache/fifo.go` ({@link Queue},
 * {@link PopProcessFunc}, {@link RequeueError}, {@link FIFOClosedError}) and
 * its simplest implementation, {@link FIFO}.
 *
 * @module
 */

import { checkFunction } from "./_validate.ts";
import type { DeletedFinalStateUnknown, KeyFunc } from "./keys.ts";
import { computeKey } from "./keys.ts";
import { Serial, Wakeup } from "./_queue.ts";
import { Ring } from "../api/ring.ts";
import { processOrRequeue, RequeueError } from "./requeue.ts";
import type { CallbackResult } from "../api/callback.ts";

// Public from here, as client-go's ErrRequeue is in fifo.go; declared
// beside the requeue rule it drives, which DeltaFIFO shares.
export { RequeueError };

/**
 * Processes one item taken from a queue by {@link Queue.pop}
 * (client-go `PopProcessFunc`).
 *
 * `isInInitialList` is `true` while the queue has not synced, that is while
 * the item belongs to the first `replace` (the initial list). `key` is the
 * item's key in the queue ({@link FIFO} and `DeltaFIFO` pass it), so a
 * consumer keying a store the same way need not compute it again.
 *
 * Throw a {@link RequeueError} to put the item back; any other error is
 * passed on by `pop`. A returned promise is awaited before `pop` settles,
 * and no other `pop` of the same queue runs meanwhile; any other return
 * value is ignored (see {@link CallbackResult}).
 *
 * @typeParam P what the queue hands out: the object for {@link FIFO},
 * its `Deltas` for a `DeltaFIFO`
 *
 * @example Process an item, or ask for it again
 * ```ts
 * import { FIFO, type PopProcessFunc, RequeueError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * type Item = { name: string; tries: number };
 * const process: PopProcessFunc<Item> = (item, isInInitialList) => {
 *   assert.equal(isInInitialList, false); // a plain FIFO has no initial list
 *   if (++item.tries < 2) throw new RequeueError(); // not ready: back in the queue
 * };
 * const fifo = new FIFO<Item>((o) => (o as Item).name);
 * fifo.add({ name: "a", tries: 0 });
 * await fifo.pop(process);
 * assert.deepEqual(fifo.listKeys(), ["a"]);
 * await fifo.pop(process);
 * assert.deepEqual(fifo.listKeys(), []);
 * ```
 */
export type PopProcessFunc<P> = (
  item: P,
  isInInitialList: boolean,
  key?: string,
) => CallbackResult;

/**
 * The error a queue's `pop` rejects with once the queue is closed and empty
 * (client-go `ErrFIFOClosed`). A `Heap` also throws it from an add after
 * `close`.
 *
 * @example A consumer loop ends when the queue closes
 * ```ts
 * import { FIFO, FIFOClosedError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const fifo = new FIFO<{ name: string }>((o) => (o as { name: string }).name);
 * fifo.add({ name: "a" });
 * fifo.close();
 * const seen: string[] = [];
 * try {
 *   for (;;) await fifo.pop((item) => void seen.push(item.name));
 * } catch (err) {
 *   assert.ok(err instanceof FIFOClosedError); // closed and empty
 * }
 * assert.deepEqual(seen, ["a"]); // what was queued still popped
 * ```
 */
export class FIFOClosedError extends Error {
  /**
   * Create the error.
   * @param message what was attempted on the closed queue
   */
  constructor(message = "Cannot pop from queue: queue is closed") {
    super(message);
    this.name = "FIFOClosedError";
  }
}

/**
 * A store with a set of keys waiting to be processed (client-go `Queue`).
 *
 * Every `add`, `update` or `delete` may put the object's key in that set;
 * `pop` waits for a key, removes the key and its accumulator from the store
 * and hands the accumulator to a {@link PopProcessFunc}. Only one `pop` of a
 * queue runs its process function at a time. Once the queue is closed, `pop`
 * still drains what is queued, then rejects with {@link FIFOClosedError}.
 *
 * Mutations are synchronous: nothing yields halfway through an update (the
 * JS counterpart of client-go's queue lock).
 *
 * @typeParam T the object type
 * @typeParam P the accumulator `pop` and `get` hand out: `T` for
 * {@link FIFO}, `Deltas<T>` for `DeltaFIFO`
 *
 * @example Code that works with any queue
 * ```ts
 * import { FIFO, type Queue } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * async function drain<T>(queue: Queue<T>): Promise<T[]> {
 *   const out: T[] = [];
 *   while (queue.listKeys().length > 0) await queue.pop((item) => void out.push(item));
 *   return out;
 * }
 * const fifo = new FIFO<{ name: string }>((o) => (o as { name: string }).name);
 * fifo.add({ name: "a" });
 * fifo.add({ name: "b" });
 * assert.deepEqual((await drain(fifo)).map((o) => o.name), ["a", "b"]);
 * ```
 */
export interface Queue<T, P = T> {
  /** Add an object, or replace its accumulated state. @throws {KeyError} */
  add(obj: T): void;
  /** Like {@linkcode Queue.add} for a changed object. @throws {KeyError} */
  update(obj: T): void;
  /** Record the deletion of an object. @throws {KeyError} */
  delete(obj: T): void;
  /**
   * Replace the whole content with `list`, as after a relist
   * (`resourceVersion` is the list's version, unused by in-memory queues).
   * The first `replace` before any other change fixes the initial
   * population that {@linkcode Queue.hasSynced} waits for.
   * @throws {KeyError}
   */
  replace(list: T[], resourceVersion: string): void;
  /** Queue again what needs periodic reprocessing (see each queue). */
  resync(): void;
  /**
   * The current object of every key. A `DeltaFIFO` key whose newest delta
   * is a tombstone lists the {@link DeletedFinalStateUnknown}.
   */
  list(): Array<T | DeletedFinalStateUnknown<T>>;
  /** The keys currently stored. */
  listKeys(): string[];
  /** The accumulator for `obj`'s key, if any. @throws {KeyError} */
  get(obj: T): P | undefined;
  /** The accumulator stored under `key`, if any. */
  getByKey(key: string): P | undefined;
  /**
   * Wait for a key, remove it and its accumulator, and process the
   * accumulator. Resolves with the accumulator.
   * @throws {FIFOClosedError} (rejects) once the queue is closed and empty
   */
  pop(process: PopProcessFunc<P>): Promise<P>;
  /**
   * Queue `item` under its key unless that key already has an accumulator:
   * how a consumer retries without overwriting newer state.
   * @throws {KeyError}
   */
  addIfNotPresent(item: P): void;
  /**
   * Whether the initial population (the first `replace`, or nothing if an
   * add, update, delete or addIfNotPresent came first) has all been popped.
   */
  hasSynced(): boolean;
  /** Close the queue: waiting pops reject once it is empty. */
  close(): void;
  /** Whether {@linkcode Queue.close} was called. */
  isClosed(): boolean;
}

/**
 * A {@link Queue} whose accumulator is simply the latest object of each key
 * (client-go `FIFO`): several adds or updates of one object while its key
 * waits are processed once, with the newest version.
 *
 * Invariants and differences from `DeltaFIFO`:
 * - `delete` drops the object from the store and does not queue anything;
 *   a deleted object is never processed (its key is skipped at pop).
 * - `resync` only makes sure every stored key is queued (a no-op in
 *   practice); `replace` discards everything and queues the new list.
 * - A key keeps its queue position across updates.
 *
 * FIFO solves this use case: process every object once, with its most
 * recent version; do not process deleted objects; no periodic reprocessing.
 *
 * @typeParam T the object type
 *
 * @example Latest version wins
 * ```ts
 * import { FIFO } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * type Item = { name: string; v: number };
 * const fifo = new FIFO<Item>((o) => (o as Item).name);
 * fifo.add({ name: "a", v: 1 });
 * fifo.add({ name: "b", v: 1 });
 * fifo.update({ name: "a", v: 2 });
 * const first = await fifo.pop(() => {});
 * assert.deepEqual(first, { name: "a", v: 2 });
 * assert.deepEqual(fifo.listKeys(), ["b"]);
 * ```
 */
export class FIFO<T> implements Queue<T> {
  /** Stored objects by key. Every key here is also somewhere in `#queue`. */
  #items = new Map<string, T>();
  /**
   * Keys in pop order. May hold keys no longer in `#items` (deleted while
   * queued) and, after a delete and re-add, a key twice; pop skips keys
   * without an item.
   */
  #queue = new Ring<string>();
  #keyFunc: KeyFunc;
  /** True once a replace, add, update, delete or addIfNotPresent happened. */
  #populated = false;
  /** Keys of the first replace not yet popped. */
  #initialPopulationCount = 0;
  #closed = false;
  #wakeup = new Wakeup();
  #pops = new Serial();

  /**
   * Create an empty FIFO (client-go `NewFIFO`).
   * @param keyFunc computes each object's key; what it throws is rethrown
   * as a {@link KeyError}
   * @throws {TypeError} when `keyFunc` is not a function
   */
  constructor(keyFunc: KeyFunc) {
    checkFunction("new FIFO", "keyFunc", keyFunc);
    this.#keyFunc = keyFunc;
  }

  /**
   * Store `obj` and queue its key if it is not queued yet.
   * @throws {KeyError} when the key function fails
   */
  add(obj: T): void {
    const key = computeKey(this.#keyFunc, obj);
    this.#populated = true;
    if (!this.#items.has(key)) this.#queue.push(key);
    this.#items.set(key, obj);
    this.#wakeup.notify();
  }

  /**
   * Same as {@linkcode FIFO.add}.
   * @throws {KeyError} when the key function fails
   */
  update(obj: T): void {
    this.add(obj);
  }

  /**
   * Drop `obj`'s key from the store; nothing is queued.
   * @throws {KeyError} when the key function fails
   */
  delete(obj: T): void {
    const key = computeKey(this.#keyFunc, obj);
    this.#populated = true;
    this.#items.delete(key);
  }

  /**
   * Store `obj` and queue its key unless the key is already stored.
   * @throws {KeyError} when the key function fails
   */
  addIfNotPresent(obj: T): void {
    const key = computeKey(this.#keyFunc, obj);
    this.#addIfNotPresent(key, obj);
  }

  #addIfNotPresent(key: string, obj: T): void {
    this.#populated = true;
    if (this.#items.has(key)) return;
    this.#queue.push(key);
    this.#items.set(key, obj);
    this.#wakeup.notify();
  }

  /**
   * Discard the content and queue `list` instead. The first call before any
   * other change sets the initial population to the number of distinct keys.
   * @param list the new content; the FIFO takes ownership of the objects
   * @param _resourceVersion unused
   * @throws {KeyError} when the key function fails (nothing is changed)
   */
  replace(list: T[], _resourceVersion: string): void {
    const items = new Map<string, T>();
    for (const obj of list) items.set(computeKey(this.#keyFunc, obj), obj);
    if (!this.#populated) {
      this.#populated = true;
      this.#initialPopulationCount = items.size;
    }
    this.#items = items;
    this.#queue.clear();
    for (const key of items.keys()) this.#queue.push(key);
    if (items.size > 0) this.#wakeup.notify();
  }

  /** Queue any stored key that is not queued (normally there is none). */
  resync(): void {
    const queued = new Set(this.#queue.toArray());
    let added = false;
    for (const key of this.#items.keys()) {
      if (queued.has(key)) continue;
      this.#queue.push(key);
      added = true;
    }
    if (added) this.#wakeup.notify();
  }

  /** Every stored object, in no promised order. */
  list(): T[] {
    return [...this.#items.values()];
  }

  /** Every stored key, in no promised order. */
  listKeys(): string[] {
    return [...this.#items.keys()];
  }

  /**
   * The stored object with `obj`'s key.
   * @throws {KeyError} when the key function fails
   */
  get(obj: T): T | undefined {
    return this.#items.get(computeKey(this.#keyFunc, obj));
  }

  /** The stored object under `key`. */
  getByKey(key: string): T | undefined {
    return this.#items.get(key);
  }

  /**
   * Wait for an object, remove it, and run `process` on it; resolves with
   * the object. Objects come out in the order their keys were first queued.
   * See {@link RequeueError} for retries.
   * @throws {FIFOClosedError} (rejects) once closed and empty
   * @throws whatever `process` throws, other than a cause-less RequeueError
   */
  pop(process: PopProcessFunc<T>): Promise<T> {
    return this.#pops.run(() => this.#popOne(process));
  }

  async #popOne(process: PopProcessFunc<T>): Promise<T> {
    while (true) {
      while (this.#queue.size === 0) {
        if (this.#closed) throw new FIFOClosedError();
        await this.#wakeup.wait();
      }
      const key = this.#queue.shift()!;
      if (!this.#items.has(key)) {
        // Deleted while queued: skip it, but it still counts as popped.
        if (this.#initialPopulationCount > 0) this.#initialPopulationCount--;
        continue;
      }
      const item = this.#items.get(key) as T;
      this.#items.delete(key);
      const isInInitialList = !this.hasSynced();
      try {
        const pending = processOrRequeue(process, item, {
          key,
          isInInitialList,
          requeue: () => this.#addIfNotPresent(key, item),
        });
        if (pending !== undefined) await pending;
      } finally {
        // Counted down after process, so hasSynced() turns true only once
        // the last initial item has been handled (client-go holds its lock).
        if (this.#initialPopulationCount > 0) this.#initialPopulationCount--;
      }
      return item;
    }
  }

  /**
   * True once the first `replace`'s objects have all been popped, or right
   * after an add, update, delete or addIfNotPresent that came first.
   */
  hasSynced(): boolean {
    return this.#populated && this.#initialPopulationCount === 0;
  }

  /** Close the FIFO; pops reject with {@link FIFOClosedError} once it is empty. */
  close(): void {
    this.#closed = true;
    this.#wakeup.notify();
  }

  /** Whether {@linkcode FIFO.close} was called. */
  isClosed(): boolean {
    return this.#closed;
  }
}
