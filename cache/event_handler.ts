/**
 * What an informer tells its users: the {@link ResourceEventHandler}
 * interface (client-go `cache.ResourceEventHandler`, in `controller.go`) and
 * the {@link ErrorHandler} that hears about what fails in an informer. Kept
 * apart from `controller.ts` so the notification fan-out (`_processor.ts`)
 * and the controller both depend on it without depending on each other.
 *
 * @module
 */

import type { DeepReadonly } from "../api/readonly.ts";
import type { DeletedFinalStateUnknown } from "./keys.ts";
import type { CallbackResult } from "../api/callback.ts";

/**
 * Receives notifications about changes to a set of objects (client-go
 * `cache.ResourceEventHandler`). Every method is optional and may return a
 * promise, which is awaited before the same handler gets its next
 * notification; any other return value is ignored (see
 * {@link CallbackResult}), so `onAdd: (cm) => names.push(cm.metadata.name!)`
 * is a handler. Handlers MUST NOT modify the objects they receive: they are
 * the cached objects themselves, shared with every other reader.
 *
 * - `onAdd` is called for an object that is new to the cache.
 *   `isInInitialList` is true when it came from the informer's initial list
 *   (or, for a handler added after start, from the cache at that time), and
 *   false for later additions, including those found by a relist.
 * - `onUpdate` is called when an object changed. `oldObj` is the last state
 *   the cache knew, so several changes may be merged into one call.
 * - `onDelete` gets the final state of the object when it is known, else a
 *   {@link DeletedFinalStateUnknown} carrying the last known state: this
 *   happens when the delete was missed while the watch was down and only a
 *   relist noticed it.
 *
 * On a relist (the watch could not resume, e.g. after a 410 Expired): an
 * object new to the cache is an `onAdd(obj, false)`; one whose
 * resourceVersion changed is one `onUpdate(old, new)`; a cached object
 * missing from the list is an `onDelete` of a `DeletedFinalStateUnknown`.
 * An object the list shows unchanged is a same-resourceVersion update, which
 * follows the resync rule below: with no resyncs, a relist's unchanged
 * objects produce nothing.
 *
 * On a resync (only when the informer has a resync period and the handler
 * a non-zero one): at each tick where the handler's period is due, it gets
 * `onUpdate(obj, obj)` for every cached object, old and new with the same
 * resourceVersion. Same-resourceVersion updates reach only the handlers that
 * were due at the latest tick: a handler with resync period 0 never gets one,
 * and before the first tick no handler does. (client-go also sends a
 * relist's unchanged objects to every handler before its first tick and
 * forever with resync 0; kubecache does not.)
 *
 * The objects are the cache's own, shared with every other handler and
 * lister (never copied), typed {@link DeepReadonly} so the type checker
 * refuses a write at any depth; `deepCopy(obj)` gives a mutable copy to
 * derive a changed object from.
 *
 * @typeParam T the object type
 *
 * @example Count pods as they come and go
 * ```ts
 * import type { ResourceEventHandler, KubeObject } from "@kubecache/core";
 * let count = 0;
 * const handler: ResourceEventHandler<KubeObject> = {
 *   onAdd: () => void count++,
 *   onDelete: () => void count--,
 * };
 * handler.onAdd?.({ metadata: { name: "a" } }, true);
 * if (count !== 1) throw new Error("expected one object");
 * ```
 */
export interface ResourceEventHandler<T> {
  /** An object was added to the cache. */
  onAdd?(obj: DeepReadonly<T>, isInInitialList: boolean): CallbackResult;
  /**
   * An object in the cache changed; or, with the same resourceVersion on
   * both sides, a resync (only for a handler due for one).
   */
  onUpdate?(
    oldObj: DeepReadonly<T>,
    newObj: DeepReadonly<T>,
  ): CallbackResult;
  /** An object left the cache; a tombstone when its final state is unknown. */
  onDelete?(
    obj: DeepReadonly<T> | DeletedFinalStateUnknown<DeepReadonly<T>>,
  ): CallbackResult;
}

/**
 * What an {@link ErrorHandler} is told besides the error.
 *
 * @example Which handler failed
 * ```ts
 * import { type InformerErrorContext, type KubeObject, newSharedIndexInformer, waitForCacheSync } from "@kubecache/core";
 * import { FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const source = new FakeControllerSource<KubeObject>();
 * source.add({ metadata: { namespace: "default", name: "a" } });
 * const reported = Promise.withResolvers<InformerErrorContext>();
 * const informer = newSharedIndexInformer(source, { errorHandler: (_err, ctx) => reported.resolve(ctx) });
 * informer.addEventHandler({
 *   onAdd: () => {
 *     throw new Error("bug in a handler");
 *   },
 * });
 * const stop = new AbortController();
 * const running = informer.run(stop.signal);
 * const ctx = await reported.promise;
 * assert.equal(ctx.source, "handler");
 * assert.equal(ctx.notification, "add");
 * stop.abort();
 * await running;
 * ```
 */
export interface InformerErrorContext {
  /** Name of the reporting informer (its `name` option; default `"informer"`). */
  informer: string;
  /**
   * What failed, and what happened next:
   * - `"handler"`: an event handler threw or its promise rejected
   *   (`notification` says which call); it still gets its next
   *   notifications.
   * - `"index"`: an index function threw (the error is an
   *   `IndexFunctionError` naming the index and key); the object is cached
   *   all the same, absent from that one index. Reported once per object
   *   and resourceVersion.
   * - `"process"`: a key's deltas could not be applied; they are dropped.
   *   (A listed or watched object whose name or namespace is not a
   *   non-empty string never gets this far: the Reflector drops it and
   *   reports its `KeyError` to the watch error handler and
   *   `health().lastError`; the rest of the list or watch is applied.)
   * - `"fatal"`: the informer stopped on this error (e.g. a
   *   `CacheMutationError`): its `hasSynced()` is false from then on and
   *   its `run` promise rejects with the same error.
   */
  source: "handler" | "index" | "process" | "fatal";
  /** For `"handler"`: the notification whose handler call failed. */
  notification?: "add" | "update" | "delete";
}

/**
 * Receives the errors an informer reports: everything except failed lists
 * and watches, which go to the `WatchErrorHandler` (client-go's name, kept)
 * and are retried. The option is called `errorHandler` wherever it is taken
 * (informers, the factory, `newInformer`, `Controller`). It must not throw;
 * what it throws is logged and ignored. The default logs one line per error
 * with `console.error`.
 *
 * @example Count handler failures, stop on a fatal one
 * ```ts
 * import type { ErrorHandler } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const stop = new AbortController();
 * let failures = 0;
 * const errorHandler: ErrorHandler = (error, { informer, source }) => {
 *   if (source === "fatal") stop.abort(error);
 *   else failures++;
 *   console.error(`${informer} (${source}):`, error);
 * };
 * errorHandler(new Error("handler broke"), { informer: "pods", source: "handler", notification: "add" });
 * assert.equal(failures, 1);
 * ```
 */
export type ErrorHandler = (
  error: unknown,
  context: InformerErrorContext,
) => void;
