// One key computation per event: the queues hand their key to `process`,
// and the informer stores under it — but never under a key a transform has
// made stale.
import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { FakeControllerSource } from "../testing/fake_controller_source.ts";
import type { KubeObject } from "../api/object.ts";
import { DeltaFIFO } from "./delta_fifo.ts";
import { FIFO } from "./fifo.ts";
import { Cache } from "./_cache.ts";
import { deletionHandlingMetaNamespaceKeyFunc } from "./keys.ts";
import { processDeltas } from "./_processor.ts";
import { newSharedIndexInformer, waitForCacheSync } from "./shared_informer.ts";
import { deferred } from "./_test_util.ts";

function pod(name: string, rv = "1"): KubeObject {
  return { metadata: { namespace: "ns", name, resourceVersion: rv } };
}

Deno.test("DeltaFIFO.popEach() and pop() pass each item's queue key to process", async () => {
  const fifo = new DeltaFIFO<KubeObject>();
  fifo.add(pod("a"));
  fifo.add(pod("b"));
  fifo.update(pod("a", "2"));
  fifo.add(pod("c"));
  const keys: (string | undefined)[] = [];
  await fifo.pop((_deltas, _initial, key) => void keys.push(key));
  const loop = fifo.popEach((_deltas, _initial, key) => void keys.push(key));
  fifo.close();
  await loop;
  assert.deepEqual(keys, ["ns/a", "ns/b", "ns/c"]);

  const plain = new FIFO<KubeObject>(deletionHandlingMetaNamespaceKeyFunc);
  plain.add(pod("x"));
  let seen: string | undefined;
  await plain.pop((_obj, _initial, key) => void (seen = key));
  assert.equal(seen, "ns/x");
});

Deno.test("processDeltas() stores under the given key without computing one", () => {
  const store = new Cache<KubeObject>(deletionHandlingMetaNamespaceKeyFunc, {});
  let computed = 0;
  const counting = {
    keyOf: (o: KubeObject) => (computed++, store.keyOf(o)),
    getByKey: (k: string) => store.getByKey(k),
    updateByKey: (k: string, o: KubeObject) => store.updateByKey(k, o),
    deleteByKey: (k: string) => store.deleteByKey(k),
  };
  const deltas = [
    { type: "Added" as const, object: pod("a") },
    { type: "Updated" as const, object: pod("a", "2") },
  ];
  processDeltas(deltas, {
    handler: {},
    store: counting,
    isInInitialList: false,
    key: "ns/a",
  });
  assert.equal(computed, 0);
  assert.equal(store.getByKey("ns/a")?.metadata.resourceVersion, "2");
  processDeltas([{ type: "Deleted", object: pod("a", "2") }], {
    handler: {},
    store: counting,
    isInInitialList: false,
  });
  assert.equal(computed, 1); // no key given: computed per delta, as before
  assert.deepEqual(store.listKeys(), []);
});

Deno.test("SharedIndexInformer with a transform stores under the transformed object's key", async () => {
  // A transform may rename: the queue's key (of the object as it came)
  // is then not the indexer's, which keys what the transform returned.
  const source = new FakeControllerSource<KubeObject>();
  source.add(pod("a"));
  const informer = newSharedIndexInformer(source, {
    clock: new FakeClock(),
    transform: (o) => ({
      ...o,
      metadata: { ...o.metadata, name: `${o.metadata.name}-t` },
    }),
  });
  const updated = deferred();
  informer.addEventHandler({ onUpdate: () => updated.resolve() });
  const ac = new AbortController();
  const done = informer.run(ac.signal);
  try {
    await waitForCacheSync(ac.signal, informer.hasSynced);
    source.modify(pod("a", "5"));
    await updated.promise;
    assert.deepEqual(informer.getStore().listKeys(), ["ns/a-t"]);
  } finally {
    ac.abort();
    await done;
  }
});
