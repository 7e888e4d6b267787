/**
 * A controller runtime (controller-runtime's Manager and builder, kube-rs's
 * `Controller`, in Deno idioms): a {@link Manager} runs controllers on one
 * shared informer factory, with a rate-limited queue per controller,
 * owner and finalizer helpers, Kubernetes Events, Prometheus metrics,
 * `/healthz` and `/readyz`, leader election and graceful shutdown.
 *
 * Handlers only enqueue {@link Request}s; the reconciler reads the object
 * from the cache and makes the world match it:
 *
 * ```ts
 * import { Manager } from "@kubecache/core/controller";
 * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * server.create(ConfigMaps, { metadata: { name: "app", namespace: "default" } });
 *
 * await using manager = new Manager(client);
 * const configMaps = manager.factory.lister(ConfigMaps);
 * const seen = Promise.withResolvers<string>();
 * manager.controller("configmaps", ConfigMaps).complete((req, ctx) => {
 *   const cm = configMaps.namespaced(req.namespace!).get(req.name);
 *   if (!cm) return; // deleted
 *   ctx.recorder.event(cm, "Normal", "Seen", "reconciled");
 *   seen.resolve(req.name);
 * });
 * const stop = new AbortController();
 * const running = manager.run(stop.signal);
 * assert.equal(await seen.promise, "app");
 * stop.abort();
 * await running;
 * ```
 *
 * @module
 */

export * from "./manager.ts";
export * from "./sharding.ts";
export * from "./sharded_source.ts";
export { TerminalError } from "./terminal_error.ts";
export type { InformerScope } from "./informer_scope.ts";
export {
  Controller,
  ControllerBuilder,
  type ControllerOptions,
  type ReconcileContext,
  type Reconciler,
  type ReconcileResult,
  type Request,
  type WatchOptions,
} from "./builder.ts";
export * from "./predicates.ts";
export {
  addFinalizer,
  AlreadyOwnedError,
  controllerOf,
  hasFinalizer,
  removeFinalizer,
  setControllerReference,
} from "./owners.ts";
export * from "./create_or_patch.ts";
export * from "./finalizer.ts";
export * from "./event_recorder.ts";
export * from "./metrics.ts";
export * from "./health.ts";
export * from "./webhook.ts";
export * from "./webhook_server.ts";
export * from "./webhook_manifests.ts";
export * from "./json_patch.ts";
export type * from "../api/admission_review.ts";
export type * from "../api/conversion_review.ts";
