/**
 * Pods in FakeApiServer as kube-apiserver treats them: defaulting on
 * create, graceful deletion (bound) and immediate deletion (unscheduled),
 * pods/binding, spec.nodeName immutability, field selectors with escapes.
 */

import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock } from "./fake_clock.ts";
import { Pods } from "../api/resources.ts";
import {
  getJson,
  itemNames,
  send,
  WatchReader,
} from "./_apiserver_test_util.ts";

const PODS = "/api/v1/namespaces/default/pods";

function pod(name: string, nodeName?: string) {
  return {
    metadata: { name },
    spec: { nodeName, containers: [{ name: "main", image: "busybox" }] },
  };
}

Deno.test("pods: create defaults status (Pending, qosClass) and spec", async () => {
  await using server = await FakeApiServer.start();
  const p = await send(server, "POST", PODS, pod("p"));
  assert.equal(p.status, 201);
  assert.deepEqual(p.body.status, { phase: "Pending", qosClass: "BestEffort" });
  const spec = p.body.spec as Record<string, unknown> & {
    containers: Record<string, unknown>[];
  };
  assert.equal(spec.terminationGracePeriodSeconds, 30);
  assert.equal(spec.containers[0].imagePullPolicy, "Always");
  const g = await send(server, "POST", PODS, {
    metadata: { name: "g" },
    spec: {
      containers: [{
        name: "m",
        image: "x:1",
        resources: { limits: { cpu: "1", memory: "1Gi" } },
      }],
    },
  });
  assert.equal((g.body.status as { qosClass: string }).qosClass, "Guaranteed");
});

Deno.test("pods: a bound pod is deleted gracefully, an unscheduled one at once with its deletion fields", async () => {
  const clock = new FakeClock(Date.now());
  await using server = await FakeApiServer.start({ clock });
  await send(server, "POST", PODS, pod("bound", "node-a"));
  const created = await send(server, "POST", PODS, pod("free"));
  const w = await WatchReader.open(
    server,
    `${PODS}?watch=true&resourceVersion=${
      (created.body.metadata as { resourceVersion: string }).resourceVersion
    }`,
  );
  const free = await getJson(server, `${PODS}/free`, { method: "DELETE" });
  const fm = free.body.metadata as Record<string, unknown>;
  assert.ok(fm.deletionTimestamp);
  assert.equal(fm.deletionGracePeriodSeconds, 0);
  assert.notEqual(
    fm.resourceVersion,
    (created.body.metadata as { resourceVersion: string }).resourceVersion,
  );
  assert.equal(server.get(Pods, "default", "free"), undefined);
  assert.deepEqual([(await w.next())!.type, (await w.next())!.type], [
    "MODIFIED",
    "DELETED",
  ]);

  const bound = await getJson(server, `${PODS}/bound`, { method: "DELETE" });
  assert.equal(bound.status, 200);
  const bm = bound.body.metadata as Record<string, unknown>;
  assert.equal(bm.deletionGracePeriodSeconds, 30);
  assert.ok(server.get(Pods, "default", "bound"));
  const again = await getJson(server, `${PODS}/bound`, { method: "DELETE" });
  assert.equal(
    (again.body.metadata as Record<string, unknown>).resourceVersion,
    bm.resourceVersion,
  );
  // The grace period passes on the server's clock (controllers on).
  await clock.step(30_000);
  assert.equal(server.get(Pods, "default", "bound"), undefined);

  await send(server, "POST", PODS, pod("now", "node-a"));
  await getJson(server, `${PODS}/now`, { method: "DELETE" });
  const zero = await getJson(server, `${PODS}/now?gracePeriodSeconds=0`, {
    method: "DELETE",
  });
  assert.equal(
    (zero.body.metadata as Record<string, unknown>).deletionGracePeriodSeconds,
    0,
  );
  assert.equal(server.get(Pods, "default", "now"), undefined);
  await w.cancel();
});

Deno.test("pods: binding sets nodeName and PodScheduled (201), 409 when bound; nodeName is immutable", async () => {
  await using server = await FakeApiServer.start();
  await send(server, "POST", PODS, pod("u1"));
  const bind = { target: { kind: "Node", name: "node-a" } };
  const b = await send(server, "POST", `${PODS}/u1/binding`, {
    metadata: { name: "u1" },
    ...bind,
  });
  assert.equal(b.status, 201);
  assert.deepEqual(b.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    code: 201,
  });
  const stored = server.get(Pods, "default", "u1")!;
  assert.equal(stored.spec?.nodeName, "node-a");
  const again = await send(server, "POST", `${PODS}/u1/binding`, bind);
  assert.equal(again.status, 409);
  assert.equal(
    again.body.message,
    'Operation cannot be fulfilled on pods/binding "u1": pod u1 is already assigned to node "node-a"',
  );
  const move = await send(server, "PATCH", `${PODS}/u1`, {
    spec: { nodeName: "node-b" },
  }, "application/merge-patch+json");
  assert.equal(move.status, 422);
});

Deno.test("pods: field selectors spec.nodeName and status.phase, escapes, unsupported fields", async () => {
  await using server = await FakeApiServer.start();
  await send(server, "POST", PODS, pod("a", "node-a"));
  await send(server, "POST", PODS, pod("b", "weird,=\\node"));
  await send(server, "POST", PODS, pod("c"));
  const sel = async (s: string) =>
    await getJson(server, `${PODS}?fieldSelector=${encodeURIComponent(s)}`);
  assert.deepEqual(itemNames((await sel("spec.nodeName=")).body), ["c"]);
  assert.deepEqual(
    itemNames((await sel("spec.nodeName!=,status.phase=Pending")).body),
    ["a", "b"],
  );
  assert.deepEqual(
    itemNames((await sel("spec.nodeName=weird\\,\\=\\\\node")).body),
    ["b"],
  );
  const bad = await sel("spec.nodeName=a\\b");
  assert.equal(bad.status, 400);
  const unknown = await sel("spec.containers.image=x");
  assert.equal(unknown.status, 400);
  assert.equal(
    unknown.body.message,
    "field label not supported: spec.containers.image",
  );
});
