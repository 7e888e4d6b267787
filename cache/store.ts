/**
 * Object stores keyed by a {@link KeyFunc}: {@link Store} and its indexed
 * form {@link Indexer}, and their reading halves {@link ReadonlyStore} and
 * {@link ReadonlyIndexer}. Mirrors client-go `tools/cache/store.go`
 * (`Store`, `NewStore`, `NewIndexer`) and `index.go` (`Indexer`); the
 * reader/writer split is kube-rs's.
 *
 * @module
 */

import { checkFunction, checkIndexers } from "./_validate.ts";
import type { DeepReadonly } from "../api/readonly.ts";
import type { KeyFunc } from "./keys.ts";
import type { Indexers } from "./index.ts";
import { Cache } from "./_cache.ts";

/**
 * A generic object store (client-go `cache.Store`): objects are addressed by
 * the key its key function computes. Objects are shared, never copied:
 * callers must not modify what `get` or `list` return.
 *
 * `add` and `update` both store the object under its key; `delete` of an
 * absent object is a no-op; `replace` swaps the whole content at once and
 * takes ownership of the list.
 *
 * @typeParam T the object type
 *
 * @example A keyed store of objects
 * ```ts
 * import { metaNamespaceKeyFunc, newStore, type Store } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * type Obj = { metadata: { name: string; namespace: string; resourceVersion?: string } };
 * const store: Store<Obj> = newStore(metaNamespaceKeyFunc);
 * store.add({ metadata: { name: "a", namespace: "default" } });
 * store.update({ metadata: { name: "a", namespace: "default", resourceVersion: "2" } });
 * assert.equal(store.getByKey("default/a")?.metadata.resourceVersion, "2");
 * store.replace([{ metadata: { name: "b", namespace: "default" } }], "3");
 * assert.deepEqual(store.listKeys(), ["default/b"]);
 * ```
 */
export interface Store<T> {
  /**
   * Store `obj` under its key.
   * @throws {KeyError} when the key function throws
   */
  add(obj: T): void;
  /**
   * Store `obj` under its key, replacing the previous object.
   * @throws {KeyError} when the key function throws
   */
  update(obj: T): void;
  /**
   * Remove the object with `obj`'s key; absent is a no-op.
   * @throws {KeyError} when the key function throws
   */
  delete(obj: T): void;
  /** All stored objects. */
  list(): T[];
  /** All keys. */
  listKeys(): string[];
  /**
   * The stored object with `obj`'s key, or `undefined`.
   * @throws {KeyError} when the key function throws
   */
  get(obj: T): T | undefined;
  /** The stored object under `key`, or `undefined`. */
  getByKey(key: string): T | undefined;
  /**
   * Replace the whole content with `list`. `resourceVersion` is the list's
   * version, unused by plain stores.
   * @throws {KeyError} when the key function throws on an item (nothing changes)
   */
  replace(list: T[], resourceVersion: string): void;
  /** Meaningless for plain stores; queues use it to re-deliver items. */
  resync(): void;
}

/**
 * A {@link Store} with secondary indexes (client-go `cache.Indexer`).
 * Index lookups are served from maps maintained on every change, never from
 * a scan.
 *
 * @typeParam T the object type
 *
 * @example Look objects up by an index
 * ```ts
 * import { type Indexer, metaNamespaceKeyFunc, newIndexer } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * type Pod = { metadata: { name: string; namespace: string }; spec: { nodeName: string } };
 * const pods: Indexer<Pod> = newIndexer(metaNamespaceKeyFunc, {
 *   byNode: (pod) => [pod.spec.nodeName],
 * });
 * pods.add({ metadata: { name: "web-1", namespace: "default" }, spec: { nodeName: "node-a" } });
 * pods.add({ metadata: { name: "web-2", namespace: "default" }, spec: { nodeName: "node-b" } });
 * assert.deepEqual(pods.indexKeys("byNode", "node-a"), ["default/web-1"]);
 * assert.deepEqual(pods.listIndexFuncValues("byNode").sort(), ["node-a", "node-b"]);
 * ```
 */
export interface Indexer<T> extends Store<T> {
  /**
   * Objects sharing at least one indexed value with `obj` in `indexName`.
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
   * Add indexes; objects already stored are indexed at once.
   * @throws {Error} when an index name is already in use (nothing is added)
   */
  addIndexers(newIndexers: Indexers<T>): void;
}

/**
 * Create a {@link Store} (client-go `NewStore`).
 *
 * @example
 * ```ts
 * import { newStore, metaNamespaceKeyFunc } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const store = newStore(metaNamespaceKeyFunc);
 * store.add({ metadata: { namespace: "ns", name: "a" } });
 * assert.deepEqual(store.listKeys(), ["ns/a"]);
 * assert.ok(store.getByKey("ns/a"));
 * ```
 *
 * @typeParam T the object type
 * @param keyFunc computes each object's key, e.g. `metaNamespaceKeyFunc`
 * @returns an empty store
 * @throws {TypeError} when `keyFunc` is not a function
 */
export function newStore<T>(keyFunc: KeyFunc): Store<T> {
  checkFunction("newStore", "keyFunc", keyFunc);
  return new Cache<T>(keyFunc, {});
}

/**
 * Create an {@link Indexer} (client-go `NewIndexer`).
 *
 * @example Pods by namespace and by node
 * ```ts
 * import {
 *   newIndexer,
 *   metaNamespaceKeyFunc,
 *   metaNamespaceIndexFunc,
 *   NAMESPACE_INDEX,
 * } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * type Pod = { metadata: { name: string; namespace: string }; spec: { nodeName: string } };
 * const pods = newIndexer<Pod>(metaNamespaceKeyFunc, {
 *   [NAMESPACE_INDEX]: metaNamespaceIndexFunc,
 *   node: (p) => [p.spec.nodeName],
 * });
 * pods.add({ metadata: { namespace: "a", name: "p1" }, spec: { nodeName: "n1" } });
 * pods.add({ metadata: { namespace: "b", name: "p2" }, spec: { nodeName: "n1" } });
 * assert.deepEqual(pods.indexKeys("node", "n1"), ["a/p1", "b/p2"]);
 * assert.equal(pods.byIndex(NAMESPACE_INDEX, "b")[0].metadata.name, "p2");
 * ```
 *
 * @typeParam T the object type
 * @param keyFunc computes each object's key, e.g. `metaNamespaceKeyFunc`
 * @param indexers index functions by name
 * @returns an empty indexer
 * @throws {TypeError} when `keyFunc` or an index function is not a function
 */
export function newIndexer<T>(
  keyFunc: KeyFunc,
  indexers: Indexers<T>,
): Indexer<T> {
  checkFunction("newIndexer", "keyFunc", keyFunc);
  checkIndexers("newIndexer", "indexers", indexers);
  return new Cache<T>(keyFunc, indexers);
}

/**
 * The reading half of a {@link Store}: what an informer hands out
 * (`getStore()`), while it keeps the writing half to itself (kube-rs
 * `reflector::Store` vs `Writer`; client-go only says "do not write"). The
 * objects are the cached ones, typed {@link DeepReadonly}; copy one with
 * `deepCopy` to change it.
 *
 * @typeParam T the object type
 *
 * @example What getStore() hands out
 * ```ts
 * import { type KubeObject, newSharedIndexInformer, type ReadonlyStore } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const store: ReadonlyStore<KubeObject> = newSharedIndexInformer(new FakeControllerSource<KubeObject>()).getStore();
 * assert.equal("add" in store, false); // only the informer writes
 * assert.deepEqual(store.listKeys(), []);
 * ```
 */
export interface ReadonlyStore<T> {
  /** Every object, in no particular order (a new array each call). */
  list(): DeepReadonly<T>[];
  /** Every key. */
  listKeys(): string[];
  /**
   * The stored object with `obj`'s key, or `undefined`.
   * @throws {KeyError} when the key function throws
   */
  get(obj: T | DeepReadonly<T>): DeepReadonly<T> | undefined;
  /** The object stored under `key`, or `undefined`. */
  getByKey(key: string): DeepReadonly<T> | undefined;
}

/**
 * The reading half of an {@link Indexer}: what an informer hands out
 * (`getIndexer()`, and listers read through it). See {@link ReadonlyStore}.
 *
 * @typeParam T the object type
 *
 * @example A read-only view of your own indexer
 * ```ts
 * import { metaNamespaceKeyFunc, newIndexer, readonlyIndexer, type ReadonlyIndexer } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const indexer = newIndexer<{ metadata: { name: string } }>(metaNamespaceKeyFunc, {});
 * indexer.add({ metadata: { name: "a" } });
 * const view: ReadonlyIndexer<{ metadata: { name: string } }> = readonlyIndexer(indexer);
 * assert.equal(view.getByKey("a")?.metadata.name, "a");
 * assert.equal(Object.isFrozen(view), true);
 * ```
 */
export interface ReadonlyIndexer<T> extends ReadonlyStore<T> {
  /**
   * Objects sharing at least one indexed value with `obj` in `indexName`.
   * @throws {RangeError} when no index is named `indexName`
   */
  index(indexName: string, obj: T | DeepReadonly<T>): DeepReadonly<T>[];
  /**
   * Keys of the objects filed under `indexedValue` in `indexName`.
   * @throws {RangeError} when no index is named `indexName`
   */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Every value `indexName` files objects under. */
  listIndexFuncValues(indexName: string): string[];
  /**
   * Objects filed under `indexedValue` in `indexName`.
   * @throws {RangeError} when no index is named `indexName`
   */
  byIndex(indexName: string, indexedValue: string): DeepReadonly<T>[];
  /** The index functions by name. */
  getIndexers(): Indexers<T>;
}

/**
 * A read-only handle on an indexer: only the reading methods exist on it,
 * in the type and at run time (`add`, `update`, `delete`, `replace`,
 * `resync` and `addIndexers` are absent, not merely typed away), and
 * every object it returns is typed {@link DeepReadonly}. Reads go straight
 * to `indexer`: the handle copies nothing.
 *
 * @example Hand out the cache without its write methods
 * ```ts
 * import { metaNamespaceKeyFunc, newIndexer, readonlyIndexer, type KubeObject } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const indexer = newIndexer<KubeObject>(metaNamespaceKeyFunc, {});
 * indexer.add({ metadata: { namespace: "ns", name: "a" } });
 * const reader = readonlyIndexer(indexer);
 * assert.equal(reader.getByKey("ns/a")?.metadata.name, "a");
 * assert.equal("add" in reader, false);
 * ```
 *
 * @typeParam T the object type
 * @param indexer the indexer to read
 * @returns a frozen handle with the reading methods of `indexer`
 */
export function readonlyIndexer<T>(indexer: Indexer<T>): ReadonlyIndexer<T> {
  // One cast here instead of at every reader: the objects are the same,
  // only their type says they must not be written.
  const ro = (objs: T[]) => objs as DeepReadonly<T>[];
  return Object.freeze({
    list: () => ro(indexer.list()),
    listKeys: () => indexer.listKeys(),
    get: (obj: T | DeepReadonly<T>) =>
      indexer.get(obj as T) as DeepReadonly<T> | undefined,
    getByKey: (key: string) =>
      indexer.getByKey(key) as DeepReadonly<T> | undefined,
    index: (indexName: string, obj: T | DeepReadonly<T>) =>
      ro(indexer.index(indexName, obj as T)),
    indexKeys: (indexName: string, indexedValue: string) =>
      indexer.indexKeys(indexName, indexedValue),
    listIndexFuncValues: (indexName: string) =>
      indexer.listIndexFuncValues(indexName),
    byIndex: (indexName: string, indexedValue: string) =>
      ro(indexer.byIndex(indexName, indexedValue)),
    getIndexers: () => indexer.getIndexers(),
  });
}

/**
 * What a {@link Reflector} writes to: a `DeltaFIFO`, or any `Store`. Each
 * call is synchronous; `replace` takes ownership of the list.
 *
 * @typeParam T the object type
 *
 * @example Any object with the five writes fits
 * ```ts
 * import { type KubeObject, metaNamespaceKeyFunc, newStore, Reflector, type ReflectorStore } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const source = new FakeControllerSource();
 * source.add({ metadata: { namespace: "default", name: "a" } });
 * const store = newStore<KubeObject>(metaNamespaceKeyFunc);
 * const listed = Promise.withResolvers<string>();
 * const target: ReflectorStore<KubeObject> = {
 *   add: (obj) => store.add(obj),
 *   update: (obj) => store.update(obj),
 *   delete: (obj) => store.delete(obj),
 *   replace: (list, resourceVersion) => {
 *     store.replace(list, resourceVersion);
 *     listed.resolve(resourceVersion);
 *   },
 *   resync: () => {},
 * };
 * const stop = new AbortController();
 * const running = new Reflector(source, target).run(stop.signal);
 * assert.equal(await listed.promise, source.resourceVersion());
 * assert.deepEqual(store.listKeys(), ["default/a"]);
 * stop.abort();
 * await running;
 * ```
 */
export interface ReflectorStore<T> {
  /** An object was added (watch ADDED). */
  add(obj: T): void;
  /** An object changed (watch MODIFIED). */
  update(obj: T): void;
  /** An object was deleted (watch DELETED); `obj` is its last state. */
  delete(obj: T): void;
  /** The full state at `resourceVersion` (a list or a watch-list). */
  replace(list: T[], resourceVersion: string): void;
  /** The periodic resync (every `resyncPeriod`). */
  resync(): void;
}
