// One behaviour whichever transport carries a request: every verb and
// every answer shape the client handles, sent through fetch and through
// the client's own HTTP/1.1 socket against the same scripted server, must
// give equal results (the value or the error, and the request the server
// saw).

import assert from "node:assert/strict";
import { KubeConfig } from "./config.ts";
import { newAuthenticator } from "./auth.ts";
import { HttpTransport, readJson } from "./transport.ts";
import { readList } from "./list_decoder.ts";
import { decodeWatch } from "./watch.ts";
import { StatusError } from "../api/errors.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { hasOpenssl, makePki } from "../testing/pki_test_util.ts";

const enc = new TextEncoder();

/** A request as the scripted server read it. */
interface Seen {
  method: string;
  target: string;
  headers: [string, string][];
  body: string;
}

/** Writes the answer to one request; returns whether the connection stays. */
type Answer = (conn: Deno.Conn, req: Seen, ctx: ScriptCtx) => Promise<boolean>;

interface ScriptCtx {
  /** The other server's origin, for cross-origin redirects. */
  other: string;
  /** This server's origin. */
  self: string;
}

/** Servers answering raw bytes as scripted; records every request. */
class ScriptedServer {
  #listener: Deno.Listener;
  #conns = new Set<Deno.Conn>();
  #tasks = new Set<Promise<void>>();
  #accepting: Promise<void>;
  seen: Seen[] = [];
  answer: Answer = () => Promise.resolve(false);
  other = "";
  readonly url: string;

  constructor(listener: Deno.Listener, https: boolean) {
    this.#listener = listener;
    const addr = listener.addr as Deno.NetAddr;
    this.url = `${https ? "https" : "http"}://127.0.0.1:${addr.port}`;
    this.#accepting = this.#accept();
  }

  static plain(): ScriptedServer {
    return new ScriptedServer(
      Deno.listen({ hostname: "127.0.0.1", port: 0 }),
      false,
    );
  }

  static tls(cert: string, key: string): ScriptedServer {
    return new ScriptedServer(
      Deno.listenTls({ hostname: "127.0.0.1", port: 0, cert, key }),
      true,
    );
  }

  async #accept() {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await this.#listener.accept();
      } catch {
        return;
      }
      this.#conns.add(conn);
      const task = this.#serve(conn).finally(() => {
        this.#conns.delete(conn);
        this.#tasks.delete(task);
        try {
          conn.close();
        } catch {
          // closed by the script
        }
      });
      this.#tasks.add(task);
    }
  }

  async #serve(conn: Deno.Conn) {
    let buf = new Uint8Array(0);
    const read = async () => {
      const chunk = new Uint8Array(65536);
      const n = await conn.read(chunk);
      if (n === null) return false;
      const next = new Uint8Array(buf.length + n);
      next.set(buf);
      next.set(chunk.subarray(0, n), buf.length);
      buf = next;
      return true;
    };
    try {
      for (;;) {
        let end: number;
        while ((end = indexOf(buf, "\r\n\r\n")) < 0) {
          if (!await read()) return;
        }
        const lines = new TextDecoder().decode(buf.subarray(0, end)).split(
          "\r\n",
        );
        const [method, target] = lines[0].split(" ");
        const headers = lines.slice(1).map((l) => {
          const i = l.indexOf(":");
          return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()] as [
            string,
            string,
          ];
        });
        const cl = Number(
          headers.find(([k]) => k === "content-length")?.[1] ?? "0",
        );
        buf = buf.subarray(end + 4);
        while (buf.length < cl) if (!await read()) return;
        const body = new TextDecoder().decode(buf.subarray(0, cl));
        buf = buf.subarray(cl);
        const req = { method, target, headers, body };
        this.seen.push(req);
        const keep = await this.answer(conn, req, {
          other: this.other,
          self: this.url,
        });
        if (!keep) return;
      }
    } catch {
      // the client went away
    }
  }

  async close() {
    this.#listener.close();
    for (const c of this.#conns) {
      try {
        c.close();
      } catch {
        // already closed
      }
    }
    await this.#accepting;
    while (this.#tasks.size > 0) await Promise.allSettled([...this.#tasks]);
  }
}

function indexOf(buf: Uint8Array, s: string): number {
  const pat = enc.encode(s);
  outer: for (let i = 0; i + pat.length <= buf.length; i++) {
    for (let j = 0; j < pat.length; j++) {
      if (buf[i + j] !== pat[j]) continue outer;
    }
    return i;
  }
  return -1;
}

async function write(conn: Deno.Conn, text: string | Uint8Array) {
  const bytes = typeof text === "string" ? enc.encode(text) : text;
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}

async function gzip(text: string): Promise<Uint8Array> {
  const out = new Blob([text]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(out).arrayBuffer());
}

// ---- what each verb sends and what a good answer to it is ----

const CM = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "a", namespace: "default", resourceVersion: "5" },
  data: { k: "v" },
};
const LIST = {
  apiVersion: "v1",
  kind: "ConfigMapList",
  metadata: { resourceVersion: "7" },
  items: [CM, { ...CM, metadata: { ...CM.metadata, name: "b" } }],
};
const EVENTS = [
  { type: "ADDED", object: CM },
  { type: "MODIFIED", object: { ...CM, data: { k: "w" } } },
  {
    type: "BOOKMARK",
    object: {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { resourceVersion: "9" },
    },
  },
];

type Verb =
  | "get"
  | "list"
  | "watch"
  | "create"
  | "update"
  | "patch"
  | "delete";
const VERBS: Verb[] = [
  "get",
  "list",
  "watch",
  "create",
  "update",
  "patch",
  "delete",
];

/** The good body of a verb, as the server sends it. */
function goodBody(target: string): string {
  if (target.includes("watch=1")) {
    return EVENTS.map((e) => JSON.stringify(e) + "\n").join("");
  }
  if (target.endsWith("/configmaps") || target.includes("/configmaps?")) {
    return JSON.stringify(LIST);
  }
  return JSON.stringify(CM);
}

const COLLECTION = "/api/v1/namespaces/default/configmaps";
const ITEM = `${COLLECTION}/a`;

/** Send `verb` through `t` and read its answer as KubeClient does. */
async function run(t: HttpTransport, verb: Verb): Promise<unknown> {
  const json = (
    body: ReadableStream<Uint8Array>,
    what: string,
    on: () => void,
  ) => readJson(body, what, on, 10_000);
  switch (verb) {
    case "get":
      return await t.receive("GET", ITEM, {}, json);
    case "delete":
      return await t.receive("DELETE", ITEM, {
        body: { propagationPolicy: "Background" },
      }, json);
    case "create":
      return await t.receive("POST", COLLECTION, { body: CM }, json);
    case "update":
      return await t.receive("PUT", ITEM, { body: CM }, json);
    case "patch":
      return await t.receive("PATCH", ITEM, {
        body: { data: { k: "x" } },
        contentType: "application/merge-patch+json",
      }, json);
    case "list":
      return await t.receive(
        "GET",
        COLLECTION,
        { query: new URLSearchParams({ limit: "500" }) },
        (body, what, onChunk) => readList(body, { what, onChunk }),
        "list",
      );
    case "watch": {
      const { response, release } = await t.send("GET", COLLECTION, {
        query: new URLSearchParams({ watch: "1", resourceVersion: "7" }),
      }, "watch");
      if (response.body === null) {
        release();
        return [];
      }
      const events = [];
      for await (const ev of decodeWatch(response.body, { onClose: release })) {
        events.push(ev);
      }
      return events;
    }
  }
}

/** A result both transports must agree on. */
type Outcome = { value: unknown } | { error: Record<string, unknown> };

function outcomeOf(err: unknown): Outcome {
  if (err instanceof StatusError) {
    return {
      error: {
        class: "StatusError",
        code: err.code,
        reason: err.reason,
        message: err.message,
        retryAfterSeconds: err.retryAfterSeconds,
      },
    };
  }
  const e = err as Error;
  return { error: { class: e?.name, message: e?.message } };
}

/**
 * Headers each HTTP stack sets for itself, not the client's to agree on:
 * the framing, and the `Accept-Language: *` the Fetch standard adds.
 */
const STACK_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "accept-language",
]);

function requestsOf(server: ScriptedServer) {
  return server.seen.map((r) => ({
    method: r.method,
    target: r.target,
    body: r.body,
    headers: r.headers.filter(([k]) => !STACK_HEADERS.has(k)).sort(),
  }));
}

interface Setup {
  server: ScriptedServer;
  other: ScriptedServer;
  config: KubeConfig;
  clock?: FakeClock;
  timeoutMs?: number;
}

async function through(
  via: "socket" | "fetch",
  setup: Setup,
  verb: Verb,
  drive?: (clock: FakeClock) => Promise<void>,
  first?: Verb,
) {
  setup.server.seen = [];
  setup.other.seen = [];
  const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));
  const t = new HttpTransport(setup.config, {
    clock,
    timeoutMs: setup.timeoutMs ?? 0,
    auth: newAuthenticator(setup.config),
    userAgent: "kubecache-test",
    listWatchTransport: via,
    socketForEveryRequest: via === "socket",
  });
  let outcome: Outcome;
  let firstOutcome: Outcome | undefined;
  try {
    if (first !== undefined) {
      firstOutcome = await run(t, first).then(
        (value): Outcome => ({ value }),
        outcomeOf,
      );
    }
    const running = run(t, verb).then(
      (value): Outcome => ({ value }),
      outcomeOf,
    );
    if (drive) await drive(clock);
    outcome = await running;
  } finally {
    t.close();
  }
  return {
    firstOutcome,
    outcome,
    requests: requestsOf(setup.server),
    redirected: requestsOf(setup.other),
  };
}

// ---- the answer shapes ----

function head(status: string, headers: [string, string][]): string {
  return `HTTP/1.1 ${status}\r\n${
    headers.map(([k, v]) => `${k}: ${v}\r\n`).join("")
  }\r\n`;
}

const JSON_TYPE: [string, string] = ["Content-Type", "application/json"];

function chunked(parts: (string | Uint8Array)[], trailer = ""): Uint8Array {
  const out: Uint8Array[] = [];
  for (const p of parts) {
    const bytes = typeof p === "string" ? enc.encode(p) : p;
    out.push(
      enc.encode(`${bytes.length.toString(16)}\r\n`),
      bytes,
      enc.encode("\r\n"),
    );
  }
  out.push(enc.encode(`0\r\n${trailer}\r\n`));
  const size = out.reduce((n, b) => n + b.length, 0);
  const all = new Uint8Array(size);
  let at = 0;
  for (const b of out) {
    all.set(b, at);
    at += b.length;
  }
  return all;
}

function halves(s: string): [string, string] {
  const mid = Math.floor(s.length / 2);
  return [s.slice(0, mid), s.slice(mid)];
}

/** Wait until the client closes the connection. */
async function untilClosed(conn: Deno.Conn) {
  const buf = new Uint8Array(1024);
  try {
    while (await conn.read(buf) !== null) { /* drain */ }
  } catch {
    // reset
  }
}

const status = (code: number, reason: string, message: string) =>
  JSON.stringify({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
  });

const SHAPES: Record<string, Answer> = {
  "200 with a content-length": async (conn, req) => {
    const body = goodBody(req.target);
    await write(
      conn,
      head("200 OK", [JSON_TYPE, [
        "Content-Length",
        `${enc.encode(body).length}`,
      ]]) + body,
    );
    return true;
  },
  "201 chunked in two": async (conn, req) => {
    await write(
      conn,
      head("201 Created", [JSON_TYPE, ["Transfer-Encoding", "chunked"]]),
    );
    await write(conn, chunked(halves(goodBody(req.target))));
    return true;
  },
  "200 chunked with trailers": async (conn, req) => {
    await write(
      conn,
      head("200 OK", [JSON_TYPE, ["Transfer-Encoding", "chunked"], [
        "Trailer",
        "X-Checksum",
      ]]),
    );
    await write(conn, chunked([goodBody(req.target)], "X-Checksum: abc\r\n"));
    return true;
  },
  "200 gzip with a content-length": async (conn, req) => {
    const body = await gzip(goodBody(req.target));
    await write(
      conn,
      head("200 OK", [JSON_TYPE, ["Content-Encoding", "gzip"], [
        "Content-Length",
        `${body.length}`,
      ]]),
    );
    await write(conn, body);
    return true;
  },
  "200 gzip chunked": async (conn, req) => {
    const body = await gzip(goodBody(req.target));
    await write(
      conn,
      head("200 OK", [JSON_TYPE, ["Content-Encoding", "gzip"], [
        "Transfer-Encoding",
        "chunked",
      ]]),
    );
    await write(conn, chunked([body.subarray(0, 10), body.subarray(10)]));
    return true;
  },
  "200 until the connection closes": async (conn, req) => {
    await write(
      conn,
      head("200 OK", [JSON_TYPE, ["Connection", "close"]]) +
        goodBody(req.target),
    );
    return false;
  },
  "100 Continue and 103 Early Hints before the answer": async (conn, req) => {
    const body = goodBody(req.target);
    await write(conn, "HTTP/1.1 100 Continue\r\n\r\n");
    await write(
      conn,
      head("103 Early Hints", [["Link", "</style.css>; rel=preload"]]),
    );
    await write(
      conn,
      head("200 OK", [JSON_TYPE, [
        "Content-Length",
        `${enc.encode(body).length}`,
      ]]) + body,
    );
    return true;
  },
  "404 with a Status": async (conn) => {
    const body = status(404, "NotFound", 'configmaps "a" not found');
    await write(
      conn,
      head("404 Not Found", [JSON_TYPE, ["Content-Length", `${body.length}`]]) +
        body,
    );
    return true;
  },
  "409 with a chunked Status": async (conn) => {
    await write(
      conn,
      head("409 Conflict", [JSON_TYPE, ["Transfer-Encoding", "chunked"]]),
    );
    await write(
      conn,
      chunked(
        halves(status(409, "AlreadyExists", 'configmaps "a" already exists')),
      ),
    );
    return true;
  },
  "410 Gone with a gzip Status": async (conn) => {
    const body = await gzip(
      status(410, "Expired", "too old resource version: 1 (7)"),
    );
    await write(
      conn,
      head("410 Gone", [JSON_TYPE, ["Content-Encoding", "gzip"], [
        "Content-Length",
        `${body.length}`,
      ]]),
    );
    await write(conn, body);
    return true;
  },
  "500 with a text body": async (conn) => {
    const body = "upstream connect error";
    await write(
      conn,
      head("500 Internal Server Error", [["Content-Type", "text/plain"], [
        "Content-Length",
        `${body.length}`,
      ]]) + body,
    );
    return true;
  },
  "502 with an empty body": async (conn) => {
    await write(conn, head("502 Bad Gateway", [["Content-Length", "0"]]));
    return true;
  },
  "429 with Retry-After in seconds": async (conn) => {
    const body = status(429, "TooManyRequests", "slow down");
    await write(
      conn,
      head("429 Too Many Requests", [JSON_TYPE, ["Retry-After", "3"], [
        "Content-Length",
        `${body.length}`,
      ]]) + body,
    );
    return true;
  },
  "503 with Retry-After as a date": async (conn) => {
    await write(
      conn,
      head("503 Service Unavailable", [[
        "Retry-After",
        "Thu, 01 Jan 2026 00:00:10 GMT",
      ], ["Content-Length", "0"]]),
    );
    return true;
  },
  "204 No Content": async (conn) => {
    await write(conn, head("204 No Content", []));
    return true;
  },
  "301 to the same origin": async (conn, req, ctx) => {
    await write(
      conn,
      head("301 Moved Permanently", [[
        "Location",
        `${ctx.self}${req.target.replace("/api/", "/api2/")}`,
      ], ["Content-Length", "0"]]),
    );
    return true;
  },
  "302 to a relative path": async (conn, req) => {
    await write(
      conn,
      head("302 Found", [["Location", req.target.replace("/api/", "/api2/")], [
        "Content-Length",
        "0",
      ]]),
    );
    return true;
  },
  "307 to another origin": async (conn, req, ctx) => {
    await write(
      conn,
      head("307 Temporary Redirect", [
        ["Location", `${ctx.other}${req.target}`],
        ["Content-Length", "0"],
      ]),
    );
    return true;
  },
  "308 to another origin with a body": async (conn, req, ctx) => {
    const body = "<a href=x>moved</a>";
    await write(
      conn,
      head("308 Permanent Redirect", [
        ["Location", `${ctx.other}${req.target}`],
        ["Content-Type", "text/html"],
        ["Content-Length", `${body.length}`],
      ]) + body,
    );
    return true;
  },
  "closed before any answer": () => Promise.resolve(false),
  "closed in the middle of the head": async (conn) => {
    await write(conn, "HTTP/1.1 200 OK\r\nContent-Type: appl");
    return false;
  },
  "closed before the content-length is reached": async (conn, req) => {
    const body = goodBody(req.target);
    await write(
      conn,
      head("200 OK", [JSON_TYPE, ["Content-Length", `${body.length + 100}`]]) +
        body,
    );
    return false;
  },
  "closed in the middle of a chunk": async (conn, req) => {
    const body = goodBody(req.target);
    await write(
      conn,
      head("200 OK", [JSON_TYPE, ["Transfer-Encoding", "chunked"]]),
    );
    await write(conn, `${(body.length + 50).toString(16)}\r\n${body}`);
    return false;
  },
};

/** The server answers a request at /api2/ or on the other origin with 200. */
const followed: Answer = async (conn, req) => {
  const body = goodBody(req.target);
  await write(
    conn,
    head("200 OK", [JSON_TYPE, ["Content-Length", `${body.length}`]]) + body,
  );
  return true;
};

async function differences(
  setup: Setup,
  verbs: readonly Verb[],
  drive?: (clock: FakeClock) => Promise<void>,
  first?: Verb,
): Promise<string[]> {
  const out: string[] = [];
  for (const verb of verbs) {
    const viaFetch = await through("fetch", setup, verb, drive, first);
    const viaSocket = await through("socket", setup, verb, drive, first);
    for (
      const part of [
        "firstOutcome",
        "outcome",
        "requests",
        "redirected",
      ] as const
    ) {
      const a = JSON.stringify(viaFetch[part]);
      const b = JSON.stringify(viaSocket[part]);
      if (a !== b) out.push(`${verb} ${part}: fetch ${a} | socket ${b}`);
    }
  }
  return out;
}

Deno.test("every verb gets the same result from the socket and from fetch, for every answer shape", async (t) => {
  const server = ScriptedServer.plain();
  const other = ScriptedServer.plain();
  server.other = other.url;
  other.answer = followed;
  const config = KubeConfig.fromOptions({
    server: server.url,
    token: "secret",
  });
  try {
    for (const [name, answer] of Object.entries(SHAPES)) {
      await t.step(name, async () => {
        server.answer = (conn, req, ctx) =>
          req.target.startsWith("/api2/")
            ? followed(conn, req, ctx)
            : answer(conn, req, ctx);
        const found = await differences({ server, other, config }, VERBS);
        assert.deepEqual(found, []);
      });
    }
  } finally {
    await server.close();
    await other.close();
  }
});

/** Resolves once `server` has read `n` requests (it runs on real sockets). */
async function requestsSeen(server: ScriptedServer, n: number) {
  while (server.seen.length < n) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

Deno.test("a server slow to send its head times every verb out alike on the socket and on fetch", async () => {
  const server = ScriptedServer.plain();
  const other = ScriptedServer.plain();
  server.answer = async (conn) => {
    await untilClosed(conn);
    return false;
  };
  try {
    const config = KubeConfig.fromOptions({ server: server.url });
    const setup = { server, other, config, timeoutMs: 1000 };
    const drive = async (clock: FakeClock) => {
      await requestsSeen(server, 1);
      await clock.step(1000);
    };
    assert.deepEqual(await differences(setup, VERBS, drive), []);
    // And it is the timeout that ended them.
    const { outcome } = await through("socket", setup, "watch", drive);
    assert.deepEqual(outcome, {
      error: {
        class: "RequestTimeoutError",
        message: `Request GET ${COLLECTION} timed out after 1000 ms`,
      },
    });
  } finally {
    await server.close();
    await other.close();
  }
});

Deno.test("impersonation headers, the token and the body reach the server alike from the socket and from fetch", async () => {
  const server = ScriptedServer.plain();
  const other = ScriptedServer.plain();
  server.answer = SHAPES["200 with a content-length"];
  try {
    const config = KubeConfig.fromOptions({
      server: server.url,
      token: "secret",
      impersonate: {
        user: "jane",
        uid: "42",
        groups: ["devs"],
        extra: { "reason.example.com/why": ["on call"] },
      },
    });
    const setup = { server, other, config };
    assert.deepEqual(await differences(setup, VERBS), []);
    const { requests } = await through("socket", setup, "create");
    assert.deepEqual(
      requests[0].headers.filter(([k]) => k.startsWith("impersonate-")),
      [
        ["impersonate-extra-reason.example.com%2fwhy", "on call"],
        ["impersonate-group", "devs"],
        ["impersonate-uid", "42"],
        ["impersonate-user", "jane"],
      ],
    );
  } finally {
    await server.close();
    await other.close();
  }
});

Deno.test({
  name:
    "a server certificate the configured CA did not sign fails every verb alike on the socket and on fetch",
  ignore: !await hasOpenssl(),
  fn: async () => {
    await using pki = await makePki();
    await using stranger = await makePki();
    const server = ScriptedServer.tls(stranger.serverCert, stranger.serverKey);
    const other = ScriptedServer.plain();
    server.answer = SHAPES["200 with a content-length"];
    try {
      const config = KubeConfig.fromOptions({
        server: server.url,
        caData: pki.ca,
      });
      const setup = { server, other, config };
      assert.deepEqual(await differences(setup, VERBS), []);
      const { outcome } = await through("socket", setup, "get");
      assert.deepEqual(outcome, {
        error: {
          class: "TypeError",
          message:
            `Cannot reach the API server at ${server.url}: TLS handshake failed`,
        },
      });
    } finally {
      await server.close();
      await other.close();
    }
  },
});

Deno.test("a redirect is a StatusError naming where it points, followed by neither transport", async () => {
  const server = ScriptedServer.plain();
  const other = ScriptedServer.plain();
  server.other = other.url;
  other.answer = followed;
  server.answer = SHAPES["307 to another origin"];
  try {
    const config = KubeConfig.fromOptions({
      server: server.url,
      token: "secret",
    });
    for (const via of ["socket", "fetch"] as const) {
      for (const verb of VERBS) {
        const got = await through(via, { server, other, config }, verb);
        assert.deepEqual(got.redirected, [], `${via} ${verb}`);
        const err = (got.outcome as { error: Record<string, unknown> }).error;
        assert.equal(err.class, "StatusError");
        assert.equal(err.code, 307);
        assert.equal(err.reason, "Redirect");
        assert.match(
          err.message as string,
          new RegExp(`redirect \\(307\\) to ${other.url}/api/v1/`),
        );
      }
    }
  } finally {
    await server.close();
    await other.close();
  }
});

Deno.test("a kept-alive connection the server closed after its answer: the next request of every verb goes on a new one, alike on the socket and on fetch", async () => {
  const server = ScriptedServer.plain();
  const other = ScriptedServer.plain();
  // Says keep-alive, then closes: the connection waits idle, dead.
  server.answer = async (conn, req) => {
    const body = goodBody(req.target);
    await write(
      conn,
      head("200 OK", [
        JSON_TYPE,
        ["Connection", "keep-alive"],
        ["Content-Length", `${enc.encode(body).length}`],
      ]) + body,
    );
    return false;
  };
  try {
    const config = KubeConfig.fromOptions({ server: server.url });
    const setup = { server, other, config };
    assert.deepEqual(await differences(setup, VERBS, undefined, "list"), []);
    const got = await through("socket", setup, "get", undefined, "list");
    assert.equal(got.requests.length, 2);
    assert.deepEqual(got.outcome, { value: CM });
  } finally {
    await server.close();
    await other.close();
  }
});
