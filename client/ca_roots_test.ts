// Trusting the cluster's CA alone: Deno adds `caCerts` to its root store,
// so a certificate from any CA the store holds is accepted too. These tests
// hold the warning that says so and the process setting that narrows the
// store (an empty DENO_TLS_CA_STORE), on fetch and on the socket.

import assert from "node:assert/strict";
import { extraRootsWarning, rootStoreIsEmpty } from "./_ca_roots.ts";
import type { TlsConfig } from "./config.ts";
import { hasOpenssl, makePki } from "../testing/pki_test_util.ts";

Deno.test("rootStoreIsEmpty() is true only for a DENO_TLS_CA_STORE that names no store", () => {
  const env = (value: string | undefined) => (name: string) =>
    name === "DENO_TLS_CA_STORE" ? value : undefined;
  assert.equal(rootStoreIsEmpty(env(undefined)), false);
  assert.equal(rootStoreIsEmpty(env("mozilla")), false);
  assert.equal(rootStoreIsEmpty(env("system,mozilla")), false);
  assert.equal(rootStoreIsEmpty(env("")), true);
  assert.equal(rootStoreIsEmpty(env(" , ")), true);
});

Deno.test("extraRootsWarning() warns of a CA trusted beside the store, and only then", () => {
  const https = "https://10.0.0.1:6443";
  const tls = (o: Partial<TlsConfig>): TlsConfig => ({
    insecureSkipTlsVerify: false,
    ...o,
  });
  const withCa = tls({ caData: "PEM" });
  assert.match(
    extraRootsWarning(https, withCa, false) ?? "",
    /trusted beside Deno's root store.*DENO_TLS_CA_STORE= \(empty/,
  );
  assert.equal(extraRootsWarning(https, withCa, true), undefined);
  assert.equal(
    extraRootsWarning(https, tls({}), false),
    undefined,
  );
  assert.equal(
    extraRootsWarning(
      https,
      tls({ caData: "PEM", insecureSkipTlsVerify: true }),
      false,
    ),
    undefined,
  );
  assert.equal(
    extraRootsWarning("http://127.0.0.1:8080", withCa, false),
    undefined,
  );
});

/**
 * Run a client in a process of its own with `env`, against `server` with
 * `ca` as the config's CA: a get (fetch) and a list (the socket). Returns
 * each call's outcome and the warnings the process printed.
 */
async function clientProcess(
  server: string,
  ca: string,
  env: Record<string, string>,
): Promise<{ get: string; list: string; warnings: string[] }> {
  const mod = new URL("./mod.ts", import.meta.url).href;
  const script = `
    import { ConfigMaps, KubeClient, KubeConfig } from ${JSON.stringify(mod)};
    const warnings = [];
    const client = new KubeClient(
      KubeConfig.fromOptions({ server: ${JSON.stringify(server)}, caData: ${
    JSON.stringify(ca)
  } }),
      { onWarning: (m) => warnings.push(m), timeoutMs: 10000 },
    );
    const outcome = (p) => p.then(() => "ok", (e) => e.message);
    const get = await outcome(client.get(ConfigMaps, "a", { namespace: "default" }));
    const list = await outcome(client.list(ConfigMaps, { namespace: "default" }));
    client.close();
    console.log(JSON.stringify({ get, list, warnings }));
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--ext=ts",
      "--no-lock",
      script,
    ],
    env: { ...env, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  assert.ok(
    out.success,
    `${text}\n${new TextDecoder().decode(out.stderr)}`,
  );
  return JSON.parse(text.split("\n").at(-1)!);
}

Deno.test({
  name:
    "a server certificate from a CA of Deno's root store is accepted beside the configured CA (with a warning) unless DENO_TLS_CA_STORE is empty, then refused on fetch and on the socket",
  ignore: !await hasOpenssl(),
  fn: async () => {
    await using cluster = await makePki();
    // Stands for a publicly trusted CA: put into the root store through the
    // system store's SSL_CERT_FILE.
    await using publicCa = await makePki();
    const caFile = `${publicCa.dir}/ca.crt`;
    await using server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      cert: publicCa.serverCert,
      key: publicCa.serverKey,
      onListen: () => {},
    }, (req) => {
      const list = new URL(req.url).pathname.endsWith("/configmaps");
      return Response.json(
        list
          ? {
            kind: "ConfigMapList",
            apiVersion: "v1",
            metadata: { resourceVersion: "1" },
            items: [],
          }
          : {
            kind: "ConfigMap",
            apiVersion: "v1",
            metadata: { name: "a", namespace: "default" },
          },
      );
    });
    const url = `https://127.0.0.1:${server.addr.port}`;

    // Deno's store (here the system's, holding the other CA) stays trusted.
    const wide = await clientProcess(url, cluster.ca, {
      DENO_TLS_CA_STORE: "system",
      SSL_CERT_FILE: caFile,
    });
    assert.deepEqual([wide.get, wide.list], ["ok", "ok"]);
    assert.equal(wide.warnings.length, 1);
    assert.match(wide.warnings[0], /DENO_TLS_CA_STORE=/);

    // An empty store: the configured CA alone, on both transports.
    const narrow = await clientProcess(url, cluster.ca, {
      DENO_TLS_CA_STORE: "",
      SSL_CERT_FILE: caFile,
    });
    assert.match(narrow.get, /TLS handshake failed/);
    assert.match(narrow.list, /TLS handshake failed/);
    assert.deepEqual(narrow.warnings, []);

    // And the configured CA still works there.
    const own = await clientProcess(url, publicCa.ca, {
      DENO_TLS_CA_STORE: "",
    });
    assert.deepEqual([own.get, own.list, own.warnings], ["ok", "ok", []]);
  },
});
