/**
 * Server-side sharded list and watch of the fake API server, in both modes:
 * with `shardedListAndWatch` (kube-apiserver 1.36+ with the gate) and
 * without (an older server that ignores the parameter).
 */
import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { ConfigMaps } from "../api/resources.ts";
import type { KubeObject } from "../api/object.ts";
import { shardHash, shardRange, shardSelector } from "../api/shard_selector.ts";
import { getJson, WatchReader } from "./_apiserver_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const HALF = 1n << 63n;
/** The lower half of the hash space by uid, written with a term of each half to test `||`. */
const LOWER = shardRange("object.metadata.uid", 0n, HALF);
const SEL = shardSelector(
  shardRange("object.metadata.uid", 0n, HALF / 2n),
  shardRange("object.metadata.uid", HALF / 2n, HALF),
);

/** Whether an object is in the lower half, by the hash alone (no matcher). */
function lower(o: KubeObject): boolean {
  return BigInt("0x" + shardHash(o.metadata.uid!)) < HALF;
}

function seed(server: FakeApiServer, n: number): KubeObject[] {
  const out: KubeObject[] = [];
  for (let i = 0; i < n; i++) {
    out.push(server.create(ConfigMaps, {
      metadata: {
        name: `cm-${String(i).padStart(3, "0")}`,
        namespace: "default",
      },
    }));
  }
  return out;
}

const q = (sel: string, extra = "") =>
  `${CM}?shardSelector=${encodeURIComponent(sel)}${extra}`;

Deno.test("sharded server: a list has only the shard's objects and echoes the selector in shardInfo", async () => {
  await using server = await FakeApiServer.start({ shardedListAndWatch: true });
  const all = seed(server, 60);
  const expected = all.filter(lower).map((o) => o.metadata.name).sort();
  assert.ok(expected.length > 10 && expected.length < 50);
  const { status, body } = await getJson(server, q(SEL));
  assert.equal(status, 200);
  const list = body as {
    metadata: Record<string, unknown>;
    items: KubeObject[];
  };
  assert.deepEqual(list.items.map((o) => o.metadata.name), expected);
  assert.deepEqual(list.metadata.shardInfo, { selector: SEL });
  assert.equal(list.metadata.remainingItemCount, undefined);
});

Deno.test("sharded server: every page of a paged list is filtered and carries shardInfo", async () => {
  await using server = await FakeApiServer.start({ shardedListAndWatch: true });
  const expected = seed(server, 60).filter(lower).map((o) => o.metadata.name)
    .sort();
  const names: string[] = [];
  let token = "";
  for (let pages = 0; pages < 20; pages++) {
    const extra = `&limit=7${
      token ? `&continue=${encodeURIComponent(token)}` : ""
    }`;
    const { body } = await getJson(server, q(LOWER, extra));
    const page = body as {
      metadata: { continue?: string; shardInfo?: unknown };
      items: KubeObject[];
    };
    assert.deepEqual(page.metadata.shardInfo, { selector: LOWER });
    assert.ok(page.items.every(lower));
    names.push(...page.items.map((o) => o.metadata.name!));
    token = page.metadata.continue ?? "";
    if (!token) break;
  }
  assert.deepEqual(names, expected);
});

Deno.test("server without the gate: the parameter is ignored, everything comes, no shardInfo", async () => {
  await using server = await FakeApiServer.start();
  seed(server, 20);
  const { status, body } = await getJson(server, q(SEL));
  assert.equal(status, 200);
  const list = body as {
    metadata: Record<string, unknown>;
    items: KubeObject[];
  };
  assert.equal(list.items.length, 20);
  assert.equal("shardInfo" in list.metadata, false);
  // Even a malformed selector: an old server never reads it.
  const bad = await getJson(
    server,
    q("shardRange(object.metadata.uid, '0x0', '0x1')"),
  );
  assert.equal(bad.status, 200);
});

Deno.test("sharded server: a malformed selector is kube-apiserver's reason-less 500, on list and watch", async () => {
  await using server = await FakeApiServer.start({ shardedListAndWatch: true });
  for (const extra of ["", "&watch=true"]) {
    const { status, body } = await getJson(
      server,
      q("shardRange(object.metadata.uid, '0x0', '0x8000000000000000')", extra),
    );
    assert.equal(status, 500);
    assert.deepEqual(body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)',
      code: 500,
    });
  }
  // An empty parameter is no parameter.
  assert.equal((await getJson(server, `${CM}?shardSelector=`)).status, 200);
});

Deno.test("sharded server: a watch sends only the shard's events, initial ones included", async () => {
  await using server = await FakeApiServer.start({ shardedListAndWatch: true });
  const initial = seed(server, 30);
  const w = await WatchReader.open(
    server,
    q(LOWER, "&watch=true&resourceVersion=0"),
  );
  const first = await w.take(initial.filter(lower).length);
  assert.deepEqual(
    first.map((e) => e.object.metadata.name),
    initial.filter(lower).map((o) => o.metadata.name).sort(),
  );
  // Changes outside the shard are not sent: the next event is the next change inside it.
  let marker: KubeObject | undefined;
  for (let i = 0; !marker; i++) {
    const o = server.create(ConfigMaps, {
      metadata: { name: `new-${i}`, namespace: "default" },
    });
    if (lower(o)) marker = o;
  }
  const next = await w.next();
  assert.deepEqual([next?.type, next?.object.metadata.name], [
    "ADDED",
    marker.metadata.name,
  ]);
  await w.cancel();
});

Deno.test("server without the gate: a sharded watch sends every event", async () => {
  await using server = await FakeApiServer.start();
  const initial = seed(server, 10);
  const w = await WatchReader.open(
    server,
    q(LOWER, "&watch=true&resourceVersion=0"),
  );
  assert.equal((await w.take(10)).length, initial.length);
  await w.cancel();
});
