/**
 * Deletion in FakeApiServer: namespaces (Terminating, /finalize), DELETE
 * collection, DeleteOptions (propagationPolicy, preconditions, dryRun) and
 * the built-in controllers (`controllers: true`, the default) that finish
 * what a bare apiserver leaves pending.
 */

import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { ConfigMaps, Namespaces } from "../api/resources.ts";
import { getJson, send } from "./_apiserver_test_util.ts";
import { eventually, nextTurn } from "./turns.ts";

const NS = "/api/v1/namespaces";

function owner(uid: string) {
  return [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid }];
}

Deno.test("controllers: false leaves a deleted namespace Terminating until /finalize, with its contents", async () => {
  await using server = await FakeApiServer.start({ controllers: false });
  // The control: the same steps on a server with its controllers, which
  // finish the deletion. Once it has, the bare server had as long to do
  // the same, so what it still holds shows it never would.
  await using control = await FakeApiServer.start();
  for (const s of [server, control]) {
    await send(s, "POST", NS, { metadata: { name: "t" } });
    s.create(ConfigMaps, { metadata: { name: "in", namespace: "t" } });
  }
  const del = await getJson(server, `${NS}/t`, { method: "DELETE" });
  await getJson(control, `${NS}/t`, { method: "DELETE" });
  assert.equal(del.status, 200);
  assert.equal((del.body.status as { phase: string }).phase, "Terminating");
  assert.deepEqual((del.body.spec as { finalizers: string[] }).finalizers, [
    "kubernetes",
  ]);
  await eventually(
    () => control.get(Namespaces, "", "t") === undefined,
    "the control server to finish deleting the namespace",
  );
  assert.ok(server.get(Namespaces, "", "t"));
  assert.equal(server.list(ConfigMaps, "t").length, 1);
  const ns = server.get(Namespaces, "", "t")!;
  const fin = await send(server, "PUT", `${NS}/t/finalize`, {
    ...ns,
    spec: { finalizers: [] },
  });
  assert.equal(fin.status, 200);
  assert.deepEqual(fin.body.spec, {});
  assert.equal(server.get(Namespaces, "", "t"), undefined);
});

Deno.test("controllers (default): a deleted namespace's objects go, then the namespace", async () => {
  await using server = await FakeApiServer.start();
  await send(server, "POST", NS, { metadata: { name: "t" } });
  server.create(ConfigMaps, { metadata: { name: "a", namespace: "t" } });
  server.create(ConfigMaps, {
    metadata: { name: "held", namespace: "t", finalizers: ["x/y"] },
  });
  const del = await getJson(server, `${NS}/t`, { method: "DELETE" });
  assert.equal((del.body.status as { phase: string }).phase, "Terminating");
  await eventually(
    () => server.get(ConfigMaps, "t", "a") === undefined,
    "the namespace controller to delete its objects",
  );
  // The finalizer-held object keeps the namespace.
  assert.deepEqual(server.list(ConfigMaps, "t").map((c) => c.metadata.name), [
    "held",
  ]);
  assert.ok(server.get(Namespaces, "", "t"));
  const held = server.get(ConfigMaps, "t", "held")!;
  server.update(ConfigMaps, {
    ...held,
    metadata: { ...held.metadata, finalizers: [] },
  });
  await eventually(
    () => server.get(Namespaces, "", "t") === undefined,
    "the namespace to go once its last object is gone",
  );
});

Deno.test("controllers: the garbage collector deletes dependents (Background), waits for them (Foreground), orphans them (Orphan)", async () => {
  await using server = await FakeApiServer.start();
  const CM = "/api/v1/namespaces/default/configmaps";
  const dependents = (uid: string) => {
    server.create(ConfigMaps, {
      metadata: { name: "d1", ownerReferences: owner(uid) },
    });
    server.create(ConfigMaps, {
      metadata: { name: "d2", ownerReferences: owner(uid) },
    });
  };
  const names = () =>
    server.list(ConfigMaps, "default").map((c) => c.metadata.name);

  let o = server.create(ConfigMaps, { metadata: { name: "owner" } });
  dependents(o.metadata.uid!);
  await getJson(server, `${CM}/owner`, { method: "DELETE" });
  await nextTurn();
  assert.deepEqual(names(), []);

  o = server.create(ConfigMaps, { metadata: { name: "owner" } });
  dependents(o.metadata.uid!);
  const fg = await send(server, "DELETE", `${CM}/owner`, {
    propagationPolicy: "Foreground",
  });
  assert.deepEqual(
    (fg.body.metadata as { finalizers: string[] }).finalizers,
    ["foregroundDeletion"],
  );
  await nextTurn();
  assert.deepEqual(names(), []);

  o = server.create(ConfigMaps, { metadata: { name: "owner" } });
  dependents(o.metadata.uid!);
  await getJson(server, `${CM}/owner?propagationPolicy=Orphan`, {
    method: "DELETE",
  });
  await nextTurn();
  assert.deepEqual(names(), ["d1", "d2"]);
  assert.equal(
    server.get(ConfigMaps, "default", "d1")!.metadata.ownerReferences,
    undefined,
  );
});

Deno.test("DELETE collection answers the deleted objects as they were; dryRun=All stores nothing", async () => {
  await using server = await FakeApiServer.start({ controllers: false });
  const CM = "/api/v1/namespaces/default/configmaps";
  const a = server.create(ConfigMaps, {
    metadata: { name: "a", labels: { g: "x" } },
  });
  server.create(ConfigMaps, { metadata: { name: "b" } });
  const del = await getJson(server, `${CM}?labelSelector=g%3Dx`, {
    method: "DELETE",
  });
  const items = del.body.items as { metadata: { resourceVersion: string } }[];
  assert.deepEqual(items.map((i) => i.metadata.resourceVersion), [
    a.metadata.resourceVersion,
  ]);
  const dry = await send(server, "POST", `${CM}?dryRun=All`, {
    metadata: { name: "dry" },
  });
  assert.equal(dry.status, 201);
  assert.equal(
    (dry.body.metadata as { resourceVersion?: string }).resourceVersion,
    undefined,
  );
  assert.equal(server.get(ConfigMaps, "default", "dry"), undefined);
  const dryDel = await getJson(server, `${CM}/b?dryRun=All`, {
    method: "DELETE",
  });
  assert.equal(dryDel.body.status, "Success");
  assert.ok(server.get(ConfigMaps, "default", "b"));
  const bogus = await getJson(server, `${CM}/b?dryRun=Bogus`, {
    method: "DELETE",
  });
  assert.equal(bogus.status, 422);
});
