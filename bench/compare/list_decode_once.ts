/**
 * CPU time of one fresh process decoding one list body item by item
 * (`readList` with `wholeBelow: 0`, the default limits), fed in chunks of
 * a TLS record's size: what the first list of a sync costs the decoder
 * while V8 has not compiled it yet. Compare two versions of the decoder
 * by running this alternately against each (`--decoder` takes the path of
 * another copy of `client/list_decoder.ts`).
 *
 * Usage: deno run -A --v8-flags=--expose-gc bench/compare/list_decode_once.ts
 *          [--pods 10000] [--chunk 16384] [--decoder PATH]
 *
 * @module
 */

import process from "node:process";
import { benchPod, Rng } from "../_pods.ts";

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : fallback;
}

const pods = Number(flag("--pods", "10000"));
const chunk = Number(flag("--chunk", "16384"));
const decoder = flag("--decoder", "");
const { readList } = decoder
  ? await import(new URL(decoder, `file://${Deno.cwd()}/`).href)
  : await import("../../client/list_decoder.ts");

const rng = new Rng(7);
const now = Date.now();
const parts: string[] = [];
for (let i = 0; i < pods; i++) {
  parts.push(JSON.stringify(benchPod(i, rng, now)));
}
const body = new TextEncoder().encode(
  '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[' +
    parts.join(",") + "]}",
);
parts.length = 0;
const chunks: Uint8Array[] = [];
for (let at = 0; at < body.length; at += chunk) {
  chunks.push(body.slice(at, at + chunk));
}
let next = 0;
const stream = new ReadableStream<Uint8Array>({
  pull(c) {
    if (next >= chunks.length) c.close();
    else c.enqueue(chunks[next++]);
  },
});
(globalThis as { gc?: () => void }).gc?.();
const before = process.cpuUsage();
const list = await readList(stream, { wholeBelow: 0 }) as { items: unknown[] };
const cpu = process.cpuUsage(before);
if (list.items.length !== pods) throw new Error("Decoded the wrong list");
console.log(
  JSON.stringify({ pods, cpuMs: Math.round((cpu.user + cpu.system) / 1000) }),
);
