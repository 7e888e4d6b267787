// A handler's buffer, bounded and observable: `maxPending` holds back the
// watch while a slow handler's buffer is full (nothing dropped), and
// health() tells each registration's pending count.

import assert from "node:assert/strict";
import { eventually } from "./_test_util.ts";
import { ioTurn, nextTurn } from "../testing/turns.ts";
import { serverWithClient } from "../testing/client_test_util.ts";
import { listWatch } from "../api/resource_client.ts";
import { ConfigMaps } from "../api/resources.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { FakeControllerSource } from "../testing/fake_controller_source.ts";
import type { KubeObject } from "../api/object.ts";
import { newSharedIndexInformer } from "./shared_informer.ts";
import { gateWatch } from "./_processor.ts";
import { hasNextBatch, type ListerWatcher } from "../api/listwatch.ts";

const N = 200;

function cm(i: number): KubeObject {
  return { metadata: { namespace: "ns", name: `cm-${i}` } };
}

/**
 * Run an informer whose one handler blocks until released, with `maxPending`
 * on it (or none), and a second, fast handler; send N watch events.
 */
async function blockedHandler(maxPending: number | undefined) {
  const source = new FakeControllerSource<KubeObject>();
  const clock = new FakeClock();
  const informer = newSharedIndexInformer(source, { clock });
  const gate = Promise.withResolvers<void>();
  const slow: string[] = [];
  const registration = informer.addEventHandler({
    onAdd: async (obj) => {
      await gate.promise;
      slow.push(obj.metadata.name!);
    },
  }, { name: "slow", maxPending });
  const fast: string[] = [];
  informer.addEventHandler({
    onAdd: (obj) => void fast.push(obj.metadata.name!),
  }, { name: "fast" });
  const run = new AbortController();
  const done = informer.run(run.signal);
  await eventually(() => informer.hasSynced(), "the sync");
  for (let i = 0; i < N; i++) source.add(cm(i));
  // Let the informer take in whatever it will.
  for (let i = 0; i < 50; i++) await nextTurn();
  return { clock, informer, registration, gate, slow, fast, run, done };
}

Deno.test("maxPending holds back the watch while a blocked handler's buffer is full, and loses nothing once it drains", async () => {
  const t = await blockedHandler(5);
  try {
    const health = t.informer.health()!;
    const slow = health.listeners.find((l) => l.name === "slow")!;
    assert.equal(slow.maxPending, 5);
    // The watch was read up to the bound (the handler holds one in its
    // hands, the buffer the rest), not to the end.
    assert.ok(
      slow.pending >= 5 && slow.pending <= 6,
      `pending ${slow.pending}`,
    );
    assert.ok(t.informer.getStore().list().length <= 7);
    assert.ok(t.fast.length <= 7, `the fast handler saw ${t.fast.length}`);
    assert.deepEqual(
      health.listeners.find((l) => l.name === "fast"),
      { name: "fast", pending: 0, maxPending: 0 },
    );
    // Released: every event reaches both handlers, in order.
    t.gate.resolve();
    await eventually(() => t.slow.length === N, "the slow handler's events");
    const names = Array.from({ length: N }, (_, i) => `cm-${i}`);
    assert.deepEqual(t.slow, names);
    assert.deepEqual(t.fast, names);
    assert.equal(t.informer.getStore().list().length, N);
    assert.equal(t.informer.health()!.listeners[0].pending, 0);
  } finally {
    t.gate.resolve();
    t.run.abort();
    await t.done;
  }
});

Deno.test("without maxPending a blocked handler's buffer takes the whole watch", async () => {
  const t = await blockedHandler(undefined);
  try {
    const slow = t.informer.health()!.listeners[0];
    assert.deepEqual(slow, { name: "slow", pending: N - 1, maxPending: 0 });
    assert.equal(t.fast.length, N);
  } finally {
    t.gate.resolve();
    t.run.abort();
    await t.done;
  }
});

Deno.test("an informer whose watch is held back by a full buffer still stops when its run is aborted", async () => {
  const t = await blockedHandler(3);
  assert.ok(t.informer.getStore().list().length < N);
  t.run.abort();
  let stopped = false;
  t.done.then(() => (stopped = true));
  // The blocked handler call is given up after the stop grace period.
  for (let i = 0; i < 10 && !stopped; i++) {
    await t.clock.step(1_000);
    await nextTurn();
  }
  await t.done;
  assert.equal(t.informer.isStopped(), true);
  t.gate.resolve();
});

Deno.test("removing the slow handler lets the watch go on", async () => {
  const t = await blockedHandler(4);
  try {
    assert.ok(t.fast.length < N);
    t.informer.removeEventHandler(t.registration);
    await eventually(() => t.fast.length === N, "the fast handler's events");
    assert.deepEqual(t.informer.health()!.listeners.map((l) => l.name), [
      "fast",
    ]);
  } finally {
    t.gate.resolve();
    t.run.abort();
    await t.done;
  }
});

Deno.test("maxPending holds back a KubeClient watch read in batches too, and loses nothing", async () => {
  await using c = await serverWithClient();
  const informer = newSharedIndexInformer(listWatch(c.client, ConfigMaps));
  const gate = Promise.withResolvers<void>();
  const slow: string[] = [];
  informer.addEventHandler({
    onAdd: async (obj) => {
      await gate.promise;
      slow.push(obj.metadata.name!);
    },
  }, { maxPending: 5 });
  const run = new AbortController();
  const done = informer.run(run.signal);
  try {
    await eventually(() => informer.hasSynced(), "the sync");
    // About 600 KB of events: several socket reads (64 KiB at most each).
    const n = 300;
    for (let i = 0; i < n; i++) {
      c.server.create(ConfigMaps, {
        metadata: { name: `cm-${i}`, namespace: "default" },
        data: { v: "x".repeat(2000) },
      });
    }
    // Give the watch time to deliver all it would.
    for (let i = 0; i < 200; i++) await ioTurn();
    // The watch was read a batch (one socket read) past the bound at most.
    const held = informer.health()!.listeners[0].pending;
    assert.ok(held >= 5 && held < n / 2, `held ${held}`);
    assert.ok(informer.getStore().list().length < n);
    gate.resolve();
    await eventually(() => slow.length === n, "every event");
    assert.deepEqual(slow, Array.from({ length: n }, (_, i) => `cm-${i}`));
  } finally {
    gate.resolve();
    run.abort();
    await done;
  }
});

Deno.test("gateWatch() keeps a decoder's nextBatch, so the Reflector still takes a read's events at once", async () => {
  const batched: ListerWatcher<KubeObject> = {
    list: () => Promise.resolve({ metadata: {}, items: [] }),
    watch: () =>
      Promise.resolve({
        [Symbol.asyncIterator]: () => ({
          next: () =>
            Promise.resolve({ done: true as const, value: undefined }),
          nextBatch: () =>
            Promise.resolve({
              done: false as const,
              value: [{ type: "ADDED" as const, object: cm(1) }],
            }),
        }),
      }),
  };
  const plain: ListerWatcher<KubeObject> = {
    ...batched,
    watch: () => Promise.resolve((async function* () {})()),
  };
  const open = async (lw: ListerWatcher<KubeObject>) =>
    (await gateWatch(lw, () => undefined).watch({}))[Symbol.asyncIterator]();
  const it = await open(batched);
  assert.equal(hasNextBatch(it), true);
  assert.deepEqual(
    hasNextBatch(it) && (await it.nextBatch()).value,
    [{ type: "ADDED", object: cm(1) }],
  );
  assert.equal(hasNextBatch(await open(plain)), false);
});
