/**
 * Benchmark server process: a FakeApiServer holding N realistic pods (about
 * 4 KB of JSON each, managedFields included), plus a control endpoint that
 * makes it write watch events on demand. Runs in its own process so the
 * clients' heap measurements see only their own objects.
 *
 * Usage: deno run -A bench/compare/_server.ts --pods 10000
 * Prints one JSON line `{"url", "control"}` on stdout once ready.
 *
 * @module
 */

import { FakeApiServer } from "../../testing/fake_api_server.ts";
import { Namespaces, Pods } from "../../api/resources.ts";
import type { KubeObject } from "../../api/object.ts";
import { BENCH_NAMESPACES, benchPod, Rng } from "../_pods.ts";

function flag(name: string, fallback: number): number {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
}

const count = flag("--pods", 10_000);
const historyLimit = flag("--history", 250_000);
const server = await FakeApiServer.start({ port: 0, historyLimit });
const rng = new Rng(7);
const now = Date.now();
for (let n = 0; n < BENCH_NAMESPACES; n++) {
  server.create(Namespaces, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: `bench-${n}` },
  });
}
const pods: KubeObject[] = [];
for (let i = 0; i < count; i++) {
  pods.push(server.create(Pods, benchPod(i, rng, now)));
}
// The history would otherwise replay every create to a watch that starts
// at an old RV; the benchmark's watches start at their list's RV anyway.
server.compact();
// Warm up: the server encodes each object once, on its first list. Do it
// now so no client pays for it.
const warm = await fetch(`${server.url}/api/v1/pods?resourceVersion=0`);
for await (const _ of warm.body!) { /* discard */ }

let seq = 0;
const control = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: () => {},
}, (req) => {
  const url = new URL(req.url);
  if (url.pathname === "/modify") {
    // Write `count` MODIFIED events back to back, as a busy cluster would.
    const n = Number(url.searchParams.get("count") ?? 1000);
    for (let k = 0; k < n; k++) {
      const i = (seq++) % pods.length;
      const cur = pods[i];
      pods[i] = server.update(Pods, {
        ...cur,
        metadata: {
          ...cur.metadata,
          annotations: {
            ...cur.metadata.annotations,
            "bench/seq": String(seq),
          },
        },
      });
    }
    return new Response(JSON.stringify({ rv: server.resourceVersion() }));
  }
  return new Response("not found", { status: 404 });
});

const addr = control.addr as Deno.NetAddr;
console.log(JSON.stringify({
  url: server.url,
  control: `http://127.0.0.1:${addr.port}`,
}));

// Run until stdin closes (the orchestrator ends us by closing it).
for await (const _ of Deno.stdin.readable) { /* wait */ }
await control.shutdown();
await server.close();
