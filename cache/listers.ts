/**
 * Listers: read-only, selector-filtered views of an {@link Indexer}. Mirrors
 * client-go `tools/cache/listers.go` (`ListAll`, `ListAllByNamespace`,
 * `GenericLister`, `GenericNamespaceLister`, `NewGenericLister`).
 *
 * @module
 */

import {
  checkFunction,
  checkMethods,
  checkResourceType,
  show,
} from "./_validate.ts";
import type { KubeObject } from "../api/object.ts";
import type { ResourceType } from "../api/resources.ts";
import type { DeepReadonly } from "../api/readonly.ts";
import { everything, parseSelector, type Selector } from "./labels.ts";
import type { ReadonlyIndexer } from "./store.ts";
import { NAMESPACE_INDEX } from "./index.ts";

/**
 * What {@link listAll} reads of an object: its namespace and labels. A
 * `KubeObject` fits, and so does a `DeepReadonly` one.
 *
 * @example What listAll needs of an object
 * ```ts
 * import { type LabelledObject, listAll, newStore, parseSelector } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const store = newStore<LabelledObject & { metadata: { name: string } }>((o) => (o as { metadata: { name: string } }).metadata.name);
 * store.add({ metadata: { name: "a", labels: { app: "web" } } });
 * const names: string[] = [];
 * listAll(store, parseSelector("app=web"), (o) => names.push(o.metadata.name));
 * assert.deepEqual(names, ["a"]);
 * ```
 */
export interface LabelledObject {
  /** The object's metadata. */
  readonly metadata: {
    /** Namespace; absent for cluster-scoped objects. */
    readonly namespace?: string;
    /** Labels matched by selectors. */
    readonly labels?: Readonly<Record<string, string>>;
  };
}

/**
 * Call `append` for every object in `store` whose labels match `selector`
 * (client-go `ListAll`). An empty selector appends everything without
 * looking at labels.
 *
 * @example
 * ```ts
 * import {
 *   listAll,
 *   parseSelector,
 *   newStore,
 *   metaNamespaceKeyFunc,
 *   type KubeObject,
 * } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const store = newStore<KubeObject>(metaNamespaceKeyFunc);
 * store.add({ metadata: { name: "a", labels: { app: "web" } } });
 * store.add({ metadata: { name: "b", labels: { app: "db" } } });
 * const names: string[] = [];
 * listAll(store, parseSelector("app=web"), (o) => names.push(o.metadata.name!));
 * assert.deepEqual(names, ["a"]);
 * ```
 *
 * @typeParam T the object type
 * @param store the store to read
 * @param selector the label selector to match
 * @param append called with each matching object, in store order
 * @throws {TypeError} when an argument has the wrong type
 */
export function listAll<T extends LabelledObject>(
  store: { list(): readonly T[] },
  selector: Selector,
  append: (obj: T) => void,
): void {
  checkMethods("listAll", "store", store, "a store", ["list"]);
  checkMethods("listAll", "selector", selector, "a Selector", [
    "matches",
    "empty",
  ]);
  checkFunction("listAll", "append", append);
  const all = selector.empty();
  for (const obj of store.list()) {
    if (all || selector.matches(obj.metadata.labels)) append(obj);
  }
}

/**
 * Call `append` for every object in `namespace` whose labels match
 * `selector` (client-go `ListAllByNamespace`). `""` means all namespaces.
 * Uses the {@link NAMESPACE_INDEX} index when the indexer has it, and falls
 * back to scanning every object when it does not.
 *
 * @typeParam T the object type
 * @param indexer the indexer to read
 * @param namespace the namespace, or `""` for all
 * @param selector the label selector to match
 * @param append called with each matching object
 * @throws {TypeError} when an argument has the wrong type
 *
 * @example One namespace, by label
 * ```ts
 * import {
 *   listAllByNamespace,
 *   metaNamespaceIndexFunc,
 *   metaNamespaceKeyFunc,
 *   NAMESPACE_INDEX,
 *   newIndexer,
 *   parseSelector,
 * } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * type Obj = { metadata: { name: string; namespace: string; labels?: Record<string, string> } };
 * const indexer = newIndexer<Obj>(metaNamespaceKeyFunc, { [NAMESPACE_INDEX]: metaNamespaceIndexFunc });
 * indexer.add({ metadata: { name: "web", namespace: "a", labels: { app: "web" } } });
 * indexer.add({ metadata: { name: "db", namespace: "a", labels: { app: "db" } } });
 * indexer.add({ metadata: { name: "web", namespace: "b", labels: { app: "web" } } });
 * const names: string[] = [];
 * listAllByNamespace(indexer, "a", parseSelector("app=web"), (o) => names.push(o.metadata.name));
 * assert.deepEqual(names, ["web"]);
 * ```
 */
export function listAllByNamespace<T extends LabelledObject>(
  indexer: {
    list(): readonly T[];
    byIndex(indexName: string, indexedValue: string): readonly T[];
    getIndexers(): object;
  },
  namespace: string,
  selector: Selector,
  append: (obj: T) => void,
): void {
  const call = "listAllByNamespace";
  checkMethods(call, "indexer", indexer, "an Indexer", [
    "list",
    "byIndex",
    "getIndexers",
  ]);
  if (typeof namespace !== "string") {
    throw new TypeError(
      `${call}: namespace must be a string ("" for all), got ${
        show(namespace)
      }`,
    );
  }
  if (namespace === "") return listAll(indexer, selector, append);
  const all = selector.empty();
  if (Object.hasOwn(indexer.getIndexers(), NAMESPACE_INDEX)) {
    for (const obj of indexer.byIndex(NAMESPACE_INDEX, namespace)) {
      if (all || selector.matches(obj.metadata.labels)) append(obj);
    }
    return;
  }
  // No namespace index: the slow path client-go also takes.
  for (const obj of indexer.list()) {
    if (
      (obj.metadata.namespace ?? "") === namespace &&
      (all || selector.matches(obj.metadata.labels))
    ) append(obj);
  }
}

/**
 * Read access to the objects of one namespace (client-go
 * `GenericNamespaceLister`). Objects are the cached ones, shared: do not
 * modify them.
 *
 * @typeParam T the object type
 *
 * @example One namespace of a lister
 * ```ts
 * import { type GenericNamespaceLister, type KubeObject, metaNamespaceKeyFunc, newGenericLister, newIndexer } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const indexer = newIndexer<KubeObject>(metaNamespaceKeyFunc, {});
 * indexer.add({ metadata: { name: "web", namespace: "a" } });
 * indexer.add({ metadata: { name: "db", namespace: "b" } });
 * const teamA: GenericNamespaceLister<KubeObject> = newGenericLister(indexer).namespaced("a");
 * assert.deepEqual(teamA.list().map((o) => o.metadata.name), ["web"]);
 * assert.equal(teamA.get("db"), undefined);
 * ```
 */
export interface GenericNamespaceLister<T> {
  /**
   * The objects matching `selector` (a {@link Selector} or selector text;
   * default: all).
   * @throws {SelectorParseError} when `selector` is text that does not parse
   */
  list(selector?: Selector | string): DeepReadonly<T>[];
  /**
   * The object named `name`, or `undefined`. On a cluster-wide
   * {@link GenericLister}, `name` is the store key (`"namespace/name"` for
   * a namespaced object).
   * @throws {TypeError} on a cluster-wide lister of a namespaced type (the
   *   factory's), for a key without a namespace
   */
  get(name: string): DeepReadonly<T> | undefined;
}

/**
 * Read access to a cache of objects (client-go `GenericLister`), the usual
 * way controllers read an informer's cache.
 *
 * `list` and `get` act across namespaces: `get(name)` looks up the store key
 * as is, so it takes `"name"` for a cluster-scoped object and
 * `"namespace/name"` for a namespaced one; `namespaced(ns)` gives the view
 * of one namespace (client-go `ByNamespace`).
 *
 * @typeParam T the object type
 *
 * @example Read the cache, across namespaces or in one
 * ```ts
 * import { metaNamespaceKeyFunc, newGenericLister, newIndexer, type GenericLister, type KubeObject } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const indexer = newIndexer<KubeObject>(metaNamespaceKeyFunc, {});
 * indexer.add({ metadata: { name: "web", namespace: "a", labels: { app: "web" } } });
 * indexer.add({ metadata: { name: "web", namespace: "b" } });
 * const lister: GenericLister<KubeObject> = newGenericLister(indexer);
 * assert.equal(lister.list().length, 2);
 * assert.equal(lister.list("app=web").length, 1);
 * assert.equal(lister.get("b/web")?.metadata.namespace, "b");
 * assert.equal(lister.namespaced("a").get("web")?.metadata.namespace, "a");
 * ```
 */
export interface GenericLister<T> extends GenericNamespaceLister<T> {
  /**
   * The view of one namespace; `""` means all namespaces.
   * @throws {TypeError} when `namespace` is not a string
   */
  namespaced(namespace: string): GenericNamespaceLister<T>;
}

/**
 * Short name of {@link GenericLister}.
 *
 * @typeParam T the object type
 *
 * @example The short name
 * ```ts
 * import type { ConfigMap, GenericLister, Lister } from "@kubecache/core";
 *
 * const same = (l: Lister<ConfigMap>): GenericLister<ConfigMap> => l;
 * void same;
 * ```
 */
export type Lister<T> = GenericLister<T>;

function toSelector(selector: Selector | string | undefined): Selector {
  if (selector === undefined) return everything();
  return typeof selector === "string" ? parseSelector(selector) : selector;
}

/**
 * Create a {@link GenericLister} over an indexer (client-go
 * `NewGenericLister`). Namespace lookups use the {@link NAMESPACE_INDEX}
 * index when present. Unlike client-go, a missing object is `undefined`
 * rather than a NotFound error, so no resource name is needed.
 *
 * @example
 * ```ts
 * import {
 *   newGenericLister,
 *   newIndexer,
 *   metaNamespaceKeyFunc,
 *   metaNamespaceIndexFunc,
 *   NAMESPACE_INDEX,
 *   type KubeObject,
 * } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const indexer = newIndexer<KubeObject>(metaNamespaceKeyFunc, {
 *   [NAMESPACE_INDEX]: metaNamespaceIndexFunc,
 * });
 * indexer.add({ metadata: { namespace: "a", name: "web", labels: { app: "web" } } });
 * indexer.add({ metadata: { namespace: "b", name: "db", labels: { app: "db" } } });
 * const lister = newGenericLister(indexer);
 * assert.equal(lister.list("app=web").length, 1);
 * assert.equal(lister.namespaced("b").get("db")?.metadata.name, "db");
 * assert.equal(lister.get("a/web")?.metadata.namespace, "a");
 * assert.equal(lister.namespaced("a").get("db"), undefined);
 * ```
 *
 * @typeParam T the object type
 * @param indexer the cache to read, e.g. `informer.getIndexer()`
 * @param type the resource type cached (client-go's `resource` argument),
 *   when known: for a namespaced type, `get` of a bare name (no
 *   `namespace/`) throws instead of missing silently
 * @returns a lister sharing the indexer's objects
 * @throws {TypeError} when `indexer` is not an Indexer; from `namespaced`,
 *   when the namespace is not a string; from `get`, when the key is not a
 *   string, or has no namespace while `type` is namespaced
 */
export function newGenericLister<T extends KubeObject>(
  indexer: ReadonlyIndexer<T>,
  type?: ResourceType,
): GenericLister<T> {
  checkMethods(
    "newGenericLister",
    "indexer",
    indexer,
    "an Indexer such as informer.getIndexer()",
    ["list", "byIndex", "getIndexers", "getByKey"],
  );
  if (type !== undefined) checkResourceType("newGenericLister", "type", type);
  // Read as KubeObjects (the generic DeepReadonly<T> hides metadata from
  // the type checker); what goes out is typed DeepReadonly<T> again.
  const objects = indexer as unknown as ReadonlyIndexer<LabelledObject>;
  const out = (list: DeepReadonly<LabelledObject>[]) =>
    list as unknown as DeepReadonly<T>[];
  const namespaced = (namespace: string): GenericNamespaceLister<T> => {
    if (typeof namespace !== "string") {
      throw new TypeError(
        `GenericLister.namespaced: namespace must be a string ("" for all), got ${
          show(namespace)
        }`,
      );
    }
    return namespaceLister(namespace);
  };
  const namespaceLister = (namespace: string): GenericNamespaceLister<T> => ({
    list(selector?: Selector | string): DeepReadonly<T>[] {
      const found: DeepReadonly<LabelledObject>[] = [];
      listAllByNamespace(
        objects,
        namespace,
        toSelector(selector),
        (o) => found.push(o),
      );
      return out(found);
    },
    get(name: string): DeepReadonly<T> | undefined {
      return indexer.getByKey(namespace === "" ? name : `${namespace}/${name}`);
    },
  });
  return {
    list(selector?: Selector | string): DeepReadonly<T>[] {
      const found: DeepReadonly<LabelledObject>[] = [];
      listAll(objects, toSelector(selector), (o) => found.push(o));
      return out(found);
    },
    get(name: string): DeepReadonly<T> | undefined {
      if (typeof name !== "string") {
        throw new TypeError(
          `GenericLister.get: key must be a string, got ${show(name)}`,
        );
      }
      if (type?.namespaced && !name.includes("/")) {
        // No object of a namespaced type has a key without a namespace:
        // a bare name would miss every time.
        throw new TypeError(
          `GenericLister.get: ${type.resource} are namespaced, so the key needs the namespace: use .namespaced(ns).get(${
            show(name)
          }) or the key "<namespace>/${name}", got ${show(name)}`,
        );
      }
      return indexer.getByKey(name);
    },
    namespaced,
  };
}
