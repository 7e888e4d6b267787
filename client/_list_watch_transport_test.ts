// When a list or a watch leaves its own socket for fetch (a proxy may apply, the
// server speaks HTTP/2 only), and how the socket is opened (a connect the
// signal and the idle timeout can cut, TCP keep-alive).

import assert from "node:assert/strict";
import http2 from "node:http2";
import {
  envProxyApplies,
  ListWatchTransport,
} from "./_list_watch_transport.ts";
import { KubeClient } from "./rest.ts";
import { RequestTimeoutError } from "../api/errors.ts";
import { KubeConfig } from "./config.ts";
import { ConfigMaps } from "../api/resources.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { hasOpenssl, makePki } from "../testing/pki_test_util.ts";
import { rejection } from "./_test_util.ts";
import { nextTurn } from "../testing/turns.ts";

const enc = new TextEncoder();

/** An environment of `vars` only. */
function envOf(
  vars: Record<string, string>,
): (name: string) => string | undefined {
  return (name) => vars[name];
}

Deno.test("envProxyApplies follows Deno's fetch: any proxy variable in either case, NO_PROXY (else no_proxy) by domain, IPv4 address or CIDR, IPv6 address", () => {
  const url = (s: string) => new URL(s);
  const api = url("https://api.corp.example:6443");
  // Nothing set, or an empty value: direct.
  assert.equal(envProxyApplies(api, envOf({})), false);
  assert.equal(envProxyApplies(api, envOf({ HTTPS_PROXY: "" })), false);
  for (
    const name of [
      "HTTPS_PROXY",
      "https_proxy",
      "HTTP_PROXY",
      "http_proxy",
      "ALL_PROXY",
      "all_proxy",
    ]
  ) {
    assert.equal(
      envProxyApplies(api, envOf({ [name]: "http://proxy:3128" })),
      true,
      name,
    );
  }
  const via = (noProxy: string, u: URL, name = "NO_PROXY") =>
    envProxyApplies(
      u,
      envOf({ HTTPS_PROXY: "http://proxy:3128", [name]: noProxy }),
    );
  // Domains: itself and its subdomains, with or without a leading dot.
  assert.equal(via("corp.example", api), false);
  assert.equal(via(".corp.example", api), false);
  assert.equal(via("api.corp.example", api), false);
  assert.equal(via(" other.example , corp.example", api), false);
  assert.equal(via("*", api), false);
  assert.equal(via("rp.example", api), true); // not a label boundary
  assert.equal(via("other.example", api), true);
  assert.equal(via("corp.example", api, "no_proxy"), false);
  // NO_PROXY set (even empty) hides no_proxy, as in Deno.
  assert.equal(
    envProxyApplies(
      api,
      envOf({ HTTPS_PROXY: "p", NO_PROXY: "", no_proxy: "corp.example" }),
    ),
    true,
  );
  // IPv4: an address or a block; a domain entry (even *) never exempts an IP.
  const ip = url("https://10.1.2.3:6443");
  assert.equal(via("10.1.2.3", ip), false);
  assert.equal(via("10.0.0.0/8", ip), false);
  assert.equal(via("10.1.2.0/24", ip), false);
  assert.equal(via("0.0.0.0/0", ip), false);
  assert.equal(via("10.1.3.0/24", ip), true);
  assert.equal(via("10.1.2.4", ip), true);
  assert.equal(via("010.1.2.3", ip), true); // not an address to Deno
  assert.equal(via("*", ip), true);
  // IPv6: an equal address, however written.
  const v6 = url("https://[fd00::1]:6443");
  assert.equal(via("fd00:0:0::1", v6), false);
  assert.equal(via("fd00::2", v6), true);
  assert.equal(via("fd00::/8", v6), true); // blocks are not read: stay safe
  // An environment that cannot be read: assume a proxy.
  assert.equal(envProxyApplies(api, null), true);
});

Deno.test("ListWatchTransport uses the socket only when wanted and no proxy applies", () => {
  const server = "http://127.0.0.1:6443";
  assert.equal(new ListWatchTransport(server, true, envOf({})).socket, true);
  assert.equal(new ListWatchTransport(server, false, envOf({})).socket, false);
  assert.equal(
    new ListWatchTransport(server, true, envOf({ HTTP_PROXY: "http://p:1" }))
      .socket,
    false,
  );
  assert.equal(
    new ListWatchTransport(
      server,
      true,
      envOf({ HTTP_PROXY: "http://p:1", NO_PROXY: "127.0.0.1" }),
    ).socket,
    true,
  );
  assert.equal(new ListWatchTransport(server, true, null).socket, false);
});

/**
 * A forwarding HTTP proxy in front of `target`: it answers absolute-form
 * requests (`GET http://host:port/path`) from `target`, whatever the host
 * asked for, and records each request line.
 */
function forwardingProxy(target: string) {
  const seen: string[] = [];
  const ctrl = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ctrl.signal, onListen() {} },
    async (req) => {
      const u = new URL(req.url);
      seen.push(`${req.method} ${u.host}${u.pathname}${u.search}`);
      const res = await fetch(`${target}${u.pathname}${u.search}`, {
        method: req.method,
        headers: req.headers,
      });
      return new Response(res.body, {
        status: res.status,
        headers: res.headers,
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    async [Symbol.asyncDispose]() {
      ctrl.abort();
      await server.finished;
    },
  };
}

/** A loopback port nothing listens on. */
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = l.addr as Deno.NetAddr;
  l.close();
  return port;
}

Deno.test("KubeClient.list and watch go through the HTTP_PROXY that fetch follows, with --allow-env and without it", async () => {
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
  await using proxy = forwardingProxy(server.url);
  // Only the proxy knows the way: the server's own address refuses.
  const unreachable = `http://127.0.0.1:${closedPort()}`;
  const script = `
    import { KubeClient } from ${
    JSON.stringify(import.meta.resolve("./rest.ts"))
  };
    import { KubeConfig } from ${
    JSON.stringify(import.meta.resolve("./config.ts"))
  };
    import { ConfigMaps } from ${
    JSON.stringify(import.meta.resolve("../api/resources.ts"))
  };
    await using client = new KubeClient(
      KubeConfig.fromOptions({ server: ${JSON.stringify(unreachable)} }),
      { timeoutMs: 20_000 },
    );
    const list = await client.list(ConfigMaps, { namespace: "default" });
    for await (const ev of await client.watch(ConfigMaps, { namespace: "default" })) {
      console.log(list.items.length, ev.type, ev.object.metadata.name);
      break;
    }
  `;
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(file, script);
  try {
    for (const allowEnv of [["--allow-env"], []]) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--no-prompt",
          "--no-config",
          "--allow-net=127.0.0.1",
          ...allowEnv,
          file,
        ],
        env: { HTTP_PROXY: proxy.url, NO_PROXY: "", no_proxy: "" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      const how = allowEnv.length ? "--allow-env" : "no --allow-env";
      assert.equal(out.success, true, `${how}: ${stderr}`);
      assert.equal(new TextDecoder().decode(out.stdout), "1 ADDED a\n");
    }
  } finally {
    await Deno.remove(file);
  }
  const host = new URL(unreachable).host;
  assert.deepEqual(
    proxy.seen.filter((r) => r.includes("watch=true")).length,
    2,
    proxy.seen.join("\n"),
  );
  assert.deepEqual(
    proxy.seen.filter((r) => r.endsWith("/configmaps")).length,
    2,
    proxy.seen.join("\n"),
  );
  assert.ok(proxy.seen.every((r) => r.startsWith(`GET ${host}/`)));
});

/**
 * Lines of Linux's /proc/net/tcp as fields, or undefined elsewhere. Read
 * through `cat`: Deno lets a program read /proc/net only with --allow-all.
 */
async function procNetTcp(): Promise<string[][] | undefined> {
  try {
    const out = await new Deno.Command("cat", {
      args: ["/proc/net/tcp"],
      stdout: "piped",
      stderr: "null",
    }).output();
    if (!out.success) return undefined;
    return new TextDecoder().decode(out.stdout).trim().split("\n").slice(1)
      .map((l) => l.trim().split(/\s+/));
  } catch {
    return undefined;
  }
}

const hasProcNetTcp = await procNetTcp() !== undefined;
const hex4 = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");

/** Wait, turn by turn, until `cond` holds. */
async function turnsUntil(
  cond: () => boolean | Promise<boolean>,
  what: string,
): Promise<void> {
  for (let i = 0; i < 1_000; i++) {
    if (await cond()) return;
    await nextTurn();
  }
  assert.fail(`Timed out waiting for ${what}`);
}

Deno.test({
  name:
    "KubeClient.watch over TLS with a client certificate: the idle timeout cuts a TCP connect the server never answers",
  ignore: !hasProcNetTcp || !(await hasOpenssl()),
  async fn() {
    await using pki = await makePki();
    // A listener whose accept queue (one place) is taken: the kernel drops
    // further SYNs, as for a black-holed address or a dead LB member.
    const listener = Deno.listen({
      hostname: "127.0.0.1",
      port: 0,
      tcpBacklog: 0,
    });
    const { port } = listener.addr as Deno.NetAddr;
    const filler = await Deno.connect({ hostname: "127.0.0.1", port });
    const clock = new FakeClock();
    await using client = new KubeClient(
      KubeConfig.fromOptions({
        server: `https://127.0.0.1:${port}`,
        caData: pki.ca,
        certData: pki.clientCert,
        keyData: pki.clientKey,
      }),
      { clock, timeoutMs: 5_000 },
    );
    let settled = false;
    const failure = rejection(client.watch(ConfigMaps)).finally(() =>
      settled = true
    );
    // SYN_SENT (state 02) toward the listener: the connect is under way.
    await turnsUntil(
      async () =>
        (await procNetTcp())!.some((f) =>
          f[2].endsWith(`:${hex4(port)}`) && f[3] === "02"
        ),
      "the client's SYN",
    );
    await clock.step(5_000);
    await turnsUntil(() => settled, "the watch to give up at its timeout");
    assert.ok(await failure instanceof RequestTimeoutError);
    // Make room: the client's next SYN gets through (the connect cannot be
    // cancelled, only left behind), and the client closes the connection
    // that arrives after the timeout.
    (await listener.accept()).close();
    filler.close();
    const late = await listener.accept();
    listener.close();
    // Its ClientHello shows the connect is done; a few turns let the
    // client see it before the sanitizer looks for pending operations.
    assert.ok(await late.read(new Uint8Array(4096)));
    late.close();
    let turns = 0;
    await turnsUntil(() => ++turns > 20, "the late connection to be seen");
  },
});

Deno.test({
  name:
    "KubeClient.watch sets TCP keep-alive on its socket, over plain HTTP and over TLS",
  ignore: !hasProcNetTcp || !(await hasOpenssl()),
  async fn() {
    await using pki = await makePki();
    for (const tls of [false, true]) {
      await using server = await FakeApiServer.start(
        tls ? { tls: { cert: pki.serverCert, key: pki.serverKey } } : {},
      );
      await using client = new KubeClient(
        KubeConfig.fromOptions({
          server: server.url,
          caData: tls ? pki.ca : undefined,
        }),
      );
      // A socket is its local and remote address: a local port alone may be
      // one a closed connection (TIME_WAIT) of another process still shows.
      const before = new Set(
        (await procNetTcp())!.map((f) => `${f[1]} ${f[2]}`),
      );
      const ctrl = new AbortController();
      const events = await client.watch(ConfigMaps, { signal: ctrl.signal });
      // The watch's socket: established (01) to the server's port, new.
      const port = hex4(Number(new URL(server.url).port));
      const mine = (await procNetTcp())!.filter((f) =>
        f[2].endsWith(`:${port}`) && f[3] === "01" &&
        !before.has(`${f[1]} ${f[2]}`)
      );
      assert.equal(mine.length, 1, `tls ${tls}: ${JSON.stringify(mine)}`);
      // Timer 2 on an idle established socket is the keep-alive timer.
      assert.match(mine[0][5], /^02:/, `tls ${tls}`);
      ctrl.abort();
      await rejection(Array.fromAsync(events));
    }
  },
});

Deno.test({
  name:
    "KubeClient.list and watch against an HTTP/2-only TLS server fall back to fetch, and the client remembers",
  ignore: !(await hasOpenssl()),
  async fn() {
    await using pki = await makePki();
    const server = http2.createSecureServer({
      cert: pki.serverCert,
      key: pki.serverKey,
      allowHTTP1: false,
    });
    let connections = 0;
    let sessions = 0;
    server.on("connection", () => connections++);
    server.on("session", () => sessions++);
    server.on("stream", (
      stream: http2.ServerHttp2Stream,
      headers: http2.IncomingHttpHeaders,
    ) => {
      stream.respond({ ":status": 200, "content-type": "application/json" });
      if (!headers[":path"]?.includes("watch=true")) {
        stream.end(JSON.stringify({
          kind: "ConfigMapList",
          apiVersion: "v1",
          metadata: { resourceVersion: "1" },
          items: [{ metadata: { name: "a", resourceVersion: "1" } }],
        }));
        return;
      }
      stream.write(
        `${
          JSON.stringify({
            type: "ADDED",
            object: { metadata: { name: "a", resourceVersion: "1" } },
          })
        }\n`,
      );
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as { port: number };
    try {
      await using client = new KubeClient(
        KubeConfig.fromOptions({
          server: `https://127.0.0.1:${port}`,
          caData: pki.ca,
        }),
      );
      for (let i = 0; i < 2; i++) {
        const list = await client.list(ConfigMaps);
        assert.deepEqual(list.items.map((o) => o.metadata.name), ["a"]);
        // The list tried the socket first.
        assert.equal(connections - sessions, 1);
        const ctrl = new AbortController();
        for await (
          const ev of await client.watch(ConfigMaps, { signal: ctrl.signal })
        ) {
          assert.equal(ev.type, "ADDED");
          assert.equal(ev.object.metadata.name, "a");
          break;
        }
      }
      // One connection refused HTTP/1.1 (the first list's socket); the
      // watches and the second list went straight to fetch.
      assert.equal(connections - sessions, 1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  },
});

Deno.test("KubeClient.watch over its socket: a 101 or an answer that is not HTTP/1.x fails at once", async () => {
  for (
    const [answer, want] of [
      [
        enc.encode("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n"),
        /101 Switching Protocols, but no upgrade was asked for/,
      ],
      // An HTTP/2 SETTINGS frame (h2c with prior knowledge).
      [new Uint8Array([0, 0, 0, 4, 0, 0, 0, 0, 0]), /not an HTTP\/1.x answer/],
    ] as const
  ) {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const { port } = listener.addr as Deno.NetAddr;
    const served = (async () => {
      const conn = await listener.accept();
      listener.close();
      await conn.read(new Uint8Array(8192));
      await conn.write(answer);
      // Hold the connection open until the client closes it.
      while (await conn.read(new Uint8Array(8192)) !== null) { /* drain */ }
      conn.close();
    })();
    // Before the fix, each waited for this timeout.
    await using client = new KubeClient(
      KubeConfig.fromOptions({ server: `http://127.0.0.1:${port}` }),
      { timeoutMs: 10_000 },
    );
    const err = await rejection(client.watch(ConfigMaps));
    assert.ok(err instanceof TypeError);
    assert.match(err.message, want);
    await served;
  }
});
