/**
 * Three replicas of one sharded controller: each reconciles only its part
 * of the ConfigMaps, and the parts move when a replica goes away.
 *
 *   deno run -A examples/sharded_replicas.ts [--demo]
 *
 * The three replicas run in this one process for the demo (each with its
 * own client and Manager, as three pods would); in a cluster, run one per
 * pod with the same `sharding.name` and a distinct identity (the pod
 * name). Every 2 s it prints who owns which part and how many ConfigMaps
 * each has reconciled. After 10 s the second replica stops gracefully: it
 * releases its Lease and the other two take its part within a few seconds.
 * Ctrl-C stops the rest.
 *
 * @module
 */

import { ConfigMaps, KubeClient } from "../mod.ts";
import { Manager } from "../controller/mod.ts";
import { connectOrExit } from "../cli.ts";

/** One replica: a Manager whose ConfigMap controller counts what it reconciles. */
export function startReplica(
  client: KubeClient,
  identity: string,
  signal: AbortSignal,
): { manager: Manager; reconciled: Set<string>; done: Promise<void> } {
  const manager = new Manager(client, {
    sharding: { name: "configmap-audit", namespace: "default", identity },
  });
  const reconciled = new Set<string>();
  manager.controller("audit", ConfigMaps).complete((req) => {
    reconciled.add(`${req.namespace}/${req.name}`);
  });
  return { manager, reconciled, done: manager.run(signal) };
}

if (import.meta.main) {
  await using connection = await connectOrExit(Deno.args);
  const config = connection.client.config;
  const stop = new AbortController();
  Deno.addSignalListener("SIGINT", () => stop.abort());
  const clients: KubeClient[] = [];
  const replicas = ["replica-a", "replica-b", "replica-c"].map((id) => {
    const client = new KubeClient(config);
    clients.push(client);
    const own = new AbortController();
    stop.signal.addEventListener("abort", () => own.abort(), { once: true });
    return { id, own, ...startReplica(client, id, own.signal) };
  });
  const started = Date.now();
  let stoppedB = false;
  const timer = setInterval(() => {
    if (!stoppedB && Date.now() - started > 10_000) {
      stoppedB = true;
      console.log("stopping replica-b gracefully");
      replicas[1].own.abort();
    }
    for (const r of replicas) {
      const s = r.manager.shards!;
      console.log(
        `${r.id}: owns ${(s.ownedFraction() * 100).toFixed(1)}%${
          s.moving() ? " (moving)" : ""
        }, ${r.reconciled.size} ConfigMaps reconciled, members ${
          s.members().join(",")
        }`,
      );
    }
  }, 2_000);
  await Promise.all(replicas.map((r) => r.done));
  clearInterval(timer);
  for (const c of clients) await c.close();
}
