/**
 * kubectl, the independent judge of the protocol, against FakeApiServer:
 * get, get -o json, create -f, apply -f, delete and get -w. Skipped when
 * kubectl is not installed.
 */

import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { ConfigMaps } from "../api/resources.ts";

async function hasKubectl(): Promise<boolean> {
  try {
    const out = await new Deno.Command("kubectl", {
      args: ["version", "--client"],
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

const ignore = !(await hasKubectl());

/** A server, a kubeconfig pointing at it, and a kubectl runner. */
async function setup() {
  const server = await FakeApiServer.start();
  const dir = await Deno.makeTempDir({ prefix: "kubecache-kubectl-" });
  const kubeconfig = `${dir}/config`;
  await Deno.writeTextFile(
    kubeconfig,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      `- name: fake\n  cluster:\n    server: ${server.url}`,
      "users:",
      "- name: me\n  user: {}",
      "contexts:",
      "- name: fake\n  context:\n    cluster: fake\n    user: me\n    namespace: default",
      "current-context: fake",
      "",
    ].join("\n"),
  );
  const opts = (args: string[]) => ({
    args: [`--cache-dir=${dir}/cache`, ...args],
    env: { KUBECONFIG: kubeconfig },
  });
  const kubectl = async (...args: string[]) => {
    const out = await new Deno.Command("kubectl", opts(args)).output();
    return {
      code: out.code,
      stdout: new TextDecoder().decode(out.stdout),
      stderr: new TextDecoder().decode(out.stderr),
    };
  };
  const spawn = (...args: string[]) =>
    new Deno.Command("kubectl", {
      ...opts(args),
      stdout: "piped",
      stderr: "null",
    }).spawn();
  return {
    server,
    dir,
    kubectl,
    spawn,
    async [Symbol.asyncDispose]() {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const MANIFEST = (value: string) =>
  [
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    "  name: web",
    "  labels:",
    "    app: web",
    "data:",
    `  key: ${value}`,
    "",
  ].join("\n");

Deno.test({
  name:
    "kubectl get, get -o json, create -f, apply -f and delete work against FakeApiServer",
  ignore,
  async fn() {
    await using env = await setup();
    const { server, kubectl, dir } = env;
    server.create(ConfigMaps, { metadata: { name: "first" } });

    const get = await kubectl("get", "configmaps");
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stdout, /^NAME\s+CREATED AT\nfirst\s+\S+\n$/);

    const json = await kubectl("get", "cm", "-o", "json");
    assert.equal(json.code, 0, json.stderr);
    const list = JSON.parse(json.stdout);
    assert.deepEqual(
      list.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["first"],
    );
    assert.equal(list.items[0].kind, "ConfigMap");

    const file = `${dir}/cm.yaml`;
    await Deno.writeTextFile(file, MANIFEST("one"));
    const created = await kubectl("create", "-f", file);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout.trim(), "configmap/web created");
    assert.equal(
      server.get(ConfigMaps, "default", "web")?.metadata.labels?.app,
      "web",
    );

    await Deno.writeTextFile(file, MANIFEST("two"));
    const applied = await kubectl("apply", "-f", file);
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(applied.stdout.trim(), "configmap/web configured");
    const web = server.get(ConfigMaps, "default", "web") as unknown as {
      data: Record<string, string>;
      metadata: { annotations: Record<string, string> };
    };
    assert.deepEqual(web.data, { key: "two" });
    assert.ok(
      web.metadata.annotations[
        "kubectl.kubernetes.io/last-applied-configuration"
      ],
    );

    await Deno.writeTextFile(file, MANIFEST("three"));
    const again = await kubectl("apply", "-f", file);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(
      (server.get(ConfigMaps, "default", "web") as unknown as {
        data: Record<string, string>;
      }).data.key,
      "three",
    );
    const unchanged = await kubectl("apply", "-f", file);
    assert.equal(unchanged.stdout.trim(), "configmap/web unchanged");

    const deleted = await kubectl("delete", "configmap", "web");
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout.trim(), 'configmap "web" deleted');
    assert.equal(server.get(ConfigMaps, "default", "web"), undefined);

    const missing = await kubectl("get", "cm", "web");
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /NotFound.*configmaps "web" not found/);
  },
});

Deno.test({
  name: "kubectl get -w receives an event made after it started",
  ignore,
  async fn() {
    await using env = await setup();
    const { server, spawn } = env;
    server.create(ConfigMaps, { metadata: { name: "before" } });
    const child = spawn("get", "configmaps", "-w");
    const reader = child.stdout.pipeThrough(new TextDecoderStream())
      .getReader();
    let out = "";
    // Until a whole line starting with `name` has arrived.
    const readUntil = async (name: string) => {
      const line = new RegExp(`(^|\n)${name}[^\n]*\n`);
      while (!line.test(out)) {
        const { value, done } = await reader.read();
        if (done) break;
        out += value;
      }
    };
    try {
      await readUntil("before");
      // kubectl watches from its list's resourceVersion, so this event
      // reaches it even if its watch request is not open yet.
      server.create(ConfigMaps, { metadata: { name: "after" } });
      await readUntil("after");
    } finally {
      child.kill("SIGTERM");
      await reader.cancel();
      await child.status;
    }
    const lines = out.trim().split("\n");
    assert.match(lines[0], /^NAME\s+CREATED AT$/);
    assert.match(lines[1], /^before\s/);
    assert.match(lines[2], /^after\s/);
  },
});

Deno.test({
  name:
    "kubectl apply --server-side, scale and get all work against FakeApiServer",
  ignore,
  async fn() {
    await using env = await setup();
    const { server, kubectl, dir } = env;
    const { Deployments } = await import("../api/resources.ts");
    const file = `${dir}/deploy.yaml`;
    await Deno.writeTextFile(
      file,
      [
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata:",
        "  name: web",
        "spec:",
        "  replicas: 2",
        "  selector:",
        "    matchLabels: {app: web}",
        "  template:",
        "    metadata:",
        "      labels: {app: web}",
        "    spec:",
        "      containers:",
        "      - name: web",
        "        image: nginx",
        "",
      ].join("\n"),
    );
    const applied = await kubectl("apply", "--server-side", "-f", file);
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(
      applied.stdout.trim(),
      "deployment.apps/web serverside-applied",
    );
    const scaled = await kubectl("scale", "deployment", "web", "--replicas=5");
    assert.equal(scaled.code, 0, scaled.stderr);
    const d = server.get(Deployments, "default", "web") as unknown as {
      spec: { replicas: number };
      metadata: { generation: number };
    };
    assert.equal(d.spec.replicas, 5);
    assert.equal(d.metadata.generation, 2);
    const all = await kubectl("get", "all");
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /deployment\.apps\/web/);
  },
});
