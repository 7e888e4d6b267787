/**
 * {@link Heap}: a keyed priority queue (client-go `tools/cache/heap.go`).
 *
 * @module
 */

import { checkFunction } from "./_validate.ts";
import type { KeyFunc } from "./keys.ts";
import { FIFOClosedError } from "./fifo.ts";
import { Wakeup } from "./_queue.ts";
import { computeKey } from "./keys.ts";

interface Entry<T> {
  key: string;
  obj: T;
  /** Position in the heap array, kept in step by every move. */
  index: number;
}

/**
 * A producer-consumer priority queue of keyed objects (client-go `Heap`):
 * a binary heap ordered by `lessFunc`, plus a map from key to heap position,
 * so adding, updating or deleting any object by key costs O(log n).
 *
 * Invariants:
 * - each key is stored at most once; `add` of a stored key updates the
 *   object in place and restores the heap order;
 * - `pop` hands out the object for which `lessFunc` holds against all
 *   others (ties in no promised order) and waits while the heap is empty;
 * - after `close`, adds throw, objects already stored still pop, and then
 *   `pop` rejects with {@link FIFOClosedError}.
 *
 * @typeParam T the object type
 *
 * @example Smallest first
 * ```ts
 * import { Heap } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * type Job = { name: string; priority: number };
 * const heap = new Heap<Job>(
 *   (o) => (o as Job).name,
 *   (a, b) => a.priority < b.priority,
 * );
 * heap.add({ name: "b", priority: 2 });
 * heap.add({ name: "a", priority: 5 });
 * heap.update({ name: "a", priority: 1 });
 * assert.equal((await heap.pop()).name, "a");
 * assert.equal((await heap.pop()).name, "b");
 * ```
 */
export class Heap<T> {
  /** The binary heap: `#entries[0]` is the least. */
  #entries: Entry<T>[] = [];
  /** Key → entry; exactly the keys of `#entries`. */
  #byKey = new Map<string, Entry<T>>();
  #keyFunc: KeyFunc;
  #lessFunc: (a: T, b: T) => boolean;
  #closed = false;
  #wakeup = new Wakeup();

  /**
   * Create an empty heap (client-go `NewHeap`).
   * @param keyFunc computes each object's key; what it throws is rethrown
   * as a {@link KeyError}
   * @param lessFunc whether `a` must pop before `b`
   * @throws {TypeError} when `keyFunc` or `lessFunc` is not a function
   */
  constructor(keyFunc: KeyFunc, lessFunc: (a: T, b: T) => boolean) {
    checkFunction("new Heap", "keyFunc", keyFunc);
    checkFunction("new Heap", "lessFunc", lessFunc);
    this.#keyFunc = keyFunc;
    this.#lessFunc = lessFunc;
  }

  /**
   * Insert `obj`, or replace the stored object with the same key.
   * @throws {FIFOClosedError} when the heap is closed
   * @throws {KeyError} when the key function fails
   */
  add(obj: T): void {
    this.#throwIfClosed("add to");
    this.#upsert(computeKey(this.#keyFunc, obj), obj);
    this.#wakeup.notify();
  }

  /**
   * Insert or update every object of `list`, then wake waiting pops, so a
   * consumer sees the whole batch in heap order.
   * @throws {FIFOClosedError} when the heap is closed
   * @throws {KeyError} when the key function fails (nothing is added)
   */
  bulkAdd(list: T[]): void {
    this.#throwIfClosed("add to");
    const keys = list.map((obj) => computeKey(this.#keyFunc, obj));
    list.forEach((obj, i) => this.#upsert(keys[i], obj));
    if (list.length > 0) this.#wakeup.notify();
  }

  /**
   * Insert `obj` unless an object with its key is stored (then nothing
   * changes): how a consumer retries without overwriting newer state.
   * @throws {FIFOClosedError} when the heap is closed
   * @throws {KeyError} when the key function fails
   */
  addIfNotPresent(obj: T): void {
    this.#throwIfClosed("add to");
    const key = computeKey(this.#keyFunc, obj);
    if (this.#byKey.has(key)) return;
    this.#push(key, obj);
    this.#wakeup.notify();
  }

  /**
   * Same as {@linkcode Heap.add}.
   * @throws {FIFOClosedError} when the heap is closed
   * @throws {KeyError} when the key function fails
   */
  update(obj: T): void {
    this.add(obj);
  }

  /**
   * Remove the object with `obj`'s key (the rest of `obj` is ignored).
   * @throws {RangeError} when no object has that key
   * @throws {KeyError} when the key function fails
   */
  delete(obj: T): void {
    const key = computeKey(this.#keyFunc, obj);
    const entry = this.#byKey.get(key);
    if (entry === undefined) {
      throw new RangeError(
        `Cannot delete from heap: no object with key "${key}"`,
      );
    }
    this.#removeAt(entry.index);
  }

  /**
   * Wait for an object and remove the least one. Objects stored when the
   * heap is closed still pop.
   * @throws {FIFOClosedError} (rejects) once the heap is closed and empty
   */
  async pop(): Promise<T> {
    while (this.#entries.length === 0) {
      if (this.#closed) {
        throw new FIFOClosedError("Cannot pop from heap: heap is closed");
      }
      await this.#wakeup.wait();
    }
    return this.#removeAt(0);
  }

  /** Every stored object, in no promised order. */
  list(): T[] {
    return this.#entries.map((e) => e.obj);
  }

  /** Every stored key, in no promised order. */
  listKeys(): string[] {
    return this.#entries.map((e) => e.key);
  }

  /**
   * The stored object with `obj`'s key.
   * @throws {KeyError} when the key function fails
   */
  get(obj: T): T | undefined {
    return this.getByKey(computeKey(this.#keyFunc, obj));
  }

  /** The stored object under `key`. */
  getByKey(key: string): T | undefined {
    return this.#byKey.get(key)?.obj;
  }

  /** Close the heap: adds throw; pops reject once it is empty. */
  close(): void {
    this.#closed = true;
    this.#wakeup.notify();
  }

  /** Whether {@linkcode Heap.close} was called. */
  isClosed(): boolean {
    return this.#closed;
  }

  #throwIfClosed(action: string): void {
    if (this.#closed) {
      throw new FIFOClosedError(`Cannot ${action} heap: heap is closed`);
    }
  }

  #upsert(key: string, obj: T): void {
    const entry = this.#byKey.get(key);
    if (entry === undefined) {
      this.#push(key, obj);
    } else {
      entry.obj = obj;
      this.#fix(entry.index);
    }
  }

  #push(key: string, obj: T): void {
    const entry = { key, obj, index: this.#entries.length };
    this.#entries.push(entry);
    this.#byKey.set(key, entry);
    this.#up(entry.index);
  }

  /** Remove the entry at `i` and return its object. */
  #removeAt(i: number): T {
    const entries = this.#entries;
    const removed = entries[i];
    const last = entries.pop()!;
    this.#byKey.delete(removed.key);
    if (last !== removed) {
      // Fill the hole with the last entry and restore the order around it.
      entries[i] = last;
      last.index = i;
      this.#fix(i);
    }
    return removed.obj;
  }

  /** Restore heap order around `i` after its object changed. */
  #fix(i: number): void {
    if (!this.#down(i)) this.#up(i);
  }

  /** Sift the entry at `i` towards the root, moving parents down. */
  #up(i: number): void {
    const entries = this.#entries;
    const entry = entries[i];
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#lessFunc(entry.obj, entries[parent].obj)) break;
      this.#place(entries[parent], i);
      i = parent;
    }
    this.#place(entry, i);
  }

  /** Sift the entry at `i` towards the leaves; returns whether it moved. */
  #down(i: number): boolean {
    const entries = this.#entries;
    const n = entries.length;
    const entry = entries[i];
    const start = i;
    while (true) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child =
        right < n && this.#lessFunc(entries[right].obj, entries[left].obj)
          ? right
          : left;
      if (!this.#lessFunc(entries[child].obj, entry.obj)) break;
      this.#place(entries[child], i);
      i = child;
    }
    this.#place(entry, i);
    return i > start;
  }

  #place(entry: Entry<T>, i: number): void {
    this.#entries[i] = entry;
    entry.index = i;
  }
}
