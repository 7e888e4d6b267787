import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock } from "./fake_clock.ts";
import { ConfigMaps, Pods } from "../api/resources.ts";
import type { KubeObject } from "../api/object.ts";
import { getJson, WatchReader } from "./_apiserver_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";

function cm(name: string, labels?: Record<string, string>, ns = "default") {
  return { metadata: { name, namespace: ns, labels } };
}

function rvOf(o: KubeObject): number {
  return Number(o.metadata.resourceVersion);
}

Deno.test("FakeApiServer watch without resourceVersion sends ADDED for existing objects, then changes", async () => {
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, cm("b"));
  server.create(ConfigMaps, cm("a"));
  const w = await WatchReader.open(server, `${CM}?watch=true`);
  const first = await w.take(2);
  assert.deepEqual(first.map((e) => [e.type, e.object.metadata.name]), [
    ["ADDED", "a"],
    ["ADDED", "b"],
  ]);
  server.create(ConfigMaps, cm("c"));
  const next = await w.next();
  assert.deepEqual([next?.type, next?.object.metadata.name], ["ADDED", "c"]);
  await w.cancel();
});

Deno.test("FakeApiServer watch with resourceVersion=0 also starts with the current objects", async () => {
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, cm("a"));
  const w = await WatchReader.open(
    server,
    `${CM}?watch=true&resourceVersion=0`,
  );
  const e = await w.next();
  assert.deepEqual([e?.type, e?.object.metadata.name], ["ADDED", "a"]);
  await w.cancel();
});

Deno.test("FakeApiServer watch with a label selector reports objects leaving and entering it", async () => {
  await using server = await FakeApiServer.start();
  const rv = server.resourceVersion();
  const a = server.create(ConfigMaps, cm("a", { app: "web" }));
  server.create(ConfigMaps, cm("other", { app: "db" }));
  const moved = server.update(ConfigMaps, {
    ...a,
    metadata: { ...a.metadata, labels: { app: "db" } },
  });
  server.update(ConfigMaps, {
    ...moved,
    metadata: { ...moved.metadata, labels: { app: "web" } },
  });
  server.delete(ConfigMaps, "default", "a");
  const w = await WatchReader.open(
    server,
    `${CM}?watch=true&resourceVersion=${rv}&labelSelector=app%3Dweb`,
  );
  const events = await w.take(4);
  assert.deepEqual(events.map((e) => e.type), [
    "ADDED",
    "DELETED",
    "ADDED",
    "DELETED",
  ]);
  assert.ok(events.every((e) => e.object.metadata.name === "a"));
  await w.cancel();
});

Deno.test("FakeApiServer watch filters pods by spec.nodeName and status.phase", async () => {
  await using server = await FakeApiServer.start();
  const rv = server.resourceVersion();
  server.create(Pods, {
    metadata: { name: "p1" },
    spec: { nodeName: "n1" },
    status: { phase: "Running" },
  } as KubeObject);
  server.create(Pods, {
    metadata: { name: "p2" },
    spec: { nodeName: "n2" },
    status: { phase: "Running" },
  } as KubeObject);
  server.create(Pods, {
    metadata: { name: "p3" },
    spec: { nodeName: "n1" },
    status: { phase: "Pending" },
  } as KubeObject);
  const w = await WatchReader.open(
    server,
    `/api/v1/pods?watch=true&resourceVersion=${rv}&fieldSelector=${
      encodeURIComponent("spec.nodeName=n1,status.phase!=Pending")
    }`,
  );
  const e = await w.next();
  assert.equal(e?.object.metadata.name, "p1");
  // (A pod created without a status is Pending, as on a real server.)
  server.create(Pods, {
    metadata: { name: "p4" },
    spec: { nodeName: "n1" },
    status: { phase: "Running" },
  } as KubeObject);
  const e2 = await w.next();
  assert.equal(e2?.object.metadata.name, "p4");
  await w.cancel();
});

Deno.test("FakeApiServer watch in a namespace ignores other namespaces", async () => {
  await using server = await FakeApiServer.start();
  const rv = server.resourceVersion();
  server.create(ConfigMaps, cm("x", undefined, "kube-system"));
  server.create(ConfigMaps, cm("y"));
  const w = await WatchReader.open(
    server,
    `${CM}?watch=true&resourceVersion=${rv}`,
  );
  const e = await w.next();
  assert.equal(e?.object.metadata.name, "y");
  const all = await WatchReader.open(
    server,
    `/api/v1/configmaps?watch=true&resourceVersion=${rv}`,
  );
  assert.deepEqual((await all.take(2)).map((x) => x.object.metadata.name), [
    "x",
    "y",
  ]);
  await w.cancel();
  await all.cancel();
});

Deno.test("FakeApiServer watch older than the history window gets a 200 stream with an ERROR 410 Expired", async () => {
  await using server = await FakeApiServer.start({ historyLimit: 3 });
  const old = server.create(ConfigMaps, cm("a"));
  for (let i = 0; i < 3; i++) server.create(ConfigMaps, cm(`b${i}`));
  const res = await fetch(
    `${server.url}${CM}?watch=true&resourceVersion=${rvOf(old) - 1}`,
  );
  assert.equal(res.status, 200);
  const w = new WatchReader(res);
  const events = await w.rest();
  assert.equal(events.length, 1);
  assert.equal(events[0].type, "ERROR");
  assert.equal(events[0].object.kind, "Status");
  assert.equal(events[0].object.code, 410);
  assert.equal(events[0].object.reason, "Expired");
  assert.match(
    String(events[0].object.message),
    /^too old resource version: \d+ \(\d+\)$/,
  );
  // The oldest RV still in the window works.
  const ok = await WatchReader.open(
    server,
    `${CM}?watch=true&resourceVersion=${rvOf(old)}`,
  );
  assert.equal((await ok.next())?.type, "ADDED");
  await ok.cancel();
});

Deno.test("FakeApiServer.compact() expires watches and exact lists at older resourceVersions", async () => {
  await using server = await FakeApiServer.start();
  const a = server.create(ConfigMaps, cm("a"));
  server.create(ConfigMaps, cm("b"));
  server.compact();
  const w = await WatchReader.open(
    server,
    `${CM}?watch=true&resourceVersion=${rvOf(a)}`,
  );
  assert.deepEqual((await w.rest()).map((e) => e.type), ["ERROR"]);
  const exact = await getJson(
    server,
    `${CM}?resourceVersion=${rvOf(a)}&resourceVersionMatch=Exact`,
  );
  assert.equal(exact.status, 410);
  assert.equal(exact.body.reason, "Expired");
  const current = await WatchReader.open(
    server,
    `${CM}?watch=true&resourceVersion=${server.resourceVersion()}`,
  );
  server.create(ConfigMaps, cm("c"));
  assert.equal((await current.next())?.object.metadata.name, "c");
  await current.cancel();
});

Deno.test("FakeApiServer sends periodic BOOKMARKs shaped as kube-apiserver sends them", async () => {
  const clock = new FakeClock();
  await using server = await FakeApiServer.start({
    clock,
    bookmarkInterval: 1000,
  });
  const rv = server.resourceVersion();
  const w = await WatchReader.open(
    server,
    `${CM}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`,
  );
  const plain = await WatchReader.open(
    server,
    `${CM}?watch=true&resourceVersion=${rv}`,
  );
  server.create(ConfigMaps, cm("a"));
  assert.equal((await w.next())?.type, "ADDED");
  await clock.step(1000);
  const bm = await w.next();
  assert.equal(bm?.type, "BOOKMARK");
  assert.deepEqual(bm?.object, {
    kind: "ConfigMap",
    apiVersion: "v1",
    metadata: {
      resourceVersion: server.resourceVersion(),
      creationTimestamp: null,
    },
  });
  await clock.step(1000);
  assert.equal((await w.next())?.type, "BOOKMARK");
  server.faults.closeWatches();
  assert.deepEqual((await plain.rest()).map((e) => e.type), ["ADDED"]);
  assert.equal(await w.ended(), true);
});

Deno.test("FakeApiServer ends a watch at timeoutSeconds, after a last BOOKMARK", async () => {
  const clock = new FakeClock();
  await using server = await FakeApiServer.start({ clock });
  const rv = server.resourceVersion();
  const w = await WatchReader.open(
    server,
    `${CM}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=5`,
  );
  await clock.step(4999);
  server.create(ConfigMaps, cm("a"));
  assert.equal((await w.next())?.type, "ADDED");
  await clock.step(1);
  const rest = await w.rest();
  assert.deepEqual(rest.map((e) => e.type), ["BOOKMARK"]);
  assert.equal(
    rest[0].object.metadata.resourceVersion,
    server.resourceVersion(),
  );
});

Deno.test("FakeApiServer watch-list: sendInitialEvents sends ADDED, then a BOOKMARK marking the end", async () => {
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, cm("a"));
  server.create(ConfigMaps, cm("b"));
  const w = await WatchReader.open(
    server,
    `${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
  );
  const events = await w.take(3);
  assert.deepEqual(events.map((e) => e.type), ["ADDED", "ADDED", "BOOKMARK"]);
  const end = events[2].object.metadata;
  assert.deepEqual(end.annotations, { "k8s.io/initial-events-end": "true" });
  assert.equal(end.resourceVersion, server.resourceVersion());
  server.create(ConfigMaps, cm("c"));
  assert.equal((await w.next())?.object.metadata.name, "c");
  await w.cancel();
});

Deno.test("FakeApiServer rejects watch-list parameters it would reject: 422 Invalid", async () => {
  await using server = await FakeApiServer.start();
  for (
    const q of [
      "sendInitialEvents=true",
      "resourceVersionMatch=NotOlderThan",
      "sendInitialEvents=true&resourceVersionMatch=Exact",
    ]
  ) {
    const r = await getJson(server, `${CM}?watch=true&${q}`);
    assert.equal(r.status, 422, q);
    assert.equal(r.body.reason, "Invalid", q);
  }
});

Deno.test("FakeApiServer watch as Table sends column definitions once", async () => {
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, cm("a"));
  const res = await fetch(`${server.url}${CM}?watch=true`, {
    headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
  });
  const w = new WatchReader(res);
  const first = await w.next();
  assert.equal(first?.object.kind, "Table");
  assert.ok(Array.isArray(first?.object.columnDefinitions));
  server.create(ConfigMaps, cm("b"));
  const second = await w.next();
  assert.equal(second?.object.columnDefinitions, null); // as kube-apiserver writes it
  const rows = second?.object.rows as { cells: unknown[] }[];
  assert.equal(rows[0].cells[0], "b");
  await w.cancel();
});

Deno.test("FakeApiServer.close() ends open watch streams", async () => {
  const server = await FakeApiServer.start();
  const w = await WatchReader.open(server, `${CM}?watch=true`);
  const ended = w.rest();
  await server.close();
  assert.deepEqual(await ended, []);
  await server.close(); // idempotent
});
