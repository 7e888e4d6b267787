// EventRecorder against client-go tools/record (events_cache.go): the
// EventLogger's count PATCH, the EventAggregator's combined message after
// 10 similar events, the spam filter's token bucket (burst 25, 1 per
// 5 minutes) on a FakeClock, and the bounded queue.

import assert from "node:assert/strict";
import { ConfigMaps, Events } from "../api/resources.ts";
import type { ConfigMap } from "../api/types.ts";
import { EventRecorder } from "./event_recorder.ts";
import { TestCluster } from "./_test_util.ts";

async function setup() {
  const c = await TestCluster.start();
  const client = c.client();
  const cm = c.server.create<ConfigMap>(ConfigMaps, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "app", namespace: "default" },
  });
  const recorder = new EventRecorder(client, {
    component: "test-controller",
    clock: c.clock,
  });
  const writes = () =>
    c.server.requests.filter((r) => r.path.includes("/events"))
      .map((r) => r.method);
  return {
    c,
    cm,
    recorder,
    writes,
    async [Symbol.asyncDispose]() {
      await recorder.close();
      await c[Symbol.asyncDispose]();
    },
  };
}

Deno.test("EventRecorder: the same event again within 10 minutes raises count and lastTimestamp with a PATCH; after 10 quiet minutes it is a new Event", async () => {
  await using s = await setup();
  const { c, cm, recorder } = s;
  recorder.event(cm, "Normal", "Synced", "applied");
  await recorder.flush();
  await c.clock.step(60_000);
  recorder.event(cm, "Normal", "Synced", "applied");
  await c.clock.step(60_000);
  recorder.event(cm, "Normal", "Synced", "applied");
  await recorder.flush();
  assert.deepEqual(s.writes(), ["POST", "PATCH", "PATCH"]);
  const [event] = c.server.list(Events, "default");
  assert.equal(event.count, 3);
  assert.equal(event.firstTimestamp, "2026-01-01T00:00:00Z");
  assert.equal(event.lastTimestamp, "2026-01-01T00:02:00Z");
  assert.match(event.metadata.name!, /^app\.[0-9a-f]+$/);
  assert.deepEqual(event.involvedObject, {
    kind: "ConfigMap",
    namespace: "default",
    name: "app",
    uid: cm.metadata.uid,
    apiVersion: "v1",
    resourceVersion: cm.metadata.resourceVersion,
  });
  assert.deepEqual(event.source, { component: "test-controller" });
  assert.equal(
    (event as { reportingComponent?: string }).reportingComponent,
    "test-controller",
  );
  // A different message is a different Event.
  recorder.event(cm, "Normal", "Synced", "applied again");
  // Quiet for over 10 minutes: the old Event is not reused.
  await c.clock.step(10 * 60_000 + 1_000);
  recorder.event(cm, "Normal", "Synced", "applied");
  await recorder.flush();
  assert.deepEqual(s.writes(), ["POST", "PATCH", "PATCH", "POST", "POST"]);
  assert.equal(c.server.list(Events, "default").length, 3);
  assert.deepEqual(recorder.stats(), {
    created: 3,
    patched: 2,
    filtered: 0,
    dropped: 0,
    queued: 0,
  });
});

Deno.test("EventRecorder: the 10th distinct message of one (object, type, reason) within 10 minutes is combined", async () => {
  await using s = await setup();
  const { c, cm, recorder } = s;
  for (let i = 1; i <= 12; i++) {
    recorder.event(cm, "Warning", "Failed", `attempt ${i} failed`);
  }
  await recorder.flush();
  const events = c.server.list(Events, "default");
  // 9 single events, then one combined Event counted up by the 10th..12th.
  assert.equal(events.length, 10);
  const combined = events.find((e) =>
    e.message!.startsWith("(combined from similar events): ")
  )!;
  assert.equal(combined.count, 3);
  assert.equal(
    combined.message,
    "(combined from similar events): attempt 12 failed",
  );
});

Deno.test("EventRecorder: the spam filter lets 25 events of one object through, then one per 5 minutes", async () => {
  await using s = await setup();
  const { c, cm, recorder } = s;
  // Distinct reasons: neither aggregated nor deduplicated, only rate limited.
  for (let i = 0; i < 30; i++) recorder.event(cm, "Normal", `R${i}`, "m");
  await recorder.flush();
  assert.equal(recorder.stats().created, 25);
  assert.equal(recorder.stats().filtered, 5);
  await c.clock.step(299_000);
  recorder.event(cm, "Normal", "Late1", "m");
  assert.equal(recorder.stats().filtered, 6, "a token takes 5 minutes");
  await c.clock.step(1_000);
  recorder.event(cm, "Normal", "Late2", "m");
  recorder.event(cm, "Normal", "Late3", "m");
  await recorder.flush();
  assert.equal(recorder.stats().created, 26);
  assert.equal(recorder.stats().filtered, 7);
  // Another object has its own bucket.
  const other = {
    ...cm,
    metadata: { ...cm.metadata, name: "other", uid: "x" },
  };
  recorder.event(other, "Normal", "R", "m");
  await recorder.flush();
  assert.equal(recorder.stats().created, 27);
});

Deno.test("EventRecorder: Warnings have their own spam budget per (source, object, type), never starved by Normal events", async () => {
  await using s = await setup();
  const { c, cm, recorder } = s;
  // A controller that records a Normal event per reconcile uses up the
  // object's Normal budget...
  for (let i = 0; i < 40; i++) recorder.event(cm, "Normal", `Synced${i}`, "m");
  await recorder.flush();
  assert.equal(recorder.stats().created, 25);
  assert.equal(recorder.stats().filtered, 15);
  // ...and its Warning still gets through (client-go would filter it).
  recorder.event(cm, "Warning", "SyncFailed", "the Secret is forbidden");
  await recorder.flush();
  assert.equal(recorder.stats().created, 26);
  const warnings = c.server.list(Events, "default").filter((e) =>
    e.type === "Warning"
  );
  assert.deepEqual(warnings.map((e) => e.reason), ["SyncFailed"]);
  // Warnings are limited in turn: 25 in all, then filtered.
  for (let i = 0; i < 30; i++) recorder.event(cm, "Warning", `W${i}`, "m");
  await recorder.flush();
  assert.equal(recorder.stats().created, 50);
  assert.equal(recorder.stats().filtered, 21);
  // Another recorder (source) about the same object has budgets of its own.
  const other = new EventRecorder(c.client(), {
    component: "other-controller",
    clock: c.clock,
  });
  other.event(cm, "Normal", "Hello", "m");
  await other.flush();
  assert.equal(other.stats().created, 1);
  await other.close();
});

Deno.test("EventRecorder: two recorders writing about one object in the same millisecond both create their Event (names unique across recorders)", async () => {
  await using s = await setup();
  const { c, cm, recorder } = s;
  const other = new EventRecorder(c.client(), {
    component: "other-controller",
    clock: c.clock,
  });
  try {
    recorder.event(cm, "Normal", "A", "from the first");
    other.event(cm, "Normal", "B", "from the second");
    await recorder.flush();
    await other.flush();
    assert.equal(recorder.stats().created, 1);
    assert.equal(other.stats().created, 1);
    assert.equal(other.stats().dropped, 0);
    const names = c.server.list(Events, "default").map((e) => e.metadata.name);
    assert.equal(new Set(names).size, 2);
  } finally {
    await other.close();
  }
});

Deno.test("EventRecorder: a full queue drops and counts; a refused write is dropped and counted; event() never throws", async () => {
  await using s = await setup();
  const { c, cm, recorder } = s;
  // 1,100 objects, one event each, in one turn: 1,000 fit the queue.
  for (let i = 0; i < 1_100; i++) {
    recorder.event(
      { ...cm, metadata: { ...cm.metadata, name: `o${i}`, uid: `u${i}` } },
      "Normal",
      "R",
      "m",
    );
  }
  assert.deepEqual(
    { ...recorder.stats(), queued: undefined },
    {
      created: 0,
      patched: 0,
      filtered: 0,
      dropped: 100,
      queued: undefined,
    },
  );
  assert.equal(recorder.stats().queued, 1_000);
  await recorder.flush();
  assert.equal(recorder.stats().created, 1_000);
  c.server.faults.failNext(1, { status: 500 });
  recorder.event(cm, "Normal", "R", "m");
  await recorder.flush();
  assert.equal(recorder.stats().dropped, 101);
  // Bad arguments: dropped, counted, warned about, not thrown.
  const warn = console.warn;
  const warned: unknown[] = [];
  console.warn = (...a: unknown[]) => warned.push(a);
  try {
    recorder.event(undefined as never, "Normal", "R", "m");
    recorder.event(cm, "Bad" as never, "R", "m");
  } finally {
    console.warn = warn;
  }
  assert.equal(warned.length, 2);
  assert.equal(recorder.stats().dropped, 103);
});

Deno.test("EventRecorder: a PATCH of an Event the server no longer has creates it again", async () => {
  await using s = await setup();
  const { c, cm, recorder } = s;
  recorder.event(cm, "Normal", "Synced", "applied");
  await recorder.flush();
  const [first] = c.server.list(Events, "default");
  c.server.delete(Events, "default", first.metadata.name!); // expired
  recorder.event(cm, "Normal", "Synced", "applied");
  await recorder.flush();
  assert.deepEqual(s.writes(), ["POST", "PATCH", "POST"]);
  const [again] = c.server.list(Events, "default");
  assert.equal(again.count, 2);
});

Deno.test("new EventRecorder checks its arguments at the call", () => {
  assert.throws(
    () => new EventRecorder({} as never, { component: "x" }),
    /new EventRecorder: client must be a KubeClient, got an object/,
  );
  const client = { create() {}, patch() {} } as never;
  assert.throws(
    () => new EventRecorder(client, { component: "" }),
    /opts.component must be a non-empty string, got ""/,
  );
  assert.throws(
    () => new EventRecorder(client, { component: "x", maxQueued: 0 }),
    /opts.maxQueued must be an integer >= 1, got 0/,
  );
});

Deno.test("EventRecorder: combining forgets one message, as client-go's aggregator does, so a recent message is still recorded on its own and the set stays small", async () => {
  await using s = await setup();
  const { c, cm, recorder } = s;
  for (let i = 1; i <= 10; i++) {
    recorder.event(cm, "Warning", "Failed", `attempt ${i} failed`);
  }
  // A message among the 9 kept: its own Event again, count 2.
  recorder.event(cm, "Warning", "Failed", "attempt 5 failed");
  await recorder.flush();
  const events = c.server.list(Events, "default");
  const own = events.filter((e) => e.message === "attempt 5 failed");
  assert.equal(own.length, 1);
  assert.equal(own[0].count, 2);
  const combined = events.filter((e) =>
    e.message!.startsWith("(combined from similar events): ")
  );
  assert.equal(combined.length, 1);
  assert.equal(combined[0].count, 1);
});

Deno.test("EventRecorder.event() returns even when what it was given throws something that cannot be printed", () => {
  const recorder = new EventRecorder(
    { create: () => Promise.reject(), patch: () => Promise.reject() } as never,
    { component: "c" },
  );
  const unprintable = {
    toString(): string {
      throw new Error("no");
    },
  };
  const hostile = {
    get metadata(): never {
      throw unprintable;
    },
  };
  const warn = console.warn;
  const said: string[] = [];
  console.warn = (m: string) => said.push(m);
  try {
    recorder.event(hostile as never, "Normal", "R", "m");
  } finally {
    console.warn = warn;
  }
  assert.equal(recorder.stats().dropped, 1);
  assert.match(said[0], /event dropped/);
});
