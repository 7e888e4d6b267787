// Limits on what a server can make the client decode: the longest watch
// line or list item (maxObjectBytes, default 16 MiB as client-go's
// streaming decoder) and the deepest JSON nesting (maxJsonDepth, default
// 10,000 as client-go's decoder), on every path: watch, small list,
// streamed list, a plain request.

import assert from "node:assert/strict";
import { ConfigMaps } from "../api/resources.ts";
import { KubeConfig } from "./config.ts";
import { KubeClient } from "./rest.ts";
import { decodeWatch, WatchDecodeError } from "./watch.ts";
import { ListDecoder, readList } from "./list_decoder.ts";

const event = (name: string) =>
  JSON.stringify({ type: "ADDED", object: { metadata: { name } } }) + "\n";

/** JSON nesting `depth` levels: `{"a":` ... `}` around a 1. */
function nested(depth: number): string {
  return '{"a":'.repeat(depth - 1) + "[1]" + "}".repeat(depth - 1);
}

function chunked(text: string, size = 65_536): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

Deno.test("decodeWatch ends the watch with TooLong once an unterminated line passes maxObjectBytes, after the events before it", async () => {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      // A line that never ends: 1 KiB pieces, forever.
      if (sent === 0) c.enqueue(new TextEncoder().encode(event("a")));
      else c.enqueue(new TextEncoder().encode("x".repeat(1024)));
      sent++;
    },
  });
  const names: string[] = [];
  await assert.rejects(async () => {
    for await (const ev of decodeWatch(body, { maxObjectBytes: 100_000 })) {
      if (ev.type === "ADDED") names.push(ev.object.metadata.name!);
    }
  }, (err) => {
    assert.ok(err instanceof WatchDecodeError);
    assert.equal(err.kind, "TooLong");
    assert.equal(err.line, 2);
    assert.match(
      err.message,
      /longer than 100000 characters \(maxObjectBytes\)/,
    );
    return true;
  });
  assert.deepEqual(names, ["a"]);
  assert.ok(sent < 200, `read ${sent} KiB, stopped soon after the limit`);
  // A complete line over the limit, in one chunk, too.
  await assert.rejects(
    Array.fromAsync(decodeWatch(chunked(event("b".repeat(2_000))), {
      maxObjectBytes: 1_000,
    })),
    (err) => err instanceof WatchDecodeError && err.kind === "TooLong",
  );
});

Deno.test("decodeWatch refuses an event nested deeper than maxJsonDepth (default 10,000) and accepts one just under", async () => {
  const deep = (depth: number) =>
    `{"type":"ADDED","object":{"metadata":{"name":"d"},"x":${
      nested(depth - 2)
    }}}\n`;
  await assert.rejects(
    Array.fromAsync(decodeWatch(chunked(event("a") + deep(10_001)))),
    (err) =>
      err instanceof WatchDecodeError && err.kind === "TooDeep" &&
      err.line === 2 && /deeper than 10000 levels/.test(err.message),
  );
  const ok = await Array.fromAsync(decodeWatch(chunked(deep(10_000))));
  assert.equal(ok.length, 1);
  await assert.rejects(
    Array.fromAsync(decodeWatch(chunked(deep(60)), { maxJsonDepth: 50 })),
    (err) => err instanceof WatchDecodeError && err.kind === "TooDeep",
  );
  // Brackets inside strings are not nesting.
  const brackets = JSON.stringify({
    type: "ADDED",
    object: { metadata: { name: "s" }, data: { x: "{[".repeat(20_000) } },
  });
  assert.equal(
    (await Array.fromAsync(decodeWatch(chunked(brackets + "\n")))).length,
    1,
  );
});

Deno.test("a list nested deeper than maxJsonDepth fails whole, streamed (scanned and cut without a scan) and as a plain request", async () => {
  const item = (name: string, extra = "") =>
    `{"metadata":{"name":"${name}"}${extra}}`;
  const list = (items: string[]) =>
    `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[${
      items.join(",")
    }]}`;
  const deepItem = item("deep", `,"x":${nested(10_000)}`);
  const body = list([item("a"), deepItem, item("b")]);
  // Whole (small body).
  await assert.rejects(readList(chunked(body)), /deeper than 10000 levels/);
  // Streamed: scanned byte by byte.
  await assert.rejects(
    readList(chunked(body, 4096), { wholeBelow: 1 }),
    /deeper than 10000 levels \(maxJsonDepth\)/,
  );
  // Streamed: cut into runs of items without a scan (after a first item).
  const items = Array.from({ length: 200 }, (_, i) => item(`i${i}`));
  items.splice(150, 0, deepItem);
  const decoder = new ListDecoder("the list", { blockBytes: 30_000 });
  assert.throws(() => {
    for (const c of chunkBytes(list(items), 1_000)) decoder.push(c);
    decoder.end();
  }, /deeper than 10000 levels/);
  // Just under the limit passes.
  const fine = list([item("a", `,"x":${nested(9_990)}`)]);
  assert.equal(
    ((await readList(chunked(fine))) as { items: unknown[] }).items.length,
    1,
  );
  assert.equal(
    ((await readList(chunked(fine, 4096), { wholeBelow: 1 })) as {
      items: unknown[];
    }).items.length,
    1,
  );
  // A plain request (a get) answered with deep JSON.
  await using server = serve(() => item("cm", `,"x":${nested(20_000)}`));
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  await assert.rejects(
    client.get(ConfigMaps, "cm", { namespace: "default" }),
    (err) =>
      err instanceof SyntaxError &&
      /deeper than 10000 levels/.test(err.message),
  );
});

Deno.test("a list item longer than maxObjectBytes fails the list as soon as it passes the limit", async () => {
  const big = `{"metadata":{"name":"big"},"data":{"x":"${
    "x".repeat(50_000)
  }"}}`;
  const body =
    `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"a"}},${big}]}`;
  await assert.rejects(
    readList(chunked(body, 1024), { maxObjectBytes: 10_000 }),
    /an item is longer than 10000 bytes \(maxObjectBytes\)/,
  );
  // The same through KubeClient, whose option reaches the decoder.
  await using server = serve(() => body);
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
    { maxObjectBytes: 10_000 },
  );
  await assert.rejects(client.list(ConfigMaps), /maxObjectBytes/);
  assert.throws(
    () =>
      new KubeClient(KubeConfig.fromOptions({ server: server.url }), {
        maxObjectBytes: 0,
      }),
    {
      name: "RangeError",
      message: "KubeClient: opts.maxObjectBytes must be a number >= 1, got 0",
    },
  );
});

function* chunkBytes(text: string, size: number): Generator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += size) {
    yield bytes.slice(at, at + size);
  }
}

function serve(body: () => string) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response(body(), { headers: { "content-type": "application/json" } }),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test({
  name:
    "a server sending an endless watch line or a 256 MiB list item cannot take the memory of a process with a 96 MiB heap: the watch and the list fail, the process lives",
  // The subprocess's own server and client; its exit is what is checked.
  fn: async () => {
    const script = await Deno.makeTempFile({ suffix: ".ts" });
    const rest = new URL("./rest.ts", import.meta.url).href;
    const config = new URL("./config.ts", import.meta.url).href;
    const resources = new URL("../api/resources.ts", import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `
import { KubeClient } from "${rest}";
import { KubeConfig } from "${config}";
import { ConfigMaps } from "${resources}";
const MiB = 1024 * 1024;
const piece = new TextEncoder().encode("x".repeat(MiB));
/** 256 MiB of "x" after a head, in 1 MiB chunks, never a newline. */
function endless(head: string): ReadableStream<Uint8Array> {
  let sent = -1;
  return new ReadableStream({
    pull(c) {
      if (sent === -1) c.enqueue(new TextEncoder().encode(head));
      else if (sent < 256) c.enqueue(piece);
      else c.close();
      sent++;
    },
  });
}
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) =>
  new Response(
    new URL(req.url).searchParams.get("watch") === "true"
      ? endless('{"type":"ADDED","object":{"metadata":{"name":"')
      : endless('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"'),
  ));
const client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:" + server.addr.port }));
const out: string[] = [];
try {
  for await (const _ of await client.watch(ConfigMaps)) out.push("event");
} catch (err) {
  out.push((err as { kind?: string }).kind ?? String(err));
}
try {
  await client.list(ConfigMaps);
  out.push("listed");
} catch (err) {
  out.push((err as Error).message.includes("maxObjectBytes") ? "list TooLong" : String(err));
}
client.close();
await server.shutdown();
console.log(out.join(","), Math.round(Deno.memoryUsage().rss / MiB));
`,
    );
    try {
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--no-lock",
          "--allow-net=127.0.0.1",
          "--v8-flags=--max-old-space-size=96",
          script,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(stdout);
      assert.equal(code, 0, new TextDecoder().decode(stderr).slice(-2_000));
      assert.match(text, /^TooLong,list TooLong \d+\n$/);
    } finally {
      await Deno.remove(script);
    }
  },
});

Deno.test("the list without its items is held to maxObjectBytes like an item: a string or spaces outside the items fail the list, a gzip answer of them too", async () => {
  const head = '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"x":"';
  const tail = '"},"items":[{"metadata":{"name":"a"}}]}';
  await assert.rejects(
    readList(chunked(head + "x".repeat(50_000) + tail, 1024), {
      maxObjectBytes: 10_000,
    }),
    /the list without its items is longer than 10000 bytes \(maxObjectBytes\)/,
  );
  // Under the limit the same list decodes, item by item.
  const list = await readList(chunked(head + "x".repeat(5_000) + tail, 1024), {
    maxObjectBytes: 10_000,
    wholeBelow: 100,
  }) as { items: unknown[] };
  assert.equal(list.items.length, 1);

  // 64 MiB of spaces after the metadata, gzipped to about 64 KB, in a list
  // that is valid JSON: the default 16 MiB stops it.
  const MiB = 1024 * 1024;
  const spaces = new Uint8Array(MiB).fill(0x20);
  let sent = -1;
  const zipped = new Uint8Array(
    await new Response(
      new ReadableStream<BufferSource>({
        pull(c) {
          if (sent === -1) {
            c.enqueue(
              new TextEncoder().encode(
                '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{}',
              ),
            );
          } else if (sent < 64) c.enqueue(spaces);
          else {
            c.enqueue(new TextEncoder().encode(',"items":[]}'));
            c.close();
          }
          sent++;
        },
      }).pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serving = (async () => {
    using conn = await listener.accept();
    await conn.read(new Uint8Array(65536));
    const headBytes = new TextEncoder().encode(
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${zipped.length}\r\n\r\n`,
    );
    await conn.write(headBytes);
    for (let at = 0; at < zipped.length;) {
      at += await conn.write(zipped.subarray(at));
    }
    await conn.read(new Uint8Array(1)).catch(() => null);
  })();
  await using client = new KubeClient(
    KubeConfig.fromOptions({
      server: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    }),
  );
  await assert.rejects(
    client.list(ConfigMaps),
    /the list without its items is longer than 16777216 bytes \(maxObjectBytes\)/,
  );
  listener.close();
  await serving;
});
