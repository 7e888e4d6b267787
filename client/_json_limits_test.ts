import assert from "node:assert/strict";
import { deeperThan, parseWithin, TOO_DEEP, tooDeep } from "./_json_limits.ts";

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
