// Differential test of the two ways a list body is decoded: whole
// (`JSON.parse` after a depth check) and item by item (ListDecoder, with
// scanned cuts and guessed ones). Both must give the same value for every
// valid list and the same kind of SyntaxError for anything else, for every
// way the body is cut into chunks, and hold maxObjectBytes and maxJsonDepth.

import assert from "node:assert/strict";
import { ListDecoder, readList } from "./list_decoder.ts";
import { Rng } from "../testing/rng.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { KubeConfig } from "./config.ts";
import { KubeClient } from "./rest.ts";
import { ConfigMaps } from "../api/resources.ts";

const encoder = new TextEncoder();
const WHAT = "the list";

type Outcome = { value: unknown } | { error: unknown };

/** Limits of one case. */
type Limits = { maxObjectBytes?: number; maxJsonDepth?: number };

function stream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i >= chunks.length) c.close();
      else c.enqueue(chunks[i++]);
    },
  });
}

async function viaReadList(
  chunks: Uint8Array[],
  wholeBelow: number,
  limits: Limits,
): Promise<Outcome> {
  try {
    return { value: await readList(stream(chunks), { wholeBelow, ...limits }) };
  } catch (error) {
    return { error };
  }
}

/** The decoder driven directly: small blocks make it guess cuts often. */
function viaDecoder(
  chunks: Uint8Array[],
  blockBytes: number,
  limits: Limits,
): Outcome {
  try {
    const d = new ListDecoder(WHAT, { blockBytes, ...limits });
    for (const c of chunks) d.push(c);
    return { value: d.end() };
  } catch (error) {
    return { error };
  }
}

/** What a failure says: the limit it names, or that the body is not a list. */
function kind(error: unknown): string {
  assert(error instanceof SyntaxError, `not a SyntaxError: ${error}`);
  assert(
    error.message.startsWith(`Cannot decode ${WHAT}: `),
    `does not name what was decoded: ${error.message}`,
  );
  if (error.message.includes("maxJsonDepth")) return "maxJsonDepth";
  if (error.message.includes("maxObjectBytes")) return "maxObjectBytes";
  if (/an item is not an object|a value is not an item/.test(error.message)) {
    return "item";
  }
  return "syntax";
}

/**
 * Assert `got` agrees with `want`: the same value, or both a SyntaxError
 * naming the list; when the body is JSON (`exact`) the same kind of one.
 */
function agree(label: string, want: Outcome, got: Outcome, exact: boolean) {
  if ("value" in want && "value" in got) {
    assert.deepEqual(got.value, want.value, label);
  } else if ("error" in want && "error" in got) {
    const [w, g] = [kind(want.error), kind(got.error)];
    if (exact) assert.equal(g, w, `${label}: ${got.error}`);
  } else {
    assert.fail(
      `${label}: ${"value" in want ? "a value" : String(want.error)} whole, ${
        "value" in got ? "a value" : String(got.error)
      } by item`,
    );
  }
}

/** Cut `bytes` into chunks at random offsets, some of them 1 byte long. */
function chunked(rng: Rng, bytes: Uint8Array): Uint8Array[] {
  const mode = rng.int(6);
  const cuts: number[] = [];
  if (mode === 0 && bytes.length < 1500) {
    for (let i = 1; i < bytes.length; i++) cuts.push(i);
  } else if (mode === 1) {
    // Inside every multi-byte character and after every backslash.
    for (let i = 1; i < bytes.length; i++) {
      if ((bytes[i] & 0xc0) === 0x80 || bytes[i - 1] === 0x5c) cuts.push(i);
    }
  } else if (mode < 5) {
    const most = [8, 64, 2048, 1 << 16][mode - 1];
    for (
      let at = 1 + rng.int(most);
      at < bytes.length;
      at += 1 + rng.int(most)
    ) {
      cuts.push(at);
    }
  }
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const c of [...cuts, bytes.length]) {
    chunks.push(bytes.slice(start, c));
    start = c;
  }
  return chunks;
}

// --- JSON text with random spacing and escapes ---------------------------

const SPACES = [" ", "\n", "  ", "\n    ", "\t", "\r\n"];

function ws(rng: Rng, p: number): string {
  return rng.chance(p) ? rng.pick(SPACES) : "";
}

const STRINGS = [
  "",
  "a",
  "p-7x2k9",
  'quote " inside',
  "back\\slash\\",
  "\\",
  "é",
  "漢字",
  "😀 emoji",
  '},{"metadata":',
  '}, {"metadata": {"name": "x"}}',
  "]}",
  "[[{{",
  "items",
  "\u0000\u001f\n\t",
  "maxJsonDepth",
];

/** A JSON string for `s`, some characters written as `\u` escapes. */
function str(rng: Rng, s: string): string {
  let out = JSON.stringify(s);
  if (rng.chance(0.3)) {
    out = out.replace(
      /[^\x20-\x7e]|\//g,
      (c) =>
        c === "/"
          ? "\\/"
          : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  }
  return out;
}

const NUMBERS = ["0", "-1", "42", "3.25", "-0.5e-3", "1E+21", "123456789012"];

/** Random JSON text nesting at most `depth` more levels. */
function value(rng: Rng, depth: number, p: number): string {
  const r = rng.int(depth > 0 ? 10 : 6);
  if (r < 2) return str(rng, rng.pick(STRINGS) + rng.suffix(rng.int(4)));
  if (r === 2) return rng.pick(NUMBERS);
  if (r === 3) return rng.pick(["true", "false", "null"]);
  if (r === 4) return str(rng, rng.suffix(rng.int(20)));
  if (r === 5) return "0";
  if (r < 8) return object(rng, depth - 1, p, rng.int(4));
  const n = rng.int(4);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    parts.push(
      ws(rng, p) +
        (rng.chance(0.5) ? item(rng, depth - 1, p) : value(rng, depth - 1, p)) +
        ws(rng, p),
    );
  }
  return `[${parts.join(",")}${n === 0 ? ws(rng, p) : ""}]`;
}

function object(rng: Rng, depth: number, p: number, n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    parts.push(
      ws(rng, p) +
        str(rng, rng.pick(["name", "a", "spec", "items", "é", rng.suffix(3)])) +
        ws(rng, p) + ":" + ws(rng, p) + value(rng, depth, p) + ws(rng, p),
    );
  }
  return `{${parts.join(",")}${n === 0 ? ws(rng, p) : ""}}`;
}

/** An item: an object whose first key is usually `metadata`, as a pod's is. */
function item(rng: Rng, depth: number, p: number): string {
  if (rng.chance(0.1)) return object(rng, depth, p, rng.int(3));
  const meta = `{${ws(rng, p)}"name":${ws(rng, p)}${str(rng, rng.suffix(5))}}`;
  const rest = object(rng, depth, p, rng.int(4)).slice(1);
  return `{${ws(rng, p)}"metadata":${ws(rng, p)}${meta}${
    rest.trimStart() === "}" ? "" : ","
  }${rest}`;
}

/** `n` levels of nesting around an empty object, arrays and objects mixed. */
function nest(rng: Rng, n: number): string {
  let text = "{}";
  for (let i = 1; i < n; i++) {
    text = rng.chance(0.5) ? `[${text}]` : `{"d":${text}}`;
  }
  return text;
}

/** A list body, and whether it is JSON at all. */
type Body = { text: string; json: boolean };

const DEPTH = 20;

function list(rng: Rng): Body {
  const p = rng.pick([0, 0, 0.2, 0.8]);
  const n = rng.pick([0, 1, 2, 3, 5, 20, 60]);
  const items: string[] = [];
  for (let i = 0; i < n; i++) items.push(item(rng, rng.int(5), p));
  const shape = rng.int(30);
  if (shape === 0) {
    // An item at, or just past, the depth limit (the list is 2 levels).
    items[rng.int(n + 1) % Math.max(n, 1)] = `{"metadata":{},"deep":${
      nest(rng, DEPTH - 3 + rng.int(3))
    }}`;
  } else if (shape === 1 && n > 0) {
    items[rng.int(n)] = rng.pick(["1", '"x"', "null", "[]", "[{}]", "true"]);
  }
  const sep = () => ws(rng, p) + "," + ws(rng, p);
  let itemsValue = `[${ws(rng, p)}${items.join(sep())}${ws(rng, p)}]`;
  if (shape === 2) itemsValue = rng.pick(["null", "{}", '"x"', "7", "[]"]);
  const fields: [string, string][] = [
    ['"kind"', str(rng, "PodList")],
    ['"apiVersion"', '"v1"'],
    [
      '"metadata"',
      rng.chance(0.2)
        ? `{"resourceVersion":"9","items":[{"metadata":{}}],"x":${
          value(rng, 3, p)
        }}`
        : `{${ws(rng, p)}"resourceVersion":${ws(rng, p)}"${rng.int(1000)}"${
          rng.chance(0.3) ? `,"continue":${str(rng, rng.pick(STRINGS))}` : ""
        }}`,
    ],
    ['"items"', itemsValue],
  ];
  if (shape === 3) fields.push(['"extra"', value(rng, 4, p)]);
  if (shape === 4) fields.push(['"items"', `[${items.slice(0, 1).join(",")}]`]);
  if (shape === 5) fields.push(['"items"', rng.pick(["null", "{}", '"x"'])]);
  if (shape === 6) {
    fields.push(['"it\\u0065ms"', `[${items.slice(1).join(",")}]`]);
  }
  if (shape === 7) fields.push(['"deep"', nest(rng, DEPTH - 2 + rng.int(3))]);
  if (shape === 8 || rng.chance(0.3)) {
    // Keys in another order: items first, metadata after them.
    for (let i = fields.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [fields[i], fields[j]] = [fields[j], fields[i]];
    }
  }
  let text = ws(rng, p) + "{" +
    fields.map(([k, v]) =>
      ws(rng, p) + k + ws(rng, p) + ":" + ws(rng, p) + v + ws(rng, p)
    )
      .join(",") +
    "}" + ws(rng, p);
  if (shape === 9) {
    text = rng.pick([
      `[${items.join(",")}]`,
      '"a string"',
      "12.5",
      "null",
      "true",
      "",
      "   ",
      `[{"items":[${items.join(",")}]}]`,
    ]);
  }
  let json = true;
  if (shape === 10 || shape === 11) {
    // Cut anywhere: inside a key, a string, an escape, a number, between items.
    text = text.slice(0, rng.int(text.length));
    json = false;
  } else if (shape === 12) {
    text += rng.pick(["x", "}", "]", ",", "{}", ' {"items":[{}]}', "[", '"']);
    json = false;
  } else if (shape === 13 && text.length > 2) {
    // One byte replaced by a bracket, quote, comma or backslash.
    const at = rng.int(text.length);
    text = text.slice(0, at) +
      rng.pick(["{", "}", "[", "]", '"', ",", "\\", ":"]) +
      text.slice(at + 1);
    json = false;
  }
  if (json) {
    try {
      JSON.parse(text);
    } catch {
      json = false;
    }
  }
  return { text, json };
}

Deno.test("readList() gives the same answer whole and item by item, for random lists cut at random", async () => {
  const rng = new Rng(20261202);
  for (let round = 0; round < 1500; round++) {
    const { text, json } = list(rng);
    const bytes = encoder.encode(text);
    const limits = { maxJsonDepth: DEPTH };
    const whole = await viaReadList([bytes], Infinity, limits);
    const chunks = chunked(rng, bytes);
    const label = `round ${round}: ${JSON.stringify(text.slice(0, 300))}`;
    agree(
      `${label} (readList)`,
      whole,
      await viaReadList(chunks, 0, limits),
      json,
    );
    const blockBytes = 1 + rng.int(400);
    agree(
      `${label} (blocks of ${blockBytes})`,
      whole,
      viaDecoder(chunks, blockBytes, limits),
      json,
    );
  }
});

/** An item of exactly `bytes` bytes (at least 40) in UTF-8. */
function sizedItem(rng: Rng, bytes: number): string {
  const head = `{"metadata":{"name":${str(rng, rng.suffix(5))}},"pad":"é`;
  const pad = bytes - encoder.encode(head).length - 2;
  return `${head}${"x".repeat(pad)}"}`;
}

Deno.test("readList() holds maxObjectBytes for items and for the list without them, however the body is cut", async () => {
  const rng = new Rng(7071);
  for (let round = 0; round < 400; round++) {
    const max = 100 + rng.int(1000);
    const n = rng.int(12);
    const sizes: number[] = [];
    for (let i = 0; i < n; i++) {
      sizes.push(
        rng.chance(0.1) ? max - 2 + rng.int(4) : 40 + rng.int(max - 40),
      );
    }
    const items = sizes.map((s) => sizedItem(rng, s));
    const inner = rng.chance(0.5) ? items.join(",") : items.join(",\n  ");
    const metaPad = rng.chance(0.1) ? max - 40 + rng.int(60) : rng.int(20);
    const head = `{"kind":"PodList","metadata":{"resourceVersion":"1","x":"${
      "y".repeat(metaPad)
    }"},"items":[`;
    const text = `${head}${inner}]}`;
    const bytes = encoder.encode(text);
    const skeleton = bytes.length - encoder.encode(inner).length;
    const want: Outcome = sizes.some((s) => s > max) || skeleton > max
      ? { error: new SyntaxError(`Cannot decode ${WHAT}: maxObjectBytes`) }
      : { value: JSON.parse(text) };
    const limits = { maxObjectBytes: max };
    const label =
      `round ${round}: max ${max}, items ${sizes}, skeleton ${skeleton}`;
    const chunks = chunked(rng, bytes);
    agree(
      `${label} (whole)`,
      want,
      await viaReadList(chunks, Infinity, limits),
      true,
    );
    agree(
      `${label} (readList)`,
      want,
      await viaReadList(chunks, 0, limits),
      true,
    );
    const blockBytes = rng.pick([1, 50, 300, 1 << 16]);
    agree(
      `${label} (blocks of ${blockBytes})`,
      want,
      viaDecoder(chunks, blockBytes, limits),
      true,
    );
  }
});

Deno.test("readList() gives the same answer whole and item by item for lists past 256 KiB, cut in runs without a scan", async () => {
  const rng = new Rng(4242);
  for (let round = 0; round < 8; round++) {
    const p = rng.pick([0, 0.3]);
    const items: string[] = [];
    let size = 0;
    while (size < 300_000) {
      const rest = item(rng, 4, p).slice(1);
      const pad = "é".repeat(rng.int(600));
      const text = `{"metadata":{"name":"n${items.length}"},"pad":"${pad}"${
        rest.trimStart() === "}" ? "" : ","
      }${rest}`;
      items.push(text);
      size += text.length;
    }
    // Now and then an item at or past the depth limit, or one that is not
    // an object, deep into the runs cut without a scan.
    if (round % 2 === 1) {
      items[100 + rng.int(items.length - 100)] = round % 4 === 1
        ? `{"metadata":{},"deep":${nest(rng, DEPTH - 3 + rng.int(3))}}`
        : rng.pick(["7", "null", "[{}]"]);
    }
    const text =
      `{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[${
        items.join(",")
      }]}`;
    const bytes = encoder.encode(text);
    const limits = { maxJsonDepth: DEPTH };
    const whole = await viaReadList([bytes], Infinity, limits);
    const chunks = chunked(rng, bytes);
    for (const wholeBelow of [undefined, 0]) {
      const got = await viaReadList(
        chunks,
        wholeBelow ?? 256 * 1024,
        limits,
      );
      agree(`round ${round}, wholeBelow ${wholeBelow}`, whole, got, true);
    }
  }
});

Deno.test("KubeClient.list of a list past 256 KiB cut into random writes gives the objects the server holds", async () => {
  await using server = await FakeApiServer.start();
  const rng = new Rng(99);
  for (let i = 0; i < 300; i++) {
    const data: Record<string, string> = {};
    for (let k = 0; k < 8; k++) {
      data[`k${k}`] = rng.pick(STRINGS) + rng.suffix(200 + rng.int(50));
    }
    server.create(ConfigMaps, {
      metadata: { name: `cm-${i}`, namespace: "default" },
      data,
    });
  }
  const raw = await (await fetch(`${server.url}/api/v1/configmaps`)).json();
  const body = JSON.stringify(raw).length;
  assert(body > 256 * 1024 && body < 8 << 20, `a body of ${body} bytes`);
  server.faults.splitWrites("random", 5);
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  const list = await client.list(ConfigMaps);
  assert.equal(list.items.length, 300);
  assert.deepEqual(
    list.items,
    raw.items.map((o: Record<string, unknown>) => ({
      ...o,
      kind: "ConfigMap",
      apiVersion: "v1",
    })),
  );
  assert.deepEqual(list.metadata, raw.metadata);
});

/** Both ways on `text`: whole in one chunk, by item in `chunks` pieces. */
async function bothWays(
  text: string,
  cuts: number[],
  opts: Limits & { blockBytes?: number } = {},
): Promise<[Outcome, Outcome]> {
  const bytes = encoder.encode(text);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const c of [...cuts, bytes.length]) {
    chunks.push(bytes.slice(start, c));
    start = c;
  }
  const { blockBytes, ...limits } = opts;
  return [
    await viaReadList([bytes], Infinity, limits),
    viaDecoder(chunks, blockBytes ?? 0, limits),
  ];
}

Deno.test("readList() refuses an item that is not an object whole as it does item by item, in a run cut without a scan too", async () => {
  const text = '{"items":[{"metadata":1},{"metadata":2},7,{"metadata":3}]}';
  // Cut after the first item, inside the second: with 1-byte blocks the
  // decoder then parses the next items as one run without a scan.
  for (const blockBytes of [0, 1]) {
    const [whole, byItem] = await bothWays(text, [30], { blockBytes });
    for (const o of [whole, byItem]) {
      assert("error" in o && kind(o.error) === "item", String(o));
    }
  }
});

Deno.test("readList() takes the last of repeated items keys, escaped or not, item by item as whole", async () => {
  for (
    const [text, items] of [
      ['{"items":[{"a":1}],"items":null}', null],
      ['{"items":[{"a":1}],"items":[{"b":2}]}', [{ b: 2 }]],
      ['{"items":[{"a":1}],"it\\u0065ms":[{"b":2}]}', [{ b: 2 }]],
      ['{"it\\u0065ms":[{"a":1}],"items":{}}', {}],
    ] as const
  ) {
    const [whole, byItem] = await bothWays(text, [3, 17]);
    assert.deepEqual(whole, { value: { items } }, text);
    assert.deepEqual(byItem, whole, text);
  }
});

Deno.test("ListDecoder accepts an item nesting exactly maxJsonDepth in a run cut without a scan, and refuses one level more", async () => {
  for (const extra of [0, 1]) {
    // The list, the items array, the item, metadata, a and b: 6 levels;
    // c's `{}` is a 7th.
    const deep = `{"metadata":{"a":{"b":{"c":${extra ? "{}" : "0"}}}}}`;
    const text =
      `{"items":[{"metadata":1},{"metadata":2},${deep},{"metadata":3}]}`;
    const [whole, byItem] = await bothWays(text, [30], {
      blockBytes: 1,
      maxJsonDepth: 6,
    });
    assert.equal("value" in whole, extra === 0);
    agree(text, whole, byItem, true);
  }
});

Deno.test("ListDecoder refuses an item past maxObjectBytes in a chunk longer than its block", () => {
  const long = `{"metadata":"${"x".repeat(200)}"}`;
  const text =
    `{"items":[{"metadata":1},{"metadata":2},${long},{"metadata":3},{"metadata":4}]}`;
  // The second item is cut, so the rest, one chunk, is buffered as a block.
  const got = viaDecoder(
    [encoder.encode(text.slice(0, 30)), encoder.encode(text.slice(30))],
    1 << 16,
    { maxObjectBytes: 100 },
  );
  assert("error" in got && kind(got.error) === "maxObjectBytes", String(got));
});

Deno.test("KubeClient.list of a pretty-printed list past 256 KiB in random chunks gives the objects JSON.parse reads", async () => {
  // What `?pretty=true` answers look like: no `},{` between items, so the
  // decoder cannot cut runs without a scan and scans every byte.
  const rng = new Rng(31);
  const items = [];
  for (let i = 0; i < 300; i++) {
    const data: Record<string, string> = {};
    for (let k = 0; k < 8; k++) {
      data[`k${k}`] = rng.pick(STRINGS) + rng.suffix(200 + rng.int(50));
    }
    items.push({ metadata: { name: `cm-${i}`, namespace: "default" }, data });
  }
  const text = JSON.stringify(
    {
      kind: "ConfigMapList",
      apiVersion: "v1",
      metadata: { resourceVersion: "7" },
      items,
    },
    null,
    rng.pick([2, 4, "\t"]),
  );
  const bytes = encoder.encode(text);
  assert(bytes.length > 256 * 1024 && bytes.length < 8 << 20);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response(stream(chunked(rng, bytes)), {
        headers: { "content-type": "application/json" },
      }),
  );
  try {
    await using client = new KubeClient(
      KubeConfig.fromOptions({
        server: `http://127.0.0.1:${server.addr.port}`,
      }),
    );
    const list = await client.list(ConfigMaps);
    assert.deepEqual(list.metadata, { resourceVersion: "7" });
    assert.deepEqual(
      list.items,
      JSON.parse(text).items.map((o: Record<string, unknown>) => ({
        ...o,
        kind: "ConfigMap",
        apiVersion: "v1",
      })),
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("a run cut without a scan is parsed in pieces too short to nest too deep: items at the depth limit, one level past it, and item boundaries inside items decode as JSON.parse reads them", async () => {
  const rng = new Rng(5150);
  for (let round = 0; round < 600; round++) {
    // Pieces are at most 2·(maxJsonDepth − 1) bytes: with these limits a
    // run of the items below is cut into several.
    const depth = 8 + rng.int(40);
    // Whole, the depth is checked before the items are: which of two
    // faults is named first differs, so a list has at most one kind.
    const faults = rng.pick(["deep", "not an object"]);
    const items: string[] = [];
    const n = 5 + rng.int(60);
    while (items.length < n) {
      const shape = rng.int(10);
      if (shape === 0 && faults === "deep") {
        // The list, the items array, the item and k arrays: 3 + k levels,
        // in as few bytes as such nesting takes.
        const k = depth - 4 + rng.int(4);
        items.push(`{"metadata":${"[".repeat(k)}${"]".repeat(k)}}`);
      } else if (shape === 1) {
        // What a cut looks for, inside an item (a list of templates).
        items.push(
          `{"metadata":${items.length},"t":[{"a":1},{"metadata":{"b":[{},{"metadata":2}]}}]}`,
        );
      } else if (shape === 2 && faults !== "deep" && rng.chance(0.2)) {
        items.push(rng.pick(["7", "null", "[{}]", '"x"']));
      } else {
        items.push(
          `{"metadata":{"name":"n${items.length}"},"pad":"${
            "é".repeat(rng.int(2 * depth))
          }"}`,
        );
      }
    }
    const text = `{"kind":"List","metadata":{"resourceVersion":"3"},"items":[${
      items.join(",")
    }]}`;
    const bytes = encoder.encode(text);
    const limits = { maxJsonDepth: depth };
    const whole = await viaReadList([bytes], Infinity, limits);
    const chunks = chunked(rng, bytes);
    const blockBytes = rng.pick([1, 2 * depth, 8 * depth, 1 << 16]);
    agree(
      `round ${round}, depth ${depth}, blocks of ${blockBytes}: ${text}`,
      whole,
      viaDecoder(chunks, blockBytes, limits),
      true,
    );
  }
});
