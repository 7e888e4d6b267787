/**
 * A controller on kubecache's Manager: it keeps a `kubecache.dev/data-hash`
 * annotation on every ConfigMap equal to a hash of its data, so pods can
 * roll when their configuration changes, and records an Event each time.
 *
 *   deno run -A examples/configmap_controller.ts [--demo] [--id NAME]
 *     [--metrics-port 8080] [--health-port 8081]
 *
 * The Manager does the wiring: one shared informer per type, a rate-limited
 * queue whose workers never reconcile one key twice at once, retries with
 * backoff, Events, `/metrics`, `/healthz` and `/readyz`, and leader
 * election over a Lease. Start it twice with different `--id`s against one
 * cluster: one leads and reconciles, the other keeps a warm cache and
 * waits. SIGTERM or Ctrl-C on the leader finishes its reconciles, releases
 * the Lease, and the other takes over within a few seconds; after a
 * SIGKILL it takes over once the Lease expires (about 15 s). A replica
 * that loses leadership without being asked exits with status 1, for its
 * supervisor to restart.
 *
 * It also shows a scoped cache (ConfigMaps labelled
 * `kubecache.dev/data-hash=off` are neither watched nor cached), a
 * TerminalError (a ConfigMap over 256 KiB of data is refused once, not
 * retried), and a runnable (the leader logs how many ConfigMaps it holds
 * every minute).
 *
 * @module
 */

import {
  type Clock,
  type ConfigMap,
  ConfigMaps,
  type DeepReadonly,
  type KubeClient,
  realClock,
} from "../mod.ts";
import {
  type InformerScope,
  LeadershipLostError,
  Manager,
  type Reconciler,
  TerminalError,
} from "../controller/mod.ts";
import { connectOrExit } from "../cli.ts";

/** The annotation the controller maintains. */
export const ANNOTATION = "kubecache.dev/data-hash";

/** Name of the Lease the replicas share. */
export const LEASE_NAME = "configmap-controller";

/** What the controller caches: every ConfigMap but the opted-out ones. */
export const SCOPE: InformerScope = {
  labelSelector: `${ANNOTATION}!=off`,
};

/** Data larger than this is not hashed (retrying cannot shrink it). */
export const MAX_DATA_BYTES = 256 * 1024;

/**
 * Hex of the first 8 bytes of the SHA-256 of a ConfigMap's sorted data.
 * Cached objects are typed DeepReadonly: readers take them that way.
 */
export async function hashOf(cm: DeepReadonly<ConfigMap>): Promise<string> {
  const data = JSON.stringify(Object.entries(cm.data ?? {}).sort());
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(data),
  );
  return Array.from(
    new Uint8Array(digest).slice(0, 8),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/**
 * The business logic: read the ConfigMap from the (scoped) cache, and
 * patch its annotation when the hash differs. Its own patch comes back as
 * an update whose hash matches, so it settles. A failed patch throws: the
 * Manager retries the key with backoff; an oversized ConfigMap throws a
 * TerminalError: reported once, not retried.
 */
export function hashReconciler(log: (line: string) => void): Reconciler {
  return async ({ namespace, name }, ctx) => {
    // The controller's own cache: the scoped one, synced.
    const configMaps = await ctx.cache(ConfigMaps);
    const cm = configMaps.namespaced(namespace!).get(name);
    if (!cm) return; // deleted: nothing to clean up
    const size = JSON.stringify(cm.data ?? {}).length;
    if (size > MAX_DATA_BYTES) {
      throw new TerminalError(
        `${namespace}/${name} has ${size} bytes of data, over ${MAX_DATA_BYTES}: not hashed`,
      );
    }
    const hash = await hashOf(cm);
    if (cm.metadata.annotations?.[ANNOTATION] === hash) return;
    await ctx.client.patch(ConfigMaps, name, {
      metadata: { annotations: { [ANNOTATION]: hash } },
    }, { namespace, patchType: "merge", signal: ctx.signal });
    ctx.recorder.event(cm, "Normal", "Annotated", `data hash is ${hash}`);
    log(`annotated ${namespace}/${name} with ${hash}`);
  };
}

/** What {@link runReplica} needs. */
export interface ReplicaOptions {
  /** Client of the cluster. */
  client: KubeClient;
  /** This replica's identity in the election; unique per replica. */
  id: string;
  /** Clock of the informers, queue and election. Default: the real clock. */
  clock?: Clock;
  /** Namespace of the Lease. Default "default". */
  leaseNamespace?: string;
  /** Ports of `/metrics` and `/healthz` + `/readyz`; none by default. */
  metricsPort?: number;
  healthPort?: number;
  /** Where progress lines go. Default `console.log`. */
  log?: (line: string) => void;
}

/**
 * Run one replica until `signal` aborts (`"stopped"`) or it loses
 * leadership without being asked (`"lost"`).
 */
export async function runReplica(
  opts: ReplicaOptions,
  signal: AbortSignal,
): Promise<"stopped" | "lost"> {
  const log = opts.log ?? console.log;
  await using manager = new Manager(opts.client, {
    clock: opts.clock,
    leaderElection: {
      name: LEASE_NAME,
      namespace: opts.leaseNamespace ?? "default",
      identity: opts.id,
    },
    metrics: opts.metricsPort === undefined
      ? false
      : { port: opts.metricsPort },
    health: opts.healthPort === undefined ? false : { port: opts.healthPort },
  });
  manager.controller("configmap-hash", ConfigMaps, {
    maxConcurrentReconciles: 2,
    scope: SCOPE,
  }).complete(hashReconciler(log));
  // Leader-only work beside the controller: a summary every minute.
  const clock = opts.clock ?? realClock;
  manager.add({
    needLeaderElection: true,
    async start(signal) {
      const configMaps = await manager.factory.syncedLister(
        ConfigMaps,
        SCOPE,
        signal,
      ).catch(() => undefined);
      while (configMaps && !signal.aborted) {
        log(`leading: ${configMaps.list().length} ConfigMaps in the cache`);
        await clock.sleep(60_000, signal).catch(() => {});
      }
    },
  });
  log(`watching ConfigMaps as ${opts.id} (Ctrl-C to stop)`);
  try {
    await manager.run(signal);
    return "stopped";
  } catch (err) {
    if (err instanceof LeadershipLostError) return "lost";
    throw err;
  }
}

if (import.meta.main) {
  const flag = (name: string) => {
    const at = Deno.args.indexOf(name);
    return at >= 0 ? Deno.args[at + 1] : undefined;
  };
  const id = flag("--id") ??
    `${Deno.hostname()}-${crypto.randomUUID().slice(0, 8)}`;
  const port = (name: string) => {
    const v = flag(name);
    return v === undefined ? undefined : Number(v);
  };
  // --demo: the embedded demo cluster; else your kubeconfig's cluster.
  await using connection = await connectOrExit(Deno.args);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  const ended = await runReplica({
    client: connection.client,
    id,
    metricsPort: port("--metrics-port"),
    healthPort: port("--health-port"),
  }, stop.signal).catch((err: unknown) => {
    // A fatal informer error: one line, not a stack.
    console.error(`error: ${err instanceof Error ? err.message : err}`);
    return "failed" as const;
  });
  Deno.removeSignalListener("SIGINT", onSignal);
  Deno.removeSignalListener("SIGTERM", onSignal);
  if (ended === "lost") {
    // Another replica may be working already: exit 1 and be restarted.
    console.error(
      `error: ${id} lost leadership (Lease ${LEASE_NAME}); exiting`,
    );
  }
  if (ended !== "stopped") Deno.exitCode = 1;
}
