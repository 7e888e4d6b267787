/**
 * How fast FakeApiServer serves big lists, so benchmarks built on it know
 * it is not their bottleneck: 100 000 pods listed 500 per page (limit +
 * continue, as a Reflector with pageSize 500 does), and in one response at
 * resourceVersion "0" (as a Reflector's first list does).
 *
 * Run as a script for requests/s and MB/s:
 *   deno run --allow-net=127.0.0.1 bench/apiserver_bench.ts [pods] [rounds]
 * or under `deno bench` for time per full paginated list.
 *
 * The client (fetch) runs in the same process and shares the CPU with the
 * server, as it does in kubecache's tests.
 *
 * @module
 */

import { FakeApiServer } from "../testing/fake_api_server.ts";
import { Pods } from "../api/resources.ts";
import type { KubeObject } from "../api/object.ts";

const PAGE = 500;

/** A pod of realistic size (about 1 KB of JSON). */
function pod(i: number): KubeObject {
  const name = `pod-${String(i).padStart(6, "0")}`;
  return {
    metadata: {
      name,
      namespace: `bench-${i % 10}`,
      labels: { app: `app-${i % 50}`, tier: i % 2 ? "web" : "db" },
      annotations: { "kubecache.dev/index": String(i) },
    },
    spec: {
      nodeName: `node-${i % 100}`,
      containers: [{
        name: "main",
        image: "registry.example.com/team/service:1.2.3",
        ports: [{ containerPort: 8080, protocol: "TCP" }],
        resources: {
          requests: { cpu: "100m", memory: "128Mi" },
          limits: { cpu: "500m", memory: "256Mi" },
        },
        env: [{ name: "MODE", value: "bench" }],
      }],
      restartPolicy: "Always",
      serviceAccountName: "default",
    },
    status: {
      phase: "Running",
      podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      hostIP: `192.168.0.${i % 100}`,
      conditions: [{ type: "Ready", status: "True" }],
    },
  } as KubeObject;
}

/** A server holding `n` pods. */
async function serverWithPods(n: number): Promise<FakeApiServer> {
  const server = await FakeApiServer.start();
  for (let i = 0; i < n; i++) server.create(Pods, pod(i));
  return server;
}

const decoder = new TextDecoder();

/**
 * List every pod page by page; returns [requests, bytes, items]. With
 * `parse` false the client only reads the bytes and takes the continue
 * token from the list metadata at the head of the body, so the figure is
 * the server's (and the HTTP stack's) capacity rather than JSON.parse's.
 */
async function listPaginated(
  url: string,
  parse = true,
): Promise<[number, number, number]> {
  let requests = 0;
  let bytes = 0;
  let items = 0;
  let cont = "";
  do {
    const q = `limit=${PAGE}${
      cont ? `&continue=${encodeURIComponent(cont)}` : ""
    }`;
    const res = await fetch(`${url}/api/v1/pods?${q}`);
    const buf = await res.arrayBuffer();
    requests++;
    bytes += buf.byteLength;
    if (parse) {
      const body = JSON.parse(decoder.decode(buf));
      items += body.items.length;
      cont = body.metadata.continue ?? "";
    } else {
      const head = decoder.decode(new Uint8Array(buf, 0, 1024));
      cont = /"continue":"([^"]*)"/.exec(head)?.[1] ?? "";
      items += PAGE;
    }
  } while (cont);
  return [requests, bytes, items];
}

/** One list at resourceVersion=0 (all items in one streamed response). */
async function listAll(url: string): Promise<[number, number]> {
  const res = await fetch(`${url}/api/v1/pods?resourceVersion=0`);
  const buf = await res.arrayBuffer();
  const body = JSON.parse(decoder.decode(buf));
  return [buf.byteLength, body.items.length];
}

if (import.meta.main) {
  const n = Number(Deno.args[0] ?? 100_000);
  const rounds = Number(Deno.args[1] ?? 3);
  let t0 = performance.now();
  await using server = await serverWithPods(n);
  console.log(`created ${n} pods in ${(performance.now() - t0).toFixed(0)} ms`);
  await listPaginated(server.url); // warm-up (JSON of every pod cached)
  for (const parse of [true, false]) {
    for (let r = 0; r < rounds; r++) {
      t0 = performance.now();
      const [requests, bytes, items] = await listPaginated(server.url, parse);
      const s = (performance.now() - t0) / 1000;
      console.log(
        `paginated limit=${PAGE}${
          parse ? ", client parses" : ", bytes only"
        }: ${Math.min(items, n)} pods, ${requests} requests, ${
          (bytes / 1e6).toFixed(1)
        } MB in ${s.toFixed(2)} s: ${(requests / s).toFixed(0)} requests/s, ${
          (bytes / 1e6 / s).toFixed(1)
        } MB/s`,
      );
    }
  }
  t0 = performance.now();
  const [bytes, items] = await listAll(server.url);
  const s = (performance.now() - t0) / 1000;
  console.log(
    `resourceVersion=0 in one response: ${items} pods, ${
      (bytes / 1e6).toFixed(1)
    } MB in ${s.toFixed(2)} s: ${(bytes / 1e6 / s).toFixed(1)} MB/s`,
  );
} else {
  const server = await serverWithPods(100_000);
  await listPaginated(server.url);
  Deno.bench({
    name: "FakeApiServer: 100k pods, paginated 500 per page (200 requests)",
    n: 5,
    warmup: 1,
    async fn() {
      await listPaginated(server.url);
    },
  });
  Deno.bench({
    name: "FakeApiServer: 100k pods, resourceVersion=0 in one response",
    n: 5,
    warmup: 1,
    async fn() {
      await listAll(server.url);
    },
  });
  // deno bench offers no teardown hook: close once the benches are done.
  globalThis.addEventListener("unload", () => void server.close());
}
