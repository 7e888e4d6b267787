/**
 * CustomResourceDefinitions on FakeApiServer: established at once, their
 * resource served (CRUD, selectors, Table with additionalPrinterColumns,
 * generation) over HTTP and through the direct state methods, and deleted
 * through Terminating. The recorded transcript (crd-lifecycle.json) is
 * replayed in fake_api_server_fixtures_test.ts.
 */

import assert from "node:assert/strict";
import { CustomResourceDefinitions, resourceType } from "../api/resources.ts";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock } from "./fake_clock.ts";
import { getJson, itemNames, send, widgetCrd } from "./_apiserver_test_util.ts";

const CRD = widgetCrd([
  { name: "Size", type: "integer", jsonPath: ".spec.size" },
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
]);
const Widgets = resourceType({
  apiVersion: "example.test/v1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
});
const W = "/apis/example.test/v1/namespaces/default/widgets";

Deno.test("FakeApiServer serves a CRD's resource as soon as it is created", async () => {
  const clock = new FakeClock(Date.UTC(2025, 0, 1));
  await using server = await FakeApiServer.start({ clock });
  const before = await fetch(server.url + W);
  assert.equal(before.status, 404);
  await before.body?.cancel();
  const created = await send(
    server,
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    CRD,
  );
  assert.equal(created.status, 201);
  const crd = server.get(
    CustomResourceDefinitions,
    "",
    CRD.metadata.name,
  ) as unknown as {
    status: { conditions: { type: string; status: string }[] };
  };
  assert.deepEqual(
    crd.status.conditions.map((c) => [c.type, c.status]),
    [["NamesAccepted", "True"], ["Established", "True"]],
  );
  const discovery = await getJson(server, "/apis/example.test/v1");
  const [res] = discovery.body.resources as Record<string, unknown>[];
  assert.equal(res.singularName, "widget");
  assert.equal(res.storageVersionHash, "zHyf2mNf1TY=");

  const w1 = await send(server, "POST", W, {
    apiVersion: "example.test/v1",
    kind: "Widget",
    metadata: { name: "w1", labels: { tier: "a" } },
    spec: { size: 1 },
  });
  assert.equal(w1.status, 201);
  assert.deepEqual(Object.keys(w1.body), [
    "apiVersion",
    "kind",
    "metadata",
    "spec",
  ]);
  server.create(
    Widgets,
    { metadata: { name: "w2" }, spec: { size: 2 } } as never,
  );
  const patched = await send(
    server,
    "PATCH",
    `${W}/w1`,
    { spec: { size: 3 } },
    "application/merge-patch+json",
  );
  assert.equal((patched.body.metadata as { generation: number }).generation, 2);
  const byLabel = await getJson(server, `${W}?labelSelector=tier%3Da`);
  assert.deepEqual(itemNames(byLabel.body), ["w1"]);
  const byName = await getJson(server, `${W}?fieldSelector=metadata.name%3Dw2`);
  assert.deepEqual(itemNames(byName.body), ["w2"]);
  assert.equal((byName.body.metadata as { continue: string }).continue, "");

  await clock.step(7_000);
  const table = await getJson(server, W, {
    headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
  });
  const t = table.body as {
    columnDefinitions: { name: string; type: string }[];
    rows: { cells: unknown[] }[];
  };
  assert.deepEqual(
    t.columnDefinitions.map((c) => [c.name, c.type]),
    [["Name", "string"], ["Size", "integer"], ["Age", "date"]],
  );
  assert.deepEqual(t.rows.map((r) => r.cells), [["w1", 3, "7s"], [
    "w2",
    2,
    "7s",
  ]]);
});

Deno.test("FakeApiServer deletes a CRD through Terminating, honouring its resources' finalizers", async () => {
  const clock = new FakeClock(Date.now());
  await using server = await FakeApiServer.start({ clock });
  server.create(CustomResourceDefinitions, CRD as never);
  server.create(Widgets, { metadata: { name: "a" } } as never);
  server.create(Widgets, {
    metadata: { name: "held", finalizers: ["example.test/hold"] },
  } as never);
  const watch = await fetch(
    `${server.url}${W}?watch=true&resourceVersion=${server.resourceVersion()}&timeoutSeconds=60`,
  );
  const del = await getJson(
    server,
    `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD.metadata.name}`,
    { method: "DELETE" },
  );
  assert.equal(del.status, 200);
  assert.deepEqual(
    (del.body.metadata as { finalizers: string[] }).finalizers,
    ["customresourcecleanup.apiextensions.k8s.io"],
  );
  assert.deepEqual(itemNames((await getJson(server, W)).body), ["held"]);
  const create = await send(server, "POST", W, { metadata: { name: "b" } });
  assert.equal(create.status, 405);
  const verbs = ((await getJson(server, "/apis/example.test/v1")).body
    .resources as { verbs: string[] }[])[0].verbs;
  assert.deepEqual(verbs, [
    "delete",
    "deletecollection",
    "get",
    "list",
    "watch",
  ]);

  const released = await send(
    server,
    "PATCH",
    `${W}/held`,
    { metadata: { finalizers: null } },
    "application/merge-patch+json",
  );
  assert.equal(released.status, 200);
  // The stream ends by itself, long before its 60 s timeout.
  const events = (await watch.text()).trim().split("\n").map((l) =>
    JSON.parse(l)
  );
  // In key order: a is deleted, held only marked until its finalizer goes.
  assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [
    ["DELETED", "a"],
    ["MODIFIED", "held"],
    ["DELETED", "held"],
  ]);
  assert.equal(
    server.get(CustomResourceDefinitions, "", CRD.metadata.name),
    undefined,
  );
  const gone = await fetch(server.url + W);
  assert.equal(gone.status, 404);
  assert.equal(await gone.text(), "404 page not found\n");
  assert.throws(() => server.list(Widgets), TypeError);
});
