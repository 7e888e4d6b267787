/**
 * Index functions: how an {@link Indexer} files objects under secondary
 * keys. Mirrors client-go `tools/cache/index.go` (`IndexFunc`, `Indexers`,
 * `MetaNamespaceIndexFunc`, `NamespaceIndex`).
 *
 * @module
 */

/**
 * Computes the indexed values of an object (client-go `cache.IndexFunc`). An
 * object may be filed under zero, one or several values. Must be a pure
 * function of the object: the store recomputes it on the old object to find
 * the entries to drop.
 *
 * The built-in resource types come with object types (`Pod`, `Deployment`,
 * ... from `@kubecache/core`), so an index function reads fields without
 * casts.
 *
 * @example Index pods by the node they run on
 * ```ts
 * import type { IndexFunc, Pod } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const byNode: IndexFunc<Pod> = (pod) =>
 *   pod.spec?.nodeName ? [pod.spec.nodeName] : [];
 * assert.deepEqual(byNode({ metadata: { name: "a" }, spec: { nodeName: "n1", containers: [] } }), ["n1"]);
 * assert.deepEqual(byNode({ metadata: { name: "pending" } }), []);
 * ```
 *
 * @typeParam T the object type
 */
export type IndexFunc<T> = (obj: T) => string[];

/**
 * Index functions by index name (client-go `cache.Indexers`).
 *
 * @example Pods by namespace and by node
 * ```ts
 * import {
 *   type Indexers,
 *   metaNamespaceIndexFunc,
 *   metaNamespaceKeyFunc,
 *   NAMESPACE_INDEX,
 *   newIndexer,
 *   type Pod,
 * } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const indexers: Indexers<Pod> = {
 *   [NAMESPACE_INDEX]: metaNamespaceIndexFunc,
 *   byNode: (pod) => pod.spec?.nodeName ? [pod.spec.nodeName] : [],
 * };
 * const pods = newIndexer<Pod>(metaNamespaceKeyFunc, indexers);
 * pods.add({ metadata: { namespace: "ns", name: "a" }, spec: { nodeName: "n1", containers: [] } });
 * pods.add({ metadata: { namespace: "ns", name: "b" } });
 * assert.deepEqual(pods.byIndex("byNode", "n1").map((p) => p.metadata.name), ["a"]);
 * assert.equal(pods.byIndex(NAMESPACE_INDEX, "ns").length, 2);
 * ```
 *
 * @typeParam T the object type
 */
export type Indexers<T> = Record<string, IndexFunc<T>>;

/**
 * The conventional name of the namespace index (client-go `NamespaceIndex`).
 *
 * @example List one namespace from an indexer
 * ```ts
 * import { metaNamespaceIndexFunc, metaNamespaceKeyFunc, NAMESPACE_INDEX, newIndexer } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const indexer = newIndexer(metaNamespaceKeyFunc, { [NAMESPACE_INDEX]: metaNamespaceIndexFunc });
 * indexer.add({ metadata: { name: "a", namespace: "team-a" } });
 * indexer.add({ metadata: { name: "b", namespace: "team-b" } });
 * assert.deepEqual(indexer.indexKeys(NAMESPACE_INDEX, "team-a"), ["team-a/a"]);
 * ```
 */
export const NAMESPACE_INDEX = "namespace";

/**
 * Index an object by its namespace (client-go `MetaNamespaceIndexFunc`):
 * `[metadata.namespace]`, or `[""]` for a cluster-scoped object.
 *
 * @example
 * ```ts
 * import { metaNamespaceIndexFunc } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(metaNamespaceIndexFunc({ metadata: { namespace: "ns", name: "a" } }), ["ns"]);
 * assert.deepEqual(metaNamespaceIndexFunc({ metadata: { name: "node-1" } }), [""]);
 * ```
 *
 * @param obj an object with `metadata`
 * @returns a one-element array holding the namespace
 * @throws {TypeError} when the object has no `metadata`
 */
export function metaNamespaceIndexFunc(obj: unknown): string[] {
  const meta = typeof obj === "object" && obj !== null
    ? (obj as { metadata?: unknown }).metadata
    : undefined;
  if (typeof meta !== "object" || meta === null) {
    throw new TypeError(
      `Cannot index object by namespace: object has no metadata, got ${
        obj === null ? "null" : typeof obj
      }`,
    );
  }
  const ns = (meta as { namespace?: unknown }).namespace;
  return [typeof ns === "string" ? ns : ""];
}
