// A server that answers with hostile or broken data, through KubeClient
// (fetch for requests and lists, its own socket for watches): every answer
// fails the call with a typed error, none crashes the process or hangs it,
// no message carries the bearer token, and the token never reaches another
// origin. An informer on such a server backs off instead of looping.

import assert from "node:assert/strict";
import { ConfigMaps } from "../api/resources.ts";
import { listWatch } from "../api/resource_client.ts";
import { newSharedIndexInformer } from "../cache/shared_informer.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { ioTurn } from "../testing/turns.ts";
import { KubeConfig } from "./config.ts";
import { KubeClient } from "./rest.ts";

const TOKEN = "s3cr3t-token-value";
const enc = new TextEncoder();

/** What the raw server writes for a request path (then it closes). */
type Script = (path: string) => Uint8Array[] | "hang";

/**
 * A plain-TCP server that writes exactly the bytes a script gives (so it
 * can send what no HTTP library would), recording each request head.
 */
function rawServer(script: Script) {
  const heads: string[] = [];
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  const served = (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      (async () => {
        const buf = new Uint8Array(64 * 1024);
        let head = "";
        while (!head.includes("\r\n\r\n")) {
          const n = await conn.read(buf).catch(() => null);
          if (n === null) return;
          head += new TextDecoder().decode(buf.subarray(0, n));
        }
        heads.push(head);
        const path = head.split(" ")[1];
        const out = script(path);
        if (out === "hang") return; // never answers; closed at dispose
        try {
          for (const piece of out) await conn.write(piece);
        } catch {
          // the client gave up first
        }
        conns.delete(conn);
        conn.close();
      })();
    }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    heads,
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await served.catch(() => {});
    },
  };
}

const http = (status: string, headers: string, body: string | Uint8Array) => [
  enc.encode(`HTTP/1.1 ${status}\r\n${headers}\r\n`),
  typeof body === "string" ? enc.encode(body) : body,
];
const json = (body: string) =>
  http(
    "200 OK",
    `Content-Type: application/json\r\nContent-Length: ${
      enc.encode(body).length
    }\r\n`,
    body,
  );

Deno.test("KubeClient against hostile answers: typed errors, no crash, no hang, no token in any message", async () => {
  await using other = rawServer(() => json("{}"));
  await using server = rawServer((path) => {
    const p = path.split("?")[0];
    if (p.endsWith("/html")) {
      return http(
        "200 OK",
        "Content-Type: text/html\r\nContent-Length: 27\r\n",
        "<html>502 Bad Gateway</html>".slice(0, 27),
      );
    }
    if (p.endsWith("/truncated")) {
      return http("200 OK", "Content-Length: 1000\r\n", '{"kind":"ConfigMap"');
    }
    if (p.endsWith("/utf8")) {
      const bad = new Uint8Array([
        0x7b,
        0x22,
        0x61,
        0x22,
        0x3a,
        0x22,
        0xff,
        0xfe,
        0x22,
        0x7d,
      ]);
      return http("200 OK", `Content-Length: ${bad.length}\r\n`, bad);
    }
    if (p.endsWith("/hang")) return "hang";
    if (p.endsWith("/bigheader")) {
      return http(
        "200 OK",
        `X-Big: ${"a".repeat(1024 * 1024)}\r\nContent-Length: 2\r\n`,
        "{}",
      );
    }
    if (p.endsWith("/redirect")) {
      return http(
        "302 Found",
        `Location: ${other.url}/stolen\r\nContent-Length: 0\r\n`,
        "",
      );
    }
    if (p.endsWith("/configmaps") && path.includes("watch=true")) {
      // A watch of 100k garbage lines.
      return http(
        "200 OK",
        "Content-Type: application/json\r\n",
        "garbage line\n".repeat(100_000),
      );
    }
    if (p.endsWith("/configmaps")) {
      return json('{"kind":"ConfigMapList","metadata":{},"items":5}');
    }
    return json("{}");
  });
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url, token: TOKEN }),
    { timeoutMs: 300 },
  );
  const failures: unknown[] = [];
  const fails = async (
    what: Promise<unknown>,
    type: new (...a: never[]) => Error,
    re?: RegExp,
  ) => {
    const err = await what.then(() => undefined, (e) => e);
    assert.ok(err instanceof type, `${err}`);
    if (re) assert.match(String((err as Error).message), re);
    failures.push(err);
  };
  await fails(
    client.request("GET", "/html"),
    SyntaxError,
    /not JSON: "<html>502/,
  );
  await fails(client.request("GET", "/truncated"), Error);
  // Invalid UTF-8 in a body: replaced by U+FFFD, as Go's decoder does.
  assert.deepEqual(await client.request("GET", "/utf8"), { a: "\ufffd\ufffd" });
  await fails(client.request("GET", "/hang"), Error, /timed out after 300 ms/);
  // A 1 MB header: refused or read, never a crash.
  await client.request("GET", "/bigheader").then(
    (v) => assert.deepEqual(v, {}),
    (e) => failures.push(e),
  );
  // items of the wrong type.
  await fails(
    client.list(ConfigMaps, { namespace: "default" }),
    TypeError,
    /items is not an array/,
  );
  // 100k garbage lines: the watch ends at the first.
  const events = await client.watch(ConfigMaps, { namespace: "default" });
  await fails(Array.fromAsync(events), Error, /line 1: not JSON/);
  // A cross-origin redirect: followed or not, the token stays home.
  await client.request("GET", "/redirect").catch((e) => failures.push(e));
  for (const head of other.heads) {
    assert.ok(!head.includes(TOKEN), "the token reached another origin");
  }
  for (const err of failures) {
    const text = `${(err as Error).message} ${
      String((err as Error).cause ?? "")
    }`;
    assert.ok(!text.includes(TOKEN), `token in: ${text}`);
  }
  // Every request to the server carried it (it is the server's to see).
  assert.ok(server.heads.every((h) => h.includes(TOKEN)));
});

Deno.test("an informer on a server that answers every watch with garbage and every list with HTML backs off, never loops", async () => {
  let lists = 0;
  let watches = 0;
  await using server = rawServer((path) => {
    if (path.includes("watch=true")) {
      watches++;
      return http("200 OK", "", "<html>oops</html>\n".repeat(10));
    }
    lists++;
    // The first list is fine; later ones are an HTML error page.
    return lists === 1
      ? json(
        '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]}',
      )
      : http("200 OK", "Content-Length: 13\r\n", "<html></html>");
  });
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url, token: TOKEN }),
  );
  const clock = new FakeClock();
  const informer = newSharedIndexInformer(listWatch(client, ConfigMaps), {
    clock,
  });
  const errors: unknown[] = [];
  informer.setWatchErrorHandler((_r, err) => void errors.push(err));
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  // One fake minute, stepped from one backoff to the next: the clock moves
  // only once the Reflector sleeps in its backoff after a failed watch (a
  // sleeper due within a minute; an open watch's own timer is due in 5–10
  // minutes), so how fast the real socket answers does not change how many
  // watches fit in the minute. The wall-clock deadline only ends a hang.
  const inBackoff = () => (clock.nextDue() ?? Infinity) - clock.now() <= 60_000;
  for (;;) {
    const deadline = Date.now() + 30_000;
    while (!inBackoff()) {
      if (Date.now() > deadline) {
        throw new Error(
          `The Reflector never backed off after ${watches} watches`,
        );
      }
      await ioTurn();
    }
    const due = clock.nextDue()!;
    if (due > 60_000) break;
    await clock.setTime(due);
  }
  stop.abort();
  await running;
  // Backoff 800 ms doubling (with jitter up to 2x): at most 7 watches a minute.
  assert.ok(watches >= 3 && watches <= 8, `${watches} watches in a minute`);
  assert.equal(lists, 1, "garbage on the watch never forces a relist");
  assert.ok(errors.every((e) => !String((e as Error).message).includes(TOKEN)));
});
