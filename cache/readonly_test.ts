// Readers of the cache get read-only handles and deeply read-only objects.
// The `@ts-expect-error` lines are the type-level test: `deno test` type
// checks this file, and an expected error that no longer happens (a write
// the types allow again) fails the check.

import assert from "node:assert/strict";
import { deepCopy, type DeepReadonly } from "../api/readonly.ts";
import type { ResourceClient } from "../api/resource_client.ts";
import { ConfigMaps } from "../api/resources.ts";
import type { ConfigMap, Pod } from "../api/types.ts";
import { FakeControllerSource } from "../testing/fake_controller_source.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { eventually } from "./_test_util.ts";
import { SharedInformerFactory } from "./factory.ts";
import { newGenericLister } from "./listers.ts";
import { newSharedIndexInformer } from "./shared_informer.ts";
import { newIndexer, readonlyIndexer } from "./store.ts";
import { metaNamespaceKeyFunc } from "./keys.ts";
import { metaNamespaceIndexFunc, NAMESPACE_INDEX } from "./index.ts";

function pod(name: string): Pod {
  return {
    metadata: { namespace: "ns", name, labels: { app: "web" } },
    spec: { containers: [{ name: "c", image: "i" }] },
  };
}

Deno.test("getStore() and getIndexer() hand out handles without write methods", async () => {
  const source = new FakeControllerSource<Pod>();
  source.add(pod("a"));
  const informer = newSharedIndexInformer(source, {
    clock: new FakeClock(),
    indexers: { [NAMESPACE_INDEX]: metaNamespaceIndexFunc },
  });
  const ac = new AbortController();
  const done = informer.run(ac.signal);
  await eventually(() => informer.hasSynced(), "sync");
  const store = informer.getStore();
  const indexer = informer.getIndexer();
  assert.equal(store, indexer); // one handle, typed two ways
  for (
    const write of [
      "add",
      "update",
      "delete",
      "replace",
      "resync",
      "addIndexers",
    ]
  ) {
    assert.equal(write in indexer, false, write);
  }
  assert.ok(Object.isFrozen(indexer));
  // @ts-expect-error: no add on a ReadonlyStore
  assert.throws(() => store.add(pod("b")), TypeError);
  assert.deepEqual(store.listKeys(), ["ns/a"]);
  assert.equal(indexer.byIndex(NAMESPACE_INDEX, "ns").length, 1);
  ac.abort();
  await done;
});

Deno.test("objects from handles, listers and handlers are read-only at every depth in the types", () => {
  const indexer = newIndexer<Pod>(metaNamespaceKeyFunc, {
    [NAMESPACE_INDEX]: metaNamespaceIndexFunc,
  });
  indexer.add(pod("a"));
  const reader = readonlyIndexer(indexer);
  const fromStore = reader.list()[0];
  const fromIndex = reader.byIndex(NAMESPACE_INDEX, "ns")[0];
  const fromLister = newGenericLister(reader).namespaced("ns").get("a")!;
  for (const obj of [fromStore, fromIndex, fromLister]) {
    assert.equal(obj, indexer.getByKey("ns/a")); // the cached object, not a copy
  }
  // Each write is refused by the type checker (the lines never run).
  const writes = (o: DeepReadonly<Pod>) => {
    // @ts-expect-error: metadata fields are read-only
    o.metadata.name = "x";
    // @ts-expect-error: nested records are read-only
    o.metadata.labels!.app = "x";
    // @ts-expect-error: arrays are read-only
    o.spec!.containers!.push({ name: "d" });
    // @ts-expect-error: objects in arrays are read-only
    o.spec!.containers![0].image = "x";
  };
  assert.equal(typeof writes, "function");
  // Handlers and the factory's listers get the same type.
  const unused = () => Promise.reject(new Error("not started"));
  const client: ResourceClient = { list: unused, watch: unused };
  const factory = new SharedInformerFactory(client, { clock: new FakeClock() });
  factory.informerFor<ConfigMap>(ConfigMaps).addEventHandler({
    onAdd: (cm) => {
      // @ts-expect-error: handler arguments are read-only
      cm.data!.k = "v";
    },
    onUpdate: (_old, cm) => {
      // @ts-expect-error: handler arguments are read-only
      cm.metadata.annotations!.k = "v";
    },
  });
  const listed = (cms: DeepReadonly<ConfigMap>[]) => {
    // @ts-expect-error: lister results are read-only
    cms[0].metadata.name = "x";
  };
  // Never started: a read says so instead of answering "none".
  assert.throws(
    () => factory.lister(ConfigMaps).list(),
    /the cache of configmaps has not synced \(the factory has not been started\)/,
  );
  assert.equal(typeof listed, "function");
});

Deno.test("deepCopy() gives a mutable copy that shares nothing with the cached object", () => {
  const indexer = newIndexer<Pod>(metaNamespaceKeyFunc, {});
  indexer.add(pod("a"));
  const cached = readonlyIndexer(indexer).getByKey("ns/a")!;
  const copy: Pod = deepCopy(cached);
  copy.metadata.labels!.app = "db";
  copy.spec!.containers!.push({ name: "d" });
  assert.equal(cached.metadata.labels!.app, "web");
  assert.equal(cached.spec!.containers!.length, 1);
  assert.notEqual(copy, cached);
});
