/**
 * Throughput of KubeClient's list decoding on one body, in one process:
 * `JSON.parse(await res.text())` against the incremental item decoder
 * (`client/list_decoder.ts`) fed the same bytes in 64 KiB chunks, for one
 * huge list (default 100k pods, about 450 MB) and for 500-item pages.
 *
 * Usage: deno run --v8-flags=--expose-gc,--max-old-space-size=16384
 *          bench/compare/list_decode.ts [--pods 100000] [--rounds 2]
 *
 * @module
 */

import { readList } from "../../client/list_decoder.ts";
import { benchPod, Rng } from "../_pods.ts";

function flag(name: string, fallback: number): number {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
}

const pods = flag("--pods", 100_000);
const rounds = flag("--rounds", 2);
const CHUNK = 64 * 1024;

/** A PodList body of `n` pods shaped like the bench server's. */
function listBody(n: number): Uint8Array {
  const rng = new Rng(7);
  const now = Date.now();
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(JSON.stringify(benchPod(i, rng, now)));
  // Encode piecewise: the whole body may not fit in one string.
  const enc = new TextEncoder();
  const head = enc.encode(
    '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[',
  );
  const chunks = [head];
  for (let i = 0; i < parts.length; i += 1000) {
    const s = parts.slice(i, i + 1000).join(",");
    chunks.push(enc.encode(i === 0 ? s : `,${s}`));
  }
  chunks.push(enc.encode("]}"));
  const size = chunks.reduce((a, c) => a + c.length, 0);
  const body = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) body.set(c, (at += c.length) - c.length);
  return body;
}

function stream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    type: "bytes",
    pull(c) {
      if (at >= bytes.length) c.close();
      else c.enqueue(bytes.slice(at, at += CHUNK));
    },
  });
}

type Decode = (bytes: Uint8Array) => Promise<unknown>;

const whole: Decode = async (b) =>
  JSON.parse(await new Response(stream(b)).text());
const items: Decode = (b) => readList(stream(b), { wholeBelow: 0 });

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function measure(
  name: string,
  decode: Decode,
  body: Uint8Array,
  times: number,
): Promise<void> {
  gc();
  const t0 = performance.now();
  for (let i = 0; i < times; i++) {
    const list = await decode(body) as { items: unknown[] };
    if (list.items.length === 0) throw new Error("Decoded an empty list");
  }
  const ms = performance.now() - t0;
  const mb = (body.length * times) / 1e6;
  console.log(
    `${name.padEnd(34)} ${(mb / (ms / 1000)).toFixed(0).padStart(5)} MB/s  ${
      (ms / times).toFixed(1)
    } ms per body`,
  );
}

const big = listBody(pods);
const page = listBody(500);
console.log(
  `${pods} pods: ${(big.length / 1e6).toFixed(0)} MB; page of 500: ${
    (page.length / 1e6).toFixed(2)
  } MB; ${CHUNK / 1024} KiB chunks; Deno ${Deno.version.deno}`,
);
for (let r = 0; r < rounds; r++) {
  await measure("500-item page, JSON.parse(text)", whole, page, 100);
  await measure("500-item page, item decoder", items, page, 100);
  try {
    await measure(`${pods} pods, JSON.parse(text)`, whole, big, 1);
  } catch (err) {
    console.log(`${pods} pods, JSON.parse(text): ${(err as Error).message}`);
  }
  await measure(`${pods} pods, item decoder`, items, big, 1);
}
