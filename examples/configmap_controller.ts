/**
 * A controller in client-go's shape: it keeps a `kubecache.dev/data-hash`
 * annotation on every ConfigMap equal to a hash of its data, so pods can
 * roll when their configuration changes.
 *
 * - a SharedInformerFactory watches ConfigMaps; its handlers only enqueue
 *   `namespace/name` keys on a rate-limited work queue;
 * - workers (`runWorkers`) reconcile one key at a time from the lister (the
 *   cache), never the same key in two workers, retrying failures with
 *   backoff; its own patches come back as updates whose hash matches, so it
 *   settles;
 * - leader election over a Lease lets several replicas run side by side:
 *   all keep a warm cache, only the leader's workers run.
 *
 *   deno run -A examples/configmap_controller.ts [--demo] [--id NAME]
 *
 * Start it twice with different `--id`s against one cluster: one leads and
 * reconciles, the other waits. Ctrl-C on the leader releases the lease and
 * the other takes over within a few seconds; after a SIGKILL it takes over
 * once the lease expires (about 15 s). A replica that loses leadership
 * without being asked exits with status 1, for its supervisor to restart.
 *
 * @module
 */

import {
  type Clock,
  type ConfigMap,
  ConfigMaps,
  type DeepReadonly,
  deletionHandlingMetaNamespaceKeyFunc,
  type KubeClient,
  RateLimitingQueue,
  runWorkers,
  SharedInformerFactory,
} from "../mod.ts";
import { LeaderElector, LeaseLock } from "../leaderelection/mod.ts";
import { connect } from "./_connect.ts";

/** The annotation the controller maintains. */
export const ANNOTATION = "kubecache.dev/data-hash";

/** Name of the Lease the replicas share. */
export const LEASE_NAME = "configmap-controller";

/** What {@link runController} needs. */
export interface ControllerOptions {
  /** Client of the cluster. */
  client: KubeClient;
  /** This replica's identity in the election; unique per replica. */
  id: string;
  /** Clock of the informers, queue and election. Default: the real clock. */
  clock?: Clock;
  /** Concurrent reconciles. Default 2. */
  workers?: number;
  /** Namespace of the Lease. Default "default". */
  leaseNamespace?: string;
  /** Where progress lines go. Default `console.log`. */
  log?: (line: string) => void;
}

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
 * Run one replica until `signal` aborts (`"stopped"`) or it loses
 * leadership without being asked (`"lost"`). Rejects (after stepping down)
 * if an informer stops on a fatal error, such as the mutation detector
 * firing (`factory.stopped()`).
 */
export async function runController(
  opts: ControllerOptions,
  signal: AbortSignal,
): Promise<"stopped" | "lost"> {
  const { client, id, clock } = opts;
  const log = opts.log ?? console.log;
  await using factory = new SharedInformerFactory(client, { clock });
  const informer = factory.informerFor<ConfigMap>(ConfigMaps);
  const configMaps = factory.lister<ConfigMap>(ConfigMaps);
  const queue = new RateLimitingQueue<string>(undefined, {
    name: "configmaps",
    clock,
  });

  // Handlers only say which key changed; the workers do the work. A key
  // changed ten times while a worker is busy is reconciled once more, with
  // the latest state from the cache.
  const enqueue = (obj: unknown) =>
    queue.add(deletionHandlingMetaNamespaceKeyFunc(obj));
  informer.addEventHandler({
    onAdd: enqueue,
    onUpdate: (_old, cm) => enqueue(cm),
    onDelete: enqueue,
  });

  async function reconcile(key: string, stop: AbortSignal): Promise<void> {
    const cm = configMaps.get(key); // the cache, not the server
    if (!cm) return; // deleted: nothing to clean up
    const hash = await hashOf(cm);
    if (cm.metadata.annotations?.[ANNOTATION] === hash) return;
    await client.patch(ConfigMaps, cm.metadata.name!, {
      metadata: { annotations: { [ANNOTATION]: hash } },
    }, { namespace: cm.metadata.namespace, patchType: "merge", signal: stop });
    log(`annotated ${key} with ${hash}`);
  }

  // A fatal informer error ends the replica: a leader on a broken cache
  // must not go on reconciling.
  const halt = new AbortController();
  const failed: { error?: unknown } = {};
  factory.stopped().catch((error) => {
    failed.error = error;
    halt.abort(error);
  });
  const running = AbortSignal.any([signal, halt.signal]);

  try {
    factory.start(signal);
    await factory.waitForCacheSync(running);
    if (halt.signal.aborted) throw failed.error;
    if (signal.aborted) return "stopped";
    log(`synced; watching ConfigMaps as ${id} (Ctrl-C to stop)`);
    const elector = new LeaderElector({
      lock: new LeaseLock({
        client,
        namespace: opts.leaseNamespace ?? "default",
        name: LEASE_NAME,
        identity: id,
      }),
      clock,
      releaseOnCancel: true,
      callbacks: {
        onStartedLeading: (leading) => {
          log(`${id} leads`);
          // Resolves once `leading` aborts and the reconciles in flight end;
          // only then is the lease released.
          return runWorkers(queue, opts.workers ?? 2, reconcile, leading, {
            onError: (err, key) =>
              log(`${key}: ${err instanceof Error ? err.message : err}`),
          });
        },
        onStoppedLeading: () => log(`${id} stopped`),
        onNewLeader: (leader) => {
          if (leader && leader !== id) log(`${id} waits: ${leader} leads`);
        },
      },
    });
    await elector.run(running);
    if (halt.signal.aborted) throw failed.error;
    return signal.aborted ? "stopped" : "lost";
  } finally {
    queue.shutDown();
  }
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--id");
  const id = at >= 0 && Deno.args[at + 1]
    ? Deno.args[at + 1]
    : `${Deno.hostname()}-${crypto.randomUUID().slice(0, 8)}`;
  // --demo: the embedded demo cluster; else your kubeconfig's cluster.
  await using connection = await connect(Deno.args);
  const stop = new AbortController();
  const onInterrupt = () => stop.abort();
  Deno.addSignalListener("SIGINT", onInterrupt);
  const ended = await runController(
    { client: connection.client, id },
    stop.signal,
  );
  Deno.removeSignalListener("SIGINT", onInterrupt);
  if (ended === "lost") {
    console.error(`${id} lost leadership; exiting`);
    Deno.exitCode = 1;
  }
}
