import assert from "node:assert/strict";
import {
  eventually,
  missEventsThenRelist,
  prng,
  recorder,
  seedsToRun,
  stepUntil,
} from "./_test_util.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { FakeControllerSource } from "../testing/fake_controller_source.ts";
import { StatusError } from "../api/errors.ts";
import { newInformer } from "./controller.ts";
import type {
  InformerErrorContext,
  ResourceEventHandler,
} from "./event_handler.ts";
import { metaNamespaceIndexFunc, NAMESPACE_INDEX } from "./index.ts";
import { DeletedFinalStateUnknown } from "./keys.ts";
import { CacheMutationError } from "./mutation_detector.ts";
import type { KubeObject } from "../api/object.ts";
import type { DeepReadonly } from "../api/readonly.ts";
import type {
  ListerWatcher,
  ObjectList,
  WatchEvent,
} from "../api/listwatch.ts";
import {
  newSharedIndexInformer,
  type SharedIndexInformer,
  type SharedIndexInformerOptions,
  waitForCacheSync,
} from "./shared_informer.ts";

interface Pod extends KubeObject {
  spec?: { node?: string; v?: number };
}

function pod(name: string, spec: Pod["spec"] = {}, ns = "ns"): Pod {
  return { metadata: { namespace: ns, name }, spec };
}

/** A source holding a pod (of {@link pod}) for each name. */
function sourceOf(...names: string[]): FakeControllerSource<Pod> {
  const source = new FakeControllerSource<Pod>();
  for (const name of names) source.add(pod(name));
  return source;
}

/** A running informer over a fake source, stopped by `stop()`. */
function start(
  source: FakeControllerSource<Pod>,
  opts: SharedIndexInformerOptions<Pod> = {},
  before: (informer: SharedIndexInformer<Pod>) => void = () => {},
) {
  const clock = opts.clock as FakeClock ?? new FakeClock();
  const informer = newSharedIndexInformer(source, { ...opts, clock });
  before(informer);
  const ac = new AbortController();
  const done = informer.run(ac.signal);
  return {
    informer,
    clock,
    done,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

Deno.test("SharedIndexInformer delivers initial adds, then changes in order, to every handler", async () => {
  const source = sourceOf("a", "b");
  const h1 = recorder<Pod>();
  const h2 = recorder<Pod>();
  const { informer, stop } = start(source, {}, (i) => {
    i.addEventHandler(h1);
    i.addEventHandler(h2);
  });
  await eventually(() => informer.hasSynced(), "sync");
  source.modify(pod("a", { v: 1 }));
  source.delete(pod("b"));
  source.add(pod("c"));
  source.modify(pod("c", { v: 2 }));
  const expected = [
    "add a initial",
    "add b initial",
    "update a",
    "delete b",
    "add c",
    "update c",
  ];
  await eventually(
    () => h1.events.length === 6 && h2.events.length === 6,
    "events",
  );
  assert.deepEqual(h1.events, expected);
  assert.deepEqual(h2.events, expected);
  assert.deepEqual(informer.getStore().listKeys().sort(), ["ns/a", "ns/c"]);
  assert.equal(informer.getIndexer().getByKey("ns/c")?.spec?.v, 2);
  assert.equal(informer.lastSyncResourceVersion(), source.resourceVersion());
  await stop();
});

Deno.test("SharedIndexInformer: a slow handler blocks neither another handler nor the cache", async () => {
  const source = new FakeControllerSource<Pod>();
  const stuck = Promise.withResolvers<void>();
  let slowCalls = 0;
  const fast = recorder<Pod>();
  const { informer, stop } = start(source, {}, (i) => {
    i.addEventHandler({
      onAdd: () => {
        slowCalls++;
        return stuck.promise;
      },
    });
    i.addEventHandler(fast);
  });
  await eventually(() => informer.hasSynced(), "sync");
  for (let i = 0; i < 100; i++) source.add(pod(`p${i}`));
  await eventually(() => fast.events.length === 100, "the fast handler");
  assert.equal(informer.getStore().list().length, 100);
  assert.equal(slowCalls, 1);
  stuck.resolve();
  await eventually(() => slowCalls === 100, "the slow handler to catch up");
  await stop();
});

Deno.test("Informers report a throwing or rejecting handler to errorHandler and deliver its next events", async (t) => {
  const handler = (seen: string[]): ResourceEventHandler<Pod> => ({
    onAdd: (o) => {
      seen.push(o.metadata.name!);
      if (o.metadata.name === "a") throw new Error("cannot add a");
    },
    onUpdate: () => Promise.reject(new Error("cannot update")),
  });
  const expected = [
    ["handler", "add", "cannot add a"],
    ["handler", "update", "cannot update"],
  ];
  const errorLog = (errors: [unknown, InformerErrorContext][]) =>
    errors.map(([e, c]) => [c.source, c.notification, (e as Error).message]);
  await t.step("SharedIndexInformer", async () => {
    const source = sourceOf("a");
    const errors: [unknown, InformerErrorContext][] = [];
    const seen: string[] = [];
    const { informer, stop } = start(source, {
      name: "pods",
      errorHandler: (error, context) => void errors.push([error, context]),
    }, (i) => i.addEventHandler(handler(seen)));
    await eventually(() => informer.hasSynced(), "sync");
    source.modify(pod("a", { v: 1 }));
    source.add(pod("b"));
    await eventually(() => seen.length === 2, "the add after the failures");
    assert.deepEqual(seen, ["a", "b"]);
    assert.deepEqual(errorLog(errors), expected);
    assert.equal(errors[0][1].informer, "pods");
    assert.equal(informer.health()?.lastError, errors[1][0]);
    await stop();
  });
  await t.step("newInformer, whose store still gets every change", async () => {
    const source = sourceOf("a");
    const errors: [unknown, InformerErrorContext][] = [];
    const seen: string[] = [];
    const { store, controller } = newInformer(source, handler(seen), {
      clock: new FakeClock(),
      errorHandler: (error, context) => void errors.push([error, context]),
    });
    const ac = new AbortController();
    const done = controller.run(ac.signal);
    await eventually(() => errors.length === 1, "the add error");
    source.modify(pod("a", { v: 2 }));
    source.add(pod("b"));
    await eventually(() => seen.length === 2, "the add after the failures");
    assert.deepEqual(errorLog(errors), expected);
    assert.deepEqual(store.getByKey("ns/a")?.spec, { v: 2 });
    ac.abort();
    await done;
  });
});

Deno.test("SharedIndexInformer: a late handler first gets every cached object with isInInitialList", async () => {
  const source = sourceOf("a", "b");
  const { informer, stop } = start(source);
  await eventually(() => informer.hasSynced(), "sync");
  const gate = Promise.withResolvers<void>();
  const late = recorder<Pod>();
  const reg = informer.addEventHandler({
    ...late,
    onAdd: async (o, initial) => {
      await gate.promise;
      late.onAdd!(o, initial);
    },
  });
  // registered synchronously, not synced until the initial adds are handled
  assert.equal(reg.hasSynced(), false);
  source.add(pod("c"));
  gate.resolve();
  await eventually(() => late.events.length === 3, "the late handler");
  assert.deepEqual(late.events, ["add a initial", "add b initial", "add c"]);
  assert.equal(reg.hasSynced(), true);
  await stop();
});

Deno.test("SharedIndexInformer: registration hasSynced waits for the informer and the handler", async () => {
  const source = sourceOf("a");
  const gate = Promise.withResolvers<void>();
  let reg!: ReturnType<SharedIndexInformer<Pod>["addEventHandler"]>;
  const { informer, stop } = start(source, {}, (i) => {
    reg = i.addEventHandler({ onAdd: () => gate.promise });
    assert.equal(reg.hasSynced(), false); // not started
  });
  await eventually(() => informer.hasSynced(), "sync");
  assert.equal(reg.hasSynced(), false); // the add is not handled yet
  gate.resolve();
  await eventually(() => reg.hasSynced(), "the registration to sync");
  await stop();
});

Deno.test("SharedIndexInformer: a relist's new objects are not initial, missed deletes are tombstones", async () => {
  const clock = new FakeClock();
  const source = sourceOf("a", "b");
  const h = recorder<Pod>();
  const watchErrors: unknown[] = [];
  const { informer, stop } = start(source, {
    clock,
  }, (i) => {
    i.addEventHandler(h);
    i.setWatchErrorHandler((_r, e) => void watchErrors.push(e));
  });
  await eventually(
    () => informer.hasSynced() && source.openWatches() === 1,
    "the watch",
  );
  await missEventsThenRelist(source, clock, h.events, (name) => pod(name));
  // Unchanged "a" is a same-RV update: with no resyncs, no handler hears of
  // it (client-go would send it to every handler).
  assert.deepEqual(h.events.slice(2).sort(), [
    "add c",
    "add marker",
    "tombstone ns/b",
  ]);
  assert.ok(watchErrors.length >= 1); // told about the cut and the 410
  const health = informer.health()!;
  assert.ok(health.relists >= 1);
  assert.ok(health.lastError !== undefined);
  await stop();
});

Deno.test("SharedIndexInformer.removeEventHandler() stops delivery to that handler only", async () => {
  const source = new FakeControllerSource<Pod>();
  const removed = recorder<Pod>();
  const kept = recorder<Pod>();
  let reg!: ReturnType<SharedIndexInformer<Pod>["addEventHandler"]>;
  const { informer, stop } = start(source, {}, (i) => {
    reg = i.addEventHandler(removed);
    i.addEventHandler(kept);
  });
  await eventually(() => informer.hasSynced(), "sync");
  source.add(pod("a"));
  await eventually(() => removed.events.length === 1, "the first add");
  informer.removeEventHandler(reg);
  informer.removeEventHandler(reg); // idempotent
  source.add(pod("b"));
  await eventually(() => kept.events.length === 2, "the second add");
  assert.deepEqual(removed.events, ["add a"]);
  await stop();
});

// client-go TestListenerResyncPeriods
Deno.test("SharedIndexInformer resyncs each handler at its own period", async () => {
  const clock = new FakeClock(0);
  const source = sourceOf("a", "b");
  const hs = [recorder<Pod>(), recorder<Pod>(), recorder<Pod>()];
  const { informer, stop } = start(
    source,
    { clock, resyncPeriod: 1_000 },
    (i) => {
      i.addEventHandler(hs[0], { resyncPeriod: 0 });
      i.addEventHandler(hs[1], { resyncPeriod: 2_000 });
      i.addEventHandler(hs[2], { resyncPeriod: 3_000 });
    },
  );
  await eventually(
    () =>
      informer.hasSynced() && hs.every((h) => h.events.length === 2) &&
      source.openWatches() === 1,
    "sync",
  );
  const syncs = () =>
    hs.map((h) => h.events.filter((e) => e.startsWith("update")).length);
  // a marker every handler gets: once all have it, a misrouted sync would be there too
  let markers = 0;
  const step = async () => {
    await clock.step(1_000);
    source.add(pod(`m${++markers}`));
    await eventually(
      () => hs.every((h) => h.events.includes(`add m${markers}`)),
      "marker",
    );
  };
  await step(); // t=1s
  assert.deepEqual(syncs(), [0, 0, 0]);
  // each resync covers every cached object, markers included
  await step(); // t=2s: listener 2 (a, b, m1)
  assert.deepEqual(syncs(), [0, 3, 0]);
  await step(); // t=3s: listener 3 (a, b, m1, m2)
  assert.deepEqual(syncs(), [0, 3, 4]);
  await step(); // t=4s: listener 2 again (a, b, m1..m3)
  assert.deepEqual(syncs(), [0, 8, 4]);
  await stop();
});

Deno.test("SharedIndexInformer raises a late handler's resync period to the check period", async () => {
  const clock = new FakeClock(0);
  const source = sourceOf("a");
  const { informer, stop } = start(source, { clock, resyncPeriod: 10_000 });
  await eventually(
    () => informer.hasSynced() && source.openWatches() === 1,
    "sync",
  );
  const h = recorder<Pod>();
  informer.addEventHandler(h, { resyncPeriod: 2_000 });
  await eventually(() => h.events.length === 1, "the initial add");
  await clock.step(9_000);
  source.add(pod("marker"));
  await eventually(() => h.events.length === 2, "the marker");
  assert.deepEqual(h.events, ["add a initial", "add marker"]);
  await stepUntil(clock, () => h.events.includes("update a"), "the resync");
  assert.ok(clock.now() >= 10_000);
  await stop();
});

Deno.test("SharedIndexInformer without a resync period never resyncs", async () => {
  const clock = new FakeClock(0);
  const source = sourceOf("a");
  const h = recorder<Pod>();
  const { informer, stop } = start(source, { clock }, (i) => {
    i.addEventHandler(h, { resyncPeriod: 1_000 });
  });
  await eventually(
    () => informer.hasSynced() && source.openWatches() === 1,
    "sync",
  );
  await clock.step(60_000);
  source.add(pod("marker"));
  await eventually(() => h.events.length === 2, "the marker");
  assert.deepEqual(h.events, ["add a initial", "add marker"]);
  await stop();
});

Deno.test("SharedIndexInformer applies the transform before caching and notifying", async () => {
  const source = new FakeControllerSource<Pod>();
  source.add({ metadata: { namespace: "ns", name: "a", managedFields: [{}] } });
  const seen: DeepReadonly<Pod>[] = [];
  const { informer, stop } = start(source, {}, (i) => {
    i.setTransform((o) => ({
      ...o,
      metadata: { ...o.metadata, managedFields: undefined },
    }));
    i.addEventHandler({ onAdd: (o) => void seen.push(o) });
  });
  await eventually(() => seen.length === 1, "the add");
  assert.equal(seen[0].metadata.managedFields, undefined);
  assert.equal(informer.getStore().getByKey("ns/a"), seen[0]);
  assert.throws(() => informer.setTransform((o) => o), /started/);
  assert.throws(() => informer.setWatchErrorHandler(() => {}), /started/);
  await stop();
});

Deno.test("SharedIndexInformer.addIndexers() works before and after start, not after stop", async () => {
  const source = new FakeControllerSource<Pod>();
  source.add(pod("a", { node: "n1" }, "x"));
  source.add(pod("b", { node: "n2" }, "y"));
  const { informer, stop } = start(source, {}, (i) => {
    i.addIndexers({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc });
  });
  await eventually(() => informer.hasSynced(), "sync");
  assert.deepEqual(informer.getIndexer().indexKeys(NAMESPACE_INDEX, "x"), [
    "x/a",
  ]);
  informer.addIndexers({ node: (o) => o.spec?.node ? [o.spec.node] : [] });
  assert.deepEqual(informer.getIndexer().indexKeys("node", "n2"), ["y/b"]);
  source.add(pod("c", { node: "n2" }, "x"));
  await eventually(
    () => informer.getIndexer().indexKeys("node", "n2").length === 2,
    "the new index entry",
  );
  assert.throws(() => informer.addIndexers({ node: () => [] }));
  await stop();
  assert.throws(() => informer.addIndexers({ other: () => [] }), /stopped/);
});

Deno.test("SharedIndexInformer.run() runs once; a stopped informer takes no handlers", async () => {
  const source = new FakeControllerSource<Pod>();
  const { informer, done, stop } = start(source);
  assert.equal(informer.run(new AbortController().signal), done);
  assert.equal(informer.isStopped(), false);
  await stop();
  assert.equal(informer.isStopped(), true);
  assert.throws(() => informer.addEventHandler({}), /stopped/);
  await informer.run(new AbortController().signal); // resolves at once
  assert.equal(source.openWatches(), 0);
});

Deno.test("SharedIndexInformer[Symbol.asyncDispose]() stops and waits", async () => {
  const source = sourceOf("a");
  let informer!: SharedIndexInformer<Pod>;
  {
    await using i = newSharedIndexInformer(source, { clock: new FakeClock() });
    informer = i;
    void i.run(new AbortController().signal);
    await eventually(() => i.hasSynced() && source.openWatches() === 1, "sync");
  }
  assert.equal(informer.isStopped(), true);
  assert.equal(source.openWatches(), 0);
  // never run: disposal just marks it stopped
  const idle = newSharedIndexInformer(source);
  await idle[Symbol.asyncDispose]();
  assert.equal(idle.isStopped(), true);
});

Deno.test("SharedIndexInformer with detectMutations rejects when a handler mutates a cached object", async () => {
  const clock = new FakeClock();
  const source = new FakeControllerSource<Pod>();
  source.add(pod("a", { v: 1 }));
  const errors: [unknown, InformerErrorContext][] = [];
  const informer = newSharedIndexInformer(source, {
    clock,
    detectMutations: true,
    errorHandler: (error, context) => void errors.push([error, context]),
  });
  informer.addEventHandler({
    onAdd: (o) => {
      // Forbidden: the types refuse it, so a cast (or plain JavaScript) is
      // needed to write; the detector catches it at run time.
      (o as Pod).spec!.v = 2;
    },
  });
  const done = informer.run(new AbortController().signal);
  const rejected = assert.rejects(done, CacheMutationError);
  await eventually(
    () => informer.getStore().getByKey("ns/a")?.spec?.v === 2,
    "the mutation",
  );
  assert.equal(informer.hasSynced(), true);
  await clock.step(1_000);
  await rejected;
  assert.equal(informer.isStopped(), true);
  // a stopped informer never passes for synced with a stale cache
  assert.equal(informer.hasSynced(), false);
  assert.equal(errors.length, 1);
  assert.ok(errors[0][0] instanceof CacheMutationError);
  assert.equal(errors[0][1].source, "fatal");
});

Deno.test("waitForCacheSync() polls every 100 ms on the clock and stops on abort", async () => {
  const clock = new FakeClock();
  let synced = false;
  let checks = 0;
  const ac = new AbortController();
  const waiting = waitForCacheSync({ signal: ac.signal, clock }, () => {
    checks++;
    return synced;
  }, () => true);
  assert.equal(checks, 1); // checked at once
  await clock.step(100);
  assert.equal(checks, 2);
  synced = true;
  await clock.step(99);
  assert.equal(checks, 2);
  await clock.step(1);
  assert.equal(await waiting, true);
  const never = waitForCacheSync({ signal: ac.signal, clock }, () => false);
  ac.abort();
  assert.equal(await never, false);
});

/**
 * Let promise chains advance `n` hops. FakeControllerSource and the
 * Reflector (on a FakeClock) need no I/O or timers, so this keeps a
 * schedule deterministic and fast.
 */
async function microYield(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

/**
 * A handler that mirrors what it is told and flags inconsistent sequences:
 * an add for a key it has, an update or delete for a key it lacks, an
 * update whose old object is not the one it last got (by resourceVersion:
 * a same-RV update it was not due for may have swapped the cached copy),
 * and, with `sameRvAllowed` false, any same-RV update.
 */
function mirror(async: boolean, sameRvAllowed = true) {
  const state = new Map<string, DeepReadonly<Pod>>();
  const violations: string[] = [];
  const counts = { tombstones: 0, sameRv: 0 };
  const key = (o: DeepReadonly<KubeObject>) =>
    `${o.metadata.namespace}/${o.metadata.name}`;
  let calls = 0;
  // The async mirror sometimes takes a while, so events pile up in its
  // buffer while the Reflector moves on.
  const pause = () => async && ++calls % 4 === 0 ? microYield(20) : undefined;
  const handler: ResourceEventHandler<Pod> = {
    onAdd: (o) => {
      if (state.has(key(o))) violations.push(`add of present ${key(o)}`);
      state.set(key(o), o);
      return pause() as Promise<void> | undefined;
    },
    onUpdate: (old, o) => {
      const last = state.get(key(o));
      if (!last) violations.push(`update of absent ${key(o)}`);
      else if (
        last.metadata.resourceVersion !== old.metadata.resourceVersion
      ) {
        violations.push(
          `update of ${
            key(o)
          } from @${old.metadata.resourceVersion}, last got @${last.metadata.resourceVersion}`,
        );
      }
      if (old.metadata.resourceVersion === o.metadata.resourceVersion) {
        counts.sameRv++;
        if (!sameRvAllowed) {
          violations.push(
            `same-RV update of ${key(o)}@${o.metadata.resourceVersion}`,
          );
        }
      }
      state.set(key(o), o);
      return pause() as Promise<void> | undefined;
    },
    onDelete: (o) => {
      if (o instanceof DeletedFinalStateUnknown) counts.tombstones++;
      const k = o instanceof DeletedFinalStateUnknown ? o.key : key(o);
      if (!state.delete(k)) violations.push(`delete of absent ${k}`);
      return pause() as Promise<void> | undefined;
    },
  };
  return {
    state,
    violations,
    handler,
    get tombstones() {
      return counts.tombstones;
    },
    get sameRv() {
      return counts.sameRv;
    },
  };
}

function snapshot(objs: Iterable<DeepReadonly<Pod>>): string[] {
  return [...objs].map((o) =>
    `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`
  ).sort();
}

const exercised = {
  relists: 0,
  tombstones: 0,
  // seeds with a relist before the first resync tick (or with no resyncs)
  earlyRelists: 0,
  // same-RV updates the resyncing handler got
  syncUpdates: 0,
};

async function convergenceRun(seed: number): Promise<void> {
  const rand = prng(seed);
  const pick = <X>(xs: X[]): X => xs[Math.floor(rand() * xs.length)];
  const clock = new FakeClock();
  const source = new FakeControllerSource<Pod>();
  let next = 0;
  for (let i = 0; i < 5; i++) source.add(pod(`p${next++}`));
  // h0: resync 0, never a same-RV update; h1: its own resync period (it
  // may lower the check period); h2: added late, the informer's default.
  const mirrors = [mirror(false, false), mirror(true), mirror(rand() < 0.5)];
  const resyncPeriod = rand() < 0.5 ? 0 : 5_000;
  const h1Resync = pick([2_000, 5_000, 7_000]);
  const informer = newSharedIndexInformer(source, {
    clock,
    pageSize: 3,
    resyncPeriod,
  });
  informer.setWatchErrorHandler(() => {});
  informer.addEventHandler(mirrors[0].handler, { resyncPeriod: 0 });
  informer.addEventHandler(mirrors[1].handler, { resyncPeriod: h1Resync });
  // No resync tick can have happened before this time.
  const firstTick = resyncPeriod === 0
    ? Infinity
    : Math.min(resyncPeriod, h1Resync);
  let earlyRelist = false;
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  const live = () => source.items();
  const fail = (status: number) =>
    new StatusError({ code: status, message: `injected ${status}` }, {
      retryAfterSeconds: status === 429 ? 1 : undefined,
    });
  for (let step = 0; step < 40; step++) {
    const r = rand();
    const items = live();
    if (r < 0.25 || items.length === 0) source.add(pod(`p${next++}`));
    else if (r < 0.45) source.modify({ ...pick(items), spec: { v: step } });
    else if (r < 0.55) source.delete(pick(items));
    else if (r < 0.6) source.addDropWatch(pod(`p${next++}`));
    else if (r < 0.65) {
      source.modifyDropWatch({ ...pick(items), spec: { v: -step } });
    } else if (r < 0.7) source.deleteDropWatch(pick(items));
    else if (r < 0.75) source.resetWatch();
    else if (r < 0.8) source.breakWatches();
    else if (r < 0.85) source.compact();
    else if (r < 0.9) source.failNext(pick(["list", "watch"]), fail(500));
    else if (r < 0.95) source.failNext(pick(["list", "watch"]), fail(429));
    else source.bookmark();
    if (step === 20) informer.addEventHandler(mirrors[2].handler); // late
    await microYield(Math.floor(rand() * 60));
    if (clock.now() < firstTick && (informer.health()?.relists ?? 0) > 0) {
      earlyRelist = true;
    }
    if (rand() < 0.3) await clock.step(Math.floor(rand() * 3_000));
  }
  // Changes only a relist can see: force one (a change the watch misses,
  // then compaction, so resuming the watch gets 410), then let time run.
  source.addDropWatch(pod("final"));
  source.compact();
  source.breakWatches();
  const want = () => snapshot(live());
  const converged = () =>
    snapshot(informer.getStore().list()).join() === want().join() &&
    mirrors.every((m) => snapshot(m.state.values()).join() === want().join());
  for (let i = 0; i < 300 && !converged(); i++) {
    // jump to the next timer (a backoff, a Retry-After, a resync)
    const due = clock.nextDue() ?? clock.now() + 1_000;
    await clock.step(Math.max(0, due - clock.now()));
    await microYield(100);
  }
  exercised.relists += informer.health()?.relists ?? 0;
  exercised.tombstones += mirrors.reduce((n, m) => n + m.tombstones, 0);
  if (earlyRelist) exercised.earlyRelists++;
  exercised.syncUpdates += mirrors[1].sameRv;
  ac.abort();
  await running;
  const violations = mirrors.flatMap((m) => m.violations);
  assert.deepEqual(violations, [], `seed ${seed}: inconsistent handler events`);
  assert.deepEqual(
    snapshot(informer.getStore().list()),
    want(),
    `seed ${seed}: cache did not converge`,
  );
  for (const m of mirrors) {
    assert.deepEqual(
      snapshot(m.state.values()),
      want(),
      `seed ${seed}: handler did not converge`,
    );
  }
}

Deno.test("SharedIndexInformer converges under random changes and faults (seeded; set KUBECACHE_SEED to replay one)", async () => {
  const { seeds, replay } = seedsToRun(200);
  for (const seed of seeds) {
    try {
      await convergenceRun(seed);
    } catch (error) {
      console.error(`Convergence failed; replay with KUBECACHE_SEED=${seed}`);
      throw error;
    }
  }
  // The schedules really exercised relists, missed deletes, relists before
  // any resync tick (where client-go sends same-RV updates to every
  // handler) and resyncs of the handler that asked for them.
  if (!replay) {
    assert.ok(exercised.relists > 0 && exercised.tombstones > 0);
    assert.ok(exercised.earlyRelists > 0, JSON.stringify(exercised));
    assert.ok(exercised.syncUpdates > 0, JSON.stringify(exercised));
  }
});

Deno.test("SharedIndexInformer.run() settles a grace second after abort even when a handler never returns", async () => {
  const source = sourceOf("a");
  const blocker = Promise.withResolvers<void>();
  let called = false;
  const { clock, done, informer } = start(source, {}, (i) => {
    i.addEventHandler({
      onAdd: async () => {
        called = true;
        await blocker.promise;
      },
    });
  });
  await eventually(() => called, "the handler call");
  let settled = false;
  void done.then(() => settled = true);
  const disposed = informer[Symbol.asyncDispose]();
  await eventually(
    () => clock.nextDue() === clock.now() + 1_000,
    "the grace timer",
  );
  await clock.step(999);
  assert.equal(settled, false, "run settled before the grace period ended");
  await clock.step(1);
  await disposed;
  assert.equal(settled, true);
  assert.equal(informer.isStopped(), true);
  blocker.resolve();
});

Deno.test("waitForCacheSync() wakes on an informer's sync without polling, and gives up when it stops unsynced", async () => {
  const clock = new FakeClock();
  const source = sourceOf("a");
  const { informer, stop } = start(source, { clock }, (i) => {
    i.addEventHandler({});
  });
  const registration = informer.addEventHandler({ onAdd: () => {} });
  const ac = new AbortController();
  // The clock never moves: only the informer's own notification can wake it.
  assert.equal(
    await waitForCacheSync(
      { signal: ac.signal, clock },
      informer.hasSynced,
      registration.hasSynced,
    ),
    true,
  );
  // Already synced: at once.
  assert.equal(
    await waitForCacheSync({ signal: ac.signal, clock }, informer.hasSynced),
    true,
  );
  await stop();

  // An informer whose list never answers, stopped before it synced.
  const never = newSharedIndexInformer<Pod>({
    list: (_o, signal) =>
      new Promise((_, reject) =>
        signal?.addEventListener("abort", () => reject(signal.reason))
      ),
    watch: () => Promise.reject(new Error("unused")),
  }, { clock });
  const stopNever = new AbortController();
  const running = never.run(stopNever.signal);
  const waiting = waitForCacheSync(
    { signal: ac.signal, clock },
    never.hasSynced,
  );
  stopNever.abort();
  await running;
  assert.equal(await waiting, false);
});

// Waiting for your own write: event-driven, with a signal.
Deno.test("SharedIndexInformer.waitFor() resolves on the event that caches a matching object, without polling", async () => {
  const clock = new FakeClock();
  const source = sourceOf("a");
  const { informer, stop } = start(source, { clock });
  // Before the object exists: resolves when its add is cached.
  const b = informer.waitFor({ key: "ns/b" });
  const written = source.add(pod("b", { v: 1 }));
  assert.equal((await b).metadata.name, "b");
  assert.equal(informer.getStore().getByKey("ns/b"), await b);
  // Already cached: at once, at that version or newer.
  const rv = written.metadata.resourceVersion!;
  assert.equal(
    await informer.waitFor({ key: "ns/b", resourceVersion: rv }),
    await b,
  );
  const older = String(Number(rv) - 1);
  assert.equal(
    await informer.waitFor({ key: "ns/b", resourceVersion: older }),
    await b,
  );
  // A later version: waits for the update; a predicate sees each object.
  const next = String(Number(source.resourceVersion()) + 1);
  const updated = informer.waitFor({ key: "ns/b", resourceVersion: next });
  const v2 = informer.waitFor((o) => o.spec?.v === 2);
  let settled = false;
  void updated.then(() => settled = true);
  source.add(pod("c"));
  await eventually(
    () => informer.getStore().getByKey("ns/c") !== undefined,
    "c",
  );
  assert.equal(settled, false);
  source.modify(pod("b", { v: 2 }));
  assert.equal((await updated).spec?.v, 2);
  assert.equal(await v2, await updated);
  // Abort rejects with the signal's reason; stop rejects the rest.
  const ac = new AbortController();
  const aborted = informer.waitFor({ key: "ns/never" }, { signal: ac.signal });
  ac.abort(new Error("gave up"));
  await assert.rejects(aborted, { message: "gave up" });
  const pending = informer.waitFor({ key: "ns/never" });
  const rejected = assert.rejects(pending, /informer "informer" has stopped/);
  await stop();
  await rejected;
  await assert.rejects(informer.waitFor({ key: "ns/a" }), /has stopped/);
  assert.throws(
    // @ts-expect-error: untyped callers get a clear error
    () => informer.waitFor("ns/a"),
    { name: "TypeError", message: /waitFor: condition must be/ },
  );
});

Deno.test("SharedIndexInformer.hasSynced can be passed unbound, as client-go passes informer.HasSynced", async () => {
  const source = sourceOf("a");
  const { informer, clock, stop } = start(source);
  const { hasSynced } = informer;
  const ac = new AbortController();
  const synced = waitForCacheSync({ signal: ac.signal, clock }, hasSynced);
  await stepUntil(clock, () => hasSynced(), "the informer to sync");
  await clock.step(100);
  assert.equal(await synced, true);
  await stop();
});

/**
 * A watch stream a test pushes events into; it ends when told to, or when
 * the request's signal aborts (as a real watch does).
 */
class ScriptedWatch<T> implements AsyncIterable<WatchEvent<T>> {
  #events: WatchEvent<T>[] = [];
  #ended = false;
  #wake: (() => void) | undefined;

  constructor(signal: AbortSignal | undefined) {
    signal?.addEventListener("abort", () => this.end(), { once: true });
  }

  push(...events: WatchEvent<T>[]): this {
    this.#events.push(...events);
    this.#wake?.();
    return this;
  }

  end(): this {
    this.#ended = true;
    this.#wake?.();
    return this;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    for (;;) {
      const event = this.#events.shift();
      if (event) {
        yield event;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => this.#wake = resolve);
      this.#wake = undefined;
    }
  }
}

/**
 * A ListerWatcher answering from a script: the n-th list returns
 * `lists[n]` (the last one again when the script runs out), and each watch
 * is a {@link ScriptedWatch} that `onWatch` fills. Lists and watches are
 * counted, whatever resourceVersion they ask for, so a test does not depend
 * on the Reflector's relist rules or timing.
 */
function scriptedSource(
  lists: ObjectList<Pod>[],
  onWatch: (watch: ScriptedWatch<Pod>, n: number) => void,
) {
  const calls = { lists: 0, watches: 0 };
  const lw: ListerWatcher<Pod> = {
    list: () => {
      const list = lists[Math.min(calls.lists++, lists.length - 1)];
      return Promise.resolve(structuredClone(list));
    },
    watch: (_opts, signal) => {
      const watch = new ScriptedWatch<Pod>(signal);
      onWatch(watch, calls.watches++);
      return Promise.resolve(watch);
    },
  };
  return { lw, calls };
}

function at(name: string, rv: string): Pod {
  return { metadata: { namespace: "ns", name, resourceVersion: rv } };
}

/** A 410 Expired watch ERROR event, as the apiserver sends it. */
const EXPIRED: WatchEvent<Pod> = {
  type: "ERROR",
  object: {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    code: 410,
    reason: "Expired",
    message: "too old resource version: 101 (150)",
  },
};

/** A handler logging "add web-1@100", "update web-2 101→109", "delete web-1". */
function rvLog(): ResourceEventHandler<Pod> & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    onAdd: (o) =>
      void log.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}`),
    onUpdate: (o, n) =>
      void log.push(
        `update ${n.metadata.name} ${o.metadata.resourceVersion}→${n.metadata.resourceVersion}`,
      ),
    onDelete: (o) =>
      void log.push(
        `delete ${
          o instanceof DeletedFinalStateUnknown ? o.key : o.metadata.name
        }`,
      ),
  };
}

const sameRv = (log: string[]) =>
  log.filter((e) => /^update \S+ (\d+)→\1$/.test(e));

// The wire script of a relist after a WATCH 410 that finds web-1
// unchanged: no handler hears of it before the first resync tick.
Deno.test("SharedIndexInformer: same-RV updates reach only handlers due at the latest resync tick", async () => {
  const clock = new FakeClock(0);
  const watches: ScriptedWatch<Pod>[] = [];
  const { lw, calls } = scriptedSource([
    {
      metadata: { resourceVersion: "101" },
      items: [at("web-1", "100"), at("web-2", "101")],
    },
    {
      metadata: { resourceVersion: "160" },
      items: [at("web-1", "100"), at("web-2", "109"), at("web-3", "108")],
    },
    {
      metadata: { resourceVersion: "200" },
      items: [
        at("web-1", "100"),
        at("web-2", "109"),
        at("web-3", "108"),
        at("web-4", "170"),
      ],
    },
  ], (watch, n) => {
    watches.push(watch);
    if (n === 0) watch.push(EXPIRED).end();
  });
  const informer = newSharedIndexInformer(lw, { clock, resyncPeriod: 30_000 });
  informer.setWatchErrorHandler(() => {});
  const h0 = rvLog();
  const h1 = rvLog();
  informer.addEventHandler(h0, { resyncPeriod: 0 });
  informer.addEventHandler(h1, { resyncPeriod: 30_000 });
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  const relisted = [
    "add web-1@100",
    "add web-2@101",
    "update web-2 101→109",
    "add web-3@108",
  ];
  await stepUntil(
    clock,
    () => h0.log.length >= 4 && h1.log.length >= 4 && watches.length === 2,
    "the relist",
  );
  assert.ok(clock.now() < 30_000);
  assert.equal(calls.lists, 2);
  assert.deepEqual(h0.log, relisted);
  assert.deepEqual(h1.log, relisted);

  // The first resync tick: only h1 gets every object again.
  await stepUntil(clock, () => sameRv(h1.log).length === 3, "the resync");
  watches[1].push({ type: "ADDED", object: at("web-4", "170") });
  await eventually(
    () =>
      h0.log.at(-1) === "add web-4@170" && h1.log.at(-1) === "add web-4@170",
    "the marker",
  );
  assert.deepEqual(sameRv(h1.log), [
    "update web-1 100→100",
    "update web-2 109→109",
    "update web-3 108→108",
  ]);
  assert.deepEqual(h0.log, [...relisted, "add web-4@170"]);

  // A relist after that tick: its unchanged objects reach h1 (due at the
  // latest tick), never h0.
  const h1Before = h1.log.length;
  watches[1].push(EXPIRED).end();
  await stepUntil(
    clock,
    () => h1.log.length === h1Before + 4,
    "the second relist",
  );
  assert.deepEqual(h1.log.slice(h1Before), [
    "update web-1 100→100",
    "update web-2 109→109",
    "update web-3 108→108",
    "update web-4 170→170",
  ]);
  watches[2].push({ type: "ADDED", object: at("web-5", "210") });
  await eventually(() => h0.log.at(-1) === "add web-5@210", "the marker");
  assert.deepEqual(sameRv(h0.log), []);
  ac.abort();
  await running;
});

Deno.test("SharedIndexInformer with resync 0: a relist never sends update x@N→N", async () => {
  const clock = new FakeClock(0);
  const watches: ScriptedWatch<Pod>[] = [];
  const { lw } = scriptedSource([
    {
      metadata: { resourceVersion: "101" },
      items: [at("web-1", "100"), at("web-2", "101")],
    },
    {
      metadata: { resourceVersion: "160" },
      items: [at("web-1", "100"), at("web-2", "109")],
    },
  ], (watch, n) => {
    watches.push(watch);
    if (n === 0) watch.push(EXPIRED).end();
  });
  const informer = newSharedIndexInformer(lw, { clock });
  informer.setWatchErrorHandler(() => {});
  const h0 = rvLog();
  const h1 = rvLog();
  informer.addEventHandler(h0);
  informer.addEventHandler(h1, { resyncPeriod: 30_000 }); // no effect: the informer does no resyncs
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  await stepUntil(clock, () => watches.length === 2, "the relist");
  await clock.step(120_000);
  watches[1].push({ type: "ADDED", object: at("web-3", "170") });
  const want = [
    "add web-1@100",
    "add web-2@101",
    "update web-2 101→109",
    "add web-3@170",
  ];
  await eventually(
    () => h0.log.length >= 4 && h1.log.length >= 4,
    "the marker",
  );
  assert.deepEqual(h0.log, want);
  assert.deepEqual(h1.log, want);
  ac.abort();
  await running;
});
