/**
 * {@link Ring}, the one FIFO buffer of the library: the key queues of FIFO
 * and DeltaFIFO, the notification buffer of each informer handler, and the
 * queue of a WorkQueue. In api/ because it is the one layer cache/ and
 * workqueue/ both build on; not exported from an entry point.
 *
 * @module
 */

/**
 * A growable ring buffer (k8s.io/utils `buffer.RingGrowing`): O(1)
 * amortised push and shift, unlike `Array.shift`, which is O(n) on a large
 * array. The capacity is a power of two that doubles when full; a buffer
 * that empties and refills (one item per watch event) reuses its slots and
 * allocates nothing per item. A shifted slot is cleared, so the buffer
 * never keeps an object alive.
 *
 * @typeParam T the items
 */
export class Ring<T> {
  #slots: (T | undefined)[];
  #head = 0;
  #size = 0;

  /** @param initialCapacity slots to start with (rounded up to a power of two) */
  constructor(initialCapacity = 16) {
    this.#slots = new Array(capacityFor(initialCapacity));
  }

  /** Number of items waiting. */
  get size(): number {
    return this.#size;
  }

  /** Append an item at the tail. */
  push(item: T): void {
    if (this.#size === this.#slots.length) this.#grow();
    this.#slots[(this.#head + this.#size) & (this.#slots.length - 1)] = item;
    this.#size++;
  }

  /** Remove and return the head item, or `undefined` when empty. */
  shift(): T | undefined {
    if (this.#size === 0) return undefined;
    const item = this.#slots[this.#head];
    this.#slots[this.#head] = undefined;
    this.#head = (this.#head + 1) & (this.#slots.length - 1);
    this.#size--;
    return item;
  }

  /** The waiting items, head first (a copy). */
  toArray(): T[] {
    const out: T[] = new Array(this.#size);
    const mask = this.#slots.length - 1;
    for (let i = 0; i < this.#size; i++) {
      out[i] = this.#slots[(this.#head + i) & mask] as T;
    }
    return out;
  }

  /** Drop every item (and the grown capacity). */
  clear(): void {
    this.#slots = new Array(16);
    this.#head = 0;
    this.#size = 0;
  }

  #grow(): void {
    const old = this.#slots;
    const mask = old.length - 1;
    const next: (T | undefined)[] = new Array(old.length * 2);
    for (let i = 0; i < this.#size; i++) next[i] = old[(this.#head + i) & mask];
    this.#slots = next;
    this.#head = 0;
  }
}

function capacityFor(n: number): number {
  let cap = 1;
  while (cap < n) cap *= 2;
  return cap;
}
