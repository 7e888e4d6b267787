import assert from "node:assert/strict";
import {
  boundedBy,
  deeperThan,
  parseWithin,
  TOO_DEEP,
  tooDeep,
} from "./_json_limits.ts";

/** `depth` nested arrays around `inner`, after `pad` characters of a string. */
function nested(depth: number, pad = 0, inner = "1"): string {
  const body = "[".repeat(depth) + inner + "]".repeat(depth);
  return pad > 0 ? `{"pad":"${"x".repeat(pad)}","v":${body}}` : body;
}

Deno.test("parseWithin gives tooDeep's answer on both of its paths: dense text scanned first, sparse text parsed then walked", () => {
  const max = 50;
  const cases = [
    nested(max), // dense, at the limit
    nested(max + 1), // dense, one over
    nested(max - 1, 5000), // sparse (padded), inside the limit (+1 for the object)
    nested(max, 5000), // sparse, one over
    // Many shallow items: more opening brackets than the limit, not deep.
    JSON.stringify({
      items: Array.from({ length: 200 }, (_, i) => ({ a: [{ i }] })),
    }),
    // Brackets inside strings count for nothing.
    JSON.stringify({ s: "[".repeat(5 * max), t: "{".repeat(5 * max) }),
  ];
  for (const text of cases) {
    const deep = tooDeep(text, max);
    const got = parseWithin(text, max);
    assert.equal(got === TOO_DEEP, deep, text.slice(0, 30));
    if (!deep) assert.deepEqual(got, JSON.parse(text));
  }
  assert.throws(() => parseWithin(`[${"1,".repeat(200)}`, max), SyntaxError);
});

Deno.test("deeperThan counts containers, not values", () => {
  assert.equal(deeperThan(JSON.parse(nested(3)), 3), false);
  assert.equal(deeperThan(JSON.parse(nested(4)), 3), true);
  assert.equal(deeperThan({ a: { b: {} }, c: [1, 2] }, 3), false);
  assert.equal(deeperThan({ a: { b: { c: {} } } }, 3), true);
  assert.equal(deeperThan("x", 0), false);
});

/** The exact answer: parse, then count containers. */
function exactlyTooDeep(text: string, max: number): boolean {
  return deeperThan(JSON.parse(text), max);
}

/** Check every depth test against the exact answer on `text`. */
function agrees(text: string, max: number): void {
  const deep = exactlyTooDeep(text, max);
  const label = text.slice(0, 60);
  // boundedBy may fail to prove a shallow text, never "prove" a deep one.
  if (deep) assert.equal(boundedBy(text, max), false, label);
  assert.equal(tooDeep(text, max), deep, label);
  assert.equal(parseWithin(text, max) === TOO_DEEP, deep, label);
}

Deno.test("boundedBy proves a list of managedFields-heavy objects shallow (braces and escaped quotes inside its keys) and the depth tests agree with the exact answer", () => {
  const item = (i: number) => ({
    metadata: {
      name: `p-${i}`,
      labels: { app: "x" },
      managedFields: [{
        fieldsV1: {
          "f:status": {
            'k:{"type":"Ready"}': { ".": {}, "f:status": {} },
            'k:{"containerPort":8080,"protocol":"TCP"}': {},
          },
        },
      }],
    },
    spec: { ports: [{ port: 80, ok: true, none: null }], tags: ["a", "b"] },
    status: { phase: "Running", n: -1.5e3 },
  });
  const text = JSON.stringify({
    items: Array.from({ length: 300 }, (_, i) => item(i)),
  });
  // 1 KiB of this text holds about 60 opening brackets.
  assert.equal(boundedBy(text, 100), true);
  agrees(text, 100);
  // Not proven: at most 10 deep, but over 10 brackets open in 1 KiB.
  assert.equal(boundedBy(text, 10), false);
  agrees(text, 10);
});

Deno.test("closing brackets inside strings never lower the depth bound: braces in strings, escaped quotes, backslashes before a quote", () => {
  const max = 40;
  // Strings full of what a careless scan would take for closings: after an
  // escaped quote, after an opening quote, after a key-like `\":1`, after
  // an escaped backslash and a quote that ends the string.
  const fakes = [
    '\\"}'.repeat(3 * max), // \"} inside a string
    "}]".repeat(3 * max), // a string starting with closings
    '\\":1}'.repeat(3 * max), // \":1} (a key-like run)
    '\\":{}'.repeat(3 * max),
    "\\\\".repeat(max) + "}]}", // backslashes only
  ];
  for (const fake of fakes) {
    for (const depth of [max - 2, max - 1, max, max + 5]) {
      // The deep part comes after the string, so a bound that subtracted
      // the string's brackets would come out too low.
      const text = `[{"s":"${fake}","t":"${fake}"},${"[".repeat(depth - 1)}1${
        "]".repeat(depth - 1)
      }]`;
      agrees(text, max);
    }
    // A string that ends in an escaped backslash: `"\\\\"}` closes for real.
    agrees(`[{"s":"${fake}\\\\"},${nested(max)}]`, max);
  }
});

Deno.test("depth tests agree with the exact answer on random JSON whose strings hold brackets, quotes and backslashes", () => {
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const chars = ["{", "}", "[", "]", '"', "\\", ":", ",", "a", "1", " "];
  const str = () =>
    Array.from({ length: rand(12) }, () => chars[rand(chars.length)]).join("");
  const value = (depth: number): unknown => {
    if (depth <= 0 || rand(5) === 0) {
      return [str(), rand(100) - 50, true, null, 1.5e3][rand(5)];
    }
    const n = 1 + rand(3);
    return rand(2) === 0
      ? Array.from({ length: n }, () => value(depth - 1 - rand(2)))
      : Object.fromEntries(
        Array.from({ length: n }, () => [str(), value(depth - 1 - rand(2))]),
      );
  };
  const max = 8;
  for (let k = 0; k < 400; k++) {
    const v = value(max - 2 + rand(5));
    for (const text of [JSON.stringify(v), JSON.stringify(v, null, 1)]) {
      if (text.length > 2 * max) agrees(text, max);
    }
  }
});
