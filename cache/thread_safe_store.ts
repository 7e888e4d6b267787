/**
 * The key-addressed storage behind every `Store` and `Indexer`:
 * a `Map` of objects plus incrementally maintained indexes. Mirrors client-go
 * `tools/cache/thread_safe_store.go` (`ThreadSafeStore`, `threadSafeMap`,
 * `storeIndex`).
 *
 * In JavaScript the "thread safety" of the Go original is simply that no
 * method awaits: each call updates the map and every index before it
 * returns, so no reader ever sees half an update.
 *
 * @module
 */

import { checkIndexers } from "./_validate.ts";
import type { Indexers, IndexFunc } from "./index.ts";

/**
 * Storage addressed by key, with secondary indexes (client-go
 * `cache.ThreadSafeStore`).
 *
 * TL;DR caveats, as in client-go: objects are stored and handed out as they
 * are, never copied. Do not modify an object returned by `get`, `list`,
 * `byIndex` or `index`: the indexes would silently go stale and other
 * readers would see the change.
 *
 * Indexes map index name → indexed value → set of keys. `add`, `update` and
 * `delete` touch only the entries of the object concerned, so their cost
 * does not depend on how many objects are stored.
 *
 * @typeParam T the object type
 *
 * @example The key-addressed map under a Store
 * ```ts
 * import { newThreadSafeStore, type ThreadSafeStore } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * type Obj = { metadata: { name: string; labels: Record<string, string> } };
 * const store: ThreadSafeStore<Obj> = newThreadSafeStore<Obj>({ byApp: (o) => [o.metadata.labels.app] });
 * store.add("default/a", { metadata: { name: "a", labels: { app: "web" } } });
 * store.update("default/a", { metadata: { name: "a", labels: { app: "db" } } });
 * assert.deepEqual(store.indexKeys("byApp", "db"), ["default/a"]);
 * store.delete("default/a");
 * assert.equal(store.get("default/a"), undefined);
 * ```
 */
export interface ThreadSafeStore<T> {
  /**
   * Store `obj` under `key`, replacing any previous object. An index
   * function that throws leaves the object out of that one index only.
   * @throws {IndexFunctionError} when an index function throws and the
   *   store has no `errorHandler` (the object is stored all the same)
   */
  add(key: string, obj: T): void;
  /**
   * Same as {@link ThreadSafeStore.add}.
   * @throws {IndexFunctionError} when an index function throws and the
   *   store has no `errorHandler` (the object is stored all the same)
   */
  update(key: string, obj: T): void;
  /** Remove the object under `key`; a missing key is a no-op. Never throws. */
  delete(key: string): void;
  /** The object under `key`, or `undefined`. */
  get(key: string): T | undefined;
  /** All objects, in insertion order of their keys. */
  list(): T[];
  /** All keys, in insertion order. */
  listKeys(): string[];
  /**
   * Replace the whole content with `items` (key → object) and rebuild every
   * index. The store takes ownership of `items` if it is a `Map`.
   * `resourceVersion` is accepted for interface compatibility and unused.
   * @throws {IndexFunctionError} the first index function error, when the
   *   store has no `errorHandler` (every object is stored all the same)
   */
  replace(
    items: Map<string, T> | Record<string, T>,
    resourceVersion: string,
  ): void;
  /** A no-op, kept for the `Store` interface (client-go does the same). */
  resync(): void;
  /**
   * Objects sharing at least one indexed value with `obj` under `indexName`.
   * @throws {RangeError} when no index is named `indexName`
   */
  index(indexName: string, obj: T): T[];
  /**
   * Keys of the objects filed under `indexedValue` in `indexName`.
   * @throws {RangeError} when no index is named `indexName`
   */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** The indexed values present in `indexName` (`[]` for an unknown index). */
  listIndexFuncValues(indexName: string): string[];
  /**
   * Objects filed under `indexedValue` in `indexName`.
   * @throws {RangeError} when no index is named `indexName`
   */
  byIndex(indexName: string, indexedValue: string): T[];
  /** A copy of the index functions by name. */
  getIndexers(): Indexers<T>;
  /**
   * Add indexes; objects already stored are indexed at once (an object its
   * function throws on is left out of that index).
   * @throws {Error} when a name is already used (nothing is added)
   * @throws {IndexFunctionError} the first index function error, when the
   *   store has no `errorHandler` (the indexes are added all the same)
   */
  addIndexers(newIndexers: Indexers<T>): void;
}

/**
 * An index function threw (`cause` is what it threw). The write goes
 * through all the same: the object is stored, absent from that one index,
 * so a bad index function never makes an object vanish (client-go panics
 * instead). The error goes to the store's `errorHandler` when it has one
 * (an informer's store reports it to the informer's `errorHandler`), else
 * it is thrown once the write is done.
 *
 * @example A throwing index function never drops the object
 * ```ts
 * import { type IndexFunctionError, newThreadSafeStore } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * type Pod = { metadata: { name: string }; spec?: { nodeName: string } };
 * const errors: IndexFunctionError[] = [];
 * const store = newThreadSafeStore<Pod>(
 *   { byNode: (pod) => [pod.spec!.nodeName] }, // throws for a pod without spec
 *   { errorHandler: (err) => errors.push(err) },
 * );
 * store.add("default/web", { metadata: { name: "web" } });
 * assert.equal(store.get("default/web")?.metadata.name, "web"); // stored all the same
 * assert.equal(errors[0].indexName, "byNode");
 * assert.equal(errors[0].key, "default/web");
 * assert.ok(errors[0].cause instanceof TypeError);
 * ```
 */
export class IndexFunctionError extends Error {
  /** The index whose function failed. */
  readonly indexName: string;
  /** The key of the object being indexed. */
  readonly key: string;

  /**
   * Create an index function error.
   * @param indexName the failing index
   * @param key the key of the object being indexed
   * @param cause the error the index function threw
   */
  constructor(indexName: string, key: string, cause: unknown) {
    super(
      `Cannot compute index "${indexName}" for key "${key}": ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause },
    );
    this.name = "IndexFunctionError";
    this.indexName = indexName;
    this.key = key;
  }
}

/** indexed value → keys of the objects filed under it */
type Index = Map<string, Set<string>>;

/**
 * Options of {@link newThreadSafeStore}.
 *
 * @example Hear about a failing index function
 * ```ts
 * import { newThreadSafeStore, type ThreadSafeStoreOptions } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const failures: string[] = [];
 * const opts: ThreadSafeStoreOptions = { errorHandler: (err) => failures.push(err.indexName) };
 * const store = newThreadSafeStore<{ tags?: string[] }>({ byTag: (o) => o.tags!.slice() }, opts);
 * store.add("a", {}); // no tags: the index function throws
 * assert.deepEqual(failures, ["byTag"]);
 * assert.deepEqual(store.listKeys(), ["a"]);
 * ```
 */
export interface ThreadSafeStoreOptions {
  /**
   * Told about each index function that threw during a write (the object is
   * stored all the same, absent from that index). Without it, writes throw
   * the error once done.
   */
  errorHandler?: (error: IndexFunctionError) => void;
}

const NO_VALUES: readonly string[] = [];

class ThreadSafeMap<T> implements ThreadSafeStore<T> {
  #items = new Map<string, T>();
  // Invariant: #indexers and #indices have the same names, and each index
  // holds exactly the values its function gives for the stored objects
  // (none for an object the function threw on); empty key sets are removed
  // so indexes do not grow with churn.
  #indexers = new Map<string, IndexFunc<T>>();
  #indices = new Map<string, Index>();
  #errorHandler: ((error: IndexFunctionError) => void) | undefined;

  constructor(indexers: Indexers<T>, opts: ThreadSafeStoreOptions) {
    for (const [name, fn] of Object.entries(indexers)) {
      this.#indexers.set(name, fn);
      this.#indices.set(name, new Map());
    }
    this.#errorHandler = opts.errorHandler;
  }

  add(key: string, obj: T): void {
    this.update(key, obj);
  }

  update(key: string, obj: T): void {
    const old = this.#items.get(key);
    this.#items.set(key, obj);
    if (this.#indexers.size === 0) return;
    let failures: IndexFunctionError[] | undefined;
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name)!;
      let after: readonly string[];
      try {
        after = fn(obj);
      } catch (err) {
        (failures ??= []).push(new IndexFunctionError(name, key, err));
        after = NO_VALUES;
      }
      if (old === undefined) {
        for (const v of after) addKey(index, v, key);
        continue;
      }
      let before: readonly string[];
      try {
        before = fn(old);
      } catch {
        // The old object's values are unknown: take the key out everywhere
        // (slow, but only after an index function failed).
        removeKeyEverywhere(index, key);
        for (const v of after) addKey(index, v, key);
        continue;
      }
      // Fast path (client-go does the same): one unchanged value, no work.
      if (
        before.length === 1 && after.length === 1 && before[0] === after[0]
      ) continue;
      for (const v of before) removeKey(index, v, key);
      for (const v of after) addKey(index, v, key);
    }
    if (failures) this.#fail(failures);
  }

  delete(key: string): void {
    if (!this.#items.has(key)) return;
    const old = this.#items.get(key)!;
    this.#items.delete(key);
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name)!;
      let before: readonly string[];
      try {
        before = fn(old);
      } catch {
        removeKeyEverywhere(index, key);
        continue;
      }
      for (const v of before) removeKey(index, v, key);
    }
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  list(): T[] {
    return Array.from(this.#items.values());
  }

  listKeys(): string[] {
    return Array.from(this.#items.keys());
  }

  replace(
    items: Map<string, T> | Record<string, T>,
    _resourceVersion: string,
  ): void {
    const next = items instanceof Map
      ? items
      : new Map<string, T>(Object.entries(items));
    const indices = new Map<string, Index>();
    let failures: IndexFunctionError[] | undefined;
    for (const [name, fn] of this.#indexers) {
      const index: Index = new Map();
      for (const [key, obj] of next) {
        failures = fillIndex(index, name, fn, key, obj, failures);
      }
      indices.set(name, index);
    }
    this.#items = next;
    this.#indices = indices;
    if (failures) this.#fail(failures);
  }

  resync(): void {}

  index(indexName: string, obj: T): T[] {
    const fn = this.#indexerOrThrow(indexName, "look up objects by index");
    const index = this.#indices.get(indexName)!;
    const values = fn(obj);
    if (values.length === 1) {
      return this.#objects(index.get(values[0]));
    }
    const keys = new Set<string>();
    for (const v of values) {
      for (const k of index.get(v) ?? []) keys.add(k);
    }
    return this.#objects(keys);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    this.#indexerOrThrow(indexName, "list index keys");
    const keys = this.#indices.get(indexName)!.get(indexedValue);
    return keys ? Array.from(keys) : [];
  }

  listIndexFuncValues(indexName: string): string[] {
    const index = this.#indices.get(indexName);
    return index ? Array.from(index.keys()) : [];
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    this.#indexerOrThrow(indexName, "list objects by index");
    return this.#objects(this.#indices.get(indexName)!.get(indexedValue));
  }

  getIndexers(): Indexers<T> {
    return Object.fromEntries(this.#indexers);
  }

  addIndexers(newIndexers: Indexers<T>): void {
    const names = Object.keys(newIndexers);
    const conflicts = names.filter((n) => this.#indexers.has(n));
    if (conflicts.length > 0) {
      throw new Error(
        `Cannot add indexers: index names already in use: ${
          conflicts.join(", ")
        }`,
      );
    }
    let failures: IndexFunctionError[] | undefined;
    for (const name of names) {
      const fn = newIndexers[name];
      const index: Index = new Map();
      for (const [key, obj] of this.#items) {
        failures = fillIndex(index, name, fn, key, obj, failures);
      }
      this.#indexers.set(name, fn);
      this.#indices.set(name, index);
    }
    if (failures) this.#fail(failures);
  }

  #indexerOrThrow(indexName: string, action: string): IndexFunc<T> {
    const fn = this.#indexers.get(indexName);
    if (!fn) {
      throw new RangeError(
        `Cannot ${action}: index with name "${indexName}" does not exist`,
      );
    }
    return fn;
  }

  // Called once a write is complete, so the handler sees a consistent store.
  #fail(failures: IndexFunctionError[]): void {
    const handler = this.#errorHandler;
    if (handler === undefined) throw failures[0];
    for (const failure of failures) handler(failure);
  }

  #objects(keys: Set<string> | undefined): T[] {
    const out: T[] = [];
    if (keys) { for (const k of keys) out.push(this.#items.get(k)!); }
    return out;
  }
}

/** Index `obj` under `key`; a throwing function leaves it out, noted in `failures`. */
function fillIndex<T>(
  index: Index,
  name: string,
  fn: IndexFunc<T>,
  key: string,
  obj: T,
  failures: IndexFunctionError[] | undefined,
): IndexFunctionError[] | undefined {
  let values: readonly string[];
  try {
    values = fn(obj);
  } catch (err) {
    (failures ??= []).push(new IndexFunctionError(name, key, err));
    return failures;
  }
  for (const v of values) addKey(index, v, key);
  return failures;
}

function addKey(index: Index, value: string, key: string): void {
  let keys = index.get(value);
  if (!keys) index.set(value, keys = new Set());
  keys.add(key);
}

function removeKey(index: Index, value: string, key: string): void {
  const keys = index.get(value);
  if (!keys) return;
  keys.delete(key);
  if (keys.size === 0) index.delete(value);
}

function removeKeyEverywhere(index: Index, key: string): void {
  for (const [value, keys] of index) {
    if (keys.delete(key) && keys.size === 0) index.delete(value);
  }
}

/**
 * Create a {@link ThreadSafeStore} with the given indexes (client-go
 * `NewThreadSafeStore`). Most code wants a `Store` or `Indexer`
 * (`newStore`, `newIndexer`), which compute keys from objects.
 *
 * @example
 * ```ts
 * import { newThreadSafeStore } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * type Pod = { metadata: { name: string; namespace: string }; node: string };
 * const store = newThreadSafeStore<Pod>({ node: (p) => [p.node] });
 * store.add("ns/a", { metadata: { name: "a", namespace: "ns" }, node: "n1" });
 * store.add("ns/b", { metadata: { name: "b", namespace: "ns" }, node: "n2" });
 * assert.deepEqual(store.indexKeys("node", "n1"), ["ns/a"]);
 * store.delete("ns/a");
 * assert.deepEqual(store.listIndexFuncValues("node"), ["n2"]);
 * ```
 *
 * @typeParam T the object type
 * @param indexers index functions by name (default none)
 * @param opts `errorHandler`: told about index functions that throw
 * @returns an empty store
 * @throws {TypeError} when an index function is not a function
 */
export function newThreadSafeStore<T>(
  indexers: Indexers<T> = {},
  opts: ThreadSafeStoreOptions = {},
): ThreadSafeStore<T> {
  checkIndexers("newThreadSafeStore", "indexers", indexers);
  return new ThreadSafeMap(indexers, opts);
}
