/**
 * Key functions: how stores and queues name objects. Mirrors client-go
 * `tools/cache/store.go` (`MetaNamespaceKeyFunc`, `SplitMetaNamespaceKey`,
 * `ExplicitKey`) and `controller.go` (`DeletionHandlingMetaNamespaceKeyFunc`,
 * `DeletedFinalStateUnknown`).
 *
 * @module
 */

import { show } from "../api/validate.ts";

/**
 * Computes the key of an object (client-go `cache.KeyFunc`).
 * Throws {@link KeyError} when the object cannot be keyed.
 *
 * @example A key function of your own
 * ```ts
 * import { type KeyFunc, newStore } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * // Key nodes by their name alone, lower-cased.
 * const byName: KeyFunc = (obj) => (obj as { metadata: { name: string } }).metadata.name.toLowerCase();
 * const store = newStore(byName);
 * store.add({ metadata: { name: "Node-A" } });
 * assert.deepEqual(store.listKeys(), ["node-a"]);
 * ```
 */
export type KeyFunc = (obj: unknown) => string;

/**
 * The error thrown when a key cannot be computed (client-go `KeyError`).
 * `obj` is the object, `cause` the underlying error when a user key function
 * threw.
 *
 * @example A store refuses an object without metadata
 * ```ts
 * import { KeyError, newStore, metaNamespaceKeyFunc } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const store = newStore(metaNamespaceKeyFunc);
 * const bad = { kind: "ConfigMap" };
 * assert.throws(() => store.add(bad as never), (err) => err instanceof KeyError && err.obj === bad);
 * ```
 */
export class KeyError extends Error {
  /** The object that could not be keyed. */
  readonly obj: unknown;

  /**
   * Create a key error.
   * @param message what went wrong
   * @param obj the object that could not be keyed
   * @param cause the underlying error, if any
   */
  constructor(message: string, obj: unknown, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "KeyError";
    this.obj = obj;
  }
}

/**
 * A key given explicitly instead of an object (client-go `cache.ExplicitKey`):
 * {@link metaNamespaceKeyFunc} returns `key` as is.
 *
 * @example Key a queue entry by hand
 * ```ts
 * import { ExplicitKey, metaNamespaceKeyFunc } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.equal(metaNamespaceKeyFunc(new ExplicitKey("default/web")), "default/web");
 * ```
 */
export class ExplicitKey {
  /**
   * Wrap a key.
   * @param key the key to use
   */
  constructor(readonly key: string) {}
}

/**
 * A tombstone: an object deleted while the watch was disconnected, so its
 * final state is unknown (client-go `cache.DeletedFinalStateUnknown`). `obj`
 * is the last state kubecache knew, which may be stale.
 *
 * @typeParam T the object type
 *
 * @example Handle a delete seen only by a relist
 * ```ts
 * import { DeletedFinalStateUnknown, type KubeObject } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * function onDelete(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): string {
 *   // A tombstone carries the key and the last state the cache had.
 *   return obj instanceof DeletedFinalStateUnknown ? `${obj.key} (last seen)` : obj.metadata.name!;
 * }
 * const last = { metadata: { name: "web", namespace: "default" } };
 * assert.equal(onDelete(new DeletedFinalStateUnknown("default/web", last)), "default/web (last seen)");
 * assert.equal(onDelete(last), "web");
 * ```
 */
export class DeletedFinalStateUnknown<T> {
  /**
   * Create a tombstone.
   * @param key the deleted object's key
   * @param obj the last known state of the object
   */
  constructor(readonly key: string, readonly obj: T | undefined) {}
}

function metadataOf(obj: unknown): { name?: unknown; namespace?: unknown } {
  if (typeof obj !== "object" || obj === null) {
    throw new KeyError(
      `Cannot compute key: object has no metadata, got ${
        obj === null ? "null" : typeof obj
      }`,
      obj,
    );
  }
  const meta = (obj as { metadata?: unknown }).metadata;
  if (typeof meta !== "object" || meta === null) {
    throw new KeyError("Cannot compute key: object has no metadata", obj);
  }
  return meta as { name?: unknown; namespace?: unknown };
}

/**
 * The default key function (client-go `MetaNamespaceKeyFunc`):
 * `"namespace/name"` for namespaced objects, `"name"` for cluster-scoped
 * ones; an {@link ExplicitKey} yields its key.
 *
 * @example
 * ```ts
 * import { metaNamespaceKeyFunc } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * assert.equal(metaNamespaceKeyFunc({ metadata: { namespace: "ns", name: "a" } }), "ns/a");
 * assert.equal(metaNamespaceKeyFunc({ metadata: { name: "node-1" } }), "node-1");
 * ```
 *
 * @throws {KeyError} when the object has no `metadata`, its `name` is not
 * a non-empty string, or its `namespace` is neither absent nor a string
 * (client-go's typed objects cannot have such fields; an object decoded
 * from JSON can)
 */
export function metaNamespaceKeyFunc(obj: unknown): string {
  if (obj instanceof ExplicitKey) return obj.key;
  const meta = metadataOf(obj);
  const { name, namespace } = meta;
  // A name that is not a non-empty string would make a key no object has
  // ("default/" for `name: 42`), under which unrelated objects collide.
  if (typeof name !== "string" || name === "") {
    throw new KeyError(
      `Cannot compute key: metadata.name must be a non-empty string, got ${
        show(name)
      }`,
      obj,
    );
  }
  // Absent (undefined, null, or "" as Go's omitempty leaves it): cluster-scoped.
  if (namespace === undefined || namespace === null || namespace === "") {
    return name;
  }
  if (typeof namespace !== "string") {
    throw new KeyError(
      `Cannot compute key: metadata.namespace must be a string, got ${
        show(namespace)
      }`,
      obj,
    );
  }
  return `${namespace}/${name}`;
}

/**
 * Like {@link metaNamespaceKeyFunc}, but a {@link DeletedFinalStateUnknown}
 * yields its stored key (client-go `DeletionHandlingMetaNamespaceKeyFunc`).
 *
 * @throws {KeyError} when the object has no `metadata`
 *
 * @example Enqueue the key of any delete
 * ```ts
 * import {
 *   DeletedFinalStateUnknown,
 *   deletionHandlingMetaNamespaceKeyFunc,
 * } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const pod = { metadata: { name: "web", namespace: "default" } };
 * assert.equal(deletionHandlingMetaNamespaceKeyFunc(pod), "default/web");
 * const tombstone = new DeletedFinalStateUnknown("default/web", pod);
 * assert.equal(deletionHandlingMetaNamespaceKeyFunc(tombstone), "default/web");
 * ```
 */
export function deletionHandlingMetaNamespaceKeyFunc(obj: unknown): string {
  if (obj instanceof DeletedFinalStateUnknown) return obj.key;
  return metaNamespaceKeyFunc(obj);
}

/**
 * Split a key made by {@link metaNamespaceKeyFunc} into namespace and name
 * (client-go `SplitMetaNamespaceKey`); `namespace` is `""` for a
 * cluster-scoped key.
 *
 * @example
 * ```ts
 * import { splitMetaNamespaceKey } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(splitMetaNamespaceKey("ns/a"), { namespace: "ns", name: "a" });
 * assert.deepEqual(splitMetaNamespaceKey("a"), { namespace: "", name: "a" });
 * ```
 *
 * @throws {TypeError} when the key has more than one `/`
 */
export function splitMetaNamespaceKey(
  key: string,
): { namespace: string; name: string } {
  const parts = key.split("/");
  if (parts.length === 1) return { namespace: "", name: parts[0] };
  if (parts.length === 2) return { namespace: parts[0], name: parts[1] };
  throw new TypeError(
    `Cannot split key: expected "namespace/name" or "name", got "${key}"`,
  );
}

/**
 * Run `keyFunc` on `obj`, wrapping anything it throws in a {@link KeyError}
 * whose `cause` is the original error (client-go wraps as `KeyError{obj, err}`).
 *
 * @param keyFunc the key function
 * @param obj the object to key
 * @returns the key
 * @throws {KeyError} when `keyFunc` throws
 *
 * @example Wrap what a key function throws
 * ```ts
 * import { computeKey, KeyError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const byName = (obj: unknown) => (obj as { name: string }).name.toUpperCase();
 * assert.equal(computeKey(byName, { name: "a" }), "A");
 * assert.throws(() => computeKey(byName, {}), (err) => err instanceof KeyError && err.cause instanceof TypeError);
 * ```
 */
export function computeKey(keyFunc: KeyFunc, obj: unknown): string {
  try {
    return keyFunc(obj);
  } catch (err) {
    throw new KeyError(
      `Cannot compute key of object: ${
        err instanceof Error ? err.message : String(err)
      }`,
      obj,
      err,
    );
  }
}
