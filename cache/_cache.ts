// Internal: the Store/Indexer implementation behind newStore and
// newIndexer, with keyed methods the informers use to compute each key once.
// Not exported from mod.ts.

import { computeKey, type KeyFunc } from "./keys.ts";
import type { Indexers } from "./index.ts";
import {
  newThreadSafeStore,
  type ThreadSafeStore,
  type ThreadSafeStoreOptions,
} from "./thread_safe_store.ts";

/** client-go `cache`: a key function in front of a ThreadSafeStore. */
// Conforms to Indexer<T>: store.ts checks it where newIndexer returns a
// Cache as one (importing the interface here would make a file cycle).
export class Cache<T> {
  readonly #keyFunc: KeyFunc;
  readonly #storage: ThreadSafeStore<T>;

  constructor(
    keyFunc: KeyFunc,
    indexers: Indexers<T>,
    opts: ThreadSafeStoreOptions = {},
  ) {
    this.#keyFunc = keyFunc;
    this.#storage = newThreadSafeStore(indexers, opts);
  }

  add(obj: T): void {
    this.#storage.add(this.#key(obj), obj);
  }

  update(obj: T): void {
    this.#storage.update(this.#key(obj), obj);
  }

  delete(obj: T): void {
    this.#storage.delete(this.#key(obj));
  }

  list(): T[] {
    return this.#storage.list();
  }

  listKeys(): string[] {
    return this.#storage.listKeys();
  }

  get(obj: T): T | undefined {
    return this.#storage.get(this.#key(obj));
  }

  getByKey(key: string): T | undefined {
    return this.#storage.get(key);
  }

  replace(list: T[], resourceVersion: string): void {
    const items = new Map<string, T>();
    for (const obj of list) items.set(this.#key(obj), obj);
    this.#storage.replace(items, resourceVersion);
  }

  resync(): void {
    this.#storage.resync();
  }

  index(indexName: string, obj: T): T[] {
    return this.#storage.index(indexName, obj);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    return this.#storage.indexKeys(indexName, indexedValue);
  }

  listIndexFuncValues(indexName: string): string[] {
    return this.#storage.listIndexFuncValues(indexName);
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    return this.#storage.byIndex(indexName, indexedValue);
  }

  getIndexers(): Indexers<T> {
    return this.#storage.getIndexers();
  }

  addIndexers(newIndexers: Indexers<T>): void {
    this.#storage.addIndexers(newIndexers);
  }

  /** The key of `obj` (or of a tombstone) under this store's key function. */
  keyOf(obj: unknown): string {
    return computeKey(this.#keyFunc, obj);
  }

  /** Store `obj` under `key`, which must be `keyOf(obj)` (add or update). */
  updateByKey(key: string, obj: T): void {
    this.#storage.update(key, obj);
  }

  /** Remove the object under `key`, if any. */
  deleteByKey(key: string): void {
    this.#storage.delete(key);
  }

  #key(obj: T): string {
    return computeKey(this.#keyFunc, obj);
  }
}
