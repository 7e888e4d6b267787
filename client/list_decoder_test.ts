import assert from "node:assert/strict";
import { ListDecoder, readList } from "./list_decoder.ts";

const encoder = new TextEncoder();

/**
 * Decode `bytes` pushed as the pieces between `cuts` (ascending offsets);
 * `blockBytes` 0 always scans, small values make the decoder guess cuts.
 */
function decodeAt(
  bytes: Uint8Array,
  cuts: number[],
  blockBytes?: number,
): unknown {
  const d = new ListDecoder("the list", { blockBytes });
  let start = 0;
  for (const c of [...cuts, bytes.length]) {
    d.push(bytes.subarray(start, c));
    start = c;
  }
  return d.end();
}

const TRICKY = {
  kind: "PodList",
  apiVersion: "v1",
  metadata: {
    resourceVersion: "42",
    continue: "x",
    items: [{ not: "an item" }],
  },
  items: [
    {
      metadata: { name: "a", annotations: { x: '}{][\\"\\\\', y: "\\" } },
      spec: { l: [1, [2, {}]], n: null, t: true, f: -1.5e3 },
    },
    {
      metadata: { name: "é漢字😀" },
      data: { s: 'a\\\\"b\\\\', u: "\u0001\n" },
    },
    {},
  ],
  after: { items: "not these", n: 1 },
};

Deno.test("ListDecoder decodes a list split at every byte offset, in two and in three pieces", () => {
  for (
    const text of [JSON.stringify(TRICKY), JSON.stringify(TRICKY, null, 2)]
  ) {
    const bytes = encoder.encode(text);
    const want = JSON.parse(text);
    for (let a = 0; a <= bytes.length; a++) {
      for (const block of [0, 1, 60, undefined]) {
        assert.deepEqual(decodeAt(bytes, [a], block), want, `split at ${a}`);
      }
    }
    for (let a = 0; a <= bytes.length; a += 7) {
      for (let b = a; b <= bytes.length; b++) {
        assert.deepEqual(decodeAt(bytes, [a, b]), want, `split at ${a}, ${b}`);
      }
    }
    const everyByte = Array.from({ length: bytes.length }, (_, i) => i);
    for (const block of [0, 1, 60, undefined]) {
      assert.deepEqual(decodeAt(bytes, everyByte, block), want);
    }
    // The items were streamed, not left in the skeleton.
    const d = new ListDecoder();
    d.push(bytes);
    assert.equal(d.itemCount, 3);
  }
});

Deno.test("ListDecoder decodes an escaped quote and backslashes at a chunk edge", () => {
  // A string holding `\"` then `\\`: each cut lands right after a backslash.
  const text = '{"items":[{"s":"a\\"b\\\\"},{"t":"\\\\\\""}],"metadata":{}}';
  const bytes = encoder.encode(text);
  const cuts: number[] = [];
  bytes.forEach((b, i) => b === 0x5c && cuts.push(i + 1));
  assert.ok(cuts.length >= 5);
  assert.deepEqual(decodeAt(bytes, cuts), JSON.parse(text));
  for (const c of cuts) {
    assert.deepEqual(decodeAt(bytes, [c]), JSON.parse(text));
  }
});

Deno.test("ListDecoder keeps null, empty and missing items, and non-list values, as the body has them", () => {
  for (
    const text of [
      '{"kind":"PodList","metadata":{"resourceVersion":"7"},"items":null}',
      '{"kind":"PodList","metadata":{},"items":[]}',
      '{ "items" : [ ] , "metadata" : { } }',
      '{"kind":"PodList","metadata":{}}',
      '{"kind":"items","x":[{"a":1}],"items":[{"b":2}]}',
      '{"kind":"Status","status":"Failure","code":500}',
      "[1,2]",
      '\n {"items":[{"a":[]} ,\n {"b":{}}]}\n',
    ]
  ) {
    const bytes = encoder.encode(text);
    for (let a = 0; a <= bytes.length; a++) {
      assert.deepEqual(decodeAt(bytes, [a]), JSON.parse(text), text);
    }
  }
});

Deno.test("ListDecoder throws a SyntaxError for every truncation of a list", () => {
  const bytes = encoder.encode(JSON.stringify(TRICKY));
  for (let n = 0; n < bytes.length; n++) {
    for (const block of [0, 1, undefined]) {
      assert.throws(
        () => decodeAt(bytes.subarray(0, n), [30, n], block),
        SyntaxError,
        `truncated to ${n} bytes`,
      );
    }
  }
});

Deno.test("ListDecoder cuts blocks without scanning, and scans when a guessed cut is wrong", () => {
  const item = (i: number) => ({
    metadata: { name: `p-${i}` },
    v: "€".repeat(i),
  });
  const list = {
    metadata: {},
    items: Array.from({ length: 50 }, (_, i) => item(i)),
  };
  // Item b holds "},{"metadata":" near its end, where a guess fails.
  const tricky = {
    metadata: {},
    items: [
      { metadata: { name: "a" } },
      {
        metadata: { name: "b" },
        pad: "x".repeat(300),
        l: [{}, { metadata: { name: "inner" } }],
      },
      { metadata: { name: "c" }, s: '},{"metadata":' },
      ...list.items,
    ],
  };
  for (const value of [list, tricky]) {
    const bytes = encoder.encode(JSON.stringify(value));
    for (const block of [1, 100, 1000]) {
      const d = new ListDecoder("the list", { blockBytes: block });
      for (let at = 0; at < bytes.length; at += 37) {
        d.push(bytes.subarray(at, at + 37));
      }
      assert.deepEqual(d.end(), value);
    }
  }
});

Deno.test("ListDecoder throws a SyntaxError for malformed items and skeletons", () => {
  for (
    const [text, message] of [
      ['{"items":[1]}', /a value is not an item/],
      ['{"items":["a"]}', /an item is not an object/],
      ['{"items":[[]]}', /an item is not an object/],
      ['{"items":[{},]}', /the items array ends badly/],
      ['{"items":[{} {}]}', /a comma is missing/],
      ['{"items":[,{}]}', /a comma is misplaced/],
      ['{"items":[{"a":}]}', /an item is not JSON/],
      ['{"items":[{}}', /the items array ends badly/],
      ['{"items":[{}],}', /not JSON/],
      ['{"items":[]}}', /a bracket closes nothing/],
      ['{"items":[]} x', /not JSON/],
      ["", /not JSON/],
      ["<html>", /not JSON/],
    ] as const
  ) {
    const bytes = encoder.encode(text);
    for (let a = 0; a <= bytes.length; a++) {
      for (const block of [0, 1]) {
        assert.throws(
          () => decodeAt(bytes, [a], block),
          message,
          `${text} at ${a}`,
        );
        assert.throws(() => decodeAt(bytes, [a], block), SyntaxError);
      }
    }
  }
});

function streamOf(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.length) c.close();
      else c.enqueue(bytes.slice(at, at += size));
    },
  });
}

Deno.test("readList() parses small bodies whole and switches to the item decoder past its threshold", async () => {
  const text = JSON.stringify(TRICKY);
  const bytes = encoder.encode(text);
  for (const wholeBelow of [0, 25, 100, bytes.length]) {
    let chunks = 0;
    const got = await readList(streamOf(bytes, 10), {
      wholeBelow,
      onChunk: () => chunks++,
    });
    assert.deepEqual(got, JSON.parse(text), `threshold ${wholeBelow}`);
    assert.equal(chunks, Math.ceil(bytes.length / 10));
  }
});

Deno.test("readList() names what it read in errors, on both paths", async () => {
  const bytes = encoder.encode('{"items":[{"a":1},{"b":');
  for (const wholeBelow of [0, 1000]) {
    await assert.rejects(
      readList(streamOf(bytes, 4), {
        what: "the response to GET /x",
        wholeBelow,
      }),
      (err: Error) =>
        err instanceof SyntaxError &&
        err.message.startsWith("Cannot decode the response to GET /x: "),
    );
  }
});
