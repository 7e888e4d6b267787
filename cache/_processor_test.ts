import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import type { ResourceEventHandler } from "./event_handler.ts";
import {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
} from "./keys.ts";
import type { KubeObject } from "../api/object.ts";
import { Cache } from "./_cache.ts";
import {
  ADD,
  ADD_INITIAL,
  determineResyncPeriod,
  processDeltas,
  SharedProcessor,
  UPDATE,
} from "./_processor.ts";

function obj(name: string, rv = "1"): KubeObject {
  return { metadata: { name, namespace: "ns", resourceVersion: rv } };
}

/** A handler recording events; `waitFor(n)` resolves once n are recorded. */
class Recorder implements ResourceEventHandler<KubeObject> {
  events: string[] = [];
  #waiters: { n: number; resolve: () => void }[] = [];
  onAdd(o: KubeObject, initial: boolean): void {
    this.push(`add ${o.metadata.name}${initial ? " initial" : ""}`);
  }
  onUpdate(_old: KubeObject, o: KubeObject): void {
    this.push(`update ${o.metadata.name}`);
  }
  onDelete(o: KubeObject | DeletedFinalStateUnknown<KubeObject>): void {
    const name = o instanceof DeletedFinalStateUnknown
      ? `tombstone ${o.key}`
      : o.metadata.name;
    this.push(`delete ${name}`);
  }
  push(e: string): void {
    this.events.push(e);
    this.#waiters = this.#waiters.filter((w) => {
      if (this.events.length < w.n) return true;
      w.resolve();
      return false;
    });
  }
  waitFor(n: number): Promise<void> {
    if (this.events.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }
}

function processor(
  resyncCheckPeriod = 0,
  clock = new FakeClock(),
): SharedProcessor<KubeObject> {
  return new SharedProcessor<KubeObject>({
    resyncCheckPeriod,
    clock,
    errorHandler: (e) => {
      throw e;
    },
  });
}

Deno.test("ProcessorListener delivers in order, awaiting async handlers one at a time", async () => {
  const p = processor();
  const order: string[] = [];
  let active = 0;
  let maxActive = 0;
  const gates = [
    Promise.withResolvers<void>(),
    Promise.withResolvers<void>(),
    Promise.withResolvers<void>(),
  ];
  let call = 0;
  const done = Promise.withResolvers<void>();
  const listener = p.newListener({
    onAdd: async (o) => {
      const gate = gates[call++];
      active++;
      maxActive = Math.max(maxActive, active);
      order.push(`start ${o.metadata.name}`);
      await gate.promise;
      order.push(`end ${o.metadata.name}`);
      active--;
      if (call === 3) done.resolve();
    },
  }, { resyncPeriod: 0, started: false, hasSynced: () => true });
  p.addListener(listener);
  p.run();
  for (const n of ["a", "b", "c"]) {
    p.push(ADD, obj(n), undefined, false);
  }
  // release in reverse: order must still be a, b, c
  gates[2].resolve();
  gates[1].resolve();
  gates[0].resolve();
  await done.promise;
  assert.deepEqual(order, [
    "start a",
    "end a",
    "start b",
    "end b",
    "start c",
    "end c",
  ]);
  assert.equal(maxActive, 1);
  await p.stop();
});

Deno.test("SharedProcessor: a slow handler does not block another", async () => {
  const p = processor();
  const stuck = Promise.withResolvers<void>();
  let slowCalls = 0;
  const slow = p.newListener({
    onAdd: () => {
      slowCalls++;
      return stuck.promise;
    },
  }, { resyncPeriod: 0, started: false, hasSynced: () => true });
  const fast = new Recorder();
  p.addListener(slow);
  p.addListener(p.newListener(fast, {
    resyncPeriod: 0,
    started: false,
    hasSynced: () => true,
  }));
  p.run();
  for (let i = 0; i < 1000; i++) {
    p.push(ADD, obj(`o${i}`), undefined, false);
  }
  await fast.waitFor(1000);
  assert.equal(slowCalls, 1);
  assert.equal(slow.pending(), 999);
  stuck.resolve();
  await p.stop();
});

Deno.test("ProcessorListener.hasSynced() waits for upstream and the initial adds", async () => {
  const p = processor();
  let upstream = false;
  const gate = Promise.withResolvers<void>();
  const handled: string[] = [];
  const listener = p.newListener({
    onAdd: async (o) => {
      await gate.promise;
      handled.push(o.metadata.name!);
    },
  }, { resyncPeriod: 0, started: false, hasSynced: () => upstream });
  p.addListener(listener);
  assert.equal(listener.hasSynced(), false);
  upstream = true;
  assert.equal(listener.hasSynced(), true); // nothing initial queued yet
  listener.push(ADD_INITIAL, obj("a"), undefined);
  listener.push(ADD_INITIAL, obj("b"), undefined);
  listener.push(ADD, obj("c"), undefined);
  assert.equal(listener.hasSynced(), false);
  p.run();
  gate.resolve();
  listener.push(ADD, obj("d"), undefined);
  // d is queued after the initial adds: once it is handled they are too
  await new Promise<void>((resolve) => {
    const check = () =>
      handled.includes("d") ? resolve() : queueMicrotask(check);
    check();
  });
  assert.equal(listener.hasSynced(), true);
  upstream = false;
  assert.equal(listener.hasSynced(), false);
  await p.stop();
});

Deno.test("SharedProcessor.removeListener() stops delivery and drops pending notifications", async () => {
  const p = processor();
  const gate = Promise.withResolvers<void>();
  const seen: string[] = [];
  const listener = p.newListener({
    onAdd: async (o) => {
      seen.push(o.metadata.name!);
      await gate.promise;
    },
  }, { resyncPeriod: 0, started: false, hasSynced: () => true });
  p.addListener(listener);
  p.run();
  p.push(ADD, obj("a"), undefined, false);
  p.push(ADD, obj("b"), undefined, false);
  await Promise.resolve();
  assert.equal(p.removeListener(listener), true);
  assert.equal(p.removeListener(listener), false);
  p.push(ADD, obj("c"), undefined, false);
  gate.resolve();
  await p.stop(); // waits for the call in flight
  assert.deepEqual(seen, ["a"]);
});

Deno.test("determineResyncPeriod() follows client-go", () => {
  assert.equal(determineResyncPeriod(0, 5_000), 0);
  assert.equal(determineResyncPeriod(3_000, 0), 0);
  assert.equal(determineResyncPeriod(3_000, 5_000), 5_000);
  assert.equal(determineResyncPeriod(7_000, 5_000), 7_000);
});

Deno.test("SharedProcessor.newListener() rounds resync periods like client-go's TestResyncCheckPeriod", () => {
  const p = processor(60_000);
  const opts = { started: false, hasSynced: () => true };
  const l1 = p.newListener({}, { ...opts, resyncPeriod: 0 });
  p.addListener(l1);
  assert.equal(p.resyncCheckPeriod, 60_000);
  assert.equal(l1.resyncPeriod, 0);
  const l2 = p.newListener({}, { ...opts, resyncPeriod: 60_000 });
  p.addListener(l2);
  assert.equal(p.resyncCheckPeriod, 60_000);
  assert.equal(l2.resyncPeriod, 60_000);
  const l3 = p.newListener({}, { ...opts, resyncPeriod: 55_000 });
  p.addListener(l3);
  assert.equal(p.resyncCheckPeriod, 55_000);
  assert.deepEqual([l1, l2, l3].map((l) => l.resyncPeriod), [
    0,
    60_000,
    55_000,
  ]);
  const l4 = p.newListener({}, { ...opts, resyncPeriod: 5_000 });
  p.addListener(l4);
  assert.equal(p.resyncCheckPeriod, 5_000);
  assert.deepEqual([l1, l2, l3, l4].map((l) => l.resyncPeriod), [
    0,
    60_000,
    55_000,
    5_000,
  ]);
  // below the 1 s minimum
  const l5 = p.newListener({}, { ...opts, resyncPeriod: 10 });
  assert.equal(l5.resyncPeriod, 1_000);
  assert.equal(p.resyncCheckPeriod, 1_000);
  // after start, a short period is raised to the check period instead
  const started = processor(5_000);
  const l6 = started.newListener({}, {
    started: true,
    hasSynced: () => true,
    resyncPeriod: 2_000,
  });
  assert.equal(l6.resyncPeriod, 5_000);
  assert.equal(l6.requestedResyncPeriod, 5_000);
  assert.equal(started.resyncCheckPeriod, 5_000);
  // an informer without resyncs gives no listener resyncs
  const none = processor(0);
  const l7 = none.newListener({}, {
    started: false,
    hasSynced: () => true,
    resyncPeriod: 2_000,
  });
  assert.equal(l7.resyncPeriod, 0);
  assert.equal(none.resyncCheckPeriod, 0);
});

Deno.test("SharedProcessor.shouldResync() only marks due listeners, and sync notifications reach only them", async () => {
  const clock = new FakeClock(0);
  const p = processor(1_000, clock);
  const recs = [new Recorder(), new Recorder(), new Recorder()];
  const periods = [0, 2_000, 3_000];
  recs.forEach((r, i) =>
    p.addListener(
      p.newListener(r, {
        resyncPeriod: periods[i],
        started: false,
        hasSynced: () => true,
      }),
    )
  );
  p.run();
  const same = obj("a");
  const marker = obj("m");
  const markers = () =>
    recs.map((r) => r.events.filter((e) => e === "add m").length);
  let steps = 0;
  // Each step ends with a marker every listener gets; once all have it, a
  // wrongly routed sync would have arrived before it.
  const step = async (ms: number) => {
    await clock.step(ms);
    const needed = p.shouldResync();
    if (needed) p.push(UPDATE, same, same, true);
    p.push(ADD, marker, undefined, false);
    steps++;
    while (markers().some((m) => m < steps)) await Promise.resolve();
    return needed;
  };
  assert.equal(await step(1_000), false);
  assert.equal(await step(1_000), true); // t=2s: listener 2
  assert.equal(await step(1_000), true); // t=3s: listener 3
  assert.equal(await step(1_000), true); // t=4s: listener 2
  const syncs = recs.map((r) =>
    r.events.filter((e) => e === "update a").length
  );
  assert.deepEqual(syncs, [0, 2, 1]);
  await p.stop();
});

Deno.test("processDeltas() applies deltas like client-go", async () => {
  const store = new Cache<KubeObject>(deletionHandlingMetaNamespaceKeyFunc, {});
  const rec = new Recorder();
  const run = (
    deltas: { type: string; object: unknown }[],
    isInInitialList = false,
  ) => processDeltas(deltas as never, { handler: rec, store, isInInitialList });
  run([{ type: "Replaced", object: obj("a") }], true);
  run([{ type: "Added", object: obj("b") }, {
    type: "Updated",
    object: obj("b", "2"),
  }]);
  run([{ type: "Sync", object: obj("a") }]);
  run([{ type: "Deleted", object: obj("b", "2") }]);
  run([{
    type: "Deleted",
    object: new DeletedFinalStateUnknown("ns/a", obj("a")),
  }]);
  run([{ type: "Sync", object: obj("c") }]);
  assert.deepEqual(rec.events, [
    "add a initial",
    "add b",
    "update b",
    "update a",
    "delete b",
    "delete tombstone ns/a",
    "add c",
  ]);
  assert.deepEqual(store.listKeys(), ["ns/c"]);
  // async handlers are awaited delta by delta
  const order: string[] = [];
  const result = processDeltas([
    { type: "Added", object: obj("x") },
    { type: "Updated", object: obj("x", "2") },
  ], {
    store,
    isInInitialList: false,
    handler: {
      onAdd: async () => {
        await Promise.resolve();
        order.push("add done");
      },
      onUpdate: () =>
        void order.push(
          `update sees ${store.getByKey("ns/x")?.metadata.resourceVersion}`,
        ),
    },
  });
  assert.ok(result instanceof Promise);
  assert.deepEqual(order, []);
  await result;
  assert.deepEqual(order, ["add done", "update sees 2"]);
});
