// One key computation per event: the queues hand their key to `process`,
// and the informer stores under it. A DeltaFIFO keys what its transformer
// returned, so that key is the indexer's even when a transform renames.
import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { FakeControllerSource } from "../testing/fake_controller_source.ts";
import type { KubeObject } from "../api/object.ts";
import type { ListerWatcher } from "../api/listwatch.ts";
import { DeltaFIFO } from "./delta_fifo.ts";
import { FIFO } from "./fifo.ts";
import { Cache } from "./_cache.ts";
import {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  KeyError,
} from "./keys.ts";
import { processDeltas } from "./_processor.ts";
import { newSharedIndexInformer, waitForCacheSync } from "./shared_informer.ts";
import { eventually, stepUntil } from "./_test_util.ts";

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
  // A transform may rename: the queue keys what the transform returned,
  // as the indexer does.
  const source = new FakeControllerSource<KubeObject>();
  source.add(pod("a"));
  const informer = newSharedIndexInformer(source, {
    clock: new FakeClock(),
    transform: (o) => ({
      ...o,
      metadata: { ...o.metadata, name: `${o.metadata.name}-t` },
    }),
  });
  const updated = Promise.withResolvers<void>();
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

Deno.test("SharedIndexInformer with a renaming transform applies watch deletions and keeps listed objects across a relist", async () => {
  // The DeltaFIFO keys what the transform returned, as the indexer (its
  // knownObjects) does: keyed as they came, a watch DELETED found nothing
  // known under "ns/a" and was dropped, and a relist took the known
  // "ns/a-t" for missing and deleted a live object.
  const source = new FakeControllerSource<KubeObject>();
  source.add(pod("a"));
  source.add(pod("b"));
  const clock = new FakeClock();
  const informer = newSharedIndexInformer(source, {
    clock,
    transform: (o) => ({
      ...o,
      metadata: { ...o.metadata, name: `${o.metadata.name}-t` },
    }),
  });
  const events: string[] = [];
  informer.addEventHandler({
    onAdd: (o) => void events.push(`add ${o.metadata.name}`),
    onDelete: (o) =>
      void events.push(
        `delete ${
          o instanceof DeletedFinalStateUnknown ? o.key : o.metadata.name
        }`,
      ),
  });
  const ac = new AbortController();
  const done = informer.run(ac.signal);
  try {
    await waitForCacheSync(ac.signal, informer.hasSynced);
    source.delete(pod("b"));
    // A change only a relist sees, then a watch that cannot resume.
    source.addDropWatch(pod("c"));
    source.compact();
    source.breakWatches();
    await stepUntil(clock, () => events.includes("add c-t"), "the relist");
    source.add(pod("marker"));
    await eventually(() => events.includes("add marker-t"), "the marker");
    assert.deepEqual(events, [
      "add a-t",
      "add b-t",
      "delete b-t",
      "add c-t",
      "add marker-t",
    ]);
    assert.deepEqual(informer.getStore().listKeys().sort(), [
      "ns/a-t",
      "ns/c-t",
      "ns/marker-t",
    ]);
  } finally {
    ac.abort();
    await done;
  }
});

Deno.test("DeltaFIFO keys what its transformer returns, the key knownObjects holds", () => {
  const known = new Map<string, KubeObject>();
  const fifo = new DeltaFIFO<KubeObject>({
    knownObjects: {
      listKeys: () => [...known.keys()],
      getByKey: (k) => known.get(k),
    },
    emitDeltaTypeReplaced: true,
    transformer: (o) => ({
      ...o,
      metadata: { ...o.metadata, name: `${o.metadata.name}-t` },
    }),
  });
  fifo.add(pod("a"));
  assert.deepEqual(fifo.listKeys(), ["ns/a-t"]);
  known.set("ns/b-t", { metadata: { namespace: "ns", name: "b-t" } });
  fifo.delete(pod("b")); // known under its transformed key: queued
  fifo.replace([pod("b")], "2"); // listed: no tombstone for "ns/b-t"
  assert.deepEqual(fifo.listKeys(), ["ns/a-t", "ns/b-t"]);
  assert.deepEqual(fifo.getByKey("ns/b-t")!.map((d) => d.type), [
    "Deleted",
    "Replaced",
  ]);
  assert.deepEqual(fifo.getByKey("ns/a-t")!.map((d) => d.type), [
    "Added",
    "Deleted", // a queued key missing from the list
  ]);
});

Deno.test("SharedIndexInformer drops list items and watch events whose name or namespace is not a non-empty string, reporting KeyErrors, and syncs the rest", async () => {
  const bad = [
    { metadata: { namespace: "default", name: 42, resourceVersion: "1" } },
    { metadata: { namespace: "default", resourceVersion: "1" } },
    { metadata: { namespace: 9, name: "x", resourceVersion: "1" } },
  ] as unknown as KubeObject[];
  const good = (name: string, rv: string): KubeObject => ({
    metadata: { namespace: "default", name, resourceVersion: rv },
  });
  let lists = 0;
  const lw: ListerWatcher<KubeObject> = {
    list: () => {
      lists++;
      return Promise.resolve({
        metadata: { resourceVersion: "1" },
        items: [good("a", "1"), ...bad],
      });
    },
    watch: (_opts, signal) =>
      Promise.resolve((async function* () {
        yield { type: "ADDED" as const, object: bad[0] };
        yield { type: "ADDED" as const, object: good("b", "2") };
        await new Promise((resolve) =>
          signal!.addEventListener("abort", resolve, { once: true })
        );
      })()),
  };
  const clock = new FakeClock();
  const informer = newSharedIndexInformer(lw, { clock });
  const reported: unknown[] = [];
  informer.setWatchErrorHandler((_r, err) => void reported.push(err));
  const ac = new AbortController();
  const done = informer.run(ac.signal);
  try {
    await waitForCacheSync(ac.signal, informer.hasSynced);
    await eventually(
      () => informer.getStore().listKeys().includes("default/b"),
      "the watched b",
    );
    assert.deepEqual(informer.getStore().listKeys().sort(), [
      "default/a",
      "default/b",
    ]);
    assert.equal(lists, 1, "a bad item does not fail the list");
    const keyErrors = reported.filter((e) => e instanceof KeyError);
    assert.equal(keyErrors.length, 4, `${reported}`);
  } finally {
    ac.abort();
    await done;
  }
});
