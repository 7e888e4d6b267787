/**
 * Informer cost without the network, kubecache against a raw baseline.
 *
 * `--mode watch` (default): the same bytes of a watch stream (E MODIFIED
 * events of ~4 KB pods; `--chunks 64k` (default) in 64 KiB chunks, as a
 * socket under load delivers them, `--chunks event` one chunk per event,
 * as a client of a real apiserver, which flushes per event, receives them)
 * decoded and applied by kubecache's informer (the watch decoder KubeClient
 * uses → Reflector → DeltaFIFO → indexer → a no-op handler) and by the raw
 * baseline (TextDecoderStream, split lines, JSON.parse, Map.set); `decode`
 * is the watch decoder alone (then Map.set), the floor of the informer;
 * `reflector` (the Reflector into a Map) and `fifo` (Reflector → DeltaFIFO →
 * popEach doing Map.set) split the informer's cost into stages. The HTTP
 * comparison is bounded by how fast the FakeApiServer writes (one chunk per
 * event); this one measures the client.
 *
 * `--mode sync`: the initial sync of P pods served as JSON pages of 500
 * (what `KubeClient.list` hands over after `JSON.parse`): kubecache's
 * informer (Reflector paging → DeltaFIFO.replace → pops → indexer → a no-op
 * `onAdd`, until it has synced) against the raw baseline (JSON.parse each
 * page, Map.set each item).
 *
 * Usage: deno run -A [--v8-flags=--expose-gc] bench/compare/_watch_inproc.ts
 *          --impl raw|decode|reflector|fifo|kubecache|both|LIST [--mode watch|sync] [--events E]
 *          [--chunks 64k|event] [--pods P] [--rounds N]
 *
 * With `--rounds N` each implementation runs N timed rounds in this process
 * (`both` alternates raw and kubecache round by round) and the medians are
 * reported. Prints one JSON line: `{impl, events, eventsPerSec, ...}` for
 * watch, `{impl, pods, syncMs, syncCpuMs, ...}` for sync; with `both`,
 * `{impl: "both", raw, kubecache, ratio}` where ratio is kubecache/raw of
 * events/s (watch) or of CPU ms (sync), the median of per-round ratios. A
 * comma list (`--impl raw,decode,kubecache`) alternates them all and gives
 * `ratios` of each against the first (per wall second) and `cpuRatios`
 * (per CPU second, which a busy machine disturbs least).
 *
 * @module
 */

import process from "node:process";
import { decodeWatch } from "../../client/watch.ts";
import { newSharedIndexInformer } from "../../cache/shared_informer.ts";
import { Reflector } from "../../cache/reflector.ts";
import { DeltaFIFO } from "../../cache/delta_fifo.ts";
import type { KubeObject } from "../../api/object.ts";
import type { ListerWatcher, ObjectList } from "../../api/listwatch.ts";
import { benchPods } from "../_pods.ts";
import { chunkStream } from "../_streams.ts";

function arg(name: string, fallback?: string): string {
  const i = Deno.args.indexOf(name);
  if (i >= 0) return Deno.args[i + 1];
  if (fallback !== undefined) return fallback;
  throw new Error(`Missing flag ${name}`);
}

const impl = arg("--impl");
const mode = arg("--mode", "watch");
const events = Number(arg("--events", "20000"));
const syncPods = Number(arg("--pods", "10000"));
const rounds = Number(arg("--rounds", "1"));
const chunking = arg("--chunks", "64k");
if (chunking !== "64k" && chunking !== "event") {
  throw new RangeError(`--chunks must be 64k or event: got ${chunking}`);
}
const PODS = 1000;
const CHUNK = 64 * 1024;
const PAGE = 500;

/** PODS distinct realistic pods (~4.5 KB of JSON each). */
function basePods(): KubeObject[] {
  return benchPods(PODS, Date.now());
}

/** E MODIFIED events cycling over `pods`, as NDJSON chunks. */
function watchChunks(pods: KubeObject[]): Uint8Array[] {
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
  const encoder = new TextEncoder();
  // One chunk per event: what a client of a real apiserver receives (it
  // flushes after every watch event) unless it falls behind.
  if (chunking === "event") return text.map((line) => encoder.encode(line));
  const bytes = encoder.encode(text.join(""));
  const chunks: Uint8Array[] = [];
  for (let off = 0; off < bytes.length; off += CHUNK) {
    chunks.push(bytes.subarray(off, off + CHUNK));
  }
  return chunks;
}

/** `syncPods` pods (the base pods under new names) as list pages of JSON. */
function listPages(pods: KubeObject[]): string[] {
  const pages: string[] = [];
  for (let start = 0; start < syncPods; start += PAGE) {
    const items = [];
    for (let i = start; i < Math.min(start + PAGE, syncPods); i++) {
      const pod = pods[i % PODS];
      items.push({
        ...pod,
        metadata: { ...pod.metadata, name: `${pod.metadata.name}-${i}` },
      });
    }
    const next = start + PAGE < syncPods ? String(pages.length + 1) : "";
    pages.push(JSON.stringify({
      kind: "PodList",
      apiVersion: "v1",
      metadata: { resourceVersion: String(PODS), continue: next },
      items,
    }));
  }
  return pages;
}

const keyOf = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;

/** Wall and CPU time (ms) of one timed run. */
interface Timing {
  ms: number;
  cpuMs: number;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

// ---- watch -----------------------------------------------------------------

/** A watch that sends nothing and ends when `signal` aborts. */
function silentWatch(signal?: AbortSignal): AsyncIterable<never> {
  return {
    [Symbol.asyncIterator]: () => ({
      next: () =>
        new Promise<IteratorResult<never>>((resolve) => {
          signal?.addEventListener(
            "abort",
            () => resolve({ done: true, value: undefined }),
            { once: true },
          );
        }),
    }),
  };
}

async function rawWatch(chunks: Uint8Array[]): Promise<Timing> {
  const map = new Map<string, KubeObject>();
  let n = 0;
  const t0 = performance.now();
  const c0 = cpuMs();
  let tail = "";
  for await (
    const chunk of chunkStream(chunks).pipeThrough(new TextDecoderStream())
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
  return { ms: performance.now() - t0, cpuMs: cpuMs() - c0 };
}

/** The watch decoder alone (decodeWatch, then Map.set): the informer's floor. */
async function decodeOnlyWatch(chunks: Uint8Array[]): Promise<Timing> {
  const map = new Map<string, KubeObject>();
  let n = 0;
  const t0 = performance.now();
  const c0 = cpuMs();
  for await (const ev of decodeWatch(chunkStream(chunks))) {
    if (ev.type === "ERROR") throw new Error("Unexpected ERROR event");
    map.set(keyOf(ev.object), ev.object);
    n++;
  }
  if (n !== events) throw new Error(`Decode saw ${n} of ${events} events`);
  return { ms: performance.now() - t0, cpuMs: cpuMs() - c0 };
}

async function kubecacheWatch(
  pods: KubeObject[],
  chunks: Uint8Array[],
): Promise<Timing> {
  let t0 = 0;
  let c0 = 0;
  let adds = 0;
  let updates = 0;
  const listed = Promise.withResolvers<void>();
  const done = Promise.withResolvers<void>();
  const lw: ListerWatcher<KubeObject> = {
    list: () =>
      Promise.resolve({
        metadata: { resourceVersion: String(PODS) },
        items: pods,
      }),
    // The stream starts once the initial list has reached the handler, so
    // the timed part is the watch alone, as for the baseline. The watch
    // reopened after the stream ends stays silent.
    watch: async (_opts, signal) => {
      if (t0 !== 0) return silentWatch(signal);
      await listed.promise;
      t0 = performance.now();
      c0 = cpuMs();
      return decodeWatch(chunkStream(chunks), { signal });
    },
  };
  const informer = newSharedIndexInformer(lw);
  informer.addEventHandler({
    onAdd: () => {
      if (++adds === PODS) listed.resolve();
    },
    onUpdate: () => {
      if (++updates === events) done.resolve();
    },
  });
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  await done.promise;
  const timing = { ms: performance.now() - t0, cpuMs: cpuMs() - c0 };
  stop.abort();
  await running;
  return timing;
}

/** The Reflector alone, applying events to a Map (no DeltaFIFO, informer or handler). */
async function reflectorWatch(
  pods: KubeObject[],
  chunks: Uint8Array[],
): Promise<Timing> {
  let t0 = 0, c0 = 0, updates = 0;
  const done = Promise.withResolvers<void>();
  const map = new Map<string, KubeObject>();
  const lw: ListerWatcher<KubeObject> = {
    list: () =>
      Promise.resolve({
        metadata: { resourceVersion: String(PODS) },
        items: pods,
      }),
    watch: (_opts, signal) => {
      if (t0 !== 0) return Promise.resolve(silentWatch(signal));
      t0 = performance.now();
      c0 = cpuMs();
      return Promise.resolve(decodeWatch(chunkStream(chunks), { signal }));
    },
  };
  const store = {
    add() {},
    update(o: KubeObject) {
      map.set(keyOf(o), o);
      if (++updates === events) done.resolve();
    },
    delete() {},
    replace() {},
    resync() {},
  };
  const r = new Reflector(lw, store);
  const stop = new AbortController();
  const running = r.run(stop.signal);
  await done.promise;
  const timing = { ms: performance.now() - t0, cpuMs: cpuMs() - c0 };
  stop.abort();
  await running;
  return timing;
}

/** Reflector → DeltaFIFO → popEach doing Map.set (no indexer, processor or handler). */
async function fifoWatch(
  pods: KubeObject[],
  chunks: Uint8Array[],
): Promise<Timing> {
  let t0 = 0, c0 = 0, updates = 0, initial = 0;
  const done = Promise.withResolvers<void>();
  const listed = Promise.withResolvers<void>();
  const map = new Map<string, KubeObject>();
  const lw: ListerWatcher<KubeObject> = {
    list: () =>
      Promise.resolve({
        metadata: { resourceVersion: String(PODS) },
        items: pods,
      }),
    // As for kubecache: the stream starts once the list has been popped.
    watch: async (_opts, signal) => {
      if (t0 !== 0) return silentWatch(signal);
      await listed.promise;
      t0 = performance.now();
      c0 = cpuMs();
      return decodeWatch(chunkStream(chunks), { signal });
    },
  };
  const fifo = new DeltaFIFO<KubeObject>();
  const r = new Reflector(lw, fifo);
  const stop = new AbortController();
  const running = r.run(stop.signal);
  const loop = fifo.popEach((deltas, _i, key) => {
    map.set(key!, deltas[deltas.length - 1].object as KubeObject);
    for (const d of deltas) {
      if (d.type === "Updated" && ++updates === events) done.resolve();
      if (d.type !== "Updated" && ++initial === PODS) listed.resolve();
    }
  }, { signal: stop.signal });
  await done.promise;
  const timing = { ms: performance.now() - t0, cpuMs: cpuMs() - c0 };
  stop.abort();
  fifo.close();
  await running;
  await loop;
  return timing;
}

// ---- sync ------------------------------------------------------------------

function rawSync(pages: string[]): Promise<Timing> {
  const t0 = performance.now();
  const c0 = cpuMs();
  const map = new Map<string, KubeObject>();
  for (const page of pages) {
    const list: ObjectList<KubeObject> = JSON.parse(page);
    for (const item of list.items) map.set(keyOf(item), item);
  }
  if (map.size !== syncPods) {
    throw new Error(`Raw stored ${map.size} of ${syncPods} pods`);
  }
  return Promise.resolve({ ms: performance.now() - t0, cpuMs: cpuMs() - c0 });
}

async function kubecacheSync(pages: string[]): Promise<Timing> {
  let adds = 0;
  const done = Promise.withResolvers<void>();
  const lw: ListerWatcher<KubeObject> = {
    list: (opts) => {
      const page = Number(opts.continue ?? "0");
      return Promise.resolve(JSON.parse(pages[page]));
    },
    watch: (_opts, signal) => Promise.resolve(silentWatch(signal)),
  };
  const t0 = performance.now();
  const c0 = cpuMs();
  const informer = newSharedIndexInformer(lw);
  informer.addEventHandler({
    onAdd: () => {
      if (++adds === syncPods) done.resolve();
    },
  });
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  await done.promise;
  const timing = { ms: performance.now() - t0, cpuMs: cpuMs() - c0 };
  if (!informer.hasSynced()) throw new Error("Informer has not synced");
  stop.abort();
  await running;
  return timing;
}

// ---- rounds and report -----------------------------------------------------

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

type Summary = Record<string, number | number[] | string>;

function summarize(name: string, timings: Timing[]): Summary {
  if (mode === "sync") {
    return {
      impl: name,
      pods: syncPods,
      syncMs: Math.round(median(timings.map((t) => t.ms))),
      syncCpuMs: Math.round(median(timings.map((t) => t.cpuMs))),
      ...(timings.length > 1
        ? { roundsCpuMs: timings.map((t) => Math.round(t.cpuMs)) }
        : {}),
    };
  }
  const rates = timings.map((t) => Math.round(events / (t.ms / 1000)));
  return {
    impl: name,
    events,
    eventsPerSec: median(rates),
    eventsPerCpuSec: median(
      timings.map((t) => Math.round(events / (t.cpuMs / 1000))),
    ),
    ...(timings.length > 1 ? { rounds: rates } : {}),
  };
}

const pods = basePods();
const chunks = mode === "sync" ? [] : watchChunks(pods);
const pages = mode === "sync" ? listPages(pods) : [];
const runners: Record<string, () => Promise<Timing>> = mode === "sync"
  ? { raw: () => rawSync(pages), kubecache: () => kubecacheSync(pages) }
  : {
    raw: () => rawWatch(chunks),
    decode: () => decodeOnlyWatch(chunks),
    kubecache: () => kubecacheWatch(pods, chunks),
    reflector: () => reflectorWatch(pods, chunks),
    fifo: () => fifoWatch(pods, chunks),
  };
// "both" is raw against kubecache; a comma list compares each to the first.
const names = impl === "both" ? ["raw", "kubecache"] : impl.split(",");
for (const name of names) {
  if (!runners[name]) throw new Error(`Unknown --impl ${name}`);
}
const timings: Record<string, Timing[]> = {};
// Under --v8-flags=--expose-gc each round starts from a collected heap, so
// one round's garbage is not billed to the next.
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
for (let r = 0; r < rounds; r++) {
  // Rotate the order so no implementation always runs first.
  const order = names.map((_, i) => names[(i + r) % names.length]);
  for (const name of order) {
    // A macrotask turn first: until one, V8 keeps alive every object a
    // WeakRef handed out during the job (AbortSignal.any uses them), and an
    // abort reason's stack trace can hold a whole stopped informer.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    (timings[name] ??= []).push(await runners[name]());
  }
}
if (names.length === 1) {
  console.log(JSON.stringify(summarize(impl, timings[impl])));
} else {
  // Per-round ratios (each round against the baseline's round next to it),
  // so load that comes and goes hits both sides alike: events/s over the
  // baseline's (watch), CPU ms over the baseline's (sync).
  const [base, ...others] = names;
  const ratio = (name: string) =>
    Math.round(
      median(timings[name].map((t, i) => {
        const b = timings[base][i];
        return mode === "sync" ? t.cpuMs / b.cpuMs : b.ms / t.ms;
      })) * 100,
    ) / 100;
  // The same per CPU second (watch): a busy machine disturbs it least.
  const cpuRatio = (name: string) =>
    Math.round(
      median(timings[name].map((t, i) => timings[base][i].cpuMs / t.cpuMs)) *
        100,
    ) / 100;
  const out: Record<string, unknown> = { impl, mode };
  if (mode === "watch") out.chunks = chunking;
  for (const name of names) out[name] = summarize(name, timings[name]);
  if (impl === "both") out.ratio = ratio("kubecache");
  else out.ratios = Object.fromEntries(others.map((n) => [n, ratio(n)]));
  if (mode === "watch") {
    out.cpuRatios = Object.fromEntries(others.map((n) => [n, cpuRatio(n)]));
  }
  console.log(JSON.stringify(out));
}
