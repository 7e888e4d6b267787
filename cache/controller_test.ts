import assert from "node:assert/strict";
import {
  eventually,
  missEventsThenRelist,
  recorder,
  stepUntil,
} from "./_test_util.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { FakeControllerSource } from "../testing/fake_controller_source.ts";
import {
  Controller,
  FilteringResourceEventHandler,
  newIndexerInformer,
  newInformer,
} from "./controller.ts";
import type { InformerErrorContext } from "./event_handler.ts";
import { DeltaFIFO } from "./delta_fifo.ts";
import { metaNamespaceIndexFunc, NAMESPACE_INDEX } from "./index.ts";
import {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
} from "./keys.ts";
import type { ListOptions } from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import { newSharedIndexInformer } from "./shared_informer.ts";
import { newStore } from "./store.ts";
import { nextTurn } from "../testing/turns.ts";

interface Pod extends KubeObject {
  spec?: unknown;
}

function pod(name: string, extra: Record<string, unknown> = {}): Pod {
  return { metadata: { namespace: "ns", name }, ...extra };
}

// client-go controller_test.go Example(): a controller that deletes every
// object it sees and reports the deletions.
Deno.test("Controller example: delete everything the source has", async () => {
  const source = new FakeControllerSource();
  // What the controller has processed so far, as the DeltaFIFO's knownObjects.
  const downstream = newStore<KubeObject>(deletionHandlingMetaNamespaceKeyFunc);
  const fifo = new DeltaFIFO<KubeObject>({
    knownObjects: downstream,
    emitDeltaTypeReplaced: true,
  });
  const deleted: string[] = [];
  const controller = new Controller<KubeObject>({
    queue: fifo,
    listerWatcher: source,
    clock: new FakeClock(),
    process: (deltas) => {
      const newest = deltas[deltas.length - 1];
      if (newest.type !== "Deleted") {
        downstream.add(newest.object as KubeObject);
        source.delete(newest.object as KubeObject); // triggers a Deleted delta
      } else {
        downstream.delete(newest.object as KubeObject);
        deleted.push(fifo.keyOf(newest.object));
      }
    },
  });
  const ac = new AbortController();
  const done = controller.run(ac.signal);
  for (const name of ["a-hello", "b-controller", "c-framework"]) {
    source.add({ metadata: { name } });
  }
  await eventually(() => deleted.length === 3, "three deletions");
  ac.abort();
  await done;
  assert.deepEqual(deleted.sort(), ["a-hello", "b-controller", "c-framework"]);
  assert.deepEqual(downstream.list(), []);
});

Deno.test("newInformer() keeps the store in sync and notifies adds, updates and deletes", async () => {
  const source = new FakeControllerSource<Pod>();
  source.add(pod("a"));
  source.add(pod("b"));
  const h = recorder<Pod>();
  const { store, controller } = newInformer(source, h, {
    clock: new FakeClock(),
  });
  const ac = new AbortController();
  const done = controller.run(ac.signal);
  assert.equal(controller.run(ac.signal), done); // never a second loop
  await eventually(() => controller.hasSynced(), "sync");
  assert.deepEqual(h.events.sort(), ["add a initial", "add b initial"]);
  source.modify(pod("a", { spec: { x: 1 } }));
  source.add(pod("c"));
  source.delete(pod("b"));
  await eventually(() => h.events.length === 5, "three more events");
  assert.deepEqual(h.events.slice(2), ["update a", "add c", "delete b"]);
  assert.deepEqual(store.listKeys().sort(), ["ns/a", "ns/c"]);
  assert.deepEqual(store.getByKey("ns/a")?.spec, { x: 1 });
  assert.equal(controller.lastSyncResourceVersion(), source.resourceVersion());
  assert.ok(controller.health());
  ac.abort();
  await done;
});

Deno.test("newInformer() and newSharedIndexInformer() pass pageSize to the Reflector's lists", async () => {
  for (const kind of ["newInformer", "newSharedIndexInformer"] as const) {
    const source = new FakeControllerSource<Pod>();
    source.add(pod("a"));
    const limits: (number | undefined)[] = [];
    const lw = {
      list: (opts: ListOptions, signal?: AbortSignal) => {
        limits.push(opts.limit);
        return source.list(opts, signal);
      },
      watch: source.watch.bind(source),
    };
    const opts = { clock: new FakeClock(), pageSize: 7 };
    const ac = new AbortController();
    const informer = kind === "newInformer"
      ? newInformer(lw, {}, opts).controller
      : newSharedIndexInformer(lw, opts);
    const done = informer.run(ac.signal);
    await eventually(() => informer.hasSynced(), `${kind} sync`);
    ac.abort();
    await done;
    assert.deepEqual(limits, [7], kind);
  }
});

Deno.test("newInformer() reports a missed delete found by a relist as a tombstone, and a relist's new objects as not initial", async () => {
  const clock = new FakeClock();
  const source = new FakeControllerSource();
  source.add(pod("a"));
  source.add(pod("b"));
  const h = recorder<Pod>();
  const watchErrors: unknown[] = [];
  const { store, controller } = newInformer(source, h, {
    clock,
    watchErrorHandler: (_r, e) => void watchErrors.push(e),
  });
  const ac = new AbortController();
  const done = controller.run(ac.signal);
  await eventually(() => controller.hasSynced(), "sync");
  await eventually(() => source.openWatches() === 1, "the watch");
  await missEventsThenRelist(source, clock, h.events, (name) => pod(name));
  // Unchanged "a" is a same-RV update: with no resyncs the handler never
  // gets one (client-go's NewInformer would send "update a").
  assert.deepEqual(h.events.slice(2).sort(), [
    "add c",
    "add marker",
    "tombstone ns/b",
  ]);
  assert.deepEqual(store.listKeys().sort(), ["ns/a", "ns/c", "ns/marker"]);
  // the cut stream, then the 410 of the watch resumed after compaction
  assert.equal(watchErrors.length, 2, String(watchErrors));
  assert.match(String(watchErrors[0]), /cut/);
  assert.equal((watchErrors[1] as { code?: number }).code, 410);
  ac.abort();
  await done;
});

Deno.test("newInformer() awaits an async handler before the next notification", async () => {
  const source = new FakeControllerSource();
  for (const n of ["a", "b", "c"]) source.add(pod(n));
  const log: string[] = [];
  const { controller } = newInformer(source, {
    onAdd: async (o) => {
      log.push(`start ${o.metadata.name}`);
      await nextTurn();
      log.push(`end ${o.metadata.name}`);
    },
  }, { clock: new FakeClock() });
  const ac = new AbortController();
  const done = controller.run(ac.signal);
  await eventually(() => log.length === 6, "three adds");
  for (let i = 0; i < 6; i += 2) {
    assert.equal(log[i].replace("start", "end"), log[i + 1]);
  }
  ac.abort();
  await done;
});

Deno.test("newIndexerInformer() maintains indexes and applies the transform", async () => {
  const source = new FakeControllerSource();
  source.add({ metadata: { namespace: "x", name: "a", managedFields: [{}] } });
  source.add({ metadata: { namespace: "y", name: "b", managedFields: [{}] } });
  const { indexer, controller } = newIndexerInformer(source, {}, {
    clock: new FakeClock(),
    indexers: { [NAMESPACE_INDEX]: metaNamespaceIndexFunc },
    transform: (o) => {
      delete o.metadata.managedFields;
      return o;
    },
  });
  const ac = new AbortController();
  const done = controller.run(ac.signal);
  await eventually(() => controller.hasSynced(), "sync");
  assert.deepEqual(
    indexer.byIndex(NAMESPACE_INDEX, "x").map((o) => o.metadata.name),
    ["a"],
  );
  assert.equal(indexer.getByKey("y/b")?.metadata.managedFields, undefined);
  ac.abort();
  await done;
});

Deno.test("newInformer() resyncs every resyncPeriod on the clock", async () => {
  const clock = new FakeClock();
  const source = new FakeControllerSource();
  source.add(pod("a"));
  const h = recorder<Pod>();
  const { controller } = newInformer(source, h, {
    clock,
    resyncPeriod: 30_000,
  });
  const ac = new AbortController();
  const done = controller.run(ac.signal);
  await eventually(() => h.events.length === 1, "the add");
  await eventually(() => source.openWatches() === 1, "the watch");
  await clock.step(29_999);
  assert.deepEqual(h.events, ["add a initial"]);
  await stepUntil(clock, () => h.events.length === 2, "the resync");
  assert.deepEqual(h.events, ["add a initial", "update a"]);
  ac.abort();
  await done;
});

Deno.test("Controller.run() reports process errors and keeps popping", async () => {
  const source = new FakeControllerSource();
  source.add(pod("a"));
  source.add(pod("b"));
  const fifo = new DeltaFIFO<KubeObject>({ emitDeltaTypeReplaced: true });
  const errors: [unknown, InformerErrorContext][] = [];
  const seen: string[] = [];
  const controller = new Controller<KubeObject>({
    queue: fifo,
    listerWatcher: source,
    clock: new FakeClock(),
    errorHandler: (e, context) => void errors.push([e, context]),
    process: (deltas) => {
      const o = deltas[0].object as KubeObject;
      seen.push(o.metadata.name!);
      if (o.metadata.name === "a") throw new Error("cannot process a");
    },
  });
  const ac = new AbortController();
  const done = controller.run(ac.signal);
  await eventually(() => seen.length === 2, "both items");
  assert.equal(errors.length, 1);
  assert.deepEqual(errors[0][1], { informer: "controller", source: "process" });
  assert.equal(controller.hasSynced(), true);
  ac.abort();
  await done;
  assert.equal(fifo.isClosed(), true);
});

Deno.test("FilteringResourceEventHandler turns updates across the filter into adds and deletes", () => {
  const h = recorder<Pod>();
  const web = (name: string, on: boolean): Pod => ({
    metadata: { namespace: "ns", name, labels: on ? { app: "web" } : {} },
  });
  const f = new FilteringResourceEventHandler<Pod>(
    (o) => o.metadata.labels?.app === "web",
    h,
  );
  f.onAdd(web("a", true), true);
  f.onAdd(web("b", false), true);
  f.onUpdate(web("a", true), web("a", true));
  f.onUpdate(web("b", false), web("b", true)); // starts passing: add
  f.onUpdate(web("a", true), web("a", false)); // stops passing: delete
  f.onUpdate(web("c", false), web("c", false)); // never passes: nothing
  f.onDelete(new DeletedFinalStateUnknown("ns/b", web("b", true)));
  f.onDelete(new DeletedFinalStateUnknown("ns/c", web("c", false)));
  f.onDelete(new DeletedFinalStateUnknown<Pod>("ns/d", undefined)); // unknown: forwarded
  assert.deepEqual(h.events, [
    "add a initial",
    "update a",
    "add b",
    "delete a",
    "tombstone ns/b",
    "tombstone ns/d",
  ]);
});
