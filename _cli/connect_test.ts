import assert from "node:assert/strict";
import { loadConfig } from "./connect.ts";
import { KubeConfigError } from "../client/config.ts";
import { kubeconfigFile } from "./_test_util.ts";

/** An environment with no KUBECONFIG and no ~/.kube/config. */
const NO_KUBECONFIG = { get: () => undefined, exists: () => false };

Deno.test("loadConfig() makes a config from --server alone when there is no kubeconfig", async () => {
  const { config, flagsOnly } = await loadConfig(
    { server: "http://127.0.0.1:8080", token: "t" },
    NO_KUBECONFIG,
  );
  assert.equal(flagsOnly, true);
  assert.equal(config.server, "http://127.0.0.1:8080");
  assert.equal(config.namespace, "default");
  assert.deepEqual(config.auth, { token: "t" });
  assert.equal(config.tls.insecureSkipTlsVerify, false);
});

Deno.test("loadConfig() lays the flags over the kubeconfig, as kubectl's overrides", async () => {
  const path = await kubeconfigFile(
    "https://10.0.0.1:6443",
    { name: "alice", token: "from-file" },
    {
      namespace: "shop",
      caData: "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n",
    },
  );
  const ca = await Deno.makeTempFile({ suffix: ".crt" });
  try {
    await Deno.writeTextFile(ca, "-----BEGIN CERTIFICATE-----\nca\n");
    const kept = await loadConfig({ kubeconfig: path, server: "https://x:1" });
    assert.equal(kept.flagsOnly, false);
    assert.equal(kept.config.server, "https://x:1");
    assert.equal(kept.config.namespace, "shop");
    assert.equal(kept.config.auth.token, "from-file");
    assert.match(kept.config.tls.caData ?? "", /\nx\n/);

    const over = await loadConfig({
      kubeconfig: path,
      token: "from-flag",
      certificateAuthority: ca,
    });
    assert.equal(over.config.server, "https://10.0.0.1:6443");
    assert.deepEqual(over.config.auth, { token: "from-flag" });
    assert.equal(over.config.tls.caData, "-----BEGIN CERTIFICATE-----\nca\n");

    // --insecure-skip-tls-verify drops the kubeconfig's CA (they conflict).
    const insecure = await loadConfig({
      kubeconfig: path,
      insecureSkipTlsVerify: true,
    });
    assert.equal(insecure.config.tls.insecureSkipTlsVerify, true);
    assert.equal(insecure.config.tls.caData, undefined);
  } finally {
    await Deno.remove(path);
    await Deno.remove(ca);
  }
});

Deno.test("loadConfig() names a CA file it cannot read", async () => {
  await assert.rejects(
    loadConfig(
      { server: "https://x:1", certificateAuthority: "/nonexistent/ca.crt" },
      NO_KUBECONFIG,
    ),
    (e) =>
      e instanceof KubeConfigError &&
      e.message.startsWith(
        "Cannot read certificate authority file /nonexistent/ca.crt:",
      ),
  );
});

Deno.test("loadConfig() keeps the kubeconfig's impersonation and proxy-url, and --as replaces the impersonation", async () => {
  const path = await Deno.makeTempFile({ suffix: ".yaml" });
  try {
    await Deno.writeTextFile(
      path,
      `current-context: c
clusters: [{name: c, cluster: {server: "https://10.0.0.1:6443", proxy-url: "http://127.0.0.1:3128"}}]
users: [{name: u, user: {token: t, as: from-file, as-groups: [g0]}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
`,
    );
    const kept = await loadConfig({ kubeconfig: path });
    assert.deepEqual(kept.config.impersonate, {
      user: "from-file",
      groups: ["g0"],
    });
    assert.equal(kept.config.proxyUrl, "http://127.0.0.1:3128");
    const over = await loadConfig({
      kubeconfig: path,
      as: "jane",
      asGroups: ["dev", "ops"],
    });
    assert.deepEqual(over.config.impersonate, {
      user: "jane",
      groups: ["dev", "ops"],
    });
  } finally {
    await Deno.remove(path);
  }
});
