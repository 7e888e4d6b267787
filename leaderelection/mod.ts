/**
 * Leader election over a `coordination.k8s.io/v1` Lease (client-go
 * `tools/leaderelection`): run several replicas of a controller and let
 * exactly one of them work, with another taking over when it stops or
 * disappears.
 *
 * Wire `onStartedLeading` to your workers (their signal aborts when
 * leadership is lost) and the program's stop signal to {@link LeaderElector.run}:
 *
 * @example Lead, then hand the Lease back on stop
 * ```ts
 * import { LeaderElector, LeaseLock } from "@kubecache/core/leaderelection";
 * import { KubeClient, KubeConfig, Leases } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start(); // yours: await KubeConfig.load()
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const lock = new LeaseLock({
 *   client,
 *   namespace: "default",
 *   name: "my-controller",
 *   identity: "replica-1", // e.g. Deno.hostname() plus a random suffix
 * });
 * const leading = Promise.withResolvers<void>();
 * const stop = new AbortController(); // a program: Deno.addSignalListener("SIGTERM", ...)
 * const elector = new LeaderElector({
 *   lock,
 *   releaseOnCancel: true, // on stop, free the Lease at once for another replica
 *   callbacks: {
 *     onStartedLeading: () => leading.resolve(), // start your workers here
 *     onStoppedLeading: () => {}, // stop them here
 *   },
 * });
 * const running = elector.run(stop.signal);
 * await leading.promise;
 * assert.equal(elector.isLeader(), true);
 * stop.abort();
 * await running;
 * assert.equal(server.list(Leases, "default")[0].spec?.holderIdentity, "");
 * ```
 *
 * @module
 */

export * from "./lease_lock.ts";
export * from "./leader_elector.ts";
