/**
 * Benchmarks of the cache data structures: the Indexer (threadSafeMap) with
 * 100k pods and three indexes, update cost at 1k vs 100k stored objects
 * (same group, so `deno bench` prints the ratio: it should be ~1x, i.e. O(1)
 * in store size), and bulk DeltaFIFO and Heap throughput.
 *
 * Run: `deno bench bench/cache_bench.ts`
 *
 * @module
 */

import { type Indexer, newIndexer } from "../cache/store.ts";
import { metaNamespaceKeyFunc } from "../cache/keys.ts";
import { metaNamespaceIndexFunc, NAMESPACE_INDEX } from "../cache/index.ts";
import { DeltaFIFO } from "../cache/delta_fifo.ts";
import { Heap } from "../cache/heap.ts";
import type { KubeObject } from "../api/object.ts";

interface Pod extends KubeObject {
  spec: { nodeName: string };
}

const BIG = 100_000;
const SMALL = 1_000;
const NAMESPACES = 100;
const NODES = 1_000;
const APPS = 50;

function pod(i: number, rv = 1, node = i % NODES): Pod {
  return {
    metadata: {
      namespace: `ns-${i % NAMESPACES}`,
      name: `pod-${i}`,
      resourceVersion: String(rv),
      labels: { app: `app-${i % APPS}`, tier: i % 2 ? "front" : "back" },
    },
    spec: { nodeName: `node-${node}` },
  };
}

function podIndexer(n: number): { indexer: Indexer<Pod>; pods: Pod[] } {
  const indexer = newIndexer<Pod>(metaNamespaceKeyFunc, {
    [NAMESPACE_INDEX]: metaNamespaceIndexFunc,
    node: (p) => [p.spec.nodeName],
    app: (p) => [p.metadata.labels?.app ?? ""],
  });
  const pods: Pod[] = [];
  for (let i = 0; i < n; i++) pods.push(pod(i));
  indexer.replace(pods.slice(), "1");
  return { indexer, pods };
}

// Pre-built replacement objects so the timed region measures the store, not
// object construction.
function updates(n: number, moveNode: boolean): Pod[] {
  const out: Pod[] = [];
  for (let i = 0; i < n; i++) {
    out.push(pod(i, 2, moveNode ? (i + 1) % NODES : i % NODES));
  }
  return out;
}

const big = podIndexer(BIG);
const bigSame = updates(BIG, false);
const bigMoved = updates(BIG, true);
let cursor = 0;
const moved = new Uint8Array(BIG);

// add and delete are timed in batches of 100 new keys (per-call start()
// and end() are too coarse under 10 µs): every add inserts a key the store
// lacks, every delete removes one it holds, and the untimed half of each
// iteration puts the store back to 100k. Divide the time by 100.
const BATCH = 100;
const extras: Pod[] = [];
for (let i = 0; i < BATCH; i++) extras.push(pod(BIG + i));

Deno.bench({
  name: "Indexer.add ×100 new keys (100k pods, 3 indexes)",
  group: "indexer-100k",
  fn(b) {
    b.start();
    for (const p of extras) big.indexer.add(p);
    b.end();
    for (const p of extras) big.indexer.delete(p);
  },
});

Deno.bench({
  name: "Indexer.delete ×100 (100k pods, 3 indexes)",
  group: "indexer-100k",
  fn(b) {
    for (const p of extras) big.indexer.add(p);
    b.start();
    for (const p of extras) big.indexer.delete(p);
    b.end();
  },
});

Deno.bench({
  name: "Indexer.update, index values unchanged (100k pods, 3 indexes)",
  group: "indexer-100k",
  baseline: true,
  fn() {
    const i = cursor++ % BIG;
    big.indexer.update(bigSame[i]);
  },
});

Deno.bench({
  name: "Indexer.update, node index moves (100k pods, 3 indexes)",
  group: "indexer-100k",
  fn() {
    const i = cursor++ % BIG;
    // Alternate each pod between two nodes so every call moves its entry.
    big.indexer.update(moved[i] ? bigSame[i] : bigMoved[i]);
    moved[i] ^= 1;
  },
});

Deno.bench({
  name: "Indexer.byIndex node (~100 of 100k pods)",
  group: "indexer-100k",
  fn() {
    big.indexer.byIndex("node", `node-${cursor++ % NODES}`);
  },
});

Deno.bench({
  name: "Indexer.byIndex namespace (~1000 of 100k pods)",
  group: "indexer-100k",
  fn() {
    big.indexer.byIndex(NAMESPACE_INDEX, `ns-${cursor++ % NAMESPACES}`);
  },
});

// Update cost must not depend on how many objects are stored.
const small = podIndexer(SMALL);
const smallSame = updates(SMALL, false);

Deno.bench({
  name: "Indexer.update, 1k stored",
  group: "update-vs-store-size",
  baseline: true,
  fn() {
    small.indexer.update(smallSame[cursor++ % SMALL]);
  },
});

Deno.bench({
  name: "Indexer.update, 100k stored, same 1k hot keys",
  group: "update-vs-store-size",
  fn() {
    // Same keys touched as the 1k case: isolates store size from locality.
    big.indexer.update(bigSame[cursor++ % SMALL]);
  },
});

Deno.bench({
  name: "Indexer.update, 100k stored, all keys",
  group: "update-vs-store-size",
  fn() {
    // Spread over all 100k keys: the honest access pattern, worse locality.
    big.indexer.update(bigSame[cursor++ % BIG]);
  },
});

// Bulk queues: one iteration moves 100k objects through; divide by 100k
// for the per-object cost.
const bulkPods: Pod[] = [];
for (let i = 0; i < BIG; i++) bulkPods.push(pod(i));

Deno.bench({
  name: "DeltaFIFO add + pop of 100k (per iteration)",
  group: "queues-100k",
  n: 10,
  warmup: 2,
  async fn() {
    const fifo = new DeltaFIFO<Pod>();
    for (const p of bulkPods) fifo.add(p);
    for (let i = 0; i < BIG; i++) await fifo.pop(() => {});
  },
});

Deno.bench({
  name: "Heap push + pop of 100k (per iteration)",
  group: "queues-100k",
  n: 10,
  warmup: 2,
  async fn() {
    const heap = new Heap<Pod>(
      metaNamespaceKeyFunc,
      (a, b) => a.metadata.name! < b.metadata.name!,
    );
    // Push in a scrambled order so the heap does real work.
    for (let i = 0; i < BIG; i++) heap.add(bulkPods[(i * 7919) % BIG]);
    for (let i = 0; i < BIG; i++) await heap.pop();
  },
});
