/**
 * Watch throughput without the network: the same bytes of a watch stream
 * (E MODIFIED events of ~4 KB pods, in 64 KiB chunks, as a socket would
 * deliver them) decoded and applied by kubecache's informer (the watch
 * decoder KubeClient uses → Reflector → DeltaFIFO → indexer → a no-op
 * handler) and by the raw baseline (TextDecoderStream, split lines,
 * JSON.parse, Map.set). The HTTP comparison is bounded by how fast the
 * FakeApiServer writes (one chunk per event); this one measures the client.
 *
 * Usage: deno run -A --v8-flags=--expose-gc bench/compare/_watch_inproc.ts
 *          --impl raw|kubecache --events E
 * Prints one JSON line `{impl, events, eventsPerSec}`.
 *
 * @module
 */

import { decodeWatch } from "../../client/watch.ts";
import { newSharedIndexInformer } from "../../cache/shared_informer.ts";
import type { KubeObject } from "../../cache/object.ts";
import type { ListerWatcher } from "../../cache/listwatch.ts";
import {
  makePod,
  Rng,
  running,
  scheduled,
} from "../../testing/_demo_objects.ts";

function arg(name: string): string {
  const i = Deno.args.indexOf(name);
  if (i < 0) throw new Error(`Missing flag ${name}`);
  return Deno.args[i + 1];
}

const impl = arg("--impl");
const events = Number(arg("--events"));
const PODS = 1000;
const CHUNK = 64 * 1024;

/** PODS pods, and E MODIFIED events cycling over them, as NDJSON chunks. */
function workload(): { pods: KubeObject[]; chunks: Uint8Array[] } {
  const rng = new Rng(3);
  const now = Date.now();
  const pods: KubeObject[] = [];
  for (let i = 0; i < PODS; i++) {
    const pod = makePod({
      namespace: `bench-${i % 20}`,
      owner: `app-${i % 50}-5d8f9c7b6`,
      ownerKind: "ReplicaSet",
      ownerUid: "4b6f8a52-0c1d-4e2f-9a3b-5c6d7e8f9a0b",
      app: `app-${i % 50}`,
      image: "registry.example/team/app:1.0.0",
      hash: "5d8f9c7b6",
      createdMs: now,
      rng,
    });
    const ready = running(scheduled(pod, `node-${i % 50}`, now), {
      nowMs: now,
      ready: true,
      rng,
    });
    ready.metadata.resourceVersion = String(i + 1);
    pods.push(ready);
  }
  const text: string[] = [];
  for (let k = 0; k < events; k++) {
    const pod = pods[k % PODS];
    const obj = {
      ...pod,
      metadata: {
        ...pod.metadata,
        resourceVersion: String(PODS + k + 1),
        annotations: { ...pod.metadata.annotations, "bench/seq": String(k) },
      },
    };
    text.push(JSON.stringify({ type: "MODIFIED", object: obj }) + "\n");
  }
  const bytes = new TextEncoder().encode(text.join(""));
  const chunks: Uint8Array[] = [];
  for (let off = 0; off < bytes.length; off += CHUNK) {
    chunks.push(bytes.subarray(off, off + CHUNK));
  }
  return { pods, chunks };
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i < chunks.length) c.enqueue(chunks[i++]);
      else c.close();
    },
  });
}

const keyOf = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;

async function raw(chunks: Uint8Array[]): Promise<number> {
  const map = new Map<string, KubeObject>();
  let n = 0;
  const t0 = performance.now();
  let tail = "";
  for await (
    const chunk of streamOf(chunks).pipeThrough(new TextDecoderStream())
  ) {
    const buf = tail + chunk;
    let start = 0;
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n", start)) {
      const ev = JSON.parse(buf.slice(start, nl));
      start = nl + 1;
      map.set(keyOf(ev.object), ev.object);
      n++;
    }
    tail = buf.slice(start);
  }
  if (n !== events) throw new Error(`Raw saw ${n} of ${events} events`);
  return performance.now() - t0;
}

async function kubecache(
  pods: KubeObject[],
  chunks: Uint8Array[],
): Promise<number> {
  let t0 = 0;
  let updates = 0;
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  const lw: ListerWatcher<KubeObject> = {
    list: () =>
      Promise.resolve({
        metadata: { resourceVersion: String(PODS) },
        items: pods,
      }),
    watch: (_opts, signal) => {
      t0 = performance.now();
      return Promise.resolve(decodeWatch(streamOf(chunks), { signal }));
    },
  };
  const informer = newSharedIndexInformer(lw);
  informer.addEventHandler({
    onUpdate: () => {
      if (++updates === events) resolve();
    },
  });
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  await done;
  const ms = performance.now() - t0;
  stop.abort();
  await running;
  return ms;
}

const { pods, chunks } = workload();
const ms = impl === "raw" ? await raw(chunks) : await kubecache(pods, chunks);
console.log(JSON.stringify({
  impl,
  events,
  eventsPerSec: Math.round(events / (ms / 1000)),
}));
