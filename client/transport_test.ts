/**
 * The HTTP client a config asks for, end to end: requests through
 * `proxy-url` (a proxy written here: HTTP forward, HTTP CONNECT and SOCKS5,
 * on 127.0.0.1), and the explanation of a certificate failure when the
 * kubeconfig sets `insecure-skip-tls-verify`.
 */

import assert from "node:assert/strict";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { KubeConfig } from "./config.ts";
import { KubeClient } from "./rest.ts";
import { ConfigMaps } from "../api/resources.ts";
import { makePki } from "../testing/pki_test_util.ts";

/** A port nothing listens on: a direct connection to it is refused. */
function deadPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/**
 * A proxy on 127.0.0.1 that records what each client asked for and
 * connects every request to `upstream`, whatever host it names (so a
 * request that bypassed the proxy would hit the dead port instead).
 */
function startProxy(upstream: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const seen: string[] = [];
  const conns = new Set<Deno.Conn>();
  const handlers: Promise<void>[] = [];
  const serve = async () => {
    for await (const conn of listener) {
      conns.add(conn);
      handlers.push(
        handle(conn, upstream, seen, conns).catch(() => {}).finally(() =>
          conns.delete(conn)
        ),
      );
    }
  };
  const serving = serve().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    seen,
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // Already closed by its pipes.
        }
      }
      await serving;
      await Promise.allSettled(handlers);
    },
  };
}

async function readSome(conn: Deno.Conn, buf: Uint8Array, from: number) {
  const n = await conn.read(buf.subarray(from));
  if (n === null) throw new Error("proxy client went away");
  return from + n;
}

async function handle(
  conn: Deno.Conn,
  upstream: number,
  seen: string[],
  conns: Set<Deno.Conn>,
): Promise<void> {
  const buf = new Uint8Array(64 * 1024);
  let n = await readSome(conn, buf, 0);
  let forward: Uint8Array | undefined;
  if (buf[0] === 5) {
    // SOCKS5: greeting, then CONNECT with an IPv4 address or a host name.
    await conn.write(Uint8Array.of(5, 0));
    n = await readSome(conn, buf, 0);
    const atyp = buf[3];
    let host: string;
    let at: number;
    if (atyp === 3) {
      host = new TextDecoder().decode(buf.subarray(5, 5 + buf[4]));
      at = 5 + buf[4];
    } else {
      host = buf.subarray(4, 8).join(".");
      at = 8;
    }
    seen.push(
      `SOCKS5 ${atyp === 3 ? "name" : "ip"} ${host}:${
        (buf[at] << 8) | buf[at + 1]
      }`,
    );
    await conn.write(Uint8Array.of(5, 0, 0, 1, 0, 0, 0, 0, 0, 0));
  } else {
    let head = "";
    while (
      !(head = new TextDecoder().decode(buf.subarray(0, n))).includes(
        "\r\n\r\n",
      )
    ) {
      n = await readSome(conn, buf, n);
    }
    const lines = head.split("\r\n\r\n")[0].split("\r\n");
    const auth = lines.find((l) => /^proxy-authorization:/i.test(l));
    seen.push(`${lines[0]}${auth ? ` | ${auth.toLowerCase()}` : ""}`);
    if (lines[0].startsWith("CONNECT ")) {
      await conn.write(
        new TextEncoder().encode("HTTP/1.1 200 Connection established\r\n\r\n"),
      );
    } else forward = buf.slice(0, n);
  }
  const up = await Deno.connect({ hostname: "127.0.0.1", port: upstream });
  conns.add(up);
  try {
    if (forward) await up.write(forward);
    await Promise.allSettled([
      conn.readable.pipeTo(up.writable),
      up.readable.pipeTo(conn.writable),
    ]);
  } finally {
    conns.delete(up);
  }
}

/** A kubeconfig for `server` with `proxy-url`, as kubectl users write it. */
function kubeconfig(server: string, proxy: string, extra = ""): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "${server}", proxy-url: "${proxy}"${extra}}
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
users: [{name: u, user: {token: t}}]
`;
}

async function roundTrip(client: KubeClient): Promise<string[]> {
  await client.create(ConfigMaps, {
    metadata: { name: "via-proxy", namespace: "default" },
  });
  const list = await client.list(ConfigMaps, { namespace: "default" });
  return list.items.map((o) => o.metadata.name ?? "");
}

Deno.test("KubeClient sends requests through an http proxy-url, with basic auth from the URL", async () => {
  await using server = await FakeApiServer.start();
  await using proxy = await startProxy(Number(new URL(server.url).port));
  const target = `127.0.0.1:${deadPort()}`;
  const config = KubeConfig.fromYaml(
    kubeconfig(
      `http://${target}`,
      `http://u%40x:p%3Aw@127.0.0.1:${proxy.port}`,
    ),
  );
  assert.equal(config.proxyUrl, `http://u%40x:p%3Aw@127.0.0.1:${proxy.port}`);
  await using client = new KubeClient(config);
  assert.deepEqual(await roundTrip(client), ["via-proxy"]);
  const basic = `basic ${btoa("u@x:p:w").toLowerCase()}`;
  assert.deepEqual(proxy.seen.slice(0, 1), [
    `POST http://${target}/api/v1/namespaces/default/configmaps HTTP/1.1 | proxy-authorization: ${basic}`,
  ]);
});

Deno.test("KubeClient tunnels https through an http proxy-url with CONNECT", async () => {
  await using pki = await makePki();
  await using server = await FakeApiServer.start({
    tls: { cert: pki.serverCert, key: pki.serverKey },
  });
  await using proxy = await startProxy(Number(new URL(server.url).port));
  const target = `localhost:${deadPort()}`;
  await using client = new KubeClient(KubeConfig.fromYaml(
    kubeconfig(
      `https://${target}`,
      `http://127.0.0.1:${proxy.port}`,
      `, certificate-authority-data: ${btoa(pki.ca)}`,
    ),
  ));
  assert.deepEqual(await roundTrip(client), ["via-proxy"]);
  assert.equal(proxy.seen[0], `CONNECT ${target} HTTP/1.1`);
});

Deno.test("KubeClient goes through a socks5 proxy-url, which resolves the host name", async () => {
  await using server = await FakeApiServer.start();
  await using proxy = await startProxy(Number(new URL(server.url).port));
  const port = deadPort();
  await using client = new KubeClient(KubeConfig.fromYaml(
    kubeconfig(`http://localhost:${port}`, `socks5://127.0.0.1:${proxy.port}`),
  ));
  assert.deepEqual(await roundTrip(client), ["via-proxy"]);
  // The name, not an address resolved here (Go's SOCKS5 dialer does the same).
  assert.equal(proxy.seen[0], `SOCKS5 name localhost:${port}`);
});

Deno.test("KubeClient names insecure-skip-tls-verify and the Deno flag when the certificate is not trusted", async () => {
  await using pki = await makePki();
  await using server = await FakeApiServer.start({
    tls: { cert: pki.serverCert, key: pki.serverKey },
  });
  {
    await using client = new KubeClient(
      KubeConfig.fromOptions({
        server: server.url,
        insecureSkipTlsVerify: true,
      }),
    );
    const err = await client.list(ConfigMaps).then(
      () => assert.fail("the certificate was trusted"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof TypeError, String(err));
    assert.equal(
      err.message,
      `Cannot verify the certificate of the API server at ${server.url}: ` +
        "insecure-skip-tls-verify is set, which Deno cannot " +
        "apply per client; run deno with " +
        "--unsafely-ignore-certificate-errors=127.0.0.1",
    );
    // fetch's own error, with the certificate detail, is the cause.
    assert.ok(err.cause instanceof TypeError);
    assert.match(String((err.cause as Error).cause), /certificate/i);
  }
  {
    // Without the setting, fetch's error is left as it is.
    await using client = new KubeClient(
      KubeConfig.fromOptions({ server: server.url }),
    );
    await assert.rejects(client.list(ConfigMaps), (e: unknown) => {
      assert.ok(e instanceof TypeError);
      assert.doesNotMatch(e.message, /insecure-skip-tls-verify/);
      return true;
    });
  }
});
