/**
 * FakeApiServer's resourceVersion rules, as kube-apiserver routes a read
 * between its watch cache and etcd: Exact and NotOlderThan with
 * limit/continue, the parameter checks, future resourceVersions (a wait on
 * the server's clock then 504 on the cache path, 500 at once from etcd, a
 * silent watch), `compactStorage()`, `resetWatchCache()`, and a server
 * without watch-list (`watchList: false`).
 */

import assert from "node:assert/strict";
import { ConfigMaps } from "../api/resources.ts";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock } from "./fake_clock.ts";
import { getJson, itemNames, WatchReader } from "./_apiserver_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const cm = (name: string, data: Record<string, string> = {}) =>
  ({ metadata: { name, namespace: "default" }, data }) as never;

interface ListMeta {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}
const meta = (b: Record<string, unknown>) => b.metadata as ListMeta;

Deno.test("FakeApiServer walks an Exact list page by page through the old snapshot", async () => {
  await using server = await FakeApiServer.start();
  for (const n of ["a", "b", "c"]) server.create(ConfigMaps, cm(n, { v: "1" }));
  const old = server.resourceVersion();
  server.delete(ConfigMaps, "default", "b");
  server.update(ConfigMaps, cm("c", { v: "2" }));
  let page = await getJson(
    server,
    `${CM}?limit=1&resourceVersion=${old}&resourceVersionMatch=Exact`,
  );
  const seen: string[] = [];
  for (;;) {
    assert.equal(page.status, 200);
    assert.equal(meta(page.body).resourceVersion, old);
    seen.push(...itemNames(page.body));
    const token = meta(page.body).continue;
    if (!token) break;
    assert.ok(meta(page.body).remainingItemCount! > 0);
    page = await getJson(server, `${CM}?limit=1&continue=${token}`);
  }
  assert.deepEqual(
    seen,
    ["a", "b", "c"],
    "b, deleted since, is in the snapshot",
  );
  assert.deepEqual(
    (page.body.items as { data: unknown }[])[0].data,
    { v: "1" },
    "c as it was",
  );
  // NotOlderThan with a limit is read from etcd at its current revision.
  const now = await getJson(
    server,
    `${CM}?limit=5&resourceVersion=${old}&resourceVersionMatch=NotOlderThan`,
  );
  assert.deepEqual(itemNames(now.body), ["a", "c"]);
  assert.equal(meta(now.body).resourceVersion, server.resourceVersion());
});

Deno.test("FakeApiServer checks continue, resourceVersionMatch and sendInitialEvents on a list", async () => {
  await using server = await FakeApiServer.start();
  for (const n of ["a", "b"]) server.create(ConfigMaps, cm(n));
  const first = await getJson(server, `${CM}?limit=1`);
  const token = meta(first.body).continue!;
  const withRV = await getJson(
    server,
    `${CM}?limit=1&continue=${token}&resourceVersion=${server.resourceVersion()}`,
  );
  assert.equal(withRV.status, 400);
  assert.equal(
    withRV.body.message,
    "specifying resource version is not allowed when using continue",
  );
  const withZero = await getJson(
    server,
    `${CM}?limit=1&continue=${token}&resourceVersion=0`,
  );
  assert.deepEqual(itemNames(withZero.body), ["b"], "RV 0 is accepted");
  const withMatch = await getJson(
    server,
    `${CM}?limit=1&continue=${token}&resourceVersionMatch=NotOlderThan&resourceVersion=1`,
  );
  assert.equal(withMatch.status, 422);
  assert.match(
    String(withMatch.body.message),
    /resourceVersionMatch is forbidden when continue is provided/,
  );
  const sie = await getJson(server, `${CM}?sendInitialEvents=true`);
  assert.equal(sie.status, 422);
  assert.match(
    String(sie.body.message),
    /sendInitialEvents is forbidden for list/,
  );
  const abc = await getJson(server, `${CM}?resourceVersion=abc`);
  assert.equal(abc.status, 500, "the watch cache's parse error");
  assert.equal(abc.body.reason, undefined);
  const abcEtcd = await getJson(server, `${CM}?resourceVersion=abc&limit=1`);
  assert.equal(abcEtcd.status, 400);
  assert.match(String(abcEtcd.body.message), /^invalid resource version: /);
});

Deno.test("FakeApiServer answers a future resourceVersion like the watch cache and etcd", async () => {
  const clock = new FakeClock(Date.now());
  await using server = await FakeApiServer.start({
    clock,
    tooLargeResourceVersionDelay: 500,
  });
  server.create(ConfigMaps, cm("a"));
  const future = Number(server.resourceVersion()) + 5;
  // The cache path waits the delay on the server's clock, then 504.
  for (
    const path of [
      `${CM}?resourceVersion=${future}`,
      `${CM}?resourceVersion=${future}&resourceVersionMatch=NotOlderThan`,
      `${CM}/a?resourceVersion=${future}`,
    ]
  ) {
    let answered = false;
    const pending = getJson(server, path).finally(() => answered = true);
    await clock.waitForWaiters();
    await clock.step(499);
    await Promise.resolve();
    assert.equal(answered, false, `${path}: still waiting`);
    await clock.step(1);
    const r = await pending;
    assert.equal(r.status, 504, path);
    assert.equal(r.headers.get("retry-after"), "1");
    assert.match(
      String(r.body.message),
      /^Timeout: Too large resource version/,
    );
  }
  // etcd answers at once.
  for (
    const q of [
      `resourceVersion=${future}&limit=1`,
      `resourceVersion=${future}&resourceVersionMatch=Exact`,
    ]
  ) {
    const r = await getJson(server, `${CM}?${q}`);
    assert.equal(r.status, 500, q);
    assert.equal(
      r.body.message,
      "etcdserver: mvcc: required revision is a future revision",
    );
    assert.equal(r.body.reason, undefined);
  }
  const newer = await getJson(
    server,
    `${CM}?resourceVersion=${future}&resourceVersionMatch=NotOlderThan&limit=1`,
  );
  assert.equal(newer.status, 504, "etcd's freshness check does not wait");
});

Deno.test("FakeApiServer keeps a watch from a future resourceVersion silent until its timeout", async () => {
  const clock = new FakeClock(Date.now());
  await using server = await FakeApiServer.start({ clock });
  const future = Number(server.resourceVersion()) + 2;
  const res = await fetch(
    `${server.url}${CM}?watch=true&allowWatchBookmarks=true&timeoutSeconds=4&resourceVersion=${future}`,
  );
  assert.equal(res.status, 200);
  for (const n of ["a", "b", "c"]) server.create(ConfigMaps, cm(n));
  await clock.step(4_000);
  assert.equal(await res.text(), "", "no event, not even past its RV");
});

Deno.test("FakeApiServer.compactStorage() expires etcd reads only; resetWatchCache() expires watches only", async () => {
  await using server = await FakeApiServer.start();
  for (const n of ["a", "b", "c"]) server.create(ConfigMaps, cm(n));
  const first = await getJson(server, `${CM}?limit=1`);
  const old = meta(first.body).resourceVersion;
  server.create(ConfigMaps, cm("d"));
  server.compactStorage();
  for (
    const q of [
      `resourceVersion=${old}&resourceVersionMatch=Exact`,
      `resourceVersion=${old}&limit=2`,
      `limit=1&continue=${meta(first.body).continue}`,
    ]
  ) {
    const r = await getJson(server, `${CM}?${q}`);
    assert.equal(r.status, 410, q);
    assert.equal(r.body.reason, "Expired");
  }
  const cached = await getJson(server, `${CM}?resourceVersion=${old}`);
  assert.deepEqual(itemNames(cached.body), ["a", "b", "c", "d"]);
  const replay = await WatchReader.open(
    server,
    `${CM}?watch=true&resourceVersion=${old}`,
  );
  assert.deepEqual(
    (await replay.take(1)).map((e) => [e.type, e.object.metadata.name]),
    [["ADDED", "d"]],
    "watches are unaffected by an etcd compaction",
  );
  await replay.cancel();

  await using fresh = await FakeApiServer.start();
  fresh.create(ConfigMaps, cm("a"));
  const before = fresh.resourceVersion();
  fresh.create(ConfigMaps, cm("b"));
  fresh.resetWatchCache();
  const expired = await WatchReader.open(
    fresh,
    `${CM}?watch=true&resourceVersion=${before}`,
  );
  const events = await expired.rest();
  assert.deepEqual(events.map((e) => [e.type, e.object.code]), [[
    "ERROR",
    410,
  ]]);
  assert.match(
    String(events[0].object.message),
    new RegExp(
      `^too old resource version: ${before} \\(${fresh.resourceVersion()}\\)$`,
    ),
  );
  const exact = await getJson(
    fresh,
    `${CM}?resourceVersion=${before}&resourceVersionMatch=Exact`,
  );
  assert.deepEqual(itemNames(exact.body), ["a"], "etcd still has it");
});

Deno.test("FakeApiServer.start({ watchList: false }) behaves like a server without streaming lists", async () => {
  const clock = new FakeClock(Date.now());
  await using server = await FakeApiServer.start({ clock, watchList: false });
  server.create(ConfigMaps, cm("a"));
  const rv = server.resourceVersion();
  const watchList = await getJson(
    server,
    `${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=${rv}`,
  );
  assert.equal(watchList.status, 422);
  assert.match(
    String(watchList.body.message),
    /resourceVersionMatch is forbidden for watch/,
  );
  // sendInitialEvents alone is ignored: a plain watch from RV rv.
  const res = await fetch(
    `${server.url}${CM}?watch=true&sendInitialEvents=true&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=1`,
  );
  server.create(ConfigMaps, cm("b"));
  await clock.step(1_000);
  const lines = (await res.text()).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((e) => [e.type, e.object.metadata.name]), [
    ["ADDED", "b"],
    ["BOOKMARK", undefined],
  ]);
  assert.equal(
    lines[1].object.metadata.annotations,
    undefined,
    "no initial-events-end",
  );
  const list = await getJson(server, `${CM}?sendInitialEvents=true`);
  assert.equal(list.status, 200, "unknown to the server, ignored");
});
