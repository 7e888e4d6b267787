/**
 * The client-side shard test per object: the 64-bit FNV-1a on two 32-bit
 * halves (what `newShardMatcher` does) against the same on BigInt, over
 * 10 000 uids per iteration.
 *
 *   deno bench bench/shard_bench.ts
 */
import { newShardMatcher, shardRange } from "../api/shard_selector.ts";

const uids = Array.from({ length: 10_000 }, () => crypto.randomUUID());
const objs = uids.map((uid) => ({ metadata: { name: uid, uid } }));
const matcher = newShardMatcher(
  shardRange("object.metadata.uid", 0n, 1n << 63n),
);
const utf8 = new TextEncoder();

function bigintMatches(uid: string): boolean {
  let h = 0xcbf29ce484222325n;
  for (const b of utf8.encode(uid)) {
    h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h < 1n << 63n;
}

let sink = 0;
Deno.bench("shard test, 32-bit halves (10k uids)", {
  group: "hash",
  baseline: true,
}, () => {
  for (const o of objs) if (matcher.matches(o)) sink++;
});
Deno.bench("shard test, BigInt (10k uids)", { group: "hash" }, () => {
  for (const u of uids) if (bigintMatches(u)) sink++;
});
globalThis.addEventListener("unload", () => {
  if (sink < 0) console.log(sink);
});
