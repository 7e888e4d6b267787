/**
 * {@link finalizer}: reconcile an object that needs cleanup before it may
 * go, as kube-rs's `finalizer()` does: add the finalizer, `apply` while the
 * object lives, `cleanup` once it is being deleted, then remove the
 * finalizer, each write a JSON patch with `test` ops.
 *
 * @module
 */

import { isNotFound } from "../api/errors.ts";
import type { KubeObject } from "../api/object.ts";
import type { DeepReadonly } from "../api/readonly.ts";
import type { ResourceType } from "../api/resources.ts";
import type { KubeClient } from "../client/rest.ts";
import {
  checkFunction,
  checkKubeObject,
  checkName,
  checkOptions,
  checkType,
  errorMessage,
  show,
} from "./_check.ts";
import type { ReconcileContext, ReconcileResult } from "./builder.ts";

/**
 * The two halves of a reconcile that {@link finalizer} runs (kube-rs
 * `finalizer::Event::Apply` and `Event::Cleanup`). Both must be idempotent:
 * either may run again after a failure, a restart, or a lost race.
 *
 * @example Write a Secret while the ConfigMap lives, delete it when the ConfigMap goes
 * ```ts
 * import type { FinalizerHandlers } from "@kubecache/core/controller";
 * import type { ConfigMap } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const secrets = new Set<string>();
 * const handlers: FinalizerHandlers<ConfigMap> = {
 *   apply: (cm) => void secrets.add(cm.metadata.name!),
 *   cleanup: (cm) => void secrets.delete(cm.metadata.name!),
 * };
 * await handlers.apply({ metadata: { name: "a" } });
 * assert.ok(secrets.has("a"));
 * ```
 */
export interface FinalizerHandlers<T extends KubeObject> {
  /**
   * The object lives and has the finalizer: make the world match it. Its
   * result is the reconcile's.
   */
  apply(
    obj: DeepReadonly<T>,
  ): ReconcileResult | Promise<ReconcileResult>;
  /**
   * The object is being deleted and still has the finalizer: undo what
   * `apply` did (it must cope with `apply` never having run). A throw
   * keeps the finalizer, so the object stays until a later try succeeds.
   * Its result is the reconcile's.
   */
  cleanup(
    obj: DeepReadonly<T>,
  ): ReconcileResult | Promise<ReconcileResult>;
}

/**
 * Reconcile `obj` through finalizer `name` (kube-rs
 * `kube_runtime::finalizer`), the one call a reconcile makes:
 *
 * - the object lives and lacks the finalizer: add it with a JSON patch
 *   whose `test` op checks the finalizer list is the one `obj` shows (or
 *   absent) and the uid is `obj`'s, then return without applying: the
 *   write brings the object back through the queue, and `apply` runs then,
 *   so `apply` never runs before the finalizer is stored;
 * - it lives and has it: `apply(obj)`;
 * - it is being deleted (`metadata.deletionTimestamp`) and has it:
 *   `cleanup(obj)`, then remove the finalizer with a JSON patch that tests
 *   it is still at the index `obj` shows, so another controller's
 *   finalizer is never removed and a concurrent writer makes the patch
 *   fail (422) instead of being overwritten. A 404 (the object went) counts
 *   as removed;
 * - it is being deleted and lacks it: nothing to do.
 *
 * A patch that fails (a lost race, a 403) throws an Error naming the step,
 * with the server's error as its `cause`: the reconcile is retried with
 * backoff and sees the object as it is now. `name` must be unique among
 * the controllers of the object (`example.com/cleanup`).
 *
 * @typeParam T the object type
 * @param ctx the reconcile's context: its `client` writes, its `signal` cancels the writes
 * @param type the object's resource type
 * @param obj the object as read from the cache (not changed)
 * @param name the finalizer
 * @param handlers `apply` and `cleanup`
 * @returns the result of `apply` or `cleanup`; undefined after adding the finalizer or when there is nothing to do
 * @throws {TypeError} when an argument is of the wrong kind, or `obj` has no name
 * @throws {Error} when a patch of the finalizer fails (`cause`: the StatusError), or what `apply` or `cleanup` throws
 *
 * @example The finalizer flow of a ConfigMap
 * ```ts
 * import { finalizer, Manager } from "@kubecache/core/controller";
 * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * await using manager = new Manager(client);
 * const lister = manager.factory.lister(ConfigMaps);
 * const log: string[] = [];
 * const applied = Promise.withResolvers<void>();
 * const cleaned = Promise.withResolvers<void>();
 * manager.controller("cm", ConfigMaps).complete((req, ctx) => {
 *   const cm = lister.namespaced(req.namespace!).get(req.name);
 *   if (!cm) return;
 *   return finalizer(ctx, ConfigMaps, cm, "example.com/cleanup", {
 *     apply: (cm) => {
 *       log.push(`apply ${cm.metadata.name}`);
 *       applied.resolve();
 *     },
 *     cleanup: (cm) => {
 *       log.push(`cleanup ${cm.metadata.name}`);
 *       cleaned.resolve();
 *     },
 *   });
 * });
 * server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
 * const stop = new AbortController();
 * const running = manager.run(stop.signal);
 * await applied.promise;
 * // The finalizer was stored before apply ran.
 * assert.deepEqual(server.get(ConfigMaps, "default", "a")?.metadata.finalizers, ["example.com/cleanup"]);
 * await client.delete(ConfigMaps, "a", { namespace: "default" });
 * await cleaned.promise;
 * stop.abort();
 * await running;
 * assert.deepEqual(log, ["apply a", "cleanup a"]);
 * ```
 */
export async function finalizer<T extends KubeObject>(
  ctx: Pick<ReconcileContext, "client" | "signal">,
  type: ResourceType<T>,
  obj: DeepReadonly<NoInfer<T>>,
  name: string,
  handlers: FinalizerHandlers<NoInfer<T>>,
): Promise<ReconcileResult> {
  const call = "finalizer";
  checkOptions(call, "ctx", ctx);
  if (typeof ctx.client?.patch !== "function") {
    throw new TypeError(
      `${call}: ctx.client must be a KubeClient, got ${show(ctx.client)}`,
    );
  }
  if (ctx.signal !== undefined && !(ctx.signal instanceof AbortSignal)) {
    throw new TypeError(
      `${call}: ctx.signal must be an AbortSignal, got ${show(ctx.signal)}`,
    );
  }
  checkType(call, "type", type);
  checkKubeObject(call, "obj", obj);
  checkName(call, "name", name);
  checkOptions(call, "handlers", handlers);
  checkFunction(call, "handlers.apply", handlers.apply);
  checkFunction(call, "handlers.cleanup", handlers.cleanup);
  const meta = obj.metadata;
  if (typeof meta.name !== "string" || meta.name === "") {
    throw new TypeError(
      `${call}: obj.metadata.name must be set, got ${show(meta.name)}`,
    );
  }
  const list = meta.finalizers;
  const index = list?.indexOf(name) ?? -1;
  const deleting = Boolean(meta.deletionTimestamp);
  const what = `${type.kind} ${
    meta.namespace ? `${meta.namespace}/` : ""
  }${meta.name}`;
  const patch = async (step: string, ops: unknown[]) => {
    try {
      await (ctx.client as KubeClient).patch(type, meta.name!, ops, {
        namespace: meta.namespace,
        patchType: "json",
        signal: ctx.signal,
      });
    } catch (err) {
      if (step === "removing it from" && isNotFound(err)) return;
      throw new Error(
        `finalizer ${name}: ${step} ${what} failed: ${errorMessage(err)}`,
        { cause: err },
      );
    }
  };
  // The uid test keeps a write meant for this object off a new object of
  // the same name.
  const uid = meta.uid
    ? [{ op: "test", path: "/metadata/uid", value: meta.uid }]
    : [];

  if (index >= 0 && !deleting) return await handlers.apply(obj);
  if (index >= 0) {
    // The finalizer stays until cleanup has succeeded.
    const result = await handlers.cleanup(obj);
    const path = `/metadata/finalizers/${index}`;
    await patch("removing it from", [
      ...uid,
      { op: "test", path, value: name },
      { op: "remove", path },
    ]);
    return result;
  }
  if (deleting) return undefined;
  await patch(
    "adding it to",
    list === undefined
      ? [
        ...uid,
        { op: "test", path: "/metadata/finalizers", value: null },
        { op: "add", path: "/metadata/finalizers", value: [name] },
      ]
      : [
        ...uid,
        // The whole list as seen: a finalizer added meanwhile (ours by
        // another replica, or another controller's) fails the patch, so
        // ours is never added twice and nobody's is lost.
        { op: "test", path: "/metadata/finalizers", value: list },
        { op: "add", path: "/metadata/finalizers/-", value: name },
      ],
  );
  return undefined;
}
