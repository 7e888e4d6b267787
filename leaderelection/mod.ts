/**
 * Leader election over a `coordination.k8s.io/v1` Lease (client-go
 * `tools/leaderelection`): run several replicas of a controller and let
 * exactly one of them work, with another taking over when it stops or
 * disappears.
 *
 * ```ts ignore
 * // needs a cluster: see examples/configmap_controller.ts for a whole controller
 * import { LeaderElector, LeaseLock } from "@kubecache/core/leaderelection";
 * import { KubeClient, KubeConfig } from "@kubecache/core";
 *
 * const client = new KubeClient(await KubeConfig.load());
 * const lock = new LeaseLock({ client, namespace: "default", name: "my-controller", identity: Deno.hostname() });
 * const stop = new AbortController();
 * Deno.addSignalListener("SIGINT", () => stop.abort());
 * await new LeaderElector({
 *   lock,
 *   releaseOnCancel: true,
 *   callbacks: {
 *     onStartedLeading: (signal) => runController(signal),
 *     onStoppedLeading: () => console.log("stopped leading"),
 *     onNewLeader: (id) => console.log(`leader: ${id}`),
 *   },
 * }).run(stop.signal);
 * ```
 *
 * @module
 */

export * from "./lease_lock.ts";
export * from "./leader_elector.ts";
