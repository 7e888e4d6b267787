// The cost of the decoding limits (maxJsonDepth's scan, maxObjectBytes'
// counting), side by side with the check turned off, on realistic pods; and
// the depth check alone on the text of a 10k-pod list (45 MB) against
// JSON.parse of it: the bound from brackets (boundedBy, what parseWithin
// does first), the exact walk of the parsed value, and parseWithin whole.
//   deno bench --allow-read bench/limits_bench.ts
import { benchPods } from "./_pods.ts";
import {
  boundedBy,
  deeperThan,
  DEFAULT_MAX_JSON_DEPTH,
  parseWithin,
} from "../client/_json_limits.ts";
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

const list10k = new TextDecoder().decode(listBody(10_000));
const parsed10k = JSON.parse(list10k);
const depth = DEFAULT_MAX_JSON_DEPTH;
const g10k = { group: "depth check, 10k pods", n: 10, warmup: 2 };
Deno.bench("JSON.parse, 10k pods", { ...g10k, baseline: true }, () => {
  JSON.parse(list10k);
});
Deno.bench("depth bound from brackets (boundedBy)", g10k, () => {
  if (!boundedBy(list10k, depth)) throw new Error("not proven");
});
Deno.bench("walk of the parsed value (deeperThan)", g10k, () => {
  if (deeperThan(parsed10k, depth)) throw new Error("too deep");
});
Deno.bench("parseWithin (bound, then JSON.parse)", g10k, () => {
  parseWithin(list10k, depth);
});
