import assert from "node:assert/strict";
import {
  newShardMatcher,
  parseShardSelector,
  shardHash,
  shardRange,
  shardSelector,
  ShardSelectorError,
} from "./shard_selector.ts";

/** FNV-1a 64 straight from its definition, on BigInt: the reference. */
function fnv1a64Reference(value: string): string {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(value)) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, "0");
}

/** A deterministic pseudo-random source (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uuid(rand: () => number): string {
  const hex = () => Math.floor(rand() * 16).toString(16);
  const part = (n: number) => Array.from({ length: n }, hex).join("");
  return `${part(8)}-${part(4)}-4${part(3)}-${part(4)}-${part(12)}`;
}

Deno.test("shardHash: FNV's published FNV-1a 64-bit vectors", () => {
  // From the FNV reference test suite (Noll, fnv/test_fnv.c): "", "a", "foobar".
  assert.equal(shardHash(""), "cbf29ce484222325");
  assert.equal(shardHash("a"), "af63dc4c8601ec8c");
  assert.equal(shardHash("foobar"), "85944171f73967e8");
});

Deno.test("shardHash equals FNV-1a computed from its definition on BigInt, ASCII and UTF-8", () => {
  const rand = rng(7);
  const samples = ["default", "kube-system", "é", "日本語", "a\u0000b", "😀x"];
  for (let i = 0; i < 2000; i++) samples.push(uuid(rand));
  for (let i = 0; i < 200; i++) {
    let s = "";
    const n = Math.floor(rand() * 40);
    for (let j = 0; j < n; j++) {
      s += String.fromCodePoint(Math.floor(rand() * 0x2ffff) % 0xd800);
    }
    samples.push(s);
  }
  for (const s of samples) {
    assert.equal(shardHash(s), fnv1a64Reference(s), JSON.stringify(s));
  }
});

Deno.test("shardHash: values computed with Python's integers for Kubernetes-shaped inputs", () => {
  // python3: h=0xcbf29ce484222325; for b in s.encode(): h^=b; h=(h*0x100000001b3)&(2**64-1)
  assert.equal(
    shardHash("0a1b2c3d-0000-4000-8000-000000000001"),
    "afe4971b56f75666",
  );
  assert.equal(shardHash("default"), "ebada5168620c5fe");
  assert.equal(shardHash("kube-system"), "df65c7bc1d82b35e");
  assert.equal(shardHash("é"), "0ac21707b7181e01");
});

Deno.test("shardRange writes the bounds as kube-apiserver requires them", () => {
  assert.equal(
    shardRange("object.metadata.uid", 0n, 1n << 64n),
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')",
  );
  assert.equal(
    shardRange("object.metadata.namespace", "0x0", "0xC000000000000000"),
    "shardRange(object.metadata.namespace, '0x0000000000000000', '0xc000000000000000')",
  );
  assert.throws(() => shardRange("metadata.uid" as never, 0n, 1n), TypeError);
  assert.throws(() => shardRange("object.metadata.uid", 5n, 5n), RangeError);
  assert.throws(() => shardRange("object.metadata.uid", -1n, 5n), RangeError);
  assert.throws(
    () => shardRange("object.metadata.uid", 0n, (1n << 64n) + 1n),
    RangeError,
  );
  assert.throws(
    () => shardRange("object.metadata.uid", 0 as never, 5n),
    TypeError,
  );
  // Every built term parses back to itself.
  const t = shardRange("object.metadata.uid", 123n, 456n);
  assert.equal(shardSelector(t), t);
});

Deno.test("shardSelector joins terms with ' || ' and refuses terms of two fields", () => {
  const a = shardRange("object.metadata.uid", 0n, 1n << 62n);
  const b = shardRange("object.metadata.uid", 1n << 63n, 1n << 64n);
  assert.equal(shardSelector(a, b), `${a} || ${b}`);
  assert.throws(() => shardSelector(), TypeError);
  assert.throws(
    () => shardSelector(a, shardRange("object.metadata.namespace", 0n, 1n)),
    /all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"/,
  );
});

Deno.test("parseShardSelector reads what the CEL parser reads: spacing, either quote, parentheses", () => {
  const reqs = parseShardSelector(
    ` ( shardRange( object.metadata.uid ,"0x0000000000000000",'0x4000000000000000') )||shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')\n`,
  );
  assert.deepEqual(reqs, [
    {
      field: "object.metadata.uid",
      start: "0x0000000000000000",
      end: "0x4000000000000000",
    },
    {
      field: "object.metadata.uid",
      start: "0x8000000000000000",
      end: "0x10000000000000000",
    },
  ]);
});

Deno.test("parseShardSelector refuses with kube-apiserver's messages", () => {
  const Z = "'0x0000000000000000'";
  const E = "'0x8000000000000000'";
  const cases: [string, string][] = [
    [
      "  ",
      "empty shard selector is not allowed; omit the parameter for unfiltered lists",
    ],
    [
      `shardRange(metadata.uid, ${Z}, ${E})`,
      'unsupported field path "metadata.uid"; supported: object.metadata.uid, object.metadata.namespace',
    ],
    [
      `shardRange(object.metadata.uid, '0x0', ${E})`,
      'hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)',
    ],
    [
      `shardRange(object.metadata.uid, ${Z}, '0xFFFFFFFFFFFFFFFF')`,
      'hexEnd: invalid hex character "F" in "0xFFFFFFFFFFFFFFFF"',
    ],
    [
      `shardRange(object.metadata.uid, ${Z}, '0x20000000000000000')`,
      `hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64), got "0x20000000000000000"`,
    ],
    [
      `shardRange(object.metadata.uid, ${Z}, '0x000000000000000000')`,
      'hexEnd: hex value too long (18 chars, max 17): "000000000000000000"',
    ],
    [
      `shardRange(object.metadata.uid, '0000000000000000', ${E})`,
      `hexStart must have '0x' prefix, got "0000000000000000"`,
    ],
    [
      `shardRange(object.metadata.uid, '0x', ${E})`,
      "hexStart: hex value is required after '0x'",
    ],
    [
      `shardRange(object.metadata.uid, ${E}, ${E})`,
      "shard range start 0x8000000000000000 must be less than end 0x8000000000000000",
    ],
    [
      `shardRange(object.metadata.uid, ${Z}, ${E}) && shardRange(object.metadata.uid, ${Z}, ${E})`,
      'unsupported function "_&&_"; only shardRange() and || are allowed',
    ],
    [
      `shardRange(object.metadata.uid, ${Z})`,
      "shardRange() requires exactly 3 arguments, got 2",
    ],
    [
      `shardRange(object.metadata.uid, 0, ${E})`,
      "hexStart must be a string literal, got int64",
    ],
    [
      `shardRange(object.metadata.uid, start, ${E})`,
      "hexStart must be a string literal (e.g. '0xff'), got expression kind 3",
    ],
    [
      `shardRange('object.metadata.uid', ${Z}, ${E})`,
      "shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 5",
    ],
    [
      `${Z}`,
      "unexpected expression kind 5; expected shardRange() call or || operator",
    ],
    [
      `object.metadata.uid`,
      "unexpected expression kind 7; expected shardRange() call or || operator",
    ],
  ];
  for (const [input, message] of cases) {
    assert.throws(
      () => parseShardSelector(input),
      (e) => e instanceof ShardSelectorError && e.message === message,
      input,
    );
  }
  assert.throws(
    () => parseShardSelector(`shardRange(object.metadata.uid, ${Z}, ${E}`),
    /^ShardSelectorError: CEL parse error: Syntax error: /,
  );
  assert.throws(
    () => parseShardSelector(`shardRange(object.metadata.uid, ${Z}, ${E}) |`),
    /CEL parse error: Syntax error: token recognition error/,
  );
});

Deno.test("newShardMatcher: start inclusive, end exclusive, 2^64 covers the top hash", () => {
  const uid = "0a1b2c3d-0000-4000-8000-000000000001";
  const h = BigInt("0x" + shardHash(uid));
  const obj = { metadata: { name: "x", uid } };
  const m = (s: bigint, e: bigint) =>
    newShardMatcher(shardRange("object.metadata.uid", s, e)).matches(obj);
  assert.equal(m(h, h + 1n), true);
  assert.equal(m(h + 1n, 1n << 64n), false);
  assert.equal(m(0n, h), false);
  assert.equal(m(0n, h + 1n), true);
  // A hash whose upper half is ffffffff still falls below 2^64.
  const top = { metadata: { name: "t", uid: "" } };
  const ht = BigInt("0x" + shardHash(""));
  assert.equal(
    newShardMatcher(shardRange("object.metadata.uid", ht, 1n << 64n)).matches(
      top,
    ),
    true,
  );
  // By namespace: a cluster-scoped object hashes "".
  const byNs = newShardMatcher(
    shardRange("object.metadata.namespace", ht, ht + 1n),
  );
  assert.equal(byNs.matches({ metadata: { name: "node-1" } }), true);
});

Deno.test("three contiguous ranges put each of 3000 uids in exactly one, as the BigInt test does", () => {
  const rand = rng(42);
  const cuts = [0n, 0x5555555555555555n, 0xaaaaaaaaaaaaaaaan, 1n << 64n];
  const ms = [0, 1, 2].map((i) =>
    newShardMatcher(shardRange("object.metadata.uid", cuts[i], cuts[i + 1]))
  );
  const counts = [0, 0, 0];
  for (let i = 0; i < 3000; i++) {
    const uid = uuid(rand);
    const h = BigInt("0x" + fnv1a64Reference(uid));
    const expected = cuts.findIndex((c, j) =>
      j < 3 && h >= c && h < cuts[j + 1]
    );
    const hits = ms.map((m) => m.matches({ metadata: { name: uid, uid } }));
    assert.deepEqual(hits, [0, 1, 2].map((j) => j === expected), uid);
    counts[expected]++;
  }
  // FNV over uuids spreads evenly: each third holds 1000 ± 120.
  for (const c of counts) assert.ok(Math.abs(c - 1000) < 120, String(counts));
});

Deno.test("a matcher echoes the selector canonically", () => {
  const m = newShardMatcher(
    `shardRange(object.metadata.uid,"0x0000000000000000","0x8000000000000000")`,
  );
  assert.equal(
    m.canonical,
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
  );
});
