// Client certificate and key files rotated on disk (cert-manager, kubelet
// style: the files are replaced in place) are used without a restart, with
// real certificates from openssl and a server that tells which
// certificate each request presented.

import assert from "node:assert/strict";
import https from "node:https";
import type { TLSSocket } from "node:tls";
import { FakeClock } from "../testing/fake_clock.ts";
import { hasOpenssl, makePki } from "../testing/pki_test_util.ts";
import { KubeConfig } from "./config.ts";
import { KubeClient } from "./rest.ts";
import { ConfigMaps } from "../api/resources.ts";

/**
 * An mTLS server answering each request with the CN of the client
 * certificate presented: a watch event, a ConfigMapList of one named so,
 * or `{cn}`. It closes the connection after each answer (as a server that
 * dropped the old connections after a rotation) unless `keepAlive`, and
 * counts the connections it accepted.
 */
async function whoamiServer(
  pki: Awaited<ReturnType<typeof makePki>>,
  { keepAlive = false } = {},
) {
  let connections = 0;
  const server = https.createServer({
    cert: pki.serverCert,
    key: pki.serverKey,
    ca: pki.ca,
    requestCert: true,
    rejectUnauthorized: true,
  }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    if (!keepAlive) res.setHeader("Connection", "close");
    res.setHeader("Content-Type", "application/json");
    const cn = peer.subject?.CN;
    res.end(
      req.url?.includes("watch=true")
        ? `${
          JSON.stringify({ type: "ADDED", object: { metadata: { name: cn } } })
        }\n`
        : req.url?.startsWith("/api/v1/configmaps")
        ? JSON.stringify({
          kind: "ConfigMapList",
          apiVersion: "v1",
          metadata: { resourceVersion: "1" },
          items: [{ metadata: { name: cn } }],
        })
        : JSON.stringify({ cn }),
    );
  });
  server.on("connection", () => connections++);
  const port = await new Promise<number>((resolve) =>
    server.listen(
      0,
      "127.0.0.1",
      () => resolve((server.address() as { port: number }).port),
    )
  );
  return {
    url: `https://127.0.0.1:${port}`,
    connections: () => connections,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

async function whoami(client: KubeClient): Promise<string> {
  return (await client.request<{ cn: string }>("GET", "/whoami")).cn;
}

/** The CN a watch (over its own socket) presented. */
async function watchWhoami(client: KubeClient): Promise<string> {
  const names = [];
  for await (const ev of await client.watch(ConfigMaps)) {
    if (ev.type === "ADDED") names.push(ev.object.metadata.name);
  }
  return names.join();
}

/** Replace a file the way rotation tools do: write beside it, rename over it. */
async function replace(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(`${path}.tmp`, text);
  await Deno.rename(`${path}.tmp`, path);
}

Deno.test({
  name:
    "KubeClient re-reads rotated client certificate files (at most once a second), keeps the last good pair while a half-written or mismatched pair is on disk",
  ignore: !(await hasOpenssl()),
  fn: async () => {
    await using pki = await makePki();
    await using server = await whoamiServer(pki);
    const certFile = `${pki.dir}/user.crt`;
    const keyFile = `${pki.dir}/user.key`;
    await Deno.writeTextFile(certFile, pki.clientCert);
    await Deno.writeTextFile(keyFile, pki.clientKey);
    await Deno.writeTextFile(
      `${pki.dir}/kubeconfig`,
      `apiVersion: v1
kind: Config
current-context: c
clusters: [{name: c, cluster: {server: "${server.url}", certificate-authority-data: ${
        btoa(pki.ca)
      }}}]
users: [{name: u, user: {client-certificate: user.crt, client-key: user.key}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
`,
    );
    const config = KubeConfig.fromFile(`${pki.dir}/kubeconfig`);
    assert.equal(config.tls.certFile, certFile);
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const warnings: string[] = [];
    await using client = new KubeClient(config, {
      clock,
      // The file warnings; the once-per-process one about Deno's root
      // store depends on which test ran first.
      onWarning: (m) => void (!/root store/.test(m) && warnings.push(m)),
    });
    assert.equal(await whoami(client), "kubecache-user");

    // Rotated: seen at the first request a second after the last look.
    const second = await pki.issueClient("rotated-1");
    await replace(keyFile, second.key);
    await replace(certFile, second.cert);
    assert.equal(await whoami(client), "kubecache-user", "within the second");
    await clock.step(1_000);
    assert.equal(await whoami(client), "rotated-1");

    // A new certificate beside the old key (the key not yet replaced) is
    // never presented: the last good pair is.
    const third = await pki.issueClient("rotated-2");
    await replace(certFile, third.cert);
    await clock.step(1_000);
    assert.equal(await whoami(client), "rotated-1");
    // Half-written key: still the last good pair.
    await replace(keyFile, third.key.slice(0, 60));
    await clock.step(1_000);
    assert.equal(await whoami(client), "rotated-1");
    assert.equal(warnings.length, 2, warnings.join("\n"));
    assert.ok(warnings.every((w) => !w.includes("PRIVATE KEY")));
    // The key complete: the new pair.
    await replace(keyFile, third.key);
    await clock.step(1_000);
    assert.equal(await whoami(client), "rotated-2");
    assert.equal(await watchWhoami(client), "rotated-2", "a watch too");

    // A new client from the same KubeConfig presents the files as they are
    // now, not as they were when the config was loaded.
    await using fresh = new KubeClient(config, { clock });
    assert.equal(await whoami(fresh), "rotated-2");
  },
});

Deno.test({
  name:
    "KubeClient.list over its socket never reuses a kept-alive connection made with a client certificate that was since rotated",
  ignore: !(await hasOpenssl()),
  fn: async () => {
    await using pki = await makePki();
    // Keeps connections alive: each list names the CN its connection
    // presented.
    await using server = await whoamiServer(pki, { keepAlive: true });
    const certFile = `${pki.dir}/user.crt`;
    const keyFile = `${pki.dir}/user.key`;
    await Deno.writeTextFile(certFile, pki.clientCert);
    await Deno.writeTextFile(keyFile, pki.clientKey);
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    await using client = new KubeClient(
      KubeConfig.fromOptions({
        server: server.url,
        caData: pki.ca,
        certFile,
        keyFile,
      }),
      { clock },
    );
    const cn = async () =>
      (await client.list(ConfigMaps)).items[0].metadata.name;
    assert.equal(await cn(), "kubecache-user");
    assert.equal(await cn(), "kubecache-user");
    assert.equal(server.connections(), 1, "kept alive");
    const rotated = await pki.issueClient("rotated-1");
    await replace(keyFile, rotated.key);
    await replace(certFile, rotated.cert);
    await clock.step(1_000);
    assert.equal(await cn(), "rotated-1");
    assert.equal(await cn(), "rotated-1");
    assert.equal(server.connections(), 2);
  },
});
