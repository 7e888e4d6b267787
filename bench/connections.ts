/**
 * How many TCP connections a controller Manager holds to the API server,
 * with the list and watch socket (the default) and with `fetch`
 * (`listWatchTransport: "fetch"`), over plain HTTP and over TLS.
 *
 * A FakeApiServer in this process serves 10 resource types with a few
 * objects each; a Manager runs 10 controllers, one per type (10
 * informers, so 10 lists then 10 watches). The connections are counted
 * from `/proc/net/tcp` (ESTABLISHED sockets whose remote port is the
 * server's): how many were opened during the sync (sampled every 5 ms),
 * how many are open after the sync, 2 s later with the watches open, after
 * the Manager stopped, after `KubeClient.close()`.
 *
 * Run: deno run -A bench/connections.ts
 *
 * @module
 */

import { FakeApiServer } from "../testing/fake_api_server.ts";
import { makePki } from "../testing/pki_test_util.ts";
import { KubeClient } from "../client/rest.ts";
import { KubeConfig } from "../client/config.ts";
import { Manager } from "../controller/manager.ts";
import {
  ConfigMaps,
  CronJobs,
  DaemonSets,
  Deployments,
  Jobs,
  ReplicaSets,
  Secrets,
  ServiceAccounts,
  Services,
  StatefulSets,
} from "../api/resources.ts";

const TYPES = [
  ConfigMaps,
  Secrets,
  Services,
  ServiceAccounts,
  Deployments,
  ReplicaSets,
  StatefulSets,
  DaemonSets,
  Jobs,
  CronJobs,
];

/** Client ports of connections opened to the server, seen by {@link connectionsTo}. */
const seen = new Set<number>();

/** ESTABLISHED TCP connections of this host to `port` (client ends only). */
function connectionsTo(port: number): number {
  let n = 0;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = Deno.readTextFileSync(file);
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 4) continue;
      const remotePort = parseInt(f[2].split(":")[1], 16);
      if (remotePort === port && f[3] === "01") {
        n++;
        seen.add(parseInt(f[1].split(":")[1], 16));
      }
    }
  }
  return n;
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(
  tls: boolean,
  transport: "socket" | "fetch",
  pki: Awaited<ReturnType<typeof makePki>>,
): Promise<number[]> {
  await using server = await FakeApiServer.start(
    tls ? { tls: { cert: pki.serverCert, key: pki.serverKey } } : {},
  );
  const client = new KubeClient(
    KubeConfig.fromOptions({
      server: server.url,
      caData: tls ? pki.ca : undefined,
    }),
    { listWatchTransport: transport },
  );
  const manager = new Manager(client);
  for (const type of TYPES) {
    manager.controller(`c-${type.resource}`, type).complete(() => {});
  }
  const stop = new AbortController();
  seen.clear();
  // Sampled every 5 ms: connections opened during the sync.
  const sampler = setInterval(() => connectionsTo(server.port), 5);
  const running = manager.run(stop.signal);
  await manager.waitForCacheSync(stop.signal);
  const synced = connectionsTo(server.port);
  await wait(500);
  clearInterval(sampler);
  const opened = seen.size;
  await wait(2000);
  const watching = connectionsTo(server.port);
  stop.abort();
  await running;
  await wait(200);
  const stopped = connectionsTo(server.port);
  client.close();
  await wait(200);
  const closed = connectionsTo(server.port);
  return [opened, synced, watching, stopped, closed];
}

const pki = await makePki();
console.log(
  "| transport | server | opened during the sync | open after sync | watching | Manager stopped | client closed |",
);
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
for (const tls of [false, true]) {
  for (const transport of ["socket", "fetch"] as const) {
    const counts = await measure(tls, transport, pki);
    console.log(
      `| ${transport} | ${tls ? "HTTPS" : "HTTP"} | ${counts.join(" | ")} |`,
    );
  }
}
await Deno.remove(pki.dir, { recursive: true });
