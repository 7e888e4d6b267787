// KubeClient.list over the client's own HTTP/1.1 socket: the answer read
// from it (plain and TLS), connections kept for the next GET (and when
// they are not), a gzip answer decoded, and the fallbacks to fetch.

import assert from "node:assert/strict";
import { KubeClient } from "./rest.ts";
import { KubeConfig } from "./config.ts";
import { ConfigMaps } from "../api/resources.ts";
import { isExpired, RequestTimeoutError, StatusError } from "../api/errors.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { hasOpenssl, makePki } from "../testing/pki_test_util.ts";
import { nextTurn } from "../testing/turns.ts";
import { rejection } from "./_test_util.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** What the server writes for one request, and whether it closes after. */
interface Answer {
  bytes: Uint8Array | string;
  /** Close the connection after writing (without saying so). */
  close?: boolean;
  /** Leave the connection open without reading further requests. */
  hold?: boolean;
  /** Written on the same connection, unasked, once it resolves. */
  later?: Promise<Uint8Array | string>;
}

/**
 * An HTTP/1.1 server that serves requests one after another on each
 * connection (keep-alive) with what `answer` returns for the request, its
 * number and its number on its connection, counting connections; plain,
 * or TLS with `tls`.
 */
function keepAliveServer(
  answer: (
    request: string,
    n: number,
    onConn: number,
  ) => Answer | Promise<Answer>,
  tls?: { cert: string; key: string },
) {
  const listener = tls
    ? Deno.listenTls({ hostname: "127.0.0.1", port: 0, ...tls })
    : Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const requests: string[] = [];
  const open = new Set<Deno.Conn>();
  let connections = 0;
  const tasks: Promise<void>[] = [];
  const accepting = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return; // the listener closed
      }
      connections++;
      open.add(conn);
      tasks.push(serve(conn));
    }
  })();
  async function serve(conn: Deno.Conn): Promise<void> {
    const buf = new Uint8Array(65536);
    let text = "";
    let onConn = 0;
    try {
      for (;;) {
        while (!text.includes("\r\n\r\n")) {
          const n = await conn.read(buf);
          if (n === null) return;
          text += dec.decode(buf.subarray(0, n));
        }
        const end = text.indexOf("\r\n\r\n") + 4;
        requests.push(text.slice(0, end));
        text = text.slice(end);
        const a = await answer(
          requests.at(-1)!,
          requests.length - 1,
          onConn++,
        );
        await conn.write(
          typeof a.bytes === "string" ? enc.encode(a.bytes) : a.bytes,
        );
        if (a.later) {
          const more = await a.later;
          await conn.write(typeof more === "string" ? enc.encode(more) : more);
        }
        if (a.close) return;
        if (a.hold) {
          while (await conn.read(buf) !== null) {
            /* until the client closes */
          }
          return;
        }
      }
    } catch {
      // The client reset the connection, or dispose closed it.
    } finally {
      open.delete(conn);
      try {
        conn.close();
      } catch {
        // closed by dispose
      }
    }
  }
  const { port } = listener.addr as Deno.NetAddr;
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${port}`,
    requests,
    get connections() {
      return connections;
    },
    /** Connections the server has open now. */
    get open() {
      return open.size;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      for (const c of open) c.close();
      await Promise.all(tasks);
    },
  };
}

/** A ConfigMapList page of `names`, with a continue token when `next`. */
function page(names: string[], next?: string): string {
  return JSON.stringify({
    kind: "ConfigMapList",
    apiVersion: "v1",
    metadata: { resourceVersion: "7", ...(next ? { continue: next } : {}) },
    items: names.map((name) => ({
      metadata: { name, namespace: "default", resourceVersion: "7" },
    })),
  });
}

/** `body` as a 200 answer with a Content-Length, plus `headers` lines. */
function sized(body: string | Uint8Array, headers = ""): Uint8Array {
  const bytes = typeof body === "string" ? enc.encode(body) : body;
  const head = enc.encode(
    `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n${headers}Content-Length: ${bytes.length}\r\n\r\n`,
  );
  const out = new Uint8Array(head.length + bytes.length);
  out.set(head);
  out.set(bytes, head.length);
  return out;
}

/** `body` as a 200 answer in two HTTP chunks. */
function chunkedAnswer(body: string): string {
  const half = Math.floor(body.length / 2);
  const parts = [body.slice(0, half), body.slice(half)];
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
    parts.map((p) => `${enc.encode(p).length.toString(16)}\r\n${p}\r\n`)
      .join("") +
    "0\r\n\r\n";
}

/** The names in a list. */
function names(list: { items: { metadata: { name?: string } }[] }) {
  return list.items.map((o) => o.metadata.name);
}

/** Wait, turn by turn, until `cond` holds. */
async function turnsUntil(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1_000; i++) {
    if (cond()) return;
    await nextTurn();
  }
  assert.fail(`Timed out waiting for ${what}`);
}

Deno.test("KubeClient.list reads its answer over its own socket, asking for gzip only, as fetch does; with listWatchTransport fetch it goes through fetch", async () => {
  for (const listWatchTransport of ["socket", "fetch"] as const) {
    await using server = keepAliveServer(() => ({
      bytes: chunkedAnswer(page(["a", "b"])),
    }));
    await using client = new KubeClient(
      KubeConfig.fromOptions({ server: server.url, token: "t0ken" }),
      { listWatchTransport },
    );
    const list = await client.list(ConfigMaps, { namespace: "default" });
    assert.deepEqual(names(list), ["a", "b"]);
    const req = server.requests[0];
    assert.match(
      req,
      /^GET \/api\/v1\/namespaces\/default\/configmaps HTTP\/1\.1\r\n/,
    );
    assert.match(req, /\r\nauthorization: Bearer t0ken\r\n/i);
    // gzip alone, whichever transport (the socket decodes nothing else).
    const ae = /\r\naccept-encoding: ([^\r]*)\r\n/i.exec(req)?.[1];
    assert.equal(ae, "gzip", listWatchTransport);
  }
});

Deno.test("KubeClient.list over its socket: a paged list and its watch reuse one connection, and close() closes it", async () => {
  const pages = [page(["a"], "p2"), page(["b"], "p3"), page(["c"])];
  await using server = keepAliveServer((req, n) => {
    if (req.includes("watch=true")) {
      // A watch stream the server ends cleanly (its timeoutSeconds).
      return {
        bytes:
          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      };
    }
    const body = pages[n] ?? page([]);
    return { bytes: n % 2 ? chunkedAnswer(body) : sized(body) };
  });
  const client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
  const seen: (string | undefined)[] = [];
  let token: string | undefined;
  do {
    const list = await client.list(ConfigMaps, { limit: 1, continue: token });
    seen.push(...names(list));
    token = list.metadata.continue;
  } while (token);
  assert.deepEqual(seen, ["a", "b", "c"]);
  assert.deepEqual(await Array.fromAsync(await client.watch(ConfigMaps)), []);
  assert.deepEqual(names(await client.list(ConfigMaps)), []);
  assert.equal(server.requests.length, 5);
  assert.equal(server.connections, 1);
  assert.equal(server.open, 1);
  // The idle connection closes with the client.
  await client.close();
  await turnsUntil(() => server.open === 0, "the idle connection to close");
});

Deno.test({
  name:
    "KubeClient.list over its socket speaks TLS with the config's CA and client certificate, and reuses the connection",
  ignore: !(await hasOpenssl()),
  async fn() {
    await using pki = await makePki();
    await using api = await FakeApiServer.start({
      tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca },
    });
    api.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
    await using client = new KubeClient(KubeConfig.fromOptions({
      server: api.url,
      caData: pki.ca,
      certData: pki.clientCert,
      keyData: pki.clientKey,
    }));
    assert.deepEqual(names(await client.list(ConfigMaps)), ["a"]);

    await using server = keepAliveServer(
      (_req, n) => ({ bytes: sized(page([`p${n}`])) }),
      { cert: pki.serverCert, key: pki.serverKey },
    );
    await using client2 = new KubeClient(
      KubeConfig.fromOptions({ server: server.url, caData: pki.ca }),
    );
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(names(await client2.list(ConfigMaps)), [`p${i}`]);
    }
    assert.equal(server.connections, 1);
  },
});

Deno.test("KubeClient.list over its socket sends again on a new connection when the server closed the idle one", async () => {
  // The server closes each connection after its answer, without saying
  // so: the client finds out only when it uses the connection again.
  await using server = keepAliveServer((_req, n) => ({
    bytes: sized(page([`p${n}`])),
    close: true,
  }));
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(names(await client.list(ConfigMaps)), [`p${i}`]);
    await turnsUntil(() => server.open === 0, "the server to close");
  }
  assert.equal(server.connections, 3);
  assert.equal(server.requests.length, 3);
});

Deno.test("KubeClient.list over its socket does not reuse a connection after Connection: close, HTTP/1.0, bytes after the body, an error status read whole or an abort", async () => {
  const body = page(["a"]);
  for (
    const [what, bytes] of [
      ["Connection: close", sized(body, "Connection: close\r\n")],
      [
        "HTTP/1.0",
        `HTTP/1.0 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      ],
      ["bytes after the body", `${dec.decode(sized(body))}HTTP/1.1 200 OK`],
    ] as const
  ) {
    // The server keeps the connection open and refuses a second request
    // on it: only the client can end it.
    await using server = keepAliveServer((_req, _n, onConn) => ({
      bytes: onConn === 0 ? bytes : REUSED,
    }));
    await using client = new KubeClient(
      KubeConfig.fromOptions({ server: server.url }),
    );
    await client.list(ConfigMaps);
    await client.list(ConfigMaps);
    assert.equal(server.connections, 2, what);
    await turnsUntil(() => server.open === 1, `${what}: the first to close`);
  }

  // An error answer read whole leaves the connection reusable.
  const status = JSON.stringify({
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    reason: "Expired",
    code: 410,
    message: "too old",
  });
  await using refusing = keepAliveServer((_req, n) => ({
    bytes: n === 0
      ? `HTTP/1.1 410 Gone\r\nContent-Type: application/json\r\nContent-Length: ${status.length}\r\n\r\n${status}`
      : sized(page(["a"])),
  }));
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: refusing.url }),
  );
  const err = await rejection(client.list(ConfigMaps));
  assert.ok(err instanceof StatusError && isExpired(err), String(err));
  assert.deepEqual(names(await client.list(ConfigMaps)), ["a"]);
  assert.equal(refusing.connections, 1);

  // An abort in the middle of the body closes the connection.
  let bodyAsked!: () => void;
  const asked = new Promise<void>((r) => bodyAsked = r);
  await using slow = keepAliveServer((_req, n) => {
    if (n > 0) return { bytes: sized(page(["b"])) };
    bodyAsked();
    return {
      bytes:
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"kin\r\n',
      hold: true,
    };
  });
  await using client2 = new KubeClient(
    KubeConfig.fromOptions({ server: slow.url }),
  );
  const ctrl = new AbortController();
  const listing = rejection(client2.list(ConfigMaps, { signal: ctrl.signal }));
  await asked;
  const reason = new Error("stop");
  await turnsUntil(() => slow.requests.length === 1, "the request");
  ctrl.abort(reason);
  assert.equal(await listing, reason);
  await turnsUntil(() => slow.open === 0, "the aborted connection to close");
  assert.deepEqual(names(await client2.list(ConfigMaps)), ["b"]);
  assert.equal(slow.connections, 2);
});

/** The answer to a request on a connection that should not have been reused. */
const REUSED =
  "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n";

/** `text` gzipped by the platform's CompressionStream. */
async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test("KubeClient.list over its socket decodes a gzip answer, small and past 8 MiB, and names another content coding", async () => {
  const small = page(["a", "b"]);
  // Far past the 256 KiB a list is read whole below: decoded item by item.
  const huge = JSON.stringify({
    kind: "ConfigMapList",
    apiVersion: "v1",
    metadata: { resourceVersion: "7" },
    items: Array.from({ length: 9 }, (_, i) => ({
      metadata: { name: `big-${i}` },
      data: { x: "x".repeat(1024 * 1024) },
    })),
  });
  const bodies = [small, huge];
  const zipped = await Promise.all(bodies.map(gzip));
  await using server = keepAliveServer((_req, n) => ({
    bytes: n < 2
      ? sized(zipped[n], "Content-Encoding: gzip\r\n")
      : sized(small, "Content-Encoding: br\r\n"),
  }));
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  assert.deepEqual(names(await client.list(ConfigMaps)), ["a", "b"]);
  assert.deepEqual(
    names(await client.list(ConfigMaps)),
    Array.from({ length: 9 }, (_, i) => `big-${i}`),
  );
  assert.equal(server.connections, 1);
  const err = await rejection(client.list(ConfigMaps));
  assert.ok(err instanceof TypeError);
  assert.match(
    err.message,
    /a content-encoding of "br"; only gzip and identity are read/,
  );
});

Deno.test("KubeClient.list over its socket never takes an answer that came unasked on an idle connection for the next request's: it closes that connection", async () => {
  let sendStale!: (bytes: Uint8Array) => void;
  const stale = new Promise<Uint8Array>((r) => sendStale = r);
  await using server = keepAliveServer((_req, n) => ({
    bytes: sized(page([`p${n}`])),
    // After its answer, the first connection sends another answer of a
    // list that nobody asked for.
    later: n === 0 ? stale : undefined,
  }));
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  assert.deepEqual(names(await client.list(ConfigMaps)), ["p0"]);
  sendStale(sized(page(["stale"])));
  await turnsUntil(
    () => server.open === 0,
    "the client to close the connection an unasked answer came on",
  );
  assert.deepEqual(names(await client.list(ConfigMaps)), ["p1"]);
  assert.equal(server.connections, 2);
});

Deno.test("KubeClient.list over its socket sends a GET again once, on a new connection, when a reused one closes before any answer byte; never after one, never twice", async () => {
  // Each connection answers its first request and closes on its second
  // after writing `cut` (the server's idle close racing the request).
  for (
    const [cut, retried] of [["", true], [
      "HTTP/1.1 200 OK\r\n",
      false,
    ]] as const
  ) {
    await using server = keepAliveServer((_req, n, onConn) => ({
      bytes: onConn === 0 ? sized(page([`p${n}`])) : cut,
      close: onConn > 0,
    }));
    await using client = new KubeClient(
      KubeConfig.fromOptions({ server: server.url }),
    );
    assert.deepEqual(names(await client.list(ConfigMaps)), ["p0"]);
    if (retried) {
      assert.deepEqual(names(await client.list(ConfigMaps)), ["p2"]);
    } else {
      const err = await rejection(client.list(ConfigMaps));
      assert.ok(err instanceof TypeError, String(err));
      assert.match(err.message, /the connection closed before an answer/);
    }
    assert.equal(server.connections, retried ? 2 : 1, cut);
    assert.equal(server.requests.length, retried ? 3 : 2, cut);
  }
  // A second failure on the new connection is the call's error.
  await using refusing = keepAliveServer((_req, n) => ({
    bytes: n === 0 ? sized(page(["p0"])) : "",
    close: n > 0,
  }));
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: refusing.url }),
  );
  await client.list(ConfigMaps);
  const err = await rejection(client.list(ConfigMaps));
  assert.match(String(err), /closed before an answer/);
  assert.equal(refusing.connections, 2);
});

Deno.test("KubeClient.list over its socket: a truncated, corrupt or trailed gzip answer fails the list with a TypeError that says so, and the next list works", async () => {
  const zipped = await gzip(page(["a"]));
  const corrupt = zipped.slice();
  corrupt[zipped.length - 6] ^= 0xff; // the CRC
  const cases: [string, Uint8Array][] = [
    ["truncated", zipped.slice(0, zipped.length - 4)],
    ["corrupt", corrupt],
    ["trailing garbage", new Uint8Array([...zipped, ...enc.encode("junk")])],
  ];
  for (const [what, bytes] of cases) {
    await using server = keepAliveServer((_req, n) => ({
      bytes: n === 0
        ? sized(bytes, "Content-Encoding: gzip\r\n")
        : sized(page(["b"])),
    }));
    await using client = new KubeClient(
      KubeConfig.fromOptions({ server: server.url }),
    );
    const err = await rejection(client.list(ConfigMaps));
    // As fetch rejects (with less to go on: "unexpected end of file").
    assert.ok(err instanceof TypeError, `${what}: ${err}`);
    assert.match(
      err.message,
      /^error decoding response body: not valid gzip: /,
      what,
    );
    assert.deepEqual(names(await client.list(ConfigMaps)), ["b"], what);
  }
});

Deno.test("KubeClient.list over its socket reads an error answer's body only up to maxObjectBytes: a 500 with an endless body is a StatusError, and the rest is not read", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const MiB = 1024 * 1024;
  const piece = enc.encode(
    `10000\r\n${"<p>busy</p>".repeat(5958).slice(0, 0x10000)}\r\n`,
  );
  const serving = (async () => {
    using conn = await listener.accept();
    await conn.read(new Uint8Array(65536));
    let written = 0;
    try {
      await conn.write(enc.encode(
        "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n",
      ));
      // 256 MiB unless the client stops reading.
      while (written < 256 * MiB) {
        for (let at = 0; at < piece.length;) {
          at += await conn.write(piece.subarray(at));
        }
        written += piece.length;
      }
    } catch {
      // The client closed the connection.
    }
    return written;
  })();
  await using client = new KubeClient(
    KubeConfig.fromOptions({
      server: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    }),
    { maxObjectBytes: MiB },
  );
  const err = await rejection(client.list(ConfigMaps));
  assert.ok(err instanceof StatusError, String(err));
  assert.equal(err.code, 500);
  assert.match(err.message, /^<p>busy<\/p><p>busy<\/p>/);
  listener.close();
  // What the kernel's buffers took besides the 1 MiB read.
  const written = await serving;
  assert.ok(written < 64 * MiB, `the server wrote ${written} bytes`);
});

Deno.test("KubeClient.list over its socket: the idle timeout in the middle of the body closes the connection, which is never reused", async () => {
  const partial =
    'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"kin\r\n';
  await using server = keepAliveServer((_req, n) =>
    n === 0 ? { bytes: partial, hold: true } : { bytes: sized(page(["b"])) }
  );
  const clock = new FakeClock(0);
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
    { clock, timeoutMs: 1_000 },
  );
  const listing = rejection(client.list(ConfigMaps));
  await clock.waitForWaiters(1);
  await turnsUntil(() => server.requests.length === 1, "the request");
  await clock.step(1_000);
  const err = await listing;
  assert.ok(err instanceof RequestTimeoutError, String(err));
  await turnsUntil(() => server.open === 0, "the connection to close");
  assert.deepEqual(names(await client.list(ConfigMaps)), ["b"]);
  assert.equal(server.connections, 2);
});

Deno.test("KubeClient.list over its socket: close() while a list is in flight closes its connection once the list ends, instead of keeping it", async () => {
  let rest!: (bytes: string) => void;
  const later = new Promise<string>((r) => rest = r);
  const body = page(["a"]);
  await using server = keepAliveServer(() => ({
    bytes:
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${
        body.slice(0, 10)
      }`,
    later,
  }));
  const client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
  const listing = client.list(ConfigMaps);
  await turnsUntil(() => server.requests.length === 1, "the request");
  await client.close();
  rest(body.slice(10));
  // The list may end either way; its connection must not outlive close().
  await listing.catch(() => {});
  await turnsUntil(() => server.open === 0, "the connection to close");
});

Deno.test("KubeClient.list over its socket skips 1xx interim answers and chunk extensions and trailers, and keeps the connection for the next list", async () => {
  const body = page(["a"]);
  await using server = keepAliveServer((_req, n) => ({
    bytes: n === 0
      ? `HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n${
        dec.decode(sized(body))
      }`
      : "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
        `${
          body.length.toString(16)
        };ext="1"\r\n${body}\r\n0\r\nX-Trailer: t\r\n\r\n`,
  }));
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  assert.deepEqual(names(await client.list(ConfigMaps)), ["a"]);
  assert.deepEqual(names(await client.list(ConfigMaps)), ["a"]);
  assert.equal(server.connections, 1);
});
