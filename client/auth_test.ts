import assert from "node:assert/strict";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import type { KubeObject } from "../api/object.ts";
import {
  AuthError,
  ExecAuthenticator,
  newAuthenticator,
  TokenFileAuthenticator,
} from "./auth.ts";
import { type ExecConfig, KubeConfig } from "./config.ts";
import { isUnauthorized } from "../api/errors.ts";
import { rejection } from "./_test_util.ts";
import { makePki } from "../testing/pki_test_util.ts";
import { KubeClient } from "./rest.ts";
import { ConfigMaps } from "../api/resources.ts";
import { readTextUntil } from "../testing/read_text.ts";

const T0 = Date.parse("2030-01-01T00:00:00Z");

/** A temp dir holding a shell-script exec plugin that prints cred.json and counts its runs. */
async function plugin(apiVersion = "client.authentication.k8s.io/v1") {
  const dir = await Deno.makeTempDir({ prefix: "kubecache-exec-" });
  const script = `${dir}/plugin.sh`;
  await Deno.writeTextFile(
    script,
    [
      "#!/bin/sh",
      'printf "%s" "$KUBERNETES_EXEC_INFO" > "$PLUGIN_DIR/info.json"',
      'echo "$1" >> "$PLUGIN_DIR/runs"',
      'if [ -f "$PLUGIN_DIR/fail" ]; then echo "plugin says no" >&2; exit 3; fi',
      'cat "$PLUGIN_DIR/cred.json"',
      "",
    ].join("\n"),
  );
  await Deno.chmod(script, 0o755);
  const exec: ExecConfig = {
    command: script,
    args: ["arg-one"],
    env: [{ name: "PLUGIN_DIR", value: dir }],
    apiVersion,
    provideClusterInfo: true,
  };
  return {
    dir,
    exec,
    setToken(token: string, expiresAt?: number) {
      Deno.writeTextFileSync(
        `${dir}/cred.json`,
        JSON.stringify({
          apiVersion,
          kind: "ExecCredential",
          status: {
            token,
            ...(expiresAt === undefined
              ? {}
              : { expirationTimestamp: new Date(expiresAt).toISOString() }),
          },
        }),
      );
    },
    setOutput(text: string) {
      Deno.writeTextFileSync(`${dir}/cred.json`, text);
    },
    runs(): number {
      try {
        return Deno.readTextFileSync(`${dir}/runs`).trim().split("\n").length;
      } catch {
        return 0;
      }
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("exec plugin: the token is cached until expirationTimestamp, then the plugin runs again", async () => {
  await using p = await plugin();
  await using server = await FakeApiServer.start({ token: "tok-1" });
  const clock = new FakeClock(T0);
  p.setToken("tok-1", T0 + 60_000);
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url, exec: p.exec }),
    { clock, timeoutMs: 0 },
  );
  await client.list(ConfigMaps);
  await client.list(ConfigMaps);
  assert.equal(p.runs(), 1);
  await clock.step(59_999);
  await client.list(ConfigMaps);
  assert.equal(p.runs(), 1);
  await clock.step(1);
  await client.list(ConfigMaps);
  assert.equal(p.runs(), 2);
  const info = JSON.parse(await Deno.readTextFile(`${p.dir}/info.json`));
  assert.equal(info.kind, "ExecCredential");
  assert.equal(info.apiVersion, "client.authentication.k8s.io/v1");
  assert.equal(info.spec.interactive, false);
  assert.equal(info.spec.cluster.server, server.url);
});

Deno.test("exec plugin: provideClusterInfo passes the cluster's proxy-url, as client-go does", async () => {
  await using p = await plugin();
  p.setToken("t");
  const config = KubeConfig.fromOptions({
    server: "https://internal.example.test:6443",
    proxyUrl: "http://proxy.example.test:3128",
    exec: p.exec,
  });
  await newAuthenticator(config).credentials();
  const info = JSON.parse(await Deno.readTextFile(`${p.dir}/info.json`));
  assert.deepEqual(info.spec.cluster, {
    server: "https://internal.example.test:6443",
    "insecure-skip-tls-verify": false,
    "proxy-url": "http://proxy.example.test:3128",
  });
});

Deno.test("exec plugin: a 401 makes the next request run the plugin again", async () => {
  await using p = await plugin("client.authentication.k8s.io/v1beta1");
  await using server = await FakeApiServer.start({ token: "fresh-token" });
  p.setToken("stale-token");
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url, exec: p.exec }),
  );
  const before = server.requests.length;
  const err = await rejection(client.list(ConfigMaps));
  assert.ok(isUnauthorized(err));
  assert.ok(!(err as Error).message.includes("stale-token"));
  // KubeClient does not retry: one request, one plugin run.
  assert.equal(server.requests.length - before, 1);
  assert.equal(p.runs(), 1);
  p.setToken("fresh-token");
  await client.list(ConfigMaps);
  assert.equal(p.runs(), 2);
  await client.list(ConfigMaps);
  assert.equal(p.runs(), 2);
});

Deno.test("exec plugin: concurrent requests share one run", async () => {
  await using p = await plugin();
  p.setToken("t");
  const auth = new ExecAuthenticator(p.exec);
  const all = await Promise.all([
    auth.credentials(),
    auth.credentials(),
    auth.credentials(),
  ]);
  assert.deepEqual(all.map((c) => c.authorization), [
    "Bearer t",
    "Bearer t",
    "Bearer t",
  ]);
  assert.equal(p.runs(), 1);
  assert.equal(auth.runs, 1);
});

Deno.test("exec plugin: failures are AuthErrors that never show the token", async (t) => {
  await using p = await plugin();
  await t.step("missing command shows the install hint", async () => {
    const auth = new ExecAuthenticator({
      ...p.exec,
      command: "kubecache-no-such-plugin",
      installHint: "Install it from example.com",
    });
    const err = await rejection(auth.credentials());
    assert.ok(err instanceof AuthError);
    assert.match(
      err.message,
      /"kubecache-no-such-plugin": command not found\nInstall it from example.com/,
    );
  });
  await t.step(
    "interactiveMode Always is refused without running it",
    async () => {
      const auth = new ExecAuthenticator({
        ...p.exec,
        interactiveMode: "Always",
      });
      const err = await rejection(auth.credentials());
      assert.ok(err instanceof AuthError);
      assert.match(err.message, /interactiveMode is Always/);
      assert.equal(auth.runs, 0);
    },
  );
  await t.step("non-zero exit shows stderr", async () => {
    await Deno.writeTextFile(`${p.dir}/fail`, "");
    const err = await rejection(new ExecAuthenticator(p.exec).credentials());
    assert.ok(err instanceof AuthError);
    assert.match(err.message, /exited with code 3: plugin says no/);
    await Deno.remove(`${p.dir}/fail`);
  });
  await t.step("wrong apiVersion", async () => {
    p.setOutput(JSON.stringify({
      apiVersion: "client.authentication.k8s.io/v1alpha1",
      kind: "ExecCredential",
      status: { token: "secret-abc" },
    }));
    const err = await rejection(new ExecAuthenticator(p.exec).credentials());
    assert.ok(err instanceof AuthError);
    assert.match(
      err.message,
      /expected kind ExecCredential and apiVersion client.authentication.k8s.io\/v1/,
    );
    assert.ok(!err.message.includes("secret-abc"));
  });
  await t.step("output that is not JSON is not echoed", async () => {
    p.setOutput("token: secret-xyz");
    const err = await rejection(new ExecAuthenticator(p.exec).credentials());
    assert.ok(err instanceof AuthError);
    assert.match(err.message, /not JSON/);
    assert.ok(!err.message.includes("secret-xyz"));
  });
  await t.step("no token and no certificate", async () => {
    p.setOutput(JSON.stringify({
      apiVersion: p.exec.apiVersion,
      kind: "ExecCredential",
      status: {},
    }));
    const err = await rejection(new ExecAuthenticator(p.exec).credentials());
    assert.match(
      (err as Error).message,
      /neither a token nor a client certificate/,
    );
  });
  await t.step("bad expirationTimestamp", async () => {
    p.setOutput(JSON.stringify({
      apiVersion: p.exec.apiVersion,
      kind: "ExecCredential",
      status: { token: "secret-1", expirationTimestamp: "tomorrow" },
    }));
    const err = await rejection(new ExecAuthenticator(p.exec).credentials());
    assert.match((err as Error).message, /not an RFC 3339 time: "tomorrow"/);
    assert.ok(!(err as Error).message.includes("secret-1"));
  });
});

Deno.test("TokenFileAuthenticator re-reads the file when it changes, and after a 401", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubecache-token-" });
  try {
    const path = `${dir}/token`;
    await Deno.writeTextFile(path, "first\n");
    const auth = new TokenFileAuthenticator(path, { onWarning: () => {} });
    assert.equal((await auth.credentials()).authorization, "Bearer first");
    await Deno.writeTextFile(path, "second-token\n");
    assert.equal(
      (await auth.credentials()).authorization,
      "Bearer second-token",
    );
    // Same size, same mtime: only a 401 makes it read the file again.
    const { mtime } = await Deno.stat(path);
    await Deno.writeTextFile(path, "third-token!\n");
    await Deno.utime(path, mtime!, mtime!);
    assert.equal(
      (await auth.credentials()).authorization,
      "Bearer second-token",
    );
    auth.unauthorized();
    assert.equal(
      (await auth.credentials()).authorization,
      "Bearer third-token!",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("TokenFileAuthenticator keeps the last token while the file cannot be re-read, and warns once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubecache-token-" });
  try {
    const path = `${dir}/token`;
    const warnings: string[] = [];
    const auth = new TokenFileAuthenticator(path, {
      onWarning: (m) => warnings.push(m),
    });
    const bearer = async () => (await auth.credentials()).authorization;
    await Deno.writeTextFile(path, "B\n");
    assert.equal(await bearer(), "Bearer B");
    // A rotation that writes blanks first, then removes the file.
    await Deno.writeTextFile(path, "   \n");
    assert.equal(await bearer(), "Bearer B");
    assert.equal(await bearer(), "Bearer B");
    await Deno.remove(path);
    assert.equal(await bearer(), "Bearer B");
    auth.unauthorized(); // a 401 re-reads; still nothing to read
    assert.equal(await bearer(), "Bearer B");
    assert.equal(warnings.length, 1, warnings.join("\n"));
    assert.match(warnings[0], /Cannot use token file .*: it is empty/);
    assert.match(warnings[0], /using the token read before/);
    // The next version of the file is used as soon as it exists.
    await Deno.writeTextFile(path, "C\n");
    assert.equal(await bearer(), "Bearer C");
    // A new failure after a good read warns again, once.
    await Deno.remove(path);
    assert.equal(await bearer(), "Bearer C");
    assert.equal(await bearer(), "Bearer C");
    assert.equal(warnings.length, 2);
    assert.match(warnings[1], /Cannot read token file .*token: /);
    assert.ok(!warnings.join("").includes("Bearer"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("TokenFileAuthenticator fails while no token was ever read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubecache-token-" });
  try {
    const path = `${dir}/token`;
    const auth = new TokenFileAuthenticator(path, { onWarning: () => {} });
    await assert.rejects(auth.credentials(), (e) => {
      assert.ok(e instanceof AuthError);
      assert.match(e.message, /^Cannot read token file .*token: /);
      return true;
    });
    await Deno.writeTextFile(path, "\n");
    await assert.rejects(auth.credentials(), /it is empty/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("newAuthenticator() picks token, basic auth or nothing from the config", async () => {
  const token = newAuthenticator(
    KubeConfig.fromOptions({ server: "https://h", token: "abc" }),
  );
  assert.deepEqual(await token.credentials(), { authorization: "Bearer abc" });
  const basic = newAuthenticator(
    KubeConfig.fromOptions({
      server: "https://h",
      username: "ü",
      password: "p:w",
    }),
  );
  const header = (await basic.credentials()).authorization!;
  const decoded = new TextDecoder().decode(
    Uint8Array.from(atob(header.slice(6)), (c) => c.charCodeAt(0)),
  );
  assert.equal(decoded, "ü:p:w");
  const none = newAuthenticator(
    KubeConfig.fromOptions({ server: "https://h" }),
  );
  assert.deepEqual(await none.credentials(), {});
});

// ---- TLS ----

Deno.test("KubeClient verifies the server with the configured CA", async () => {
  await using pki = await makePki();
  await using server = await FakeApiServer.start({
    tls: { cert: pki.serverCert, key: pki.serverKey },
  });
  assert.ok(server.url.startsWith("https://"));
  server.create(ConfigMaps, {
    metadata: { name: "tls", namespace: "default" },
  });
  await using trusted = new KubeClient(
    KubeConfig.fromOptions({ server: server.url, caData: pki.ca }),
  );
  const list = await trusted.list(ConfigMaps, { namespace: "default" });
  assert.deepEqual(list.items.map((o: KubeObject) => o.metadata.name), ["tls"]);
  // The same CA, base64 as in kubeconfig certificate-authority-data.
  const yaml = [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: c`,
    `  cluster: {server: "${server.url}", certificate-authority-data: ${
      btoa(pki.ca)
    }}`,
    "contexts: [{name: x, context: {cluster: c, user: u}}]",
    "users: [{name: u, user: {}}]",
    "current-context: x",
  ].join("\n");
  await using fromKubeconfig = new KubeClient(KubeConfig.fromYaml(yaml));
  await fromKubeconfig.list(ConfigMaps);
  // Without the CA the handshake fails: a transport error, not a StatusError.
  await using untrusted = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  const err = await rejection(untrusted.list(ConfigMaps));
  assert.ok(err instanceof TypeError, String(err));
});

/** An openssl s_server that requires a client certificate from the CA and serves files of `root`. */
async function mtlsServer(
  pki: Awaited<ReturnType<typeof makePki>>,
  root: string,
) {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const child = new Deno.Command("openssl", {
    args: [
      "s_server",
      "-accept",
      `127.0.0.1:${port}`,
      "-cert",
      `${pki.dir}/server.crt`,
      "-key",
      `${pki.dir}/server.key`,
      "-CAfile",
      `${pki.dir}/ca.crt`,
      "-Verify",
      "1",
      "-verify_return_error",
      "-WWW",
    ],
    cwd: root,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  // s_server prints ACCEPT once it listens.
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { ended } = await readTextUntil(reader, (t) => t.includes("ACCEPT"));
  if (ended) throw new Error("openssl s_server exited before listening");
  return {
    url: `https://127.0.0.1:${port}`,
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await reader.cancel();
      await child.status;
    },
  };
}

Deno.test("KubeClient presents the client certificate (and one issued by an exec plugin)", async () => {
  await using pki = await makePki();
  const root = `${pki.dir}/www`;
  await Deno.mkdir(`${root}/api/v1/namespaces/default/configmaps`, {
    recursive: true,
  });
  await Deno.writeTextFile(
    `${root}/api/v1/namespaces/default/configmaps/hello`,
    JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "hello" },
    }),
  );
  await using server = await mtlsServer(pki, root);

  await using withCert = new KubeClient(KubeConfig.fromOptions({
    server: server.url,
    caData: pki.ca,
    certData: pki.clientCert,
    keyData: pki.clientKey,
  }));
  const obj = await withCert.get(ConfigMaps, "hello", { namespace: "default" });
  assert.equal(obj.metadata.name, "hello");

  await using withoutCert = new KubeClient(
    KubeConfig.fromOptions({ server: server.url, caData: pki.ca }),
  );
  const err = await rejection(withoutCert.get(ConfigMaps, "hello"));
  assert.ok(err instanceof TypeError, String(err));

  await using p = await plugin();
  p.setOutput(JSON.stringify({
    apiVersion: p.exec.apiVersion,
    kind: "ExecCredential",
    status: {
      clientCertificateData: pki.clientCert,
      clientKeyData: pki.clientKey,
    },
  }));
  await using viaExec = new KubeClient(
    KubeConfig.fromOptions({
      server: server.url,
      caData: pki.ca,
      exec: p.exec,
    }),
  );
  const again = await viaExec.get(ConfigMaps, "hello", {
    namespace: "default",
  });
  assert.equal(again.metadata.name, "hello");
  assert.equal(p.runs(), 1);
});
