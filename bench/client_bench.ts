/**
 * client/ benchmarks.
 *
 * 1. Listing 100k pods paginated 500 per page: `KubeClient.list` paging vs
 *    raw `fetch` + `JSON.parse` of the same pages, from the same loopback
 *    server that serves pre-serialised pages (so the server costs the same
 *    for both and the difference is the client's).
 * 2. Watch decode throughput: `decodeWatch` over a body of pod events cut in
 *    64 KiB chunks vs `JSON.parse` of the same lines in-process (and vs
 *    TextDecoder + split + JSON.parse, and vs a TextDecoderStream + split
 *    pipeline). Variants run in a rotating order, each after a forced GC
 *    when `--v8-flags=--expose-gc` is given; "paired" figures are medians of
 *    per-round ratios, which a busy machine disturbs least.
 *
 * Run the figures:   deno run --allow-net=127.0.0.1 --v8-flags=--expose-gc bench/client_bench.ts [ROUNDS] [watch]
 * Or as deno bench:  deno bench --allow-net=127.0.0.1 bench/client_bench.ts
 *
 * @module
 */

import { KubeClient } from "../client/rest.ts";
import { KubeConfig } from "../client/config.ts";
import { Pods } from "../api/resources.ts";
import { decodeWatch } from "../client/watch.ts";
import { benchPods } from "./_pods.ts";
import { chunkStream } from "./_streams.ts";

const TOTAL_PODS = 100_000;
const PAGE = 500;
const WATCH_EVENTS = 20_000;
const CHUNK = 64 * 1024;

function pod(i: number, utf8 = true) {
  const name = `web-${(i >>> 8).toString(36)}-${
    i.toString(36).padStart(5, "0")
  }`;
  return {
    metadata: {
      name,
      namespace: `ns-${i % 50}`,
      uid: crypto.randomUUID(),
      resourceVersion: String(1000 + i),
      creationTimestamp: "2026-01-01T00:00:00Z",
      labels: {
        app: "web",
        "pod-template-hash": "5d4f8c7b9",
        tier: i % 2 ? "front" : "back",
      },
      annotations: {
        "kubernetes.io/psp": "restricted",
        "prometheus.io/scrape": "true",
      },
      ownerReferences: [{
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: "web-5d4f8c7b9",
        uid: "8a7e6a4e-0000-4000-8000-000000000001",
        controller: true,
        blockOwnerDeletion: true,
      }],
    },
    spec: {
      nodeName: `node-${i % 200}`,
      serviceAccountName: "default",
      containers: [{
        name: "web",
        image: "registry.example.com/web:1.2.3",
        ports: [{ containerPort: 8080, protocol: "TCP" }],
        env: [{ name: "MODE", value: "production" }, {
          name: "LOCALE",
          value: utf8 ? "fr_FR.UTF-8 — été" : "fr_FR.UTF-8",
        }],
        resources: {
          requests: { cpu: "100m", memory: "128Mi" },
          limits: { memory: "256Mi" },
        },
      }],
    },
    status: {
      phase: "Running",
      podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      conditions: [
        {
          type: "Ready",
          status: "True",
          lastTransitionTime: "2026-01-01T00:00:05Z",
        },
        {
          type: "ContainersReady",
          status: "True",
          lastTransitionTime: "2026-01-01T00:00:05Z",
        },
      ],
      containerStatuses: [{
        name: "web",
        ready: true,
        restartCount: 0,
        image: "registry.example.com/web:1.2.3",
        imageID:
          "registry.example.com/web@sha256:0123456789abcdef0123456789abcdef",
        state: { running: { startedAt: "2026-01-01T00:00:04Z" } },
      }],
    },
  };
}

// ---- 1. paginated list ----

function buildPages(): Uint8Array<ArrayBuffer>[] {
  const enc = new TextEncoder();
  const pages: Uint8Array<ArrayBuffer>[] = [];
  const count = Math.ceil(TOTAL_PODS / PAGE);
  for (let p = 0; p < count; p++) {
    const items = [];
    for (let i = p * PAGE; i < Math.min(TOTAL_PODS, (p + 1) * PAGE); i++) {
      items.push(pod(i));
    }
    const remaining = TOTAL_PODS - (p + 1) * PAGE;
    pages.push(enc.encode(JSON.stringify({
      kind: "PodList",
      apiVersion: "v1",
      metadata: {
        resourceVersion: "200000",
        ...(remaining > 0
          ? { continue: `page-${p + 1}`, remainingItemCount: remaining }
          : {}),
      },
      items,
    })));
  }
  return pages;
}

function servePages(pages: Uint8Array<ArrayBuffer>[]) {
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    (req) => {
      const token = new URL(req.url).searchParams.get("continue");
      const page = token ? Number(token.slice(5)) : 0;
      return new Response(pages[page], {
        headers: { "content-type": "application/json" },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    async close() {
      ac.abort();
      await server.finished;
    },
  };
}

async function listRaw(url: string): Promise<number> {
  let n = 0;
  let token: string | undefined;
  do {
    const q = new URLSearchParams({ limit: String(PAGE) });
    if (token) q.set("continue", token);
    const res = await fetch(`${url}/api/v1/pods?${q}`, {
      headers: { Accept: "application/json" },
    });
    const list = JSON.parse(await res.text());
    n += list.items.length;
    token = list.metadata.continue;
  } while (token);
  return n;
}

async function listClient(client: KubeClient): Promise<number> {
  let n = 0;
  let token: string | undefined;
  do {
    const list = await client.list(Pods, { limit: PAGE, continue: token });
    n += list.items.length;
    token = list.metadata.continue || undefined;
  } while (token);
  return n;
}

// ---- 2. watch decode ----

/** The object of event `i`. */
type EventObject = (i: number) => unknown;

/** Pods with non-ASCII text in every `utf8Every`-th event. */
function podsWithUtf8(utf8Every: number): EventObject {
  return (i) => pod(i, i % utf8Every === 0);
}

/**
 * Pods built like those bench:compare serves (~4.5 KB of JSON each, with
 * managedFields, as a real apiserver sends them), 1000 of them cycling.
 */
function comparePods(): EventObject {
  const pods = benchPods(1000, Date.parse("2026-01-01T00:00:00Z"));
  return (i) => {
    const p = pods[i % pods.length];
    return {
      ...p,
      metadata: { ...p.metadata, resourceVersion: String(1000 + i) },
    };
  };
}

/** WATCH_EVENTS events of `objectOf(i)`, as lines and as 64 KiB chunks. */
function buildWatch(objectOf: EventObject): {
  lines: string[];
  chunks: Uint8Array[];
  all: Uint8Array;
  bytes: number;
} {
  const lines: string[] = [];
  for (let i = 0; i < WATCH_EVENTS; i++) {
    lines.push(
      JSON.stringify({
        type: i % 10 ? "MODIFIED" : "ADDED",
        object: objectOf(i),
      }),
    );
  }
  const all = new TextEncoder().encode(lines.join("\n") + "\n");
  const chunks: Uint8Array[] = [];
  for (let o = 0; o < all.length; o += CHUNK) {
    chunks.push(all.subarray(o, o + CHUNK));
  }
  return { lines, chunks, all, bytes: all.length };
}

function rawParse(lines: string[]): number {
  let n = 0;
  for (const l of lines) if (JSON.parse(l).type) n++;
  return n;
}

function rawDecodeSplitParse(bytes: Uint8Array): number {
  let n = 0;
  for (const l of new TextDecoder().decode(bytes).split("\n")) {
    if (l && JSON.parse(l).type) n++;
  }
  return n;
}

/** Per-chunk TextDecoder + split + JSON.parse, synchronous: the floor for any byte decoder. */
function rawChunkDecode(chunks: Uint8Array[]): number {
  const dec = new TextDecoder();
  let n = 0;
  let pending = "";
  for (const c of chunks) {
    const text = pending + dec.decode(c, { stream: true });
    let start = 0;
    let nl;
    while ((nl = text.indexOf("\n", start)) !== -1) {
      if (JSON.parse(text.slice(start, nl)).type) n++;
      start = nl + 1;
    }
    pending = text.slice(start);
  }
  return n;
}

async function decodeWithClient(chunks: Uint8Array[]): Promise<number> {
  let n = 0;
  for await (const ev of decodeWatch(chunkStream(chunks, 0))) if (ev.type) n++;
  return n;
}

/** TextDecoderStream, then split the text: the bench/compare raw baseline's way. */
async function decodeWithStreams(chunks: Uint8Array[]): Promise<number> {
  let n = 0;
  let tail = "";
  const text = chunkStream(chunks, 0).pipeThrough(new TextDecoderStream());
  for await (const chunk of text) {
    const buf = tail + chunk;
    let start = 0;
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n", start)) {
      if (JSON.parse(buf.slice(start, nl)).type) n++;
      start = nl + 1;
    }
    tail = buf.slice(start);
  }
  return n;
}

// ---- deno bench ----

if (!import.meta.main) {
  const pages = buildPages();
  const watch = buildWatch(podsWithUtf8(1));
  const server = servePages(pages);
  const client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
    { timeoutMs: 0 },
  );
  addEventListener("unload", () => {
    client.close();
    server.close();
  });
  Deno.bench({
    name: "list 100k pods: raw fetch + JSON.parse",
    group: "list",
    baseline: true,
    n: 5,
    warmup: 1,
  }, async () => {
    await listRaw(server.url);
  });
  Deno.bench({
    name: "list 100k pods: KubeClient.list paging",
    group: "list",
    n: 5,
    warmup: 1,
  }, async () => {
    await listClient(client);
  });
  Deno.bench({
    name: "watch 20k events: JSON.parse of the lines",
    group: "watch",
    baseline: true,
    n: 10,
    warmup: 2,
  }, () => {
    rawParse(watch.lines);
  });
  Deno.bench({
    name: "watch 20k events: decodeWatch",
    group: "watch",
    n: 10,
    warmup: 2,
  }, async () => {
    await decodeWithClient(watch.chunks);
  });
  Deno.bench({
    name: "watch 20k events: TextDecoderStream + split + JSON.parse",
    group: "watch",
    n: 10,
    warmup: 2,
  }, async () => {
    await decodeWithStreams(watch.chunks);
  });
}

// ---- figures (deno run) ----

const gc = (globalThis as { gc?: () => void }).gc;

/** Wall time of one run, after a full GC when exposed (so no run pays for the garbage of the one before). */
async function time(fn: () => unknown): Promise<number> {
  gc?.();
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function min(xs: number[]): number {
  return Math.min(...xs);
}

if (import.meta.main) {
  const rounds = Number(Deno.args[0] ?? 9);
  // `watch` as the second argument skips the (slow) list comparison.
  const watchOnly = Deno.args[1] === "watch";
  console.log(
    `Deno ${Deno.version.deno}, ${rounds} rounds, rounds interleaved; median (min)`,
  );

  if (!watchOnly) await listFigures(rounds);
  await watchFigures(
    "mostly ASCII (1 event in 10 has non-ASCII text)",
    podsWithUtf8(10),
    rounds,
  );
  await watchFigures(
    "non-ASCII text in every event",
    podsWithUtf8(1),
    rounds,
  );
  await watchFigures(
    "bench:compare pods (~4.5 KB with managedFields)",
    comparePods(),
    rounds,
  );
}

async function listFigures(rounds: number) {
  const pages = buildPages();
  const pageBytes = pages.reduce((a, p) => a + p.length, 0);
  const server = servePages(pages);
  const client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
    { timeoutMs: 0 },
  );
  if (
    await listRaw(server.url) !== TOTAL_PODS ||
    await listClient(client) !== TOTAL_PODS
  ) {
    throw new Error("list benchmark lost items");
  }
  const raw: number[] = [];
  const kc: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternate the order so neither side always runs on a warmer heap.
    if (r % 2) {
      raw.push(await time(() => listRaw(server.url)));
      kc.push(await time(() => listClient(client)));
    } else {
      kc.push(await time(() => listClient(client)));
      raw.push(await time(() => listRaw(server.url)));
    }
  }
  client.close();
  await server.close();
  console.log(
    `list ${TOTAL_PODS} pods in ${pages.length} pages of ${PAGE} (${
      (pageBytes / 1e6).toFixed(1)
    } MB): raw fetch+JSON.parse ${fmt(raw)}, KubeClient.list ${fmt(kc)};` +
      ` KubeClient/raw ${(median(kc) / median(raw)).toFixed(3)} (best runs ${
        (min(kc) / min(raw)).toFixed(3)
      })`,
  );
}

function fmt(xs: number[]): string {
  return `${median(xs).toFixed(0)} ms (best ${min(xs).toFixed(0)})`;
}

async function watchFigures(
  label: string,
  objectOf: EventObject,
  rounds: number,
) {
  const watch = buildWatch(objectOf);
  const mb = watch.bytes / 1e6;
  const results: Record<string, number[]> = {
    parse: [],
    split: [],
    chunked: [],
    decoder: [],
    streams: [],
  };
  const runs: Record<string, () => unknown> = {
    parse: () => rawParse(watch.lines),
    split: () => rawDecodeSplitParse(watch.all),
    chunked: () => rawChunkDecode(watch.chunks),
    decoder: () => decodeWithClient(watch.chunks),
    streams: () => decodeWithStreams(watch.chunks),
  };
  const names = Object.keys(runs);
  for (let r = 0; r < rounds; r++) {
    // Rotate the order each round so no variant always runs first or last.
    for (let i = 0; i < names.length; i++) {
      const k = names[(i + r) % names.length];
      results[k].push(await time(runs[k]));
    }
  }
  const rate = (ms: number) =>
    `${(WATCH_EVENTS / ms * 1000).toFixed(0)} events/s, ${
      (mb / ms * 1000).toFixed(1)
    } MB/s`;
  const base = median(results.parse);
  const baseMin = min(results.parse);
  console.log(
    `watch decode, ${label}: ${WATCH_EVENTS} events, ${
      mb.toFixed(1)
    } MB in ${watch.chunks.length} chunks of 64 KiB:`,
  );
  for (
    const [k, name] of [
      ["parse", "JSON.parse of the lines (raw)"],
      ["split", "TextDecoder of the whole body + split + JSON.parse"],
      ["chunked", "per-chunk TextDecoder + split + JSON.parse (sync)"],
      ["decoder", "decodeWatch (client)"],
      ["streams", "TextDecoderStream + split + JSON.parse"],
    ]
  ) {
    const ms = median(results[k]);
    const best = min(results[k]);
    console.log(
      `  ${name}: ${ms.toFixed(1)} ms, ${rate(ms)}, ${
        (base / ms * 100).toFixed(1)
      }% of raw; paired: median of per-round ratios ${
        (median(results[k].map((v, i) => results.parse[i] / v)) * 100)
          .toFixed(1)
      }% (best run: ${rate(best)}, ${
        (baseMin / best * 100).toFixed(1)
      }% of raw's best)`,
    );
  }
}
