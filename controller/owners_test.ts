// Owner references and finalizers on the FakeApiServer, whose garbage
// collector and deletion behave as kube-apiserver + kube-controller-manager
// do: the GC deletes what a deleted owner controls; an object with a
// finalizer stays, marked with deletionTimestamp, until it is removed.

import assert from "node:assert/strict";
import { ConfigMaps, Secrets } from "../api/resources.ts";
import type { ConfigMap, Secret } from "../api/types.ts";
import { deepCopy } from "../api/readonly.ts";
import { Manager } from "./manager.ts";
import {
  addFinalizer,
  AlreadyOwnedError,
  hasFinalizer,
  removeFinalizer,
  setControllerReference,
} from "./owners.ts";
import { createOrPatch } from "./create_or_patch.ts";
import { TestCluster } from "./_test_util.ts";

Deno.test("setControllerReference: the fake's garbage collector deletes the owned Secret with its ConfigMap", async () => {
  await using c = await TestCluster.start();
  const client = c.client();
  const owner = await client.create(ConfigMaps, {
    metadata: { name: "app", namespace: "default" },
  });
  const secret: Secret = { metadata: { name: "app-s", namespace: "default" } };
  setControllerReference(owner, secret);
  await client.create(Secrets, secret);
  const kept: Secret = { metadata: { name: "unowned", namespace: "default" } };
  await client.create(Secrets, kept);
  await client.delete(ConfigMaps, "app", { namespace: "default" });
  await c.until(
    () => c.server.get(Secrets, "default", "app-s") === undefined,
    "owned Secret collected",
  );
  assert.ok(c.server.get(Secrets, "default", "unowned"), "unowned Secret kept");
});

Deno.test("setControllerReference refreshes its own reference, keeps others, refuses a second controller and cross-namespace owners", () => {
  const owner = (name: string, uid: string, ns = "default") => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: ns, uid },
  });
  const obj: Secret = {
    metadata: {
      name: "s",
      namespace: "default",
      ownerReferences: [{
        apiVersion: "apps/v1",
        kind: "Deployment",
        name: "d",
        uid: "d1",
      }],
    },
  };
  setControllerReference(owner("a", "u1"), obj);
  setControllerReference(owner("a", "u2"), obj); // same owner re-created
  assert.deepEqual(obj.metadata.ownerReferences!.map((r) => [r.kind, r.uid]), [
    ["Deployment", "d1"],
    ["ConfigMap", "u2"],
  ]);
  assert.throws(
    () => setControllerReference(owner("b", "u3"), obj),
    AlreadyOwnedError,
  );
  assert.throws(
    () => setControllerReference(owner("a", "u1", "other"), deepCopy(obj)),
    /cross-namespace owner references are disallowed/,
  );
  assert.throws(
    () => setControllerReference(owner("a", "u1"), { metadata: { name: "n" } }),
    /cluster-scoped object n cannot have a namespace-scoped owner/,
  );
  assert.throws(
    () =>
      setControllerReference({ metadata: { name: "x", uid: "1" } }, {
        metadata: { name: "n" },
      }),
    /owner.apiVersion must be set/,
  );
});

Deno.test("finalizer flow: add on first sight, clean up and remove when deleted; the server deletes the object then", async () => {
  await using c = await TestCluster.start();
  const client = c.client();
  const FINALIZER = "example.com/cleanup";
  c.server.create(ConfigMaps, {
    metadata: { name: "app", namespace: "default" },
  });
  await using manager = new Manager(client, { clock: c.clock });
  const lister = manager.factory.lister(ConfigMaps);
  const log: string[] = [];
  manager.controller("fin", ConfigMaps).complete(async (req, ctx) => {
    const cached = lister.namespaced(req.namespace!).get(req.name);
    if (!cached) return void log.push("gone");
    const cm = deepCopy(cached) as ConfigMap;
    if (cm.metadata.deletionTimestamp) {
      if (!hasFinalizer(cm, FINALIZER)) return;
      log.push("cleanup");
      removeFinalizer(cm, FINALIZER);
      await ctx.client.update(ConfigMaps, cm, { signal: ctx.signal });
      return;
    }
    if (addFinalizer(cm, FINALIZER)) {
      log.push("added");
      await ctx.client.update(ConfigMaps, cm, { signal: ctx.signal });
    }
  });
  const run = c.run(manager);
  await c.until(() => log.includes("added"), "finalizer added");
  assert.deepEqual(
    c.server.get(ConfigMaps, "default", "app")?.metadata.finalizers,
    [FINALIZER],
  );
  await client.delete(ConfigMaps, "app", { namespace: "default" });
  // Still there, marked for deletion, until the finalizer goes.
  await c.until(() => log.includes("gone"), "object gone after cleanup");
  assert.deepEqual(log, ["added", "cleanup", "gone"]);
  assert.equal(c.server.get(ConfigMaps, "default", "app"), undefined);
  await run.stop();
});

Deno.test("createOrPatch: created, then unchanged with no write, then patched with only the difference", async () => {
  await using c = await TestCluster.start();
  const client = c.client();
  let value = "1";
  const mutate = (cm: ConfigMap) => {
    cm.data = { ...cm.data, key: value };
  };
  const desired = (): ConfigMap => ({
    metadata: { name: "gen", namespace: "default" },
  });
  assert.equal(
    await createOrPatch(client, ConfigMaps, desired(), mutate),
    "created",
  );
  // Someone else adds a field: createOrPatch leaves it alone.
  const stored = deepCopy(c.server.get(ConfigMaps, "default", "gen")!);
  stored.data = { ...stored.data, theirs: "x" };
  c.server.update(ConfigMaps, stored);
  const writes = () =>
    c.server.requests.filter((r) => r.method !== "GET").map((r) => r.method);
  assert.equal(
    await createOrPatch(client, ConfigMaps, desired(), mutate),
    "unchanged",
  );
  assert.deepEqual(writes(), ["POST"]);
  value = "2";
  assert.equal(
    await createOrPatch(client, ConfigMaps, desired(), mutate),
    "patched",
  );
  assert.deepEqual(writes(), ["POST", "PATCH"]);
  assert.deepEqual(c.server.get(ConfigMaps, "default", "gen")!.data, {
    key: "2",
    theirs: "x",
  });
  await assert.rejects(
    createOrPatch(client, ConfigMaps, desired(), (cm) => {
      cm.metadata.name = "renamed";
    }),
    /must not change the name or namespace/,
  );
});
