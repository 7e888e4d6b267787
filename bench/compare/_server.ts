/**
 * Benchmark server process: serves N realistic pods (about 4.5 KB of JSON
 * each, managedFields included) at `/api/v1/pods`, as a minimal apiserver
 * whose cost stays out of the clients' way: every item is encoded once at
 * start into byte blocks outside the JS heap, so a list is a few
 * `subarray`s and 1,000,000 pods fit. A control endpoint makes it write
 * MODIFIED events to every open watch on demand.
 *
 * What it speaks (what the bench clients use):
 * - lists with `limit`/`continue`. With `--first-list unpaged` (default) a
 *   list at resourceVersion "0" is answered in one piece whatever the
 *   `limit`, as a real apiserver's watch cache does; with `--first-list
 *   paged` every list with a `limit` is paged, as a real apiserver does for
 *   resourceVersion "" (a quorum read from etcd).
 * - `Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`
 *   (metadata-only list) and `as=PartialObjectMetadata` (metadata-only
 *   watch), as `metadataListWatch` sends them.
 * - watches (`watch=1`), with `sendInitialEvents=true` (watch-list: ADDED
 *   for every pod, then the initial-events-end BOOKMARK).
 *
 * `--serve full,metadata` chooses which encodings to hold (both by
 * default; a 1M-pod metadata-only run holds only `metadata`).
 *
 * `--watch-writes event` (default) writes each MODIFIED event as its own
 * chunk, as a real apiserver does (it flushes after every watch event, so
 * a client usually receives one event per read); `--watch-writes 64k`
 * writes them in ~64 KiB chunks, as a socket under load can deliver them
 * (many events per read: the decoder's batch path).
 *
 * Usage: deno run -A bench/compare/_server.ts --pods 10000
 *          [--first-list unpaged|paged] [--serve full,metadata]
 *          [--watch-writes event|64k]
 * Prints one JSON line `{"url", "control"}` on stdout once ready; runs
 * until stdin closes.
 *
 * @module
 */

import { benchPod, Rng } from "../_pods.ts";
import { concat } from "../../client/list_decoder.ts";

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : fallback;
}

const count = Number(flag("--pods", "10000"));
const firstList = flag("--first-list", "unpaged");
if (firstList !== "unpaged" && firstList !== "paged") {
  throw new RangeError(
    `--first-list must be unpaged or paged: got ${firstList}`,
  );
}
const serve = new Set(flag("--serve", "full,metadata").split(","));
const watchWrites = flag("--watch-writes", "event");
if (watchWrites !== "event" && watchWrites !== "64k") {
  throw new RangeError(
    `--watch-writes must be event or 64k: got ${watchWrites}`,
  );
}
const encoder = new TextEncoder();
const BLOCK = 500;
const CHUNK = 64 * 1024;

/** Items of one encoding: JSON bytes in blocks of BLOCK items, with offsets. */
class Items {
  blocks: Uint8Array[] = [];
  /** Per block, BLOCK + 1 offsets: item k is bytes [off[k], off[k+1] - 1) (a "," follows each but the last). */
  offsets: Uint32Array[] = [];

  add(jsons: string[]): void {
    const bytes = encoder.encode(jsons.join(","));
    const off = new Uint32Array(jsons.length + 1);
    let pos = 0;
    for (let k = 0; k < jsons.length; k++) {
      off[k] = pos;
      // One-byte strings: the JSON of these pods is ASCII, so length = bytes.
      pos += jsons[k].length + 1;
    }
    off[jsons.length] = pos;
    if (bytes.length !== pos - 1) throw new Error("Bench pods must be ASCII");
    this.blocks.push(bytes);
    this.offsets.push(off);
  }

  /** The bytes of items [a, b), comma-separated, as subarrays. */
  range(a: number, b: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let i = a; i < b;) {
      const blk = Math.floor(i / BLOCK);
      const off = this.offsets[blk];
      const first = i - blk * BLOCK;
      const last = Math.min(b - blk * BLOCK, off.length - 1);
      if (out.length > 0) out.push(COMMA);
      out.push(this.blocks[blk].subarray(off[first], off[last] - 1));
      i = blk * BLOCK + last;
    }
    return out;
  }

  /** Item i's JSON. */
  item(i: number): string {
    const blk = Math.floor(i / BLOCK);
    const off = this.offsets[blk];
    const k = i - blk * BLOCK;
    return new TextDecoder().decode(
      this.blocks[blk].subarray(off[k], off[k + 1] - 1),
    );
  }
}

const COMMA = encoder.encode(",");
const METADATA_HEAD =
  '{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":';
const full = new Items();
const meta = new Items();
/**
 * Every pod field but the name is a function of `i % PERIOD` (namespace,
 * app, hash, node and image cycle with periods 20, 500, 10, 50 and 7): the
 * first PERIOD pods are built with `benchPod`, later ones are copies of
 * their template's JSON with their own name and resourceVersion. A million
 * pods then take seconds to make instead of many minutes. (Repeated long
 * string values are not shared by the client: V8's JSON.parse interns only
 * short ones.)
 */
const PERIOD = 3500;
{
  const rng = new Rng(7);
  const now = Date.now();
  /** Per template: its JSON split around the name and resourceVersion. */
  const fullT: string[][] = [];
  const metaT: string[][] = [];
  const names: string[] = [];
  for (let t = 0; t < Math.min(PERIOD, count); t++) {
    const pod = benchPod(t, rng, now);
    names.push(pod.metadata.name!.slice(0, -5));
    pod.metadata.name = "@@NAME@@";
    pod.metadata.resourceVersion = "@@RV@@";
    // List items carry no kind and apiVersion (the list does).
    const { kind: _k, apiVersion: _a, ...item } = pod;
    fullT.push(JSON.stringify(item).split(/@@(NAME|RV)@@/));
    metaT.push(
      (METADATA_HEAD + JSON.stringify(pod.metadata) + "}").split(
        /@@(NAME|RV)@@/,
      ),
    );
  }
  // split() with a capturing group keeps the tokens: [a, "NAME", b, "RV", c]
  // (or RV first), so the order of the two fields does not matter.
  const fill = (parts: string[], name: string, version: string) => {
    let out = parts[0];
    for (let k = 1; k < parts.length; k += 2) {
      out += (parts[k] === "NAME" ? name : version) + parts[k + 1];
    }
    return out;
  };
  for (let start = 0; start < count; start += BLOCK) {
    const fulls: string[] = [];
    const metas: string[] = [];
    for (let i = start; i < Math.min(count, start + BLOCK); i++) {
      const t = i % PERIOD;
      const name = names[t] + i.toString(36).padStart(5, "0");
      if (serve.has("full")) fulls.push(fill(fullT[t], name, String(i + 1)));
      if (serve.has("metadata")) {
        metas.push(fill(metaT[t], name, String(i + 1)));
      }
    }
    if (serve.has("full")) full.add(fulls);
    if (serve.has("metadata")) meta.add(metas);
  }
}

let rv = count;
const watchers = new Set<
  { metadata: boolean; c: ReadableStreamDefaultController<Uint8Array> }
>();

function isMetadata(req: Request, as: string): boolean {
  return (req.headers.get("accept") ?? "").includes(`as=${as};`);
}

/** Concatenate parts into chunks of about CHUNK bytes. */
function* chunked(parts: Iterable<Uint8Array>): Generator<Uint8Array> {
  let buf: Uint8Array[] = [];
  let size = 0;
  for (const p of parts) {
    buf.push(p);
    size += p.length;
    if (size >= CHUNK) {
      yield concat(buf, size);
      buf = [];
      size = 0;
    }
  }
  if (size > 0) yield concat(buf, size);
}

function list(req: Request, q: URLSearchParams): Response {
  const metadata = isMetadata(req, "PartialObjectMetadataList");
  const items = metadata ? meta : full;
  if (items.blocks.length === 0 && count > 0) {
    return new Response("encoding not served", { status: 406 });
  }
  const cont = q.get("continue");
  let start = 0;
  let listRV = rv;
  if (cont) [listRV, start] = cont.split(":").map(Number);
  let limit = Number(q.get("limit") ?? 0) || count;
  if (!cont && q.get("resourceVersion") === "0" && firstList === "unpaged") {
    limit = count;
  }
  const end = Math.min(count, start + limit);
  const m: Record<string, unknown> = { resourceVersion: String(listRV) };
  if (end < count) {
    m.continue = `${listRV}:${end}`;
    m.remainingItemCount = count - end;
  }
  const head = metadata
    ? `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${
      JSON.stringify(m)
    },"items":[`
    : `{"kind":"PodList","apiVersion":"v1","metadata":${
      JSON.stringify(m)
    },"items":[`;
  const parts = [encoder.encode(head), ...items.range(start, end)];
  parts.push(encoder.encode("]}"));
  const it = chunked(parts);
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      const next = it.next();
      if (next.done) c.close();
      else c.enqueue(next.value);
    },
  });
  return new Response(body, {
    headers: {
      "content-type": metadata
        ? "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
        : "application/json",
    },
  });
}

function watch(req: Request, q: URLSearchParams): Response {
  const metadata = isMetadata(req, "PartialObjectMetadata");
  const items = metadata ? meta : full;
  let w: (typeof watchers extends Set<infer W> ? W : never) | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      w = { metadata, c };
      if (q.get("sendInitialEvents") === "true") {
        const parts: Uint8Array[] = [];
        const pre = encoder.encode('{"type":"ADDED","object":');
        const post = encoder.encode("}\n");
        for (let i = 0; i < count; i++) {
          parts.push(pre, encoder.encode(items.item(i)), post);
        }
        parts.push(encoder.encode(
          JSON.stringify({
            type: "BOOKMARK",
            object: {
              kind: metadata ? "PartialObjectMetadata" : "Pod",
              apiVersion: metadata ? "meta.k8s.io/v1" : "v1",
              metadata: {
                resourceVersion: String(rv),
                annotations: { "k8s.io/initial-events-end": "true" },
              },
            },
          }) + "\n",
        ));
        for (const chunk of chunked(parts)) c.enqueue(chunk);
      }
      watchers.add(w);
    },
    cancel() {
      if (w) watchers.delete(w);
    },
  });
  return new Response(body, {
    headers: { "content-type": "application/json" },
  });
}

/** Write `n` MODIFIED events (a new annotation on pods 0, 1, ...) to every watch. */
function modify(n: number): void {
  const fullEvents: Uint8Array[] = [];
  const metaEvents: Uint8Array[] = [];
  const anyFull = [...watchers].some((w) => !w.metadata);
  const anyMeta = [...watchers].some((w) => w.metadata);
  for (let k = 0; k < n; k++) {
    const i = k % count;
    const version = String(++rv);
    // A full item, or a PartialObjectMetadata when only those are held.
    const obj = JSON.parse((anyFull ? full : meta).item(i));
    const md = obj.metadata;
    md.resourceVersion = version;
    md.annotations = { ...md.annotations, "bench/seq": version };
    if (anyFull) {
      fullEvents.push(encoder.encode(
        `{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1",${
          JSON.stringify(obj).slice(1)
        }}\n`,
      ));
    }
    if (anyMeta) {
      metaEvents.push(encoder.encode(
        `{"type":"MODIFIED","object":${METADATA_HEAD}${JSON.stringify(md)}}}\n`,
      ));
    }
  }
  // One HTTP chunk per event (an apiserver's flush per event), or chunks
  // of ~64 KiB, as a socket under load delivers them.
  const fullChunks = watchWrites === "event"
    ? fullEvents
    : [...chunked(fullEvents)];
  const metaChunks = watchWrites === "event"
    ? metaEvents
    : [...chunked(metaEvents)];
  for (const w of watchers) {
    for (const chunk of w.metadata ? metaChunks : fullChunks) {
      w.c.enqueue(chunk);
    }
  }
}

const api = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (req) => {
    const url = new URL(req.url);
    if (url.pathname !== "/api/v1/pods") {
      return new Response("not found", { status: 404 });
    }
    const q = url.searchParams;
    const w = q.get("watch");
    return w === "1" || w === "true" ? watch(req, q) : list(req, q);
  },
);

const control = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: () => {},
}, (req) => {
  const url = new URL(req.url);
  if (url.pathname === "/modify") {
    // No watch to write to (the client's is being reopened): say so rather
    // than write events nobody gets.
    if (watchers.size === 0) {
      return new Response("no watch open", { status: 409 });
    }
    modify(Number(url.searchParams.get("count") ?? 1000));
    return new Response(JSON.stringify({ rv }));
  }
  return new Response("not found", { status: 404 });
});

console.log(JSON.stringify({
  url: `http://127.0.0.1:${(api.addr as Deno.NetAddr).port}`,
  control: `http://127.0.0.1:${(control.addr as Deno.NetAddr).port}`,
}));

// Run until stdin closes (the orchestrator ends us by closing it).
for await (const _ of Deno.stdin.readable) { /* wait */ }
for (const w of watchers) w.c.close();
await control.shutdown();
await api.shutdown();
