// Callbacks that may be sync or async (CallbackResult): the everyday
// one-liners type-check at every public place that takes one, and at run
// time only a thenable is awaited; any other return value is ignored, never
// taken for a promise or an error.

import assert from "node:assert/strict";
import {
  type ConfigMap,
  ConfigMaps,
  DeletedFinalStateUnknown,
  FIFO,
  FilteringResourceEventHandler,
  type InformerErrorContext,
  KubeClient,
  KubeConfig,
  newSharedIndexInformer,
  type PopProcessFunc,
  type ResourceEventHandler,
} from "../mod.ts";
import { FakeApiServer, FakeControllerSource } from "../testing/mod.ts";
import { eventually, nextTurn } from "../testing/turns.ts";
import {
  RateLimitingQueue,
  type Reconcile,
  runWorkers,
} from "../workqueue/mod.ts";
import type { LeaderCallbacks } from "../leaderelection/mod.ts";
import { createOrPatch } from "../controller/mod.ts";

function cm(name: string, data: Record<string, string> = {}): ConfigMap {
  return { metadata: { namespace: "default", name }, data };
}

/** A logger returning void, so `!initial && log(...)` is `false | void`. */
function logger(lines: string[]): (line: string) => void {
  return (line) => void lines.push(line);
}

Deno.test("CallbackResult: one-liners returning a value type-check wherever a callback may be async", () => {
  // This file failing `deno check` is the test: each of these returns a
  // number, a Set, `false | void` or an object, which `void | Promise<void>`
  // refused.
  const names: string[] = [];
  const set = new Set<string>();
  const log = logger([]);
  const handler: ResourceEventHandler<ConfigMap> = {
    onAdd: (c) => names.push(c.metadata.name!),
    onUpdate: (_old, c) => set.add(c.metadata.name!),
    onDelete: (c) => names.push(String(c)),
  };
  const initialOnly: ResourceEventHandler<ConfigMap> = {
    onAdd: (c, initial) => !initial && log(c.metadata.name!),
  };
  const filtered = new FilteringResourceEventHandler<ConfigMap>(
    () => true,
    { onAdd: (c) => names.push(c.metadata.name!) },
  );
  const pop: PopProcessFunc<ConfigMap> = (c) => names.push(c.metadata.name!);
  const reconcile: Reconcile<string> = (key) => names.push(key);
  const leader: LeaderCallbacks = {
    onStartedLeading: () => names.push("leading"),
    onStoppedLeading: () => {},
  };
  const mutate = (c: ConfigMap) => (c.data = { a: "1" });
  // The promise forms keep working, including `new Promise` left to infer
  // its type from the callback's (`unknown` would demand a resolve value).
  const asyncLeader: LeaderCallbacks = {
    onStartedLeading: (signal) =>
      new Promise((resolve) =>
        signal.addEventListener("abort", () => resolve(), { once: true })
      ),
    onStoppedLeading() {},
  };
  const asyncHandler: ResourceEventHandler<ConfigMap> = {
    onAdd: async (c) => {
      await nextTurn();
      names.push(c.metadata.name!);
    },
  };
  for (
    const f of [
      handler.onAdd,
      initialOnly.onAdd,
      filtered.onAdd,
      pop,
      reconcile,
      leader.onStartedLeading,
      mutate,
      asyncLeader.onStartedLeading,
      asyncHandler.onAdd,
    ]
  ) {
    assert.equal(typeof f, "function");
  }
});

Deno.test("CallbackResult: an informer handler returning a number, a Set or false is called in order and reports no error", async () => {
  const source = new FakeControllerSource<ConfigMap>();
  source.add(cm("a"));
  const errors: InformerErrorContext[] = [];
  const informer = newSharedIndexInformer(source, {
    errorHandler: (_err, ctx) => errors.push(ctx),
  });
  const events: string[] = [];
  const set = new Set<string>();
  const log = logger(events);
  informer.addEventHandler({
    onAdd: (c, initial) => events.push(`add ${c.metadata.name} ${initial}`),
    onUpdate: (_old, c) => set.add(`update ${c.metadata.name}`),
    onDelete: (c) =>
      events.length > 0 &&
      log(
        `delete ${
          c instanceof DeletedFinalStateUnknown ? c.key : c.metadata.name
        }`,
      ),
  });
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  await eventually(() => informer.hasSynced(), "sync");
  source.modify(cm("a", { k: "v" }));
  source.add(cm("b"));
  source.delete(cm("b"));
  await eventually(() => events.length === 3, "three events");
  assert.deepEqual(events, ["add a true", "add b false", "delete b"]);
  assert.deepEqual([...set], ["update a"]);
  assert.deepEqual(errors, []);
  stop.abort();
  await running;
});

Deno.test("CallbackResult: a returned thenable that is not a Promise is awaited before the handler's next notification", async () => {
  const source = new FakeControllerSource<ConfigMap>();
  source.add(cm("a"));
  source.add(cm("b"));
  const informer = newSharedIndexInformer(source, {});
  const seen: string[] = [];
  let release = () => {};
  informer.addEventHandler({
    onAdd: (c) => {
      seen.push(c.metadata.name!);
      // A bare PromiseLike, as a non-native promise library returns.
      return { then: (resolve: () => void) => void (release = resolve) };
    },
  });
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  await eventually(() => seen.length === 1, "first add");
  for (let i = 0; i < 20; i++) await nextTurn();
  assert.deepEqual(seen, ["a"], "b must wait for a's thenable");
  release();
  await eventually(() => seen.length === 2, "second add");
  assert.deepEqual(seen, ["a", "b"]);
  release();
  stop.abort();
  await running;
});

Deno.test("CallbackResult: a pop function returning a number pops the item and requeues nothing", async () => {
  const fifo = new FIFO<ConfigMap>((o) => (o as ConfigMap).metadata.name!);
  fifo.add(cm("a"));
  const names: string[] = [];
  const popped = await fifo.pop((c) => names.push(c.metadata.name!));
  assert.equal(popped.metadata.name, "a");
  assert.deepEqual(names, ["a"]);
  assert.deepEqual(fifo.listKeys(), []);
});

Deno.test("CallbackResult: a reconcile returning a number counts as success: no retry, no onError", async () => {
  const queue = new RateLimitingQueue<string>();
  const stop = new AbortController();
  const done: string[] = [];
  const errors: unknown[] = [];
  queue.add("default/a");
  const workers = runWorkers(
    queue,
    1,
    (key) => done.push(key),
    stop.signal,
    { onError: (err) => errors.push(err) },
  );
  await eventually(() => done.length === 1 && queue.len() === 0, "reconcile");
  assert.equal(queue.numRequeues("default/a"), 0);
  assert.deepEqual(errors, []);
  stop.abort();
  await workers;
  queue.shutDown();
});

Deno.test("CallbackResult: createOrPatch takes an assignment one-liner as mutate", async () => {
  await using server = await FakeApiServer.start();
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  const mutate = (c: ConfigMap) => (c.data = { a: "1" });
  assert.equal(
    await createOrPatch(client, ConfigMaps, cm("x"), mutate),
    "created",
  );
  assert.deepEqual(server.get(ConfigMaps, "default", "x")?.data, { a: "1" });
});
