/**
 * Sharded informers: the same objects in the cache whether the server
 * filters (`shardedListAndWatch`) or ignores the selector, through lists,
 * paged lists and watch events; and the Reflector's `shardSelector` over a
 * ListerWatcher that knows nothing of sharding.
 */
import assert from "node:assert/strict";
import { SharedInformerFactory } from "./factory.ts";
import { Reflector } from "./reflector.ts";
import { newStore } from "./store.ts";
import { metaNamespaceKeyFunc } from "./keys.ts";
import { KubeClient } from "../client/rest.ts";
import { KubeConfig } from "../client/config.ts";
import { ConfigMaps } from "../api/resources.ts";
import type { KubeObject } from "../api/object.ts";
import { shardHash, shardRange } from "../api/shard_selector.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeControllerSource } from "../testing/fake_controller_source.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { ioTurn } from "../testing/turns.ts";

const THIRD = (1n << 64n) / 3n;
const MIDDLE = shardRange("object.metadata.uid", THIRD, 2n * THIRD);
const inMiddle = (o: KubeObject) => {
  const h = BigInt("0x" + shardHash(o.metadata.uid ?? ""));
  return h >= THIRD && h < 2n * THIRD;
};

/** Pump loopback I/O until `cond` holds, for at most 20 s. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (performance.now() < deadline) {
    if (cond()) return;
    await ioTurn();
  }
  assert.fail(`timed out waiting for ${what}`);
}

for (const sharded of [true, false]) {
  Deno.test(`a sharded informer caches exactly the shard's objects (server ${sharded ? "filters" : "ignores the selector"})`, async () => {
    await using server = await FakeApiServer.start({
      shardedListAndWatch: sharded,
    });
    for (let i = 0; i < 300; i++) {
      server.create(ConfigMaps, {
        metadata: { name: `cm-${i}`, namespace: "default" },
      });
    }
    await using client = new KubeClient(
      KubeConfig.fromOptions({ server: server.url }),
    );
    await using factory = new SharedInformerFactory(client, { pageSize: 40 });
    const informer = factory.informerFor(ConfigMaps, { shardSelector: MIDDLE });
    const stop = new AbortController();
    factory.start(stop.signal);
    const expected = () =>
      server.list(ConfigMaps).filter(inMiddle).map((o) =>
        metaNamespaceKeyFunc(o)
      ).sort();
    const cached = () => informer.getStore().listKeys().sort();
    await until(() => informer.hasSynced(), "the sync");
    assert.deepEqual(cached(), expected());
    assert.ok(expected().length > 60 && expected().length < 140);
    // Watch events: creations, updates and deletions on both sides of the range.
    const current = server.list(ConfigMaps);
    for (const o of current.slice(0, 40)) {
      server.delete(ConfigMaps, "default", o.metadata.name!);
    }
    for (let i = 0; i < 60; i++) {
      server.create(ConfigMaps, {
        metadata: { name: `late-${i}`, namespace: "default" },
      });
    }
    const last = server.create(ConfigMaps, {
      metadata: { name: "zz-last", namespace: "default" },
    });
    await until(
      () =>
        informer.lastSyncResourceVersion() === last.metadata.resourceVersion ||
        cached().join() === expected().join(),
      "the watch events",
    );
    await until(
      () => cached().join() === expected().join(),
      "the cache to match the shard",
    );
    // Every request carried the selector.
    const calls = server.requests.filter((r) => r.path.endsWith("/configmaps"));
    assert.ok(calls.length >= 2);
    assert.ok(calls.every((r) => r.query.get("shardSelector") === MIDDLE));
    stop.abort();
  });
}

Deno.test("Reflector shardSelector filters a ListerWatcher that ignores it: lists and watch events", async () => {
  const clock = new FakeClock();
  const source = new FakeControllerSource();
  const live = new Map<string, KubeObject>();
  const objs: KubeObject[] = [];
  const add = (name: string) => {
    const o = source.add({
      metadata: { name, namespace: "ns", uid: crypto.randomUUID() },
    });
    live.set(name, o);
    return o;
  };
  for (let i = 0; i < 90; i++) objs.push(add(`o-${i}`));
  const store = newStore<KubeObject>(metaNamespaceKeyFunc);
  const r = new Reflector(source, store, { shardSelector: MIDDLE, clock });
  const stop = new AbortController();
  const running = r.run(stop.signal);
  const expected = () =>
    [...live.values()].filter(inMiddle).map((o) => metaNamespaceKeyFunc(o))
      .sort();
  await until(() => store.listKeys().length > 0, "the list");
  assert.deepEqual(store.listKeys().sort(), expected());
  for (let i = 0; i < 30; i++) add(`n-${i}`);
  for (const o of objs.slice(0, 30)) {
    source.delete(o);
    live.delete(o.metadata.name!);
  }
  await until(
    () => store.listKeys().sort().join() === expected().join(),
    "the watch events",
  );
  stop.abort();
  await running;
});

Deno.test("Reflector shardSelector: a malformed selector is refused at the call", () => {
  assert.throws(
    () =>
      new Reflector(
        new FakeControllerSource(),
        newStore(metaNamespaceKeyFunc),
        {
          shardSelector: "shardRange(x, '0x0', '0x1')",
        },
      ),
    /^TypeError: new Reflector: opts.shardSelector must be a shard selector \(unsupported field path "x"/,
  );
});
