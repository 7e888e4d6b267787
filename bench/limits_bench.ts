// The cost of the decoding limits (maxJsonDepth's scan, maxObjectBytes'
// counting), side by side with the check turned off, on realistic pods; and
// a 10k-pod list (45 MB, decoded item by item in 64 KiB runs, as an
// informer's unpaged first list is) with and without the limits against
// JSON.parse of the same text (the floor).
//   deno bench --allow-read bench/limits_bench.ts
import { benchPods } from "./_pods.ts";
import { readList } from "../client/list_decoder.ts";
import { decodeWatch } from "../client/watch.ts";

const now = Date.UTC(2026, 0, 1);
const enc = new TextEncoder();
const listBody = (n: number) =>
  enc.encode(JSON.stringify({
    kind: "PodList",
    apiVersion: "v1",
    metadata: { resourceVersion: "1" },
    items: benchPods(n, now),
  }));
const small = listBody(1_000); // ~4.5 MB: parsed whole
const big = listBody(3_000); // ~13.5 MB: decoded item by item
const events = enc.encode(
  benchPods(2_000, now).map((p) =>
    JSON.stringify({ type: "MODIFIED", object: p })
  ).join("\n") + "\n",
);

function stream(bytes: Uint8Array, chunk = 65_536): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.subarray(at, at + chunk));
      at += chunk;
    },
  });
}

const off = { maxJsonDepth: Infinity, maxObjectBytes: Infinity };
for (
  const [label, body] of [["1000 pods, whole", small], [
    "3000 pods, streamed",
    big,
  ]] as const
) {
  Deno.bench(
    `list ${label}, no limits`,
    { group: label, baseline: true },
    async () => {
      await readList(stream(body), off);
    },
  );
  Deno.bench(`list ${label}, limits`, { group: label }, async () => {
    await readList(stream(body));
  });
}
Deno.bench(
  "watch 2000 events, no limits",
  { group: "watch", baseline: true },
  async () => {
    for await (const _ of decodeWatch(stream(events), off));
  },
);
Deno.bench("watch 2000 events, limits", { group: "watch" }, async () => {
  for await (const _ of decodeWatch(stream(events)));
});

const body10k = listBody(10_000);
const text10k = new TextDecoder().decode(body10k);
const g10k = { group: "10k pods", n: 8, warmup: 2 };
Deno.bench("JSON.parse of a 10k-pod list", { ...g10k, baseline: true }, () => {
  JSON.parse(text10k);
});
Deno.bench("list 10k pods, streamed, no limits", g10k, async () => {
  await readList(stream(body10k, 1 << 20), off);
});
Deno.bench("list 10k pods, streamed, limits", g10k, async () => {
  await readList(stream(body10k, 1 << 20));
});
