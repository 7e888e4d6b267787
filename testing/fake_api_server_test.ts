import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { ConfigMaps, Namespaces, Nodes, Pods } from "../api/resources.ts";
import { StatusError } from "../api/errors.ts";
import { FakeClock } from "./fake_clock.ts";
import {
  getJson,
  itemNames,
  send,
  WatchReader,
} from "./_apiserver_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";

Deno.test("FakeApiServer.start() serves health, version and the initial namespaces", async () => {
  await using server = await FakeApiServer.start();
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  for (const p of ["/healthz", "/readyz", "/livez"]) {
    const res = await fetch(server.url + p);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "ok");
  }
  const v = await getJson(server, "/version");
  assert.equal(v.body.major, "1");
  const names = server.list(Namespaces).map((n) => n.metadata.name);
  assert.deepEqual(names, [
    "default",
    "kube-node-lease",
    "kube-public",
    "kube-system",
  ]);
});

Deno.test("FakeApiServer create, get, update, conflict, patch, delete over HTTP", async () => {
  await using server = await FakeApiServer.start();
  const created = await send(server, "POST", CM, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm1", labels: { app: "a" } },
    data: { a: "1" },
  });
  assert.equal(created.status, 201);
  const meta = created.body.metadata as Record<string, unknown>;
  assert.equal(meta.namespace, "default");
  assert.match(String(meta.uid), /^[0-9a-f-]{36}$/);
  assert.match(
    String(meta.creationTimestamp),
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
  );
  const rv1 = String(meta.resourceVersion);
  assert.equal(rv1, server.resourceVersion());

  const dup = await send(server, "POST", CM, { metadata: { name: "cm1" } });
  assert.equal(dup.status, 409);
  assert.equal(dup.body.reason, "AlreadyExists");

  const got = await getJson(server, `${CM}/cm1`);
  assert.equal(got.status, 200);
  assert.equal(got.body.kind, "ConfigMap");

  const upd = await send(server, "PUT", `${CM}/cm1`, {
    metadata: { name: "cm1", resourceVersion: rv1 },
    data: { a: "2" },
  });
  assert.equal(upd.status, 200);
  const rv2 = (upd.body.metadata as { resourceVersion: string })
    .resourceVersion;
  assert.ok(Number(rv2) > Number(rv1));

  const stale = await send(server, "PUT", `${CM}/cm1`, {
    metadata: { name: "cm1", resourceVersion: rv1 },
    data: { a: "3" },
  });
  assert.equal(stale.status, 409);
  assert.equal(stale.body.reason, "Conflict");

  const merged = await send(
    server,
    "PATCH",
    `${CM}/cm1`,
    { metadata: { labels: { app: null, tier: "x" } }, data: { b: "2" } },
    "application/merge-patch+json",
  );
  assert.equal(merged.status, 200);
  assert.deepEqual(merged.body.data, { a: "2", b: "2" });
  assert.deepEqual((merged.body.metadata as { labels: unknown }).labels, {
    tier: "x",
  });

  const jp = await send(
    server,
    "PATCH",
    `${CM}/cm1`,
    [{ op: "add", path: "/data/c", value: "3" }, {
      op: "remove",
      path: "/data/a",
    }],
    "application/json-patch+json",
  );
  assert.deepEqual(jp.body.data, { b: "2", c: "3" });

  const del = await getJson(server, `${CM}/cm1`, { method: "DELETE" });
  assert.equal(del.status, 200);
  assert.equal(del.body.kind, "Status");
  assert.equal(del.body.status, "Success");
  const again = await getJson(server, `${CM}/cm1`, { method: "DELETE" });
  assert.equal(again.status, 404);
  assert.equal(again.body.reason, "NotFound");
});

Deno.test("FakeApiServer list pages with limit and continue, remainingItemCount", async () => {
  await using server = await FakeApiServer.start();
  for (let i = 0; i < 5; i++) {
    server.create(ConfigMaps, { metadata: { name: `cm-${i}` } });
  }
  const names: string[] = [];
  let cont = "";
  const remaining: unknown[] = [];
  let listRV: unknown;
  do {
    const q = `?limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ""}`;
    const { body } = await getJson(server, CM + q);
    const meta = body.metadata as Record<string, unknown>;
    listRV ??= meta.resourceVersion;
    assert.equal(meta.resourceVersion, listRV);
    remaining.push(meta.remainingItemCount);
    for (const it of body.items as { metadata: { name: string } }[]) {
      names.push(it.metadata.name);
    }
    cont = (meta.continue as string) ?? "";
  } while (cont);
  assert.deepEqual(names, ["cm-0", "cm-1", "cm-2", "cm-3", "cm-4"]);
  assert.deepEqual(remaining, [3, 1, undefined]);
});

Deno.test("FakeApiServer watch replays from a resourceVersion and streams changes", async () => {
  await using server = await FakeApiServer.start();
  const rv = server.resourceVersion();
  server.create(ConfigMaps, { metadata: { name: "w1" } });
  const res = await fetch(
    `${server.url}${CM}?watch=true&resourceVersion=${rv}`,
  );
  assert.equal(res.status, 200);
  const cm = server.get(ConfigMaps, "default", "w1")!;
  server.update(ConfigMaps, { ...cm, data: { v: "2" } } as typeof cm);
  server.delete(ConfigMaps, "default", "w1");
  const events = await new WatchReader(res).take(3);
  assert.deepEqual(events.map((e) => e.type), ["ADDED", "MODIFIED", "DELETED"]);
  const rvs = events.map((e) =>
    Number((e.object.metadata as { resourceVersion: string }).resourceVersion)
  );
  assert.ok(rvs[0] < rvs[1] && rvs[1] < rvs[2]);
  assert.equal(events[0].object.kind, "ConfigMap");
});

Deno.test("FakeApiServer direct update with a stale resourceVersion throws Conflict", async () => {
  await using server = await FakeApiServer.start();
  const a = server.create(Pods, { metadata: { name: "p", namespace: "ns1" } });
  server.update(Pods, { ...a, spec: { nodeName: "n1" } } as typeof a);
  assert.throws(
    () => server.update(Pods, { ...a, spec: { nodeName: "n2" } } as typeof a),
    (err: unknown) => err instanceof StatusError && err.code === 409,
  );
  assert.throws(() => {
    (a.metadata as { name: string }).name = "x";
  }, TypeError);
  const n = server.create(Nodes, { metadata: { name: "n1" } });
  assert.equal(n.metadata.namespace, undefined);
});

Deno.test("FakeApiServer clock option stamps creationTimestamp", async () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 2, 3, 4, 5, 678));
  await using server = await FakeApiServer.start({ clock });
  const cm = server.create(ConfigMaps, { metadata: { name: "t" } });
  assert.equal(cm.metadata.creationTimestamp, "2024-01-02T03:04:05Z");
});

Deno.test("FakeApiServer list at an exact past resourceVersion shows the state of then", async () => {
  await using server = await FakeApiServer.start();
  const a = server.create(ConfigMaps, { metadata: { name: "a" } });
  server.create(ConfigMaps, { metadata: { name: "b" } });
  const then = server.resourceVersion();
  server.delete(ConfigMaps, "default", "a");
  server.update(
    ConfigMaps,
    {
      ...server.get(ConfigMaps, "default", "b")!,
      data: { x: "1" },
    } as typeof a,
  );
  server.create(ConfigMaps, { metadata: { name: "c" } });
  const exact = await getJson(
    server,
    `${CM}?resourceVersion=${then}&resourceVersionMatch=Exact`,
  );
  assert.equal(exact.status, 200);
  assert.deepEqual(itemNames(exact.body), ["a", "b"]);
  assert.equal(
    (exact.body.metadata as { resourceVersion: string }).resourceVersion,
    then,
  );
  assert.equal((exact.body.items as { data?: unknown }[])[1].data, undefined);
  const paged = await getJson(server, `${CM}?resourceVersion=${then}&limit=1`);
  assert.deepEqual(itemNames(paged.body), ["a"]);
  const notOlder = await getJson(server, `${CM}?resourceVersion=${then}`);
  assert.deepEqual(itemNames(notOlder.body), ["b", "c"]);
  const newerPage = await getJson(
    server,
    `${CM}?resourceVersion=${then}&resourceVersionMatch=NotOlderThan&limit=1`,
  );
  assert.deepEqual(itemNames(newerPage.body), ["b"]);
  assert.ok((newerPage.body.metadata as { continue?: string }).continue);
  const zero = await getJson(server, `${CM}?resourceVersion=0&limit=1`);
  assert.deepEqual(itemNames(zero.body), ["b", "c"]);
  assert.equal(
    (zero.body.metadata as { continue?: string }).continue,
    undefined,
  );
  // Future resourceVersions: fake_api_server_rv_test.ts.
});

Deno.test("FakeApiServer list pages stay consistent while objects change", async () => {
  await using server = await FakeApiServer.start();
  for (const n of ["a", "b", "c", "d"]) {
    server.create(ConfigMaps, { metadata: { name: n } });
  }
  const p1 = await getJson(server, `${CM}?limit=2`);
  const token = (p1.body.metadata as { continue: string }).continue;
  server.delete(ConfigMaps, "default", "c");
  server.create(ConfigMaps, { metadata: { name: "bb" } });
  const p2 = await getJson(
    server,
    `${CM}?limit=2&continue=${encodeURIComponent(token)}`,
  );
  assert.deepEqual(itemNames(p2.body), ["c", "d"]);
  assert.equal((p2.body.metadata as { continue?: string }).continue, undefined);
});

Deno.test("FakeApiServer list with a continue token older than the history answers 410 with a new token", async () => {
  await using server = await FakeApiServer.start();
  for (const n of ["a", "b", "c"]) {
    server.create(ConfigMaps, { metadata: { name: n } });
  }
  const p1 = await getJson(server, `${CM}?limit=1`);
  const token = (p1.body.metadata as { continue: string }).continue;
  server.create(ConfigMaps, { metadata: { name: "d" } });
  server.compact();
  const stale = await getJson(
    server,
    `${CM}?limit=1&continue=${encodeURIComponent(token)}`,
  );
  assert.equal(stale.status, 410);
  assert.equal(stale.body.reason, "Expired");
  const fresh = (stale.body.metadata as { continue: string }).continue;
  const rest = await getJson(
    server,
    `${CM}?limit=10&continue=${encodeURIComponent(fresh)}`,
  );
  assert.deepEqual(itemNames(rest.body), ["b", "c", "d"]);
  const garbage = await getJson(server, `${CM}?limit=1&continue=garbage`);
  assert.equal(garbage.status, 400);
});

Deno.test("FakeApiServer list selectors: set-based labels, field selectors, errors", async () => {
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, {
    metadata: { name: "a", labels: { app: "x", tier: "web" } },
  });
  server.create(ConfigMaps, { metadata: { name: "b", labels: { app: "y" } } });
  server.create(ConfigMaps, { metadata: { name: "c" } });
  const sel = async (q: string) =>
    itemNames((await getJson(server, `${CM}?${q}`)).body);
  assert.deepEqual(
    await sel("labelSelector=" + encodeURIComponent("app in (x,y),!tier")),
    ["b"],
  );
  assert.deepEqual(await sel("labelSelector=app"), ["a", "b"]);
  assert.deepEqual(await sel("fieldSelector=metadata.name%3Dc"), ["c"]);
  assert.deepEqual(
    await sel("fieldSelector=metadata.name!%3Dc&labelSelector=app%3Dx"),
    ["a"],
  );
  const bad = await getJson(server, `${CM}?fieldSelector=data.x%3Dy`);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.reason, "BadRequest");
  const badLabel = await getJson(
    server,
    `${CM}?labelSelector=${encodeURIComponent("app in (")}`,
  );
  assert.equal(badLabel.status, 400);
});

Deno.test("FakeApiServer serves cluster-scoped types and custom resources with discovery", async () => {
  const { resourceType, BUILTIN_RESOURCE_TYPES } = await import(
    "../api/resources.ts"
  );
  const Widgets = resourceType({
    apiVersion: "example.com/v1",
    kind: "Widget",
    resource: "widgets",
    namespaced: true,
    shortNames: ["wd"],
  });
  await using server = await FakeApiServer.start({
    resources: [...BUILTIN_RESOURCE_TYPES, Widgets],
  });
  const node = await send(server, "POST", "/api/v1/nodes", {
    metadata: { name: "n1" },
  });
  assert.equal(node.status, 201);
  assert.equal(
    (node.body.metadata as { namespace?: string }).namespace,
    undefined,
  );
  assert.deepEqual(itemNames((await getJson(server, "/api/v1/nodes")).body), [
    "n1",
  ]);
  assert.equal(
    (await getJson(server, "/api/v1/namespaces/default/nodes")).status,
    404,
  );
  const w = await send(
    server,
    "POST",
    "/apis/example.com/v1/namespaces/default/widgets",
    {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w1" },
      spec: { size: 1 },
    },
  );
  assert.equal(w.status, 201);
  assert.equal((w.body.metadata as { generation: number }).generation, 1);
  const groups = (await getJson(server, "/apis")).body.groups as {
    name: string;
  }[];
  assert.ok(groups.some((g) => g.name === "example.com"));
  const res = (await getJson(server, "/apis/example.com/v1")).body
    .resources as Record<string, unknown>[];
  assert.deepEqual(
    res.map((
      r,
    ) => [r.name, r.singularName, r.kind, r.namespaced, r.shortNames]),
    [["widgets", "widget", "Widget", true, ["wd"]]],
  );
  assert.equal(
    (await getJson(server, "/apis/example.com")).body.kind,
    "APIGroup",
  );
  assert.throws(
    () => server.create(Widgets, { metadata: { name: "Bad_Name" } }),
    StatusError,
  );
});

Deno.test("FakeApiServer create: generateName, invalid name, missing namespace, wrong kind", async () => {
  await using server = await FakeApiServer.start();
  const gen = await send(server, "POST", CM, {
    metadata: { generateName: "x-" },
  });
  assert.equal(gen.status, 201);
  assert.match((gen.body.metadata as { name: string }).name, /^x-[a-z0-9]{5}$/);
  const bad = await send(server, "POST", CM, {
    metadata: { name: "Bad_Name" },
  });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.reason, "Invalid");
  const noNs = await send(
    server,
    "POST",
    "/api/v1/namespaces/nope/configmaps",
    { metadata: { name: "a" } },
  );
  assert.equal(noNs.status, 404);
  assert.equal((noNs.body.details as { kind: string }).kind, "namespaces");
  const kind = await send(server, "POST", CM, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s" },
  });
  assert.equal(kind.status, 400);
});

Deno.test("FakeApiServer update that changes nothing keeps the resourceVersion and sends no event", async () => {
  await using server = await FakeApiServer.start();
  const a = server.create(
    ConfigMaps,
    { metadata: { name: "a" }, data: { k: "v" } } as never,
  );
  const rv = server.resourceVersion();
  const same = await send(server, "PUT", `${CM}/a`, a);
  assert.equal(same.status, 200);
  assert.equal(
    (same.body.metadata as { resourceVersion: string }).resourceVersion,
    rv,
  );
  assert.equal(server.resourceVersion(), rv);
});

Deno.test("FakeApiServer bumps generation on spec changes of group resources only", async () => {
  const { Deployments } = await import("../api/resources.ts");
  await using server = await FakeApiServer.start();
  const d = server.create(
    Deployments,
    { metadata: { name: "d" }, spec: { replicas: 1 } } as never,
  );
  assert.equal(d.metadata.generation, 1);
  const labelled = server.update(Deployments, {
    ...d,
    metadata: { ...d.metadata, labels: { a: "b" } },
  });
  assert.equal(labelled.metadata.generation, 1);
  const scaled = server.update(
    Deployments,
    { ...labelled, spec: { replicas: 2 } } as never,
  );
  assert.equal(scaled.metadata.generation, 2);
  const cmObj = server.create(ConfigMaps, { metadata: { name: "c" } });
  assert.equal(cmObj.metadata.generation, undefined);
});

Deno.test("FakeApiServer delete: finalizers, preconditions, pods return the object, namespaces cascade", async () => {
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, { metadata: { name: "f", finalizers: ["x/y"] } });
  const held = await getJson(server, `${CM}/f`, { method: "DELETE" });
  assert.equal(held.status, 200);
  assert.equal(held.body.kind, "ConfigMap");
  const f = server.get(ConfigMaps, "default", "f")!;
  assert.ok(f.metadata.deletionTimestamp);
  server.update(ConfigMaps, {
    ...f,
    metadata: { ...f.metadata, finalizers: [] },
  });
  assert.equal(server.get(ConfigMaps, "default", "f"), undefined);

  server.create(ConfigMaps, { metadata: { name: "p" } });
  const pre = await send(server, "DELETE", `${CM}/p`, {
    preconditions: { resourceVersion: "1" },
  });
  assert.equal(pre.status, 409);

  server.create(Pods, { metadata: { name: "pod" } });
  const pod = await getJson(server, "/api/v1/namespaces/default/pods/pod", {
    method: "DELETE",
  });
  assert.equal(pod.body.kind, "Pod");

  await send(server, "POST", "/api/v1/namespaces", {
    metadata: { name: "gone" },
  });
  server.create(ConfigMaps, { metadata: { name: "in", namespace: "gone" } });
  const ns = await getJson(server, "/api/v1/namespaces/gone", {
    method: "DELETE",
  });
  assert.equal((ns.body.status as { phase: string }).phase, "Terminating");
  assert.deepEqual(server.list(ConfigMaps, "gone"), []);
});

Deno.test("FakeApiServer patches: strategic merge by name, apply creates and merges, status subresource", async () => {
  await using server = await FakeApiServer.start();
  server.create(
    Pods,
    {
      metadata: { name: "p" },
      spec: {
        containers: [{ name: "a", image: "a:1" }, { name: "b", image: "b:1" }],
      },
    } as never,
  );
  const smp = await send(server, "PATCH", "/api/v1/namespaces/default/pods/p", {
    spec: {
      "$setElementOrder/containers": [{ name: "a" }, { name: "b" }],
      containers: [{ name: "b", image: "b:2" }],
    },
  }, "application/strategic-merge-patch+json");
  assert.equal(smp.status, 200);
  // (Compared by name and image: the containers also carry their defaults.)
  assert.deepEqual(
    (smp.body.spec as { containers: { name: string; image: string }[] })
      .containers.map(({ name, image }) => ({ name, image })),
    [{ name: "a", image: "a:1" }, { name: "b", image: "b:2" }],
  );

  const noManager = await send(server, "PATCH", `${CM}/ap`, {
    metadata: { name: "ap" },
  }, "application/apply-patch+yaml");
  assert.equal(noManager.status, 422);
  // Server-side apply of ConfigMap "ap" with `data`, as field manager "t".
  const apply = (data: Record<string, string>) =>
    send(server, "PATCH", `${CM}/ap?fieldManager=t`, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "ap" },
      data,
    }, "application/apply-patch+yaml");
  const applied = await apply({ a: "1" });
  assert.equal(applied.status, 201);
  const again = await apply({ b: "2" });
  assert.equal(again.status, 200);
  // The same manager no longer applies data.a: server-side apply removes it.
  assert.deepEqual(again.body.data, { b: "2" });

  const status = await send(
    server,
    "PUT",
    "/api/v1/namespaces/default/pods/p/status",
    {
      metadata: { name: "p" },
      spec: { containers: [] },
      status: { phase: "Running" },
    },
  );
  assert.equal(status.status, 200);
  assert.equal((status.body.status as { phase: string }).phase, "Running");
  assert.equal(
    (status.body.spec as { containers: unknown[] }).containers.length,
    2,
  );

  const unsupported = await send(server, "PATCH", `${CM}/ap`, { data: {} });
  assert.equal(unsupported.status, 415);
});

Deno.test("FakeApiServer deletecollection deletes the selected objects", async () => {
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, { metadata: { name: "a", labels: { x: "1" } } });
  server.create(ConfigMaps, { metadata: { name: "b" } });
  const r = await getJson(server, `${CM}?labelSelector=x%3D1`, {
    method: "DELETE",
  });
  assert.equal(r.status, 200);
  assert.deepEqual(itemNames(r.body), ["a"]);
  assert.deepEqual(server.list(ConfigMaps).map((c) => c.metadata.name), ["b"]);
});

Deno.test("FakeApiServer answers unknown paths like kube-apiserver", async () => {
  await using server = await FakeApiServer.start();
  const unknown = await getJson(server, "/api/v1/namespaces/default/widgets");
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.reason, "NotFound");
  const group = await fetch(`${server.url}/apis/nope.example.com/v1`);
  assert.equal(group.status, 404);
  assert.equal(await group.text(), "404 page not found\n");
  const post = await send(server, "POST", `${CM}/x`, {});
  assert.equal(post.status, 405);
});

Deno.test("FakeApiServer.start() rejects a bad historyLimit or bookmarkInterval", async () => {
  await assert.rejects(FakeApiServer.start({ historyLimit: -1 }), RangeError);
  await assert.rejects(
    FakeApiServer.start({ bookmarkInterval: 0 }),
    RangeError,
  );
});

Deno.test("FakeApiServer serves an OpenAPI v3 index announcing field validation", async () => {
  await using server = await FakeApiServer.start();
  const root = await getJson(server, "/openapi/v3");
  const paths = root.body.paths as Record<
    string,
    { serverRelativeURL: string }
  >;
  const doc = await getJson(server, paths["apis/apps/v1"].serverRelativeURL);
  const patch =
    (doc.body.paths as Record<string, Record<string, Record<string, unknown>>>)[
      "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"
    ].patch;
  assert.deepEqual(patch["x-kubernetes-group-version-kind"], {
    group: "apps",
    version: "v1",
    kind: "Deployment",
  });
  assert.ok(
    (patch.parameters as { name: string }[]).some((p) =>
      p.name === "fieldValidation"
    ),
  );
});

Deno.test("FakeApiServer reads a YAML apply body with the client's YAML reader and answers bad YAML with go-yaml's line", async () => {
  await using server = await FakeApiServer.start();
  const apply = (body: string) =>
    fetch(`${server.url}${CM}/y?fieldManager=t`, {
      method: "PATCH",
      headers: { "content-type": "application/apply-patch+yaml" },
      body,
    }).then(async (res) => ({ status: res.status, body: await res.json() }));
  // Block YAML with a comment, a quoted scalar and a block scalar.
  const created = await apply(
    [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      "  name: y # the name",
      "data:",
      "  mode: 'fast'",
      "  script: |",
      "    echo hi",
      "",
    ].join("\n"),
  );
  assert.equal(created.status, 201);
  assert.deepEqual(created.body.data, { mode: "fast", script: "echo hi\n" });
  const bad = await apply("apiVersion: v1\nkind: [ConfigMap\n");
  assert.equal(bad.status, 400);
  assert.match(
    bad.body.message,
    /^error decoding YAML: error converting YAML to JSON: yaml: line 2: /,
  );
});
