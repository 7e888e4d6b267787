/**
 * kubectl, the independent judge of the protocol, against FakeApiServer:
 * get, get -o json, create -f, apply -f, delete and get -w. Skipped when
 * kubectl is not installed.
 */

import assert from "node:assert/strict";
import { FakeApiServer, type FakeApiServerOptions } from "./fake_api_server.ts";
import { FakeClock } from "./fake_clock.ts";
import { completedJob, widgetCrd } from "./_apiserver_test_util.ts";
import {
  ConfigMaps,
  CronJobs,
  CustomResourceDefinitions,
  Deployments,
  Events,
  Jobs,
  Leases,
  Namespaces,
  Nodes,
  Pods,
  resourceType,
} from "../api/resources.ts";
import type { CronJob } from "../api/types.ts";

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
async function setup(serverOpts: FakeApiServerOptions = {}) {
  const server = await FakeApiServer.start(serverOpts);
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
    assert.match(get.stdout, /^NAME\s+DATA\s+AGE\nfirst\s+0\s+\d+s\n$/);

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
    assert.match(lines[0], /^NAME\s+DATA\s+AGE$/);
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

Deno.test({
  name:
    "kubectl get prints kubectl's real columns from FakeApiServer's Tables (pods, nodes -o wide, deployments)",
  ignore,
  async fn() {
    await using env = await setup();
    const { server, kubectl } = env;
    server.create(Pods, {
      metadata: { name: "web-1" },
      spec: { nodeName: "node-a", containers: [{ name: "c", image: "x" }] },
      status: {
        phase: "Running",
        podIP: "10.0.0.7",
        containerStatuses: [{
          name: "c",
          ready: true,
          restartCount: 2,
          state: { running: { startedAt: "2025-01-01T00:00:00Z" } },
        }],
      },
    } as never);
    const pods = await kubectl("get", "pods");
    assert.equal(pods.code, 0, pods.stderr);
    assert.match(
      pods.stdout,
      /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nweb-1\s+1\/1\s+Running\s+2\s+\d+s\n$/,
    );
    const wide = await kubectl("get", "pods", "-o", "wide");
    assert.match(
      wide.stdout,
      /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\nweb-1\s+1\/1\s+Running\s+2\s+\d+s\s+10\.0\.0\.7\s+node-a\s+<none>\s+<none>\n$/,
    );

    server.create(Nodes, {
      metadata: { name: "node-a" },
      status: {
        conditions: [{ type: "Ready", status: "True" }],
        addresses: [{ type: "InternalIP", address: "192.168.0.2" }],
        nodeInfo: {
          kubeletVersion: "v1.32.0",
          osImage: "Debian",
          kernelVersion: "6.1.0",
          containerRuntimeVersion: "containerd://1.7.0",
        },
      },
    } as never);
    const nodes = await kubectl("get", "nodes", "-o", "wide");
    assert.equal(nodes.code, 0, nodes.stderr);
    assert.match(
      nodes.stdout,
      /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME\nnode-a\s+Ready\s+<none>\s+\d+s\s+v1\.32\.0\s+192\.168\.0\.2\s+<none>\s+Debian\s+6\.1\.0\s+containerd:\/\/1\.7\.0\n$/,
    );

    server.create(Deployments, {
      metadata: { name: "web" },
      spec: { replicas: 3 },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    } as never);
    const deploys = await kubectl("get", "deployments");
    assert.match(
      deploys.stdout,
      /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nweb\s+2\/3\s+3\s+2\s+\d+s\n$/,
    );
  },
});

Deno.test({
  name:
    "kubectl apply of a CRD, then kubectl get widgets with its printer columns",
  ignore,
  async fn() {
    await using env = await setup();
    const { kubectl, dir } = env;
    const crd = `${dir}/crd.yaml`;
    await Deno.writeTextFile(
      crd,
      [
        "apiVersion: apiextensions.k8s.io/v1",
        "kind: CustomResourceDefinition",
        "metadata:",
        "  name: widgets.example.test",
        "spec:",
        "  group: example.test",
        "  names: {kind: Widget, plural: widgets, singular: widget, shortNames: [wd]}",
        "  scope: Namespaced",
        "  versions:",
        "  - name: v1",
        "    served: true",
        "    storage: true",
        "    schema:",
        "      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}",
        "    additionalPrinterColumns:",
        "    - {name: Size, type: integer, jsonPath: .spec.size}",
        "    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}",
        "",
      ].join("\n"),
    );
    const applied = await kubectl("apply", "-f", crd);
    assert.equal(applied.code, 0, applied.stderr);
    const widget = `${dir}/w.yaml`;
    await Deno.writeTextFile(
      widget,
      "apiVersion: example.test/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3}\n",
    );
    const created = await kubectl("apply", "-f", widget);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout.trim(), "widget.example.test/w1 created");
    const got = await kubectl("get", "widgets");
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /^NAME\s+SIZE\s+AGE\nw1\s+3\s+\d+s\n$/);
    const short = await kubectl(
      "get",
      "wd",
      "w1",
      "-o",
      "jsonpath={.spec.size}",
    );
    assert.equal(short.stdout, "3");
  },
});

Deno.test({
  name:
    "kubectl delete namespace: Terminating, its objects deleted, then gone (controllers on)",
  ignore,
  async fn() {
    await using env = await setup();
    const { server, kubectl } = env;
    // (kubectl create namespace sends protobuf, which the fake does not speak.)
    server.create(Namespaces, { metadata: { name: "team" } });
    server.create(ConfigMaps, { metadata: { name: "c", namespace: "team" } });
    // kubectl waits until the namespace is gone (--wait defaults to true).
    const del = await kubectl("delete", "namespace", "team", "--timeout=20s");
    assert.equal(del.code, 0, del.stderr);
    assert.equal(del.stdout.trim(), 'namespace "team" deleted');
    assert.equal(server.get(Namespaces, "", "team"), undefined);
    assert.deepEqual(server.list(ConfigMaps, "team"), []);
  },
});

Deno.test({
  name:
    "kubectl apply --server-side: field ownership, a conflict between managers, --force-conflicts",
  ignore,
  async fn() {
    await using env = await setup();
    const { server, kubectl, dir } = env;
    const file = `${dir}/cm.yaml`;
    await Deno.writeTextFile(file, MANIFEST("one"));
    const first = await kubectl(
      "apply",
      "--server-side",
      "--field-manager=alice",
      "-f",
      file,
    );
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout.trim(), "configmap/web serverside-applied");
    await Deno.writeTextFile(file, MANIFEST("two"));
    const clash = await kubectl(
      "apply",
      "--server-side",
      "--field-manager=bob",
      "-f",
      file,
    );
    assert.equal(clash.code, 1);
    assert.match(clash.stderr, /conflict with "alice": \.data\.key/);
    assert.deepEqual(
      (server.get(ConfigMaps, "default", "web") as { data?: unknown }).data,
      { key: "one" },
    );
    const forced = await kubectl(
      "apply",
      "--server-side",
      "--field-manager=bob",
      "--force-conflicts",
      "-f",
      file,
    );
    assert.equal(forced.code, 0, forced.stderr);
    const web = server.get(ConfigMaps, "default", "web")!;
    assert.deepEqual((web as { data?: unknown }).data, { key: "two" });
    const managers = (web.metadata.managedFields as { manager: string }[])
      .map((m) => m.manager);
    assert.ok(managers.includes("bob"), managers.join());
  },
});

Deno.test({
  name:
    "kubectl get leases,jobs,cronjobs,events prints kubectl's real columns from FakeApiServer's Tables",
  ignore,
  async fn() {
    const start = Date.UTC(2025, 0, 1);
    const clock = new FakeClock(start);
    await using env = await setup({ clock });
    const { server, kubectl } = env;
    const at = (s: number) =>
      new Date(start + s * 1000).toISOString().replace(".000Z", "Z");
    server.create(Leases, {
      metadata: { name: "leader" },
      spec: { holderIdentity: "node-a_1" },
    });
    server.create(
      Jobs,
      completedJob("migrate", 1, [at(0), at(42)], {
        template: { spec: { containers: [{ name: "m", image: "tool" }] } },
      }),
    );
    server.create(CronJobs, {
      metadata: { name: "nightly" },
      spec: { schedule: "0 3 * * *", suspend: true } as CronJob["spec"],
      status: { lastScheduleTime: at(60) },
    });
    server.create(Events, {
      metadata: { name: "web.1" },
      involvedObject: { kind: "Pod", name: "web" },
      reason: "Pulled",
      message: "Container image pulled",
      type: "Normal",
      count: 2,
      firstTimestamp: at(30),
      lastTimestamp: at(90),
      source: { component: "kubelet", host: "node-a" },
    });
    await clock.step(180_000);

    const all = await kubectl("get", "leases,jobs,cronjobs,events");
    assert.equal(all.code, 0, all.stderr);
    assert.equal(
      all.stdout,
      [
        "NAME                               HOLDER     AGE",
        "lease.coordination.k8s.io/leader   node-a_1   3m",
        "",
        "NAME                STATUS     COMPLETIONS   DURATION   AGE",
        "job.batch/migrate   Complete   1/1           42s        3m",
        "",
        "NAME                    SCHEDULE    TIMEZONE   SUSPEND   ACTIVE   LAST SCHEDULE   AGE",
        "cronjob.batch/nightly   0 3 * * *   <none>     True      0        2m              3m",
        "",
        "LAST SEEN   TYPE     REASON   OBJECT    MESSAGE",
        "90s         Normal   Pulled   pod/web   Container image pulled",
        "",
      ].join("\n"),
    );
    const wide = await kubectl("get", "events", "-o", "wide");
    assert.equal(wide.code, 0, wide.stderr);
    assert.match(
      wide.stdout,
      /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+SUBOBJECT\s+SOURCE\s+MESSAGE\s+FIRST SEEN\s+COUNT\s+NAME\n90s\s+Normal\s+Pulled\s+pod\/web\s+kubelet, node-a\s+Container image pulled\s+2m30s\s+2\s+web\.1\n$/,
    );
  },
});

Deno.test({
  name:
    "kubectl get events --field-selector source=X matches source.component, else reportingComponent, as kube-apiserver does",
  ignore,
  async fn() {
    await using env = await setup();
    const { server, kubectl } = env;
    const event = (name: string, more: Record<string, unknown>) =>
      server.create(Events, {
        metadata: { name },
        involvedObject: { kind: "ConfigMap", name: "cfg" },
        reason: "Labelled",
        type: "Normal",
        ...more,
      });
    event("legacy", { source: { component: "labeller" } });
    event("new", { reportingComponent: "labeller" });
    event("other", { source: { component: "kubelet", host: "node-a" } });
    const names = async (selector: string) => {
      const out = await kubectl(
        "get",
        "events",
        "--field-selector",
        selector,
        "-o",
        "name",
      );
      assert.equal(out.code, 0, out.stderr);
      return out.stdout.trim().split("\n").filter((l) => l !== "");
    };
    assert.deepEqual(await names("source=labeller"), [
      "event/legacy",
      "event/new",
    ]);
    assert.deepEqual(await names("source=kubelet"), ["event/other"]);
    assert.deepEqual(await names("source!=labeller"), ["event/other"]);
    assert.deepEqual(await names("reportingComponent=labeller"), [
      "event/new",
    ]);
  },
});

Deno.test({
  name:
    "kubectl apply of a status is ignored on a CRD with the status subresource; kubectl patch --subresource=status sets it",
  ignore,
  async fn() {
    await using env = await setup();
    const { server, kubectl, dir } = env;
    const crd = widgetCrd() as unknown as {
      spec: { versions: Record<string, unknown>[] };
    };
    crd.spec.versions[0].subresources = { status: {} };
    server.create(CustomResourceDefinitions, crd as never);
    const file = `${dir}/w.yaml`;
    const manifest = (size: number, ready: boolean) =>
      JSON.stringify({
        apiVersion: "example.test/v1",
        kind: "Widget",
        metadata: { name: "w", namespace: "default" },
        spec: { size },
        status: { ready },
      });
    const Widgets = resourceType({
      apiVersion: "example.test/v1",
      kind: "Widget",
      resource: "widgets",
      namespaced: true,
    });
    const stored = () =>
      server.get(Widgets, "default", "w") as unknown as {
        spec: { size: number };
        status?: { ready: boolean };
      };

    await Deno.writeTextFile(file, manifest(1, true));
    const created = await kubectl("apply", "-f", file);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(stored().status, undefined);

    const patched = await kubectl(
      "patch",
      "widgets",
      "w",
      "--subresource=status",
      "--type=merge",
      "-p",
      '{"status":{"ready":true},"spec":{"size":7}}',
    );
    assert.equal(patched.code, 0, patched.stderr);
    assert.deepEqual(stored().status, { ready: true });
    assert.equal(stored().spec.size, 1);

    await Deno.writeTextFile(file, manifest(2, false));
    const applied = await kubectl("apply", "-f", file);
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(stored().spec.size, 2);
    assert.deepEqual(stored().status, { ready: true });

    const ssa = await kubectl("apply", "--server-side", "-f", file);
    assert.equal(ssa.code, 0, ssa.stderr);
    assert.deepEqual(stored().status, { ready: true });

    const plain = await kubectl(
      "patch",
      "widgets",
      "w",
      "--type=merge",
      "-p",
      '{"status":{"ready":false}}',
    );
    assert.equal(plain.code, 0, plain.stderr);
    assert.deepEqual(stored().status, { ready: true });
  },
});

Deno.test({
  name:
    "kubectl explain reads FakeApiServer's /openapi/v3: a CRD's fields and a built-in's",
  ignore,
  async fn() {
    await using env = await setup();
    const crd = JSON.parse(
      await Deno.readTextFile(
        new URL("../examples/widget-crd.json", import.meta.url),
      ),
    );
    env.server.create(CustomResourceDefinitions, crd);
    const widgets = await env.kubectl("explain", "widgets.spec");
    assert.equal(widgets.code, 0, widgets.stderr);
    assert.match(widgets.stdout, /KIND:\s+Widget/);
    assert.match(widgets.stdout, /size\s+<string> -required-/);
    assert.match(widgets.stdout, /How big\./);
    const strategy = await env.kubectl("explain", "deployments.spec.strategy");
    assert.equal(strategy.code, 0, strategy.stderr);
    assert.match(strategy.stdout, /rollingUpdate\s+<RollingUpdateDeployment>/);
  },
});
