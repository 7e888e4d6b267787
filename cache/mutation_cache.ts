/**
 * A read-your-writes overlay on an informer's cache (client-go
 * `tools/cache/mutation_cache.go`): after a controller writes an object to
 * the server, it records the server's answer here, and reads return that
 * answer until the informer's cache catches up with it (or it expires).
 *
 * @module
 */

import { type Clock, realClock } from "../api/clock.ts";
import { deletionHandlingMetaNamespaceKeyFunc } from "./keys.ts";
import type { KubeObject } from "../api/object.ts";
import type { Indexer, Store } from "./store.ts";

/**
 * Reads that prefer the newer of the backing cache and recorded mutations
 * (client-go `cache.MutationCache`).
 *
 * @typeParam T the object type
 *
 * @example Read your write before the informer sees it
 * ```ts
 * import { type KubeObject, metaNamespaceKeyFunc, type MutationCache, newIntegerResourceVersionMutationCache, newStore } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const informerStore = newStore<KubeObject>(metaNamespaceKeyFunc);
 * informerStore.add({ metadata: { name: "a", resourceVersion: "4" } });
 * const cache: MutationCache<KubeObject> = newIntegerResourceVersionMutationCache(informerStore, { ttl: 60_000 });
 * cache.mutation({ metadata: { name: "a", resourceVersion: "5" } }); // what our update returned
 * assert.equal(cache.getByKey("a")?.metadata.resourceVersion, "5"); // newer than the informer's
 * ```
 */
export interface MutationCache<T extends KubeObject> {
  /**
   * The newer of the cached object and the recorded mutation under `key`.
   * A key absent from the backing cache is absent here too, unless
   * `includeAdds` was set.
   */
  getByKey(key: string): T | undefined;
  /**
   * {@link MutationCache.getByKey} for every object in an index bucket.
   * @throws {Error} when no indexer was given
   */
  byIndex(indexName: string, indexedValue: string): T[];
  /** Record an object the server returned from a write. */
  mutation(obj: T): void;
}

/**
 * Options of {@link newIntegerResourceVersionMutationCache}.
 *
 * @example Keep your own writes for a minute
 * ```ts
 * import { type KubeObject, metaNamespaceKeyFunc, type MutationCacheOptions, newIntegerResourceVersionMutationCache, newStore } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const opts: MutationCacheOptions<KubeObject> = { ttl: 60_000, includeAdds: true, maxSize: 100 };
 * const cache = newIntegerResourceVersionMutationCache(newStore<KubeObject>(metaNamespaceKeyFunc), opts);
 * cache.mutation({ metadata: { name: "a", resourceVersion: "5" } });
 * assert.equal(cache.getByKey("a")?.metadata.resourceVersion, "5");
 * ```
 */
export interface MutationCacheOptions<T> {
  /** Index lookups for `byIndex`; usually the same informer's Indexer. */
  indexer?: Indexer<T>;
  /** How long a recorded mutation is kept (ms). */
  ttl: number;
  /**
   * Return recorded objects even when the backing cache lacks the key
   * (a create it has not seen yet). Only safe if a deleted object showing
   * up for up to `ttl` is acceptable. Default false.
   */
  includeAdds?: boolean;
  /** How many mutations are kept at most (least recently used go first). Default 100. */
  maxSize?: number;
  /** Clock for expiry. Default: the real clock. */
  clock?: Clock;
}

/**
 * A {@link MutationCache} for objects whose resourceVersion is an integer
 * that grows with each write, as with etcd (client-go
 * `NewIntegerResourceVersionMutationCache`).
 *
 * @typeParam T the object type
 * @param backingCache the informer's store
 * @param opts ttl, indexer, includeAdds, size, clock
 * @returns the mutation cache
 * @throws {RangeError} when `ttl` is negative
 *
 * @example
 * ```ts
 * import {
 *   newIntegerResourceVersionMutationCache,
 *   newStore,
 *   metaNamespaceKeyFunc,
 *   type KubeObject,
 * } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const store = newStore<KubeObject>(metaNamespaceKeyFunc);
 * store.add({ metadata: { name: "a", resourceVersion: "5" } });
 * const cache = newIntegerResourceVersionMutationCache(store, { ttl: 60_000 });
 * cache.mutation({ metadata: { name: "a", resourceVersion: "7" } }); // our write's result
 * assert.equal(cache.getByKey("a")?.metadata.resourceVersion, "7");
 * store.update({ metadata: { name: "a", resourceVersion: "9" } }); // the informer caught up
 * assert.equal(cache.getByKey("a")?.metadata.resourceVersion, "9");
 * ```
 */
export function newIntegerResourceVersionMutationCache<T extends KubeObject>(
  backingCache: Store<T>,
  opts: MutationCacheOptions<T>,
): MutationCache<T> {
  if (!(opts.ttl >= 0)) {
    throw new RangeError(
      `Cannot create mutation cache: ttl must be >= 0 ms, got ${opts.ttl}`,
    );
  }
  return new IntegerRVMutationCache(backingCache, opts);
}

class IntegerRVMutationCache<T extends KubeObject> implements MutationCache<T> {
  #backing: Store<T>;
  #indexer: Indexer<T> | undefined;
  #ttl: number;
  #includeAdds: boolean;
  #maxSize: number;
  #clock: Clock;
  // key → mutation; Map order is recency order (oldest first), an LRU.
  #mutations = new Map<string, { obj: T; expires: number }>();

  constructor(backing: Store<T>, opts: MutationCacheOptions<T>) {
    this.#backing = backing;
    this.#indexer = opts.indexer;
    this.#ttl = opts.ttl;
    this.#includeAdds = opts.includeAdds ?? false;
    this.#maxSize = opts.maxSize ?? 100;
    this.#clock = opts.clock ?? realClock;
  }

  getByKey(key: string): T | undefined {
    let obj = this.#backing.getByKey(key);
    if (obj === undefined) {
      // "Never created" and "deleted after create" look the same, so a
      // missing key stays missing unless adds are wanted.
      return this.#includeAdds ? this.#get(key) : undefined;
    }
    obj = this.#newer(key, obj);
    return obj;
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    const indexer = this.#indexer;
    if (!indexer) {
      throw new Error(
        `Cannot look up index "${indexName}": no indexer was given to the mutation cache`,
      );
    }
    const keys = indexer.indexKeys(indexName, indexedValue);
    const items: T[] = [];
    for (const key of keys) {
      const obj = indexer.getByKey(key);
      if (obj !== undefined) items.push(this.#newer(key, obj));
    }
    if (this.#includeAdds) {
      const inIndex = new Set(keys);
      const indexFunc = indexer.getIndexers()[indexName];
      for (const key of [...this.#mutations.keys()]) {
        if (inIndex.has(key)) continue;
        const obj = this.#get(key);
        if (obj === undefined) continue;
        try {
          if (indexFunc(obj).includes(indexedValue)) items.push(obj);
        } catch {
          // an unindexable mutation is simply not part of the answer
        }
      }
    }
    return items;
  }

  mutation(obj: T): void {
    let key: string;
    try {
      key = deletionHandlingMetaNamespaceKeyFunc(obj);
    } catch (error) {
      // A nice-to-have: an unkeyable object is reported, never thrown.
      console.error("Mutation cache could not key object:", error);
      return;
    }
    const current = this.#get(key);
    if (current !== undefined && compareRV(obj, current) < 0) return;
    this.#mutations.delete(key);
    this.#mutations.set(key, { obj, expires: this.#clock.now() + this.#ttl });
    if (this.#mutations.size > this.#maxSize) {
      const oldest = this.#mutations.keys().next().value as string;
      this.#mutations.delete(oldest);
    }
  }

  // The mutation wins only while it is newer than the backing object; an
  // outdated one is dropped.
  #newer(key: string, backing: T): T {
    const mutated = this.#get(key);
    if (mutated === undefined) return backing;
    if (compareRV(backing, mutated) >= 0) {
      this.#mutations.delete(key);
      return backing;
    }
    return mutated;
  }

  #get(key: string): T | undefined {
    const entry = this.#mutations.get(key);
    if (!entry) return undefined;
    if (this.#clock.now() > entry.expires) {
      this.#mutations.delete(key);
      return undefined;
    }
    this.#mutations.delete(key); // refresh recency
    this.#mutations.set(key, entry);
    return entry.obj;
  }
}

function rvOf(obj: KubeObject): bigint {
  const rv = obj.metadata?.resourceVersion ?? "";
  if (rv === "") return 0n;
  if (!/^\d+$/.test(rv)) {
    throw new TypeError(
      `Cannot compare resourceVersions: expected an unsigned integer, got "${rv}"`,
    );
  }
  return BigInt(rv);
}

function compareRV(a: KubeObject, b: KubeObject): number {
  const x = rvOf(a);
  const y = rvOf(b);
  return x === y ? 0 : x < y ? -1 : 1;
}
