/**
 * {@link Predicate}s: filters of informer events applied before anything
 * is enqueued (controller-runtime `pkg/predicate`).
 *
 * @module
 */

import type { DeepReadonly } from "../api/readonly.ts";
import type { KubeObject } from "../api/object.ts";

/**
 * A filter of one watch's events (controller-runtime `predicate.Funcs`):
 * an event is enqueued only when every predicate given passes it; a
 * method left out passes everything of its kind. Objects are the cached
 * ones: read them, never change them.
 *
 * @typeParam T the watched object type
 *
 * @example Only ConfigMaps labelled app=web
 * ```ts
 * import type { Predicate } from "@kubecache/core/controller";
 * import type { ConfigMap } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const web = (cm: { metadata: { labels?: Record<string, string> } }) => cm.metadata.labels?.app === "web";
 * const onlyWeb: Predicate<ConfigMap> = { create: web, update: (_old, cm) => web(cm), delete: web };
 * assert.equal(onlyWeb.create!({ metadata: { name: "a", labels: { app: "web" } } }), true);
 * assert.equal(onlyWeb.delete!({ metadata: { name: "b" } }), false);
 * ```
 */
export interface Predicate<T> {
  /** Whether an added object is enqueued. */
  create?(obj: DeepReadonly<T>): boolean;
  /** Whether an update from `old` to `obj` is enqueued. */
  update?(old: DeepReadonly<T>, obj: DeepReadonly<T>): boolean;
  /** Whether a deleted object (its last known state) is enqueued. */
  delete?(obj: DeepReadonly<T>): boolean;
}

/**
 * Passes an update only when `metadata.generation` changed (controller-runtime
 * `GenerationChangedPredicate`): spec changes, not status or metadata-only
 * writes (for kinds whose server bumps generation on spec changes). Creates
 * and deletes pass.
 *
 * @example Skip a status-only update
 * ```ts
 * import { generationChanged } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const v1 = { metadata: { name: "d", generation: 1, resourceVersion: "10" } };
 * const status = { metadata: { name: "d", generation: 1, resourceVersion: "11" } };
 * const spec = { metadata: { name: "d", generation: 2, resourceVersion: "12" } };
 * assert.equal(generationChanged.update!(v1, status), false);
 * assert.equal(generationChanged.update!(status, spec), true);
 * ```
 */
export const generationChanged: Predicate<KubeObject> = {
  update: (old, obj) => old.metadata.generation !== obj.metadata.generation,
};

/**
 * Passes an update only when `metadata.labels` changed (controller-runtime
 * `LabelChangedPredicate`). Creates and deletes pass.
 *
 * @example A relabel passes, an annotation does not
 * ```ts
 * import { labelsChanged } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const a = { metadata: { name: "x", labels: { app: "web" } } };
 * const b = { metadata: { name: "x", labels: { app: "web" }, annotations: { note: "1" } } };
 * const c = { metadata: { name: "x", labels: { app: "api" } } };
 * assert.equal(labelsChanged.update!(a, b), false);
 * assert.equal(labelsChanged.update!(b, c), true);
 * ```
 */
export const labelsChanged: Predicate<KubeObject> = {
  update: (old, obj) => !sameStrings(old.metadata.labels, obj.metadata.labels),
};

/**
 * Passes an update only when `metadata.annotations` changed
 * (controller-runtime `AnnotationChangedPredicate`). Creates and deletes
 * pass.
 *
 * @example
 * ```ts
 * import { annotationsChanged } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const a = { metadata: { name: "x", annotations: { a: "1" } } };
 * const b = { metadata: { name: "x", annotations: { a: "2" } } };
 * assert.equal(annotationsChanged.update!(a, a), false);
 * assert.equal(annotationsChanged.update!(a, b), true);
 * ```
 */
export const annotationsChanged: Predicate<KubeObject> = {
  update: (old, obj) =>
    !sameStrings(old.metadata.annotations, obj.metadata.annotations),
};

/**
 * Passes an update only when `metadata.resourceVersion` changed
 * (controller-runtime `ResourceVersionChangedPredicate`): drops the
 * same-version updates of a resync. Creates and deletes pass.
 *
 * @example A resync is dropped
 * ```ts
 * import { resourceVersionChanged } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const cm = { metadata: { name: "x", resourceVersion: "7" } };
 * assert.equal(resourceVersionChanged.update!(cm, cm), false);
 * assert.equal(resourceVersionChanged.update!(cm, { metadata: { name: "x", resourceVersion: "8" } }), true);
 * ```
 */
export const resourceVersionChanged: Predicate<KubeObject> = {
  update: (old, obj) =>
    old.metadata.resourceVersion !== obj.metadata.resourceVersion,
};

function sameStrings(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => b !== undefined && k in b && a![k] === b[k]);
}
