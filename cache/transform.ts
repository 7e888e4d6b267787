/**
 * Ready-made informer transforms (client-go `cache.TransformFunc`, set with
 * `SharedIndexInformerOptions.transform`).
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";

/**
 * A transform that drops `metadata.managedFields` (server-side apply's
 * field-ownership records, often the largest part of an object and rarely
 * read by a controller) before objects are cached: the usual way to cut an
 * informer's memory (client-go users write the same `TransformFunc`;
 * kube-rs suggests `modify` for it).
 *
 * It rebuilds `metadata` without the field and returns a shallow copy of
 * the object with the new `metadata`; the input is not modified, and an
 * object without `managedFields` is returned as it is. It does not use
 * `delete obj.metadata.managedFields`: in V8, deleting a property that is
 * not the last one added turns the object into a slow "dictionary-mode"
 * object (a hash table per object instead of a shared hidden class), so
 * every cached `metadata` grows by its own table and property reads get
 * slower. Measured in `deno task bench:compare` (see docs/performance.md), `delete`
 * saved far less heap than rebuilding and slowed the informer down.
 *
 * Field ownership is lost for the cached copies, so do not send a cached
 * object back in an update that must keep managedFields (an apply or an
 * update reads them from the server anyway).
 *
 * @typeParam T the object type
 * @param obj the object as decoded
 * @returns `obj` itself when it has no `managedFields`, else a copy of `obj`
 *   whose `metadata` lacks them
 *
 * @example Drop managedFields from every cached object
 * ```ts
 * import assert from "node:assert/strict";
 * import { newSharedIndexInformer, stripManagedFields } from "@kubecache/core/cache";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 *
 * const source = new FakeControllerSource();
 * source.add({
 *   metadata: { name: "a", namespace: "default", managedFields: [{ manager: "kubectl" }] },
 * });
 * const informer = newSharedIndexInformer(source, { transform: stripManagedFields });
 * const added = Promise.withResolvers<void>();
 * informer.addEventHandler({ onAdd: () => added.resolve() });
 * const stop = new AbortController();
 * const done = informer.run(stop.signal);
 * await added.promise;
 * const cached = informer.getStore().getByKey("default/a");
 * assert.equal(cached?.metadata.name, "a");
 * assert.equal("managedFields" in cached!.metadata, false);
 * stop.abort();
 * await done;
 * ```
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  const metadata = obj.metadata;
  if (metadata === undefined || !("managedFields" in metadata)) return obj;
  const { managedFields: _, ...rest } = metadata;
  return { ...obj, metadata: rest };
}
