import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { deletionHandlingMetaNamespaceKeyFunc } from "./keys.ts";
import { metaNamespaceIndexFunc, NAMESPACE_INDEX } from "./index.ts";
import type { KubeObject } from "../api/object.ts";
import { newIndexer } from "./store.ts";
import { newIntegerResourceVersionMutationCache } from "./mutation_cache.ts";

function obj(name: string, rv: string, ns = "ns"): KubeObject {
  return { metadata: { name, namespace: ns, resourceVersion: rv } };
}

function setup(includeAdds = false) {
  const clock = new FakeClock(0);
  const indexer = newIndexer<KubeObject>(deletionHandlingMetaNamespaceKeyFunc, {
    [NAMESPACE_INDEX]: metaNamespaceIndexFunc,
  });
  const cache = newIntegerResourceVersionMutationCache(indexer, {
    indexer,
    ttl: 60_000,
    includeAdds,
    clock,
  });
  return { clock, indexer, cache };
}

Deno.test("MutationCache.getByKey() returns the newer of cache and mutation", () => {
  const { indexer, cache } = setup();
  indexer.add(obj("a", "10"));
  cache.mutation(obj("a", "12"));
  assert.equal(cache.getByKey("ns/a")?.metadata.resourceVersion, "12");
  cache.mutation(obj("a", "11")); // older than the recorded one: ignored
  assert.equal(cache.getByKey("ns/a")?.metadata.resourceVersion, "12");
  indexer.update(obj("a", "12")); // the cache caught up: the mutation is dropped
  assert.equal(cache.getByKey("ns/a"), indexer.getByKey("ns/a"));
  cache.mutation(obj("a", "11"));
  assert.equal(cache.getByKey("ns/a")?.metadata.resourceVersion, "12");
});

Deno.test("MutationCache hides keys missing from the cache unless includeAdds", () => {
  const plain = setup(false);
  plain.cache.mutation(obj("new", "5"));
  assert.equal(plain.cache.getByKey("ns/new"), undefined);
  assert.deepEqual(plain.cache.byIndex(NAMESPACE_INDEX, "ns"), []);
  const adds = setup(true);
  adds.cache.mutation(obj("new", "5"));
  adds.cache.mutation(obj("other", "6", "elsewhere"));
  assert.equal(adds.cache.getByKey("ns/new")?.metadata.resourceVersion, "5");
  assert.deepEqual(
    adds.cache.byIndex(NAMESPACE_INDEX, "ns").map((o) => o.metadata.name),
    ["new"],
  );
});

Deno.test("MutationCache entries expire after ttl on the clock", async () => {
  const { clock, indexer, cache } = setup();
  indexer.add(obj("a", "1"));
  cache.mutation(obj("a", "2"));
  await clock.step(60_000);
  assert.equal(cache.getByKey("ns/a")?.metadata.resourceVersion, "2");
  await clock.step(1);
  assert.equal(cache.getByKey("ns/a")?.metadata.resourceVersion, "1");
});

Deno.test("MutationCache.byIndex() overlays mutations and needs an indexer", () => {
  const { indexer, cache } = setup();
  indexer.add(obj("a", "1"));
  indexer.add(obj("b", "1"));
  cache.mutation(obj("b", "3"));
  assert.deepEqual(
    cache.byIndex(NAMESPACE_INDEX, "ns").map((o) => o.metadata.resourceVersion)
      .sort(),
    ["1", "3"],
  );
  const bare = newIntegerResourceVersionMutationCache(indexer, { ttl: 1 });
  assert.throws(() => bare.byIndex(NAMESPACE_INDEX, "ns"), /no indexer/);
  assert.throws(
    () => newIntegerResourceVersionMutationCache(indexer, { ttl: -1 }),
    RangeError,
  );
});

Deno.test("MutationCache keeps at most maxSize mutations, least recently used first out", () => {
  const indexer = newIndexer<KubeObject>(
    deletionHandlingMetaNamespaceKeyFunc,
    {},
  );
  const cache = newIntegerResourceVersionMutationCache(indexer, {
    ttl: 60_000,
    maxSize: 2,
  });
  for (const n of ["a", "b", "c"]) {
    indexer.add(obj(n, "1"));
    cache.mutation(obj(n, "2"));
  }
  const rvs = ["a", "b", "c"].map((n) =>
    cache.getByKey(`ns/${n}`)?.metadata.resourceVersion
  );
  assert.deepEqual(rvs, ["1", "2", "2"]);
});
