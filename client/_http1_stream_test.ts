import assert from "node:assert/strict";
import { Chunked, gunzip } from "./_http1_stream.ts";
import { KubeClient } from "./rest.ts";
import { KubeConfig } from "./config.ts";
import { ConfigMaps } from "../api/resources.ts";
import {
  type BatchWatchIterator,
  hasNextBatch,
  type WatchEvent,
} from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import { StatusError } from "../api/errors.ts";
import { WatchDecodeError } from "./watch.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { hasOpenssl, makePki } from "../testing/pki_test_util.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** `parts` in chunked encoding, with an extension on the first and a trailer. */
function chunked(parts: string[]): Uint8Array {
  let s = "";
  parts.forEach((p, i) => {
    const size = enc.encode(p).length.toString(16);
    s += `${size}${i === 0 ? ";name=value" : ""}\r\n${p}\r\n`;
  });
  return enc.encode(`${s}0\r\nX-Trailer: yes\r\n\r\n`);
}

Deno.test("Chunked gives the same payload wherever the reads split the framing", () => {
  const parts = ['{"a":1}\n', "é€😀\n", "x".repeat(300)];
  const wire = chunked(parts);
  const want = parts.join("");
  for (let cut = 0; cut <= wire.length; cut++) {
    const c = new Chunked();
    const a = c.payload(wire.subarray(0, cut));
    assert.equal(c.done, cut === wire.length, `done after ${cut} bytes`);
    const b = c.payload(wire.subarray(cut));
    assert.equal(dec.decode(new Uint8Array([...a, ...b])), want, `cut ${cut}`);
    assert.equal(c.done, true);
  }
  // One byte per read.
  const c = new Chunked();
  const out: number[] = [];
  for (const byte of wire) out.push(...c.payload(new Uint8Array([byte])));
  assert.equal(dec.decode(new Uint8Array(out)), want);
  assert.equal(c.done, true);
});

Deno.test("Chunked rejects a size that is not hex and a chunk not ended by CRLF", () => {
  assert.throws(
    () => new Chunked().payload(enc.encode("zz\r\nab\r\n")),
    /a chunk size of "zz"/,
  );
  assert.throws(
    () => new Chunked().payload(enc.encode("2\r\nabXY")),
    /does not end with CRLF/,
  );
});

Deno.test("Chunked accepts a size with leading zeros and refuses more than 12 significant digits", () => {
  const c = new Chunked();
  assert.equal(
    dec.decode(
      c.payload(enc.encode("0000000000000005\r\nhello\r\n00\r\n\r\n")),
    ),
    "hello",
  );
  assert.equal(c.done, true);
  assert.throws(
    () => new Chunked().payload(enc.encode("1000000000000\r\n")),
    /a chunk size of "1000000000000"/,
  );
});

Deno.test("gunzip hands a gzip bomb's output over in pieces of 16 MiB at most however big the reads, and lets an error of the body through as it is", async () => {
  const MiB = 1024 * 1024;
  const spaces = new Uint8Array(MiB).fill(0x20);
  let made = 0;
  const zipped = new Uint8Array(
    await new Response(
      new ReadableStream<BufferSource>({
        pull(c) {
          if (made++ < 64) c.enqueue(spaces);
          else c.close();
        },
      }).pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
  // The whole bomb (64 MiB of spaces, about 64 KB) in one read.
  const sizes: number[] = [];
  for await (
    const chunk of gunzip(
      new Blob([zipped]).stream() as ReadableStream<Uint8Array>,
    )
  ) sizes.push(chunk.length);
  assert.equal(sizes.reduce((a, b) => a + b, 0), 64 * MiB);
  assert.ok(Math.max(...sizes) <= 17 * MiB, `chunks of ${sizes}`);

  const cut = new TypeError("error reading a body from connection: cut");
  const failing = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(zipped.subarray(0, 100));
      c.error(cut);
    },
  });
  await assert.rejects(Array.fromAsync(gunzip(failing)), (err) => err === cut);
});

/**
 * A one-connection HTTP/1.1 server: answers the first request with `head`,
 * then writes what `body()` resolves in one write and closes (unless it
 * resolves undefined, then it waits for the client to close).
 */
function rawServer(
  head: string,
  body: () => Promise<Uint8Array | undefined>,
): { url: string; request: Promise<string>; closed: Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let gotRequest!: (s: string) => void;
  const request = new Promise<string>((r) => gotRequest = r);
  const closed = (async () => {
    const conn = await listener.accept();
    listener.close();
    try {
      const buf = new Uint8Array(8192);
      let text = "";
      while (!text.includes("\r\n\r\n")) {
        const n = await conn.read(buf);
        if (n === null) return;
        text += dec.decode(buf.subarray(0, n));
      }
      gotRequest(text);
      await conn.write(enc.encode(head));
      const bytes = await body();
      if (bytes !== undefined) {
        await conn.write(bytes);
        return;
      }
      // Wait for the client to close its end.
      while (await conn.read(buf) !== null) { /* drain */ }
    } finally {
      conn.close();
    }
  })();
  const port = (listener.addr as Deno.NetAddr).port;
  return { url: `http://127.0.0.1:${port}`, request, closed };
}

function nameOf(ev: WatchEvent<KubeObject>): string {
  return (ev.object as KubeObject).metadata.name!;
}

const CHUNKED_HEAD =
  "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";

function event(i: number): string {
  return `${
    JSON.stringify({
      type: "MODIFIED",
      object: { metadata: { name: `cm-${i}`, resourceVersion: String(i) } },
    })
  }\n`;
}

/** Batches and event names of a watch whose events are all written at once, each as its own HTTP chunk. */
async function backlog(
  listWatchTransport: "socket" | "fetch",
): Promise<{ batches: number; names: string[]; request: string }> {
  let go!: () => void;
  const written = new Promise<void>((r) => go = r);
  const events = Array.from({ length: 50 }, (_, i) => event(i));
  const server = rawServer(CHUNKED_HEAD, async () => {
    await written;
    return chunked(events);
  });
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url, token: "t0ken" }),
    { listWatchTransport },
  );
  const it = (await client.watch(ConfigMaps, { namespace: "default" }))[
    Symbol.asyncIterator
  ]() as BatchWatchIterator<KubeObject>;
  assert.ok(hasNextBatch(it));
  go();
  await server.closed; // every event is on the client's side of the socket
  let batches = 0;
  const names: string[] = [];
  for (let r = await it.nextBatch(); !r.done; r = await it.nextBatch()) {
    batches++;
    for (const ev of r.value) names.push(nameOf(ev));
  }
  return { batches, names, request: await server.request };
}

Deno.test("KubeClient.watch over its socket hands events that queued up over in one batch; over fetch one per HTTP chunk", async () => {
  const socket = await backlog("socket");
  const want = Array.from({ length: 50 }, (_, i) => `cm-${i}`);
  assert.deepEqual(socket.names, want);
  // 50 events of ~80 bytes in one write: one socket read.
  assert.equal(socket.batches, 1);
  assert.match(
    socket.request,
    /^GET \/api\/v1\/namespaces\/default\/configmaps\?watch=true HTTP\/1\.1\r\n/,
  );
  assert.match(socket.request, /\r\nauthorization: Bearer t0ken\r\n/i);
  assert.match(socket.request, /\r\nuser-agent: kubecache\//i);

  const viaFetch = await backlog("fetch");
  assert.deepEqual(viaFetch.names, want);
  assert.equal(viaFetch.batches, 50);
});

Deno.test("KubeClient.watch over its socket reads a Content-Length body and a body that ends at close", async () => {
  const body = event(1) + event(2);
  for (
    const head of [
      `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`,
      "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n",
    ]
  ) {
    const server = rawServer(head, () => Promise.resolve(enc.encode(body)));
    await using client = new KubeClient(
      KubeConfig.fromOptions({ server: server.url }),
    );
    const events = await Array.fromAsync(await client.watch(ConfigMaps));
    assert.deepEqual(events.map(nameOf), [
      "cm-1",
      "cm-2",
    ]);
    await server.closed;
  }
});

Deno.test("KubeClient.watch over its socket: a stream cut inside a chunk is an UnexpectedEnd after the events before it", async () => {
  const wire = chunked([event(1), event(2)]);
  // Cut in the middle of the second chunk's data.
  const cut = wire.subarray(0, dec.decode(wire).indexOf("cm-2"));
  const server = rawServer(CHUNKED_HEAD, () => Promise.resolve(cut));
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  const names: string[] = [];
  await assert.rejects(
    async () => {
      for await (const ev of await client.watch(ConfigMaps)) {
        names.push(nameOf(ev));
      }
    },
    (err) => err instanceof WatchDecodeError && err.kind === "UnexpectedEnd",
  );
  assert.deepEqual(names, ["cm-1"]);
  await server.closed;
});

Deno.test("KubeClient.watch over its socket: an error answer is a StatusError, and an abort closes the connection", async () => {
  const status = JSON.stringify({
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    reason: "Forbidden",
    code: 403,
    message: "configmaps is forbidden",
  });
  const refused = rawServer(
    `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${status.length}\r\n\r\n`,
    () => Promise.resolve(enc.encode(status)),
  );
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: refused.url }),
  );
  await assert.rejects(
    client.watch(ConfigMaps),
    (err) => err instanceof StatusError && err.code === 403,
  );
  await refused.closed;

  // The server holds the stream open; the abort must close the socket,
  // which the server sees as the end of its reads.
  const held = rawServer(CHUNKED_HEAD, () => Promise.resolve(undefined));
  await using client2 = new KubeClient(
    KubeConfig.fromOptions({ server: held.url }),
  );
  const ctrl = new AbortController();
  const events = await client2.watch(ConfigMaps, { signal: ctrl.signal });
  const reason = new Error("stop");
  const iterating = Array.fromAsync(events);
  ctrl.abort(reason);
  await assert.rejects(iterating, (err) => err === reason);
  await held.closed;
});

Deno.test({
  name:
    "KubeClient.watch over its socket speaks TLS with the config's CA and client certificate",
  ignore: !(await hasOpenssl()),
  async fn() {
    await using pki = await makePki();
    await using server = await FakeApiServer.start({
      tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca },
    });
    server.create(ConfigMaps, {
      metadata: { name: "a", namespace: "default" },
    });
    await using client = new KubeClient(KubeConfig.fromOptions({
      server: server.url,
      caData: pki.ca,
      certData: pki.clientCert,
      keyData: pki.clientKey,
    }));
    const ctrl = new AbortController();
    for await (
      const ev of await client.watch(ConfigMaps, {
        namespace: "default",
        signal: ctrl.signal,
      })
    ) {
      assert.equal(ev.type, "ADDED");
      assert.equal(ev.object.metadata.name, "a");
      break;
    }
  },
});

/** The error of a watch whose answer is `head` and then the events, chunked. */
async function watchError(head: string): Promise<unknown> {
  const server = rawServer(
    head,
    () => Promise.resolve(chunked([event(1)])),
  );
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  try {
    await Array.fromAsync(await client.watch(ConfigMaps));
  } catch (err) {
    return err;
  } finally {
    await server.closed;
  }
  return undefined;
}

Deno.test("KubeClient.watch over its socket refuses a transfer-encoding other than chunked alone, a content-encoding it did not ask for, and malformed header lines", async () => {
  for (
    const [headers, want] of [
      [
        "Transfer-Encoding: gzip, chunked",
        /a transfer-encoding of "gzip, chunked"; only chunked is read/,
      ],
      [
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked",
        /a transfer-encoding of "chunked, chunked"/,
      ],
      [
        "Transfer-Encoding: chunked\r\nContent-Encoding: br",
        /a content-encoding of "br"; only gzip and identity are read/,
      ],
      [
        "Transfer-Encoding : chunked",
        /a malformed header line "Transfer-Encoding : chunked"/,
      ],
      [
        "Transfer-Encoding: chunked\r\nX-A: a\r\n  folded",
        /a malformed header line " {2}folded"/,
      ],
    ] as const
  ) {
    const err = await watchError(`HTTP/1.1 200 OK\r\n${headers}\r\n\r\n`);
    assert.ok(err instanceof TypeError, `${headers}: ${err}`);
    assert.match(err.message, want);
  }
  // identity and the ordinary spelling stay accepted.
  assert.equal(
    await watchError(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding:  Chunked \r\nContent-Encoding: identity\r\n\r\n",
    ),
    undefined,
  );
});

Deno.test("KubeClient.watch over its socket reads head bytes 0x80-0x9F as ISO-8859-1, as fetch does", async () => {
  const head = new Uint8Array([
    ...enc.encode(CHUNKED_HEAD.slice(0, -2)),
    ...enc.encode("X-Note: a"),
    0x85,
    0x9f,
    0xe9,
    ...enc.encode("\r\n\r\n"),
  ]);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    const conn = await listener.accept();
    listener.close();
    await conn.read(new Uint8Array(8192));
    await conn.write(head);
    await conn.write(chunked([event(1)]));
    conn.close();
  })();
  const { port } = listener.addr as Deno.NetAddr;
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: `http://127.0.0.1:${port}` }),
  );
  const events = await Array.fromAsync(await client.watch(ConfigMaps));
  assert.deepEqual(events.map(nameOf), ["cm-1"]);
  await served;
});
