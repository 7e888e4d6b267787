import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { ConfigMaps, Namespaces, Nodes, Pods } from "../client/resources.ts";
import { StatusError } from "../client/rest.ts";
import { FakeClock } from "./fake_clock.ts";

const CM = "/api/v1/namespaces/default/configmaps";

async function getJson(
  server: FakeApiServer,
  path: string,
  init?: RequestInit,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(server.url + path, init);
  return { status: res.status, body: await res.json() };
}

function send(
  server: FakeApiServer,
  method: string,
  path: string,
  body: unknown,
  contentType = "application/json",
) {
  return getJson(server, path, {
    method,
    headers: { "content-type": contentType },
    body: JSON.stringify(body),
  });
}

/** Read watch events from a response until `n` arrived or the body ends. */
async function readEvents(
  res: Response,
  n = Infinity,
): Promise<{ type: string; object: Record<string, unknown> }[]> {
  const events: { type: string; object: Record<string, unknown> }[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  while (events.length < n) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let nl;
    while ((nl = buf.indexOf("\n")) !== -1 && events.length < n) {
      events.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
    }
  }
  await reader.cancel();
  return events;
}

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
  const events = await readEvents(res, 3);
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
