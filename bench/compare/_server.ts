/**
 * Benchmark server process: serves N realistic pods (about 4.5 KB of JSON
 * each, managedFields included) at `/api/v1/pods`, as a minimal apiserver
 * whose cost stays out of the clients' way: pods are copies of 3500
 * template pods' JSON bytes with their own name and resourceVersion,
 * written into each response as the client reads it (64 KiB chunks), so the
 * server holds a few MB at any N. A control endpoint makes it write
 * MODIFIED events to every open watch on demand (`/modify?count=N`) and
 * tells what it has sent (`/stats`: list requests, items of the latest
 * list sent so far, and its own peak RSS).
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
 * `--serve full,metadata` chooses which encodings to serve (both by
 * default); the other answers 406.
 *
 * `--watch-writes event` (default) writes each MODIFIED event as its own
 * chunk, as a real apiserver does (it flushes after every watch event, so
 * a client usually receives one event per read); `--watch-writes 64k`
 * writes them in ~64 KiB chunks, as a socket under load can deliver them
 * (many events per read: the decoder's batch path).
 *
 * Usage: deno run -A bench/compare/_server.ts --pods 10000
 *          [--first-list unpaged|paged] [--serve full,metadata]
 *          [--watch-writes event|64k] [--tls DIR]
 * Prints one JSON line `{"url", "control"}` on stdout once ready; runs
 * until stdin closes.
 *
 * @module
 */

import { benchPod, Rng } from "../_pods.ts";
import { concat } from "../../client/list_decoder.ts";
import { peakRssMB } from "./_rss.ts";

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

/**
 * Every pod field but the name is a function of `i % PERIOD` (namespace,
 * app, hash, node and image cycle with periods 20, 500, 10, 50 and 7): the
 * first PERIOD pods are built with `benchPod` as templates, and pod `i` is
 * template `i % PERIOD`'s JSON with its own name and resourceVersion, written
 * into a response's bytes only when a list or watch sends it. The server
 * then holds a few MB at any N (it once held every item encoded: about 3 GB
 * at 600k pods). (Repeated long string values are not shared by the client:
 * V8's JSON.parse interns only short ones.)
 */
const PERIOD = 3500;

/** One template's JSON bytes split around its name and resourceVersion. */
interface Template {
  /** parts[0], slot 0, parts[1], slot 1, parts[2]. */
  parts: Uint8Array[];
  /** Which value goes in each slot. */
  slots: ("NAME" | "RV")[];
  /** Bytes of the parts together. */
  size: number;
}

/** The items of one encoding (full pods or PartialObjectMetadata), made on demand. */
class Items {
  /** The longest item, in bytes (a write needs this much room). */
  readonly maxSize: number;

  constructor(readonly templates: Template[], readonly names: string[]) {
    // Names add 5 base-36 digits (more past 36^5 pods); RVs up to 10 digits.
    this.maxSize = Math.max(0, ...templates.map((t) => t.size)) + 64 +
      Math.max(0, ...names.map((n) => n.length));
  }

  /** Writes item i's JSON at out[at...]; returns the position after it. */
  write(i: number, out: Uint8Array, at: number): number {
    const t = i % PERIOD;
    const { parts, slots } = this.templates[t];
    const name = this.names[t] + i.toString(36).padStart(5, "0");
    out.set(parts[0], at);
    at += parts[0].length;
    for (let k = 0; k < slots.length; k++) {
      // Names and resourceVersions are ASCII: one byte per character.
      at += encoder.encodeInto(
        slots[k] === "NAME" ? name : String(i + 1),
        out.subarray(at),
      ).written;
      out.set(parts[k + 1], at);
      at += parts[k + 1].length;
    }
    return at;
  }

  /** Item i's JSON. */
  item(i: number): string {
    const out = new Uint8Array(this.maxSize);
    return decoder.decode(out.subarray(0, this.write(i, out, 0)));
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const CHUNK = 64 * 1024;
const METADATA_HEAD =
  '{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":';

function makeItems(): { full: Items; meta: Items } {
  const rng = new Rng(7);
  const now = Date.now();
  const fullT: Template[] = [];
  const metaT: Template[] = [];
  const names: string[] = [];
  // split() with a capturing group keeps the tokens: [a, "NAME", b, "RV", c]
  // (or RV first), so the order of the two fields does not matter.
  const template = (json: string): Template => {
    const split = json.split(/@@(NAME|RV)@@/);
    const parts = split.filter((_, k) => k % 2 === 0).map((p) => {
      const bytes = encoder.encode(p);
      if (bytes.length !== p.length) {
        throw new Error("Bench pods must be ASCII");
      }
      return bytes;
    });
    return {
      parts,
      slots: split.filter((_, k) => k % 2 === 1) as ("NAME" | "RV")[],
      size: parts.reduce((n, p) => n + p.length, 0),
    };
  };
  for (let t = 0; t < Math.min(PERIOD, count); t++) {
    const pod = benchPod(t, rng, now);
    names.push(pod.metadata.name!.slice(0, -5));
    pod.metadata.name = "@@NAME@@";
    pod.metadata.resourceVersion = "@@RV@@";
    // List items carry no kind and apiVersion (the list does).
    const { kind: _k, apiVersion: _a, ...item } = pod;
    if (serve.has("full")) fullT.push(template(JSON.stringify(item)));
    if (serve.has("metadata")) {
      metaT.push(
        template(METADATA_HEAD + JSON.stringify(pod.metadata) + "}"),
      );
    }
  }
  return {
    full: new Items(fullT, serve.has("full") ? names : []),
    meta: new Items(metaT, serve.has("metadata") ? names : []),
  };
}

const { full, meta } = makeItems();

/**
 * What the server has sent, for the orchestrator to report when a client
 * dies: list requests, and items of the latest list (or initial events of
 * the latest watch-list) written to its response so far.
 */
const stats = { lists: 0, listItemsSent: 0, listItems: 0 };

/**
 * `head`, items [a, b) each wrapped in `pre`/`post` and separated by `sep`,
 * then `tail`, as chunks of about CHUNK bytes made one at a time.
 */
function* itemChunks(
  items: Items,
  a: number,
  b: number,
  head: Uint8Array,
  wrap: { pre: Uint8Array; post: Uint8Array; sep: Uint8Array },
  tail: Uint8Array,
): Generator<Uint8Array> {
  const room = CHUNK + items.maxSize + head.length + tail.length +
    wrap.pre.length + wrap.post.length + wrap.sep.length;
  let out = new Uint8Array(room);
  out.set(head);
  let at = head.length;
  for (let i = a; i < b; i++) {
    if (i > a) {
      out.set(wrap.sep, at);
      at += wrap.sep.length;
    }
    out.set(wrap.pre, at);
    at = items.write(i, out, at + wrap.pre.length);
    out.set(wrap.post, at);
    at += wrap.post.length;
    // Pages go on from where the last ended: i + 1 items sent in all.
    stats.listItemsSent = i + 1;
    if (at >= CHUNK) {
      yield out.subarray(0, at);
      out = new Uint8Array(room);
      at = 0;
    }
  }
  out.set(tail, at);
  yield out.subarray(0, at + tail.length);
}

const NONE = new Uint8Array(0);
const COMMA = encoder.encode(",");

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

/** A response body pulling chunks from `it` one at a time, then running `done`. */
function lazyBody(
  it: Iterator<Uint8Array>,
  done: (c: ReadableStreamDefaultController<Uint8Array>) => void = (c) =>
    c.close(),
  onCancel: () => void = () => {},
): ReadableStream<Uint8Array> {
  let finished = false;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (finished) return;
      const next = it.next();
      if (!next.done) return c.enqueue(next.value);
      finished = true;
      done(c);
    },
    cancel: onCancel,
  }, { highWaterMark: 0 });
}

function list(req: Request, q: URLSearchParams): Response {
  const metadata = isMetadata(req, "PartialObjectMetadataList");
  const items = metadata ? meta : full;
  if (items.templates.length === 0 && count > 0) {
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
  if (!cont) {
    stats.lists++;
    stats.listItemsSent = 0;
    stats.listItems = count;
  }
  const it = itemChunks(
    items,
    start,
    end,
    encoder.encode(head),
    { pre: NONE, post: NONE, sep: COMMA },
    encoder.encode("]}"),
  );
  return new Response(lazyBody(it), {
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
  const w = {
    metadata,
    c: undefined as unknown as ReadableStreamDefaultController<Uint8Array>,
  };
  const initial = q.get("sendInitialEvents") === "true";
  if (initial) {
    stats.lists++;
    stats.listItemsSent = 0;
    stats.listItems = count;
  }
  const bookmark = encoder.encode(
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
  );
  // Initial events (watch-list) are made as the client reads them; then the
  // watch joins the set that MODIFIED events are written to.
  const it = initial
    ? itemChunks(items, 0, count, NONE, {
      pre: encoder.encode('{"type":"ADDED","object":'),
      post: encoder.encode("}\n"),
      sep: NONE,
    }, bookmark)
    : [][Symbol.iterator]();
  const body = lazyBody(it, (c) => {
    w.c = c;
    watchers.add(w);
  }, () => watchers.delete(w));
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

// --tls DIR: serve the API over HTTPS with DIR/server.crt and DIR/server.key
// (a PKI made by testing/pki_test_util.ts); the control endpoint stays http.
const tlsDir = flag("--tls", "");
const api = Deno.serve(
  {
    hostname: "127.0.0.1",
    port: 0,
    onListen() {},
    ...(tlsDir
      ? {
        cert: Deno.readTextFileSync(`${tlsDir}/server.crt`),
        key: Deno.readTextFileSync(`${tlsDir}/server.key`),
      }
      : {}),
  },
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
  if (url.pathname === "/stats") {
    return new Response(JSON.stringify({ ...stats, peakRssMB: peakRssMB() }));
  }
  return new Response("not found", { status: 404 });
});

console.log(JSON.stringify({
  url: `${tlsDir ? "https" : "http"}://127.0.0.1:${
    (api.addr as Deno.NetAddr).port
  }`,
  control: `http://127.0.0.1:${(control.addr as Deno.NetAddr).port}`,
}));

// Run until stdin closes (the orchestrator ends us by closing it).
for await (const _ of Deno.stdin.readable) { /* wait */ }
for (const w of watchers) w.c.close();
await control.shutdown();
await api.shutdown();
