/**
 * Read-only types for cached objects. Cached objects are shared, never
 * copied per reader (client-go's rule: never mutate what a lister or a
 * handler hands you); {@link DeepReadonly} makes the type checker refuse a
 * write at any depth, and {@link deepCopy} is the documented way to get a
 * mutable copy (client-go's `DeepCopy()`).
 *
 * @module
 */

/**
 * `T` with every property, at every depth, `readonly`, and every array a
 * `readonly` array: what handlers, listers and the read-only store handles
 * give out. Functions are kept as they are. Only the types change; at run
 * time the objects are the cache's own (turn on `detectMutations` to catch
 * writes that go around the types, e.g. through a cast or from JavaScript).
 *
 * @typeParam T the object type
 *
 * @example The type checker refuses a write to a cached object
 * ```ts
 * import type { ConfigMap, DeepReadonly } from "@kubecache/core";
 * const cm: DeepReadonly<ConfigMap> = { metadata: { name: "a", labels: { app: "web" } } };
 * // @ts-expect-error: labels are read-only
 * cm.metadata.labels!.app = "db";
 * ```
 */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown ? T
  : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
  : T;

/**
 * `T` with `readonly` removed at every depth: the type of a
 * {@link deepCopy}. `DeepMutable<DeepReadonly<Pod>>` is assignable to `Pod`.
 *
 * @typeParam T the (read-only) object type
 *
 * @example Change a copy of a cached object
 * ```ts
 * import { deepCopy, type DeepMutable, type DeepReadonly, type Pod } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const cached: DeepReadonly<Pod> = { metadata: { name: "web", labels: { app: "web" } } };
 * const copy: DeepMutable<DeepReadonly<Pod>> = deepCopy(cached);
 * copy.metadata.labels!.app = "db"; // allowed on the copy
 * assert.equal(cached.metadata.labels?.app, "web");
 * ```
 */
export type DeepMutable<T> = T extends (...args: never[]) => unknown ? T
  : T extends object ? { -readonly [K in keyof T]: DeepMutable<T[K]> }
  : T;

/**
 * A deep, mutable copy of an object (client-go's `DeepCopy()`), made with
 * `structuredClone`: the way to derive a changed object from a cached one.
 *
 * @typeParam T the object type
 * @param obj the object, typically read-only from a lister or handler
 * @returns a copy sharing nothing with `obj`
 * @throws {DOMException} `DataCloneError` when `obj` holds a function or
 * another value `structuredClone` cannot copy (never for JSON objects)
 *
 * @example Change a copy, not the cached object
 * ```ts
 * import { type ConfigMap, deepCopy, type DeepReadonly } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const cached: DeepReadonly<ConfigMap> = { metadata: { name: "a" }, data: { mode: "slow" } };
 * const copy: ConfigMap = deepCopy(cached);
 * copy.data = { ...copy.data, mode: "fast" };
 * assert.equal(cached.data?.mode, "slow");
 * assert.equal(copy.data.mode, "fast");
 * ```
 */
export function deepCopy<T>(obj: T): DeepMutable<T> {
  return structuredClone(obj) as DeepMutable<T>;
}
