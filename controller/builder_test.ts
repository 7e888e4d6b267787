// The reconcile loop and the event mapping, on a FakeApiServer and a
// FakeClock, to controller-runtime's rules (pkg/internal/controller
// reconcileHandler, handler.EnqueueRequestForOwner).

import assert from "node:assert/strict";
import { ConfigMaps, Namespaces, Secrets } from "../api/resources.ts";
import type { ConfigMap, Secret } from "../api/types.ts";
import type { KubeObject } from "../api/object.ts";
import { ItemExponentialFailureRateLimiter } from "../workqueue/rate_limiter.ts";
import { Manager } from "./manager.ts";
import type { ReconcileContext, Request } from "./builder.ts";
import { generationChanged, labelsChanged } from "./predicates.ts";
import { DeletedFinalStateUnknown } from "../cache/keys.ts";
import { controllerOf } from "./owners.ts";
import { EndpointServer } from "./health.ts";
import { EventRecorder } from "./event_recorder.ts";
import { TestCluster } from "./_test_util.ts";
import { TerminalError } from "./terminal_error.ts";

const keyOf = (r: Request) => `${r.namespace ?? ""}/${r.name}`;

function cm(name: string, data: Record<string, string> = {}): ConfigMap {
  return { metadata: { name, namespace: "default" }, data };
}

const running = (c: TestCluster, m: Manager) => c.run(m);

Deno.test("Controller: events for one key while it is reconciled coalesce into one more reconcile", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, cm("a"));
  await using manager = new Manager(c.client(), { clock: c.clock });
  const gate = Promise.withResolvers<void>();
  const calls: string[] = [];
  manager.controller("cm", ConfigMaps).complete(async (req) => {
    calls.push(keyOf(req));
    if (calls.length === 1) await gate.promise;
  });
  const run = running(c, manager);
  await c.until(() => calls.length === 1, "first reconcile");
  for (let i = 0; i < 5; i++) {
    c.server.update(ConfigMaps, { ...cm("a", { v: String(i) }) });
  }
  const lister = manager.factory.lister(ConfigMaps);
  await c.until(
    () => lister.namespaced("default").get("a")?.data?.v === "4",
    "last update cached",
  );
  gate.resolve();
  await c.until(() => calls.length === 2, "second reconcile");
  await c.clock.step(1_000);
  await c.settle();
  assert.deepEqual(calls, ["default/a", "default/a"]);
  await run.stop();
});

Deno.test("Controller: with maxConcurrentReconciles 4 different keys run in parallel, one key never twice at once", async () => {
  await using c = await TestCluster.start();
  for (let i = 0; i < 8; i++) c.server.create(ConfigMaps, cm(`k${i}`));
  await using manager = new Manager(c.client(), { clock: c.clock });
  const inFlight = new Set<string>();
  let maxParallel = 0;
  let overlaps = 0;
  let total = 0;
  manager.controller("cm", ConfigMaps, { maxConcurrentReconciles: 4 })
    .complete(async (req) => {
      const key = keyOf(req);
      if (inFlight.has(key)) overlaps++;
      inFlight.add(key);
      maxParallel = Math.max(maxParallel, inFlight.size);
      await c.clock.sleep(100);
      inFlight.delete(key);
      total++;
    });
  const run = running(c, manager);
  await c.until(() => total >= 8, "first round");
  // Change every key again, several times, while they are in flight.
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 8; i++) {
      c.server.update(ConfigMaps, cm(`k${i}`, { round: String(round) }));
    }
    await c.clock.step(30);
    await c.settle();
  }
  await c.until(
    () => inFlight.size === 0 && manager.controllers()[0].queue.len() === 0,
    "drain",
  );
  assert.equal(overlaps, 0, "one key was reconciled by two workers at once");
  assert.equal(maxParallel, 4);
  await run.stop();
});

Deno.test("Controller: a throw is retried with backoff and ctx.attempt counts; success forgets", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, cm("a"));
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    onError: () => {},
  });
  const attempts: [number, number][] = [];
  let fail = 2;
  manager.controller("cm", ConfigMaps, {
    rateLimiter: new ItemExponentialFailureRateLimiter(1_000, 60_000),
  }).complete((_req, ctx: ReconcileContext) => {
    attempts.push([ctx.attempt, c.clock.now()]);
    if (fail-- > 0) throw new Error("transient");
  });
  const run = running(c, manager);
  await c.until(() => attempts.length === 3, "three attempts", {
    maxMs: 10_000,
  });
  assert.deepEqual(attempts.map(([a]) => a), [0, 1, 2]);
  // Backoff 1 s, then 2 s (base·2^failures), measured on the fake clock.
  assert.ok(attempts[1][1] - attempts[0][1] >= 1_000);
  assert.ok(attempts[1][1] - attempts[0][1] < 1_200);
  assert.ok(attempts[2][1] - attempts[1][1] >= 2_000);
  assert.ok(attempts[2][1] - attempts[1][1] < 2_200);
  c.server.update(ConfigMaps, cm("a", { v: "2" }));
  await c.until(() => attempts.length === 4, "fourth");
  assert.equal(attempts[3][0], 0, "success forgot the failures");
  const text = manager.metrics.expose();
  assert.match(
    text,
    /controller_runtime_reconcile_total\{controller="cm",result="error"\} 2/,
  );
  assert.match(
    text,
    /controller_runtime_reconcile_errors_total\{controller="cm"\} 2/,
  );
  assert.match(
    text,
    /controller_runtime_reconcile_total\{controller="cm",result="success"\} 2/,
  );
  await run.stop();
});

Deno.test("Controller: { requeueAfter } forgets the backoff and comes back after that delay; { requeue: true } counts as a retry", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, cm("a"));
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    onError: () => {},
  });
  const seen: [number, number][] = [];
  const plan: (() => unknown)[] = [
    () => {
      throw new Error("first fails");
    },
    () => ({ requeue: true }),
    () => ({ requeueAfter: 5_000 }),
    () => ({ requeue: true }),
    () => undefined,
  ];
  manager.controller("cm", ConfigMaps, {
    rateLimiter: new ItemExponentialFailureRateLimiter(100, 60_000),
  }).complete((_req, ctx) => {
    seen.push([ctx.attempt, c.clock.now()]);
    return plan[seen.length - 1]() as undefined;
  });
  const run = running(c, manager);
  await c.until(() => seen.length === 5, "five reconciles", { stepMs: 20 });
  // throw → attempt 1; requeue → 2; requeueAfter forgets → 0; requeue → 1.
  assert.deepEqual(seen.map(([a]) => a), [0, 1, 2, 0, 1]);
  const gap = seen[3][1] - seen[2][1];
  assert.ok(gap >= 5_000 && gap < 5_100, `requeueAfter waited ${gap} ms`);
  const afterRequeue = seen[2][1] - seen[1][1];
  assert.ok(
    afterRequeue >= 200 && afterRequeue < 300,
    `requeue waited ${afterRequeue} ms (100·2^1)`,
  );
  const text = manager.metrics.expose();
  assert.match(text, /result="requeue"\} 2/);
  assert.match(text, /result="requeue_after"\} 1/);
  await run.stop();
});

Deno.test('Controller: a malformed result ({ requeueAfter: "5s" }, a typo, a negative delay) is a reconcile error, not a success', async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, cm("a"));
  const errors: unknown[] = [];
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    onError: (err, where) => {
      assert.equal(where.controller, "cm");
      errors.push(err);
    },
  });
  const bad: unknown[] = [
    { requeueAfter: "5s" },
    { requeue_after: 5_000 },
    { requeueAfter: -1 },
    { requeue: "yes" },
    null,
    5_000,
  ];
  const attempts: number[] = [];
  manager.controller("cm", ConfigMaps, {
    rateLimiter: new ItemExponentialFailureRateLimiter(100, 60_000),
  }).complete((_req, ctx) => {
    attempts.push(ctx.attempt);
    return (attempts.length <= bad.length
      ? bad[attempts.length - 1]
      : { requeue: false, requeueAfter: 0 }) as undefined;
  });
  const run = running(c, manager);
  await c.until(() => attempts.length === bad.length + 1, "retries", {
    maxMs: 60_000,
  });
  // Each malformed result was retried with backoff (addRateLimited).
  assert.deepEqual(attempts, [0, 1, 2, 3, 4, 5, 6]);
  assert.equal(errors.length, bad.length);
  const messages = errors.map((e) => {
    assert.ok(e instanceof TypeError);
    return e.message;
  });
  assert.match(
    messages[0],
    /^controller "cm": reconcile of default\/a returned a malformed result: requeueAfter must be a number of ms >= 0, got "5s"/,
  );
  assert.match(messages[1], /unknown field "requeue_after" \(5000\)/);
  assert.match(messages[2], /requeueAfter must be .*, got -1/);
  assert.match(messages[3], /requeue must be a boolean, got "yes"/);
  assert.match(messages[4], /got null/);
  assert.match(messages[5], /got 5000/);
  const text = manager.metrics.expose();
  assert.match(text, /result="error"\} 6/);
  assert.match(text, /result="success"\} 1/);
  assert.match(text, /reconcile_errors_total\{controller="cm"\} 6/);
  await run.stop();
});

Deno.test("owns(): an owned object's controller reference of the controller's kind and group enqueues its owner; others are ignored", async () => {
  await using c = await TestCluster.start();
  await using manager = new Manager(c.client(), { clock: c.clock });
  const keys: string[] = [];
  manager.controller("cm", ConfigMaps).owns(Secrets).complete((req) => {
    keys.push(keyOf(req));
  });
  const run = running(c, manager);
  await c.until(() => manager.controllers()[0].hasSynced(), "sync");
  const secret = (name: string, refs: Secret["metadata"]["ownerReferences"]) =>
    c.server.create(Secrets, {
      metadata: { name, namespace: "default", ownerReferences: refs },
    });
  const ref = { name: "owner", uid: "u1" };
  secret("controlled", [{
    apiVersion: "v1",
    kind: "ConfigMap",
    ...ref,
    controller: true,
  }]);
  secret("not-controller", [{
    apiVersion: "v1",
    kind: "ConfigMap",
    ...ref,
    name: "plain",
  }]);
  secret("other-group", [{
    apiVersion: "example.com/v1",
    kind: "ConfigMap",
    ...ref,
    name: "crd",
    controller: true,
  }]);
  secret("other-kind", [{
    apiVersion: "apps/v1",
    kind: "Deployment",
    ...ref,
    name: "deploy",
    controller: true,
  }]);
  secret("no-owner", undefined);
  await c.until(() => keys.length >= 1, "owner enqueued");
  await c.clock.step(500);
  await c.settle();
  assert.deepEqual(keys, ["default/owner"]);
  await run.stop();
});

Deno.test("watches() enqueues what the map returns, for the old and the new object of an update; predicates filter first", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "s", namespace: "default", labels: { for: "x" } },
  });
  await using manager = new Manager(c.client(), { clock: c.clock });
  const keys: string[] = [];
  manager.controller("sec", Secrets).watches(
    ConfigMaps,
    (
      obj,
    ) => [{ namespace: "default", name: obj.metadata.labels?.for ?? "none" }],
    { predicates: [labelsChanged] },
  ).complete((req) => {
    keys.push(keyOf(req));
  });
  const run = running(c, manager);
  await c.until(() => keys.length === 1, "initial add mapped");
  assert.deepEqual(keys, ["default/x"]);
  // Data change only: labelsChanged drops it.
  c.server.update(ConfigMaps, {
    metadata: { name: "s", namespace: "default", labels: { for: "x" } },
    data: { a: "1" },
  });
  await c.clock.step(500);
  await c.settle();
  assert.deepEqual(keys, ["default/x"]);
  // Relabel: both the old (x) and the new (y) target are reconciled.
  c.server.update(ConfigMaps, {
    metadata: { name: "s", namespace: "default", labels: { for: "y" } },
  });
  await c.until(() => keys.length === 3, "old and new mapped");
  assert.deepEqual(keys.slice(1).sort(), ["default/x", "default/y"]);
  await run.stop();
});

Deno.test("predicates of the controller's own type filter its events (generationChanged drops metadata-only updates)", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, cm("a"));
  await using manager = new Manager(c.client(), { clock: c.clock });
  const keys: string[] = [];
  // ConfigMaps have no generation bumps on the fake: every update is metadata-only to generationChanged.
  manager.controller("cm", ConfigMaps, { predicates: [generationChanged] })
    .complete((req) => {
      keys.push(keyOf(req));
    });
  const run = running(c, manager);
  await c.until(() => keys.length === 1, "create passes");
  c.server.update(ConfigMaps, cm("a", { x: "1" }));
  await c.clock.step(500);
  await c.settle();
  assert.deepEqual(keys, ["default/a"]);
  c.server.delete(ConfigMaps, "default", "a");
  await c.until(() => keys.length === 2, "delete passes");
  await run.stop();
});

Deno.test("Manager.controller and the builder check their arguments at the call", async () => {
  await using c = await TestCluster.start();
  await using manager = new Manager(c.client(), { clock: c.clock });
  assert.throws(
    () => manager.controller("", ConfigMaps),
    /Manager.controller: name must be a non-empty string, got ""/,
  );
  assert.throws(
    () => manager.controller("x", {} as never),
    /forType must be a ResourceType/,
  );
  assert.throws(
    () =>
      manager.controller("x", ConfigMaps, { maxConcurrentReconciles: 0 })
        .complete(() => {}),
    /maxConcurrentReconciles must be an integer >= 1, got 0/,
  );
  const b = manager.controller("y", ConfigMaps);
  assert.throws(
    () => b.watches(Secrets, "nope" as never),
    /ControllerBuilder.watches: map must be a function, got "nope"/,
  );
  b.complete(() => {});
  assert.throws(() => b.owns(Secrets), /complete already/);
  assert.throws(() => manager.controller("y", ConfigMaps), /named "y" exists/);
});

Deno.test("Manager namespace scopes every informer; a cluster-scoped type's Requests have no namespace", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "in", namespace: "team-a" },
  });
  c.server.create(ConfigMaps, {
    metadata: { name: "out", namespace: "default" },
  });
  await using scoped = new Manager(c.client(), {
    clock: c.clock,
    namespace: "team-a",
  });
  const keys: string[] = [];
  scoped.controller("cm", ConfigMaps).complete((req) => {
    keys.push(keyOf(req));
  });
  const run = running(c, scoped);
  await c.until(() => keys.length === 1, "scoped reconcile");
  await c.clock.step(500);
  await c.settle();
  assert.deepEqual(keys, ["team-a/in"]);
  await run.stop();

  await using cluster = new Manager(c.client(), { clock: c.clock });
  const nsRequests: Request[] = [];
  cluster.controller("ns", Namespaces).complete((req) => {
    nsRequests.push(req);
  });
  const run2 = running(c, cluster);
  await c.until(
    () => nsRequests.some((r) => r.name === "kube-system"),
    "namespaces",
  );
  assert.ok(nsRequests.every((r) => !("namespace" in r)));
  await run2.stop();
});

Deno.test("the controller's entry points check every argument at the call, not when the first event comes", async () => {
  await using c = await TestCluster.start();
  const client = c.client();
  await using manager = new Manager(client, { clock: c.clock });
  assert.throws(
    () => manager.controller("a", ConfigMaps, { predicates: "x" as never }),
    {
      name: "TypeError",
      message:
        'Manager.controller: opts.predicates must be an array of predicates, got "x"',
    },
  );
  assert.throws(
    () =>
      manager.controller("a", ConfigMaps, {
        predicates: [{ update: true } as never],
      }),
    /Manager.controller: opts.predicates\[0\] must be a predicate \(an object with create, update or delete functions\), got an object/,
  );
  assert.throws(
    () => manager.controller("a", ConfigMaps, { rateLimiter: {} as never }),
    /^TypeError: Manager.controller: opts.rateLimiter must be a RateLimiter/,
  );
  assert.throws(
    () =>
      manager.controller("a", ConfigMaps).owns(Secrets, {
        predicates: [null as never],
      }),
    /ControllerBuilder.owns: opts.predicates\[0\] must be a predicate .*, got null/,
  );
  assert.throws(
    () =>
      manager.controller("b", ConfigMaps).watches(Secrets, () => [], {
        predicates: 5 as never,
      }),
    /ControllerBuilder.watches: opts.predicates must be an array of predicates, got 5/,
  );
  const controller = manager.controller("c", ConfigMaps).complete(() => {});
  assert.throws(
    () => controller.enqueue({ namespace: 5 as never, name: "a" }),
    /Controller.enqueue: req.namespace must be a string, got 5/,
  );
  for (
    const [opts, message] of [
      [
        { metrics: { port: -1 } },
        /new Manager: opts.metrics.port must be a port number 0-65535, got -1/,
      ],
      [
        { health: { port: "8080" } },
        /new Manager: opts.health.port must be a port number 0-65535, got "8080"/,
      ],
      [
        { health: { port: 0, hostname: 1 } },
        /new Manager: opts.health.hostname must be a string, got 1/,
      ],
      [
        { onError: "log" },
        /new Manager: opts.onError must be a function, got "log"/,
      ],
      [
        { webhook: { port: 70000, certFile: "c", keyFile: "k" } },
        /new Manager: opts.webhook.port must be a port number 0-65535, got 70000/,
      ],
      [
        { webhook: { port: 9443, certFile: "", keyFile: "k" } },
        /new Manager: opts.webhook.certFile must be a non-empty string, got ""/,
      ],
      [
        { webhook: { port: 9443, certFile: "c" } },
        /new Manager: opts.webhook.keyFile must be a non-empty string, got undefined/,
      ],
      [
        {
          leaderElection: { name: "l", namespace: "n", releaseOnCancel: "no" },
        },
        /new Manager: opts.leaderElection.releaseOnCancel must be a boolean, got "no"/,
      ],
    ] as const
  ) {
    assert.throws(() => new Manager(client, opts as never), message);
  }
  assert.throws(
    () => controllerOf(null as never),
    /controllerOf: obj must be a Kubernetes object with metadata, got null/,
  );
  assert.throws(
    () => new EndpointServer({ port: 0 }, null as never),
    /new EndpointServer: endpoints must be an object, got null/,
  );
  assert.throws(
    () => new EventRecorder(client, { component: "x", host: 5 as never }),
    /new EventRecorder: opts.host must be a string, got 5/,
  );
});

Deno.test("owns(): an owned object deleted while the watch was away (a tombstone after the relist) still enqueues its owner", async () => {
  await using c = await TestCluster.start();
  await using manager = new Manager(c.client(), { clock: c.clock });
  const keys: string[] = [];
  manager.controller("cm", ConfigMaps).owns(Secrets).complete((req) => {
    keys.push(keyOf(req));
  });
  let tombstones = 0;
  manager.factory.informerFor(Secrets).addEventHandler({
    onDelete: (obj) => {
      if (obj instanceof DeletedFinalStateUnknown) tombstones++;
    },
  });
  const run = running(c, manager);
  await c.until(() => manager.controllers()[0].hasSynced(), "sync");
  c.server.create(Secrets, {
    metadata: {
      name: "owned",
      namespace: "default",
      ownerReferences: [{
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "owner",
        uid: "u1",
        controller: true,
      }],
    },
  });
  await c.until(() => keys.length === 1, "owner enqueued on create");
  // The delete is never seen as a watch event: the watch stalls, history
  // is compacted, and the reconnect must relist (410 Expired).
  c.server.faults.stallWatches(true);
  c.server.delete(Secrets, "default", "owned");
  c.server.compact();
  c.server.faults.closeWatches();
  c.server.faults.stallWatches(false);
  await c.until(() => tombstones === 1, "a tombstone from the relist");
  await c.until(() => keys.length === 2, "owner enqueued on the tombstone");
  assert.deepEqual(keys, ["default/owner", "default/owner"]);
  await run.stop();
});

Deno.test("a cluster-scoped controller's Requests have no namespace even when a map or enqueue gives one", async () => {
  await using c = await TestCluster.start();
  c.server.create(Namespaces, { metadata: { name: "team-a" } });
  await using manager = new Manager(c.client(), { clock: c.clock });
  const reqs: Request[] = [];
  const controller = manager.controller("ns", Namespaces)
    .watches(ConfigMaps, (obj) => [{
      namespace: obj.metadata.namespace,
      name: obj.metadata.namespace!,
    }])
    .complete((req) => {
      if (req.name === "team-a" || req.name.includes("/")) reqs.push(req);
    });
  const run = running(c, manager);
  await c.until(() => reqs.length === 1, "the Namespace itself");
  c.server.create(ConfigMaps, {
    metadata: { name: "settings", namespace: "team-a" },
  });
  await c.until(() => reqs.length === 2, "mapped from the ConfigMap");
  controller.enqueue({ namespace: "x", name: "team-a" });
  await c.until(() => reqs.length === 3, "enqueued by hand");
  assert.deepEqual(reqs, [{ name: "team-a" }, { name: "team-a" }, {
    name: "team-a",
  }]);
  await run.stop();
});

Deno.test("Controller: a key added again while its reconcile throws runs once more right after (not lost to the backoff), never in two workers, then the backoff's retry comes", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, cm("a"));
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    onError: () => {},
  });
  const gate = Promise.withResolvers<void>();
  let inFlight = 0;
  let overlaps = 0;
  const runs: [number, number][] = [];
  const controller = manager.controller("cm", ConfigMaps, {
    maxConcurrentReconciles: 4,
    rateLimiter: new ItemExponentialFailureRateLimiter(10_000, 60_000),
  }).complete(async (_req, ctx) => {
    if (inFlight++ > 0) overlaps++;
    runs.push([ctx.attempt, c.clock.now()]);
    try {
      if (runs.length === 1) {
        await gate.promise;
        throw new Error("fails while re-added");
      }
      if (runs.length === 2) throw new Error("fails again");
    } finally {
      inFlight--;
    }
  });
  const run = running(c, manager);
  await c.until(() => runs.length === 1, "first reconcile");
  controller.enqueue({ namespace: "default", name: "a" }); // while in flight
  gate.resolve();
  await c.until(() => runs.length === 2, "the re-add, at once", {
    maxMs: 1_000,
  });
  await c.until(() => runs.length === 3, "the backoff's retry", {
    maxMs: 60_000,
    stepMs: 1_000,
  });
  assert.equal(overlaps, 0);
  // The re-add ran before the 10 s backoff; it saw one failure before it.
  assert.ok(runs[1][1] - runs[0][1] < 1_000);
  assert.deepEqual(runs.map(([a]) => a), [0, 1, 2]);
  await run.stop();
});

Deno.test("Controller: a TerminalError (or an error caused by one) is not retried: forgotten, reported as terminal, counted; a plain error is retried", async () => {
  await using c = await TestCluster.start();
  for (const name of ["terminal", "wrapped", "plain"]) {
    c.server.create(ConfigMaps, cm(name));
  }
  const reports: [string, boolean][] = [];
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    onError: (_err, where) =>
      reports.push([where.request.name, where.terminal]),
  });
  const calls: Record<string, number[]> = {
    terminal: [],
    wrapped: [],
    plain: [],
  };
  const controller = manager.controller("cm", ConfigMaps, {
    rateLimiter: new ItemExponentialFailureRateLimiter(1_000, 60_000),
  }).complete((req, ctx) => {
    calls[req.name].push(ctx.attempt);
    if (req.name === "terminal") throw new TerminalError("invalid spec");
    if (req.name === "wrapped") {
      throw new Error("sync failed", { cause: new TerminalError("bad") });
    }
    if (calls.plain.length < 3) throw new Error("transient");
  });
  const run = running(c, manager);
  await c.until(() => calls.plain.length === 3, "the plain error's retries", {
    maxMs: 20_000,
  });
  // The terminal keys had as long to come back as the plain one had for
  // its two retries: they did not.
  assert.deepEqual(calls.terminal, [0]);
  assert.deepEqual(calls.wrapped, [0]);
  assert.deepEqual(calls.plain, [0, 1, 2]);
  assert.equal(
    controller.queue.numRequeues("default/terminal"),
    0,
    "forgotten",
  );
  assert.deepEqual(
    reports.filter(([n]) => n !== "plain").sort(),
    [["terminal", true], ["wrapped", true]],
  );
  assert.ok(reports.filter(([n]) => n === "plain").every(([, t]) => !t));
  const text = manager.metrics.expose();
  assert.match(
    text,
    /^controller_runtime_terminal_reconcile_errors_total\{controller="cm"\} 2$/m,
  );
  assert.match(
    text,
    /^controller_runtime_reconcile_errors_total\{controller="cm"\} 4$/m,
  );
  // A new event of the object reconciles it again, as any event does.
  c.server.update(ConfigMaps, cm("terminal", { v: "2" }));
  await c.until(() => calls.terminal.length === 2, "the next event");
  assert.deepEqual(calls.terminal, [0, 0]);
  await run.stop();
});

Deno.test("Controller: a thrown value that is not an Error counts as a panic (and is retried); an Error, sync or async, does not", async () => {
  await using c = await TestCluster.start();
  for (const name of ["string", "object", "sync-error", "async-error"]) {
    c.server.create(ConfigMaps, cm(name));
  }
  const errors: unknown[] = [];
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    onError: (err) => errors.push(err),
  });
  const calls = new Map<string, number>();
  manager.controller("cm", ConfigMaps, {
    rateLimiter: new ItemExponentialFailureRateLimiter(1_000, 60_000),
  }).complete((req) => {
    const n = (calls.get(req.name) ?? 0) + 1;
    calls.set(req.name, n);
    if (n > 1) return;
    switch (req.name) {
      case "string":
        throw "boom";
      case "object":
        return Promise.reject({ code: 1 });
      case "sync-error":
        throw new Error("sync");
      default:
        return Promise.reject(new Error("async"));
    }
  });
  const run = running(c, manager);
  await c.until(
    () => [...calls.values()].filter((n) => n === 2).length === 4,
    "every key retried once",
    { maxMs: 10_000 },
  );
  assert.equal(errors.length, 4);
  const text = manager.metrics.expose();
  assert.match(
    text,
    /^controller_runtime_reconcile_panics_total\{controller="cm"\} 2$/m,
  );
  assert.match(
    text,
    /^controller_runtime_reconcile_errors_total\{controller="cm"\} 4$/m,
  );
  await run.stop();
});

Deno.test("Controller: an error that is the stop's abort reason is not reported, not terminal and not a panic", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, cm("a"));
  const errors: unknown[] = [];
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    onError: (err) => errors.push(err),
  });
  let entered = false;
  manager.controller("cm", ConfigMaps).complete(async (_req, ctx) => {
    entered = true;
    await new Promise((_, reject) =>
      ctx.stopping.addEventListener("abort", () => reject(ctx.stopping.reason))
    );
  });
  const ctrl = new AbortController();
  const done = manager.run(ctrl.signal);
  await c.until(() => entered, "reconcile in flight");
  ctrl.abort("shutting down"); // a reason that is no Error
  let settled = false;
  done.finally(() => (settled = true)).catch(() => {});
  await c.until(() => settled, "run() settles");
  await done;
  assert.deepEqual(errors, []);
  assert.match(
    manager.metrics.expose(),
    /^controller_runtime_reconcile_panics_total\{controller="cm"\} 0$/m,
  );
});

Deno.test("scopes: a controller's informer caches only its scope's objects (selector sent to the server); cache.byType gives a type's default, an explicit scope wins; one informer per type and scope", async () => {
  await using c = await TestCluster.start();
  for (const [name, app] of [["a", "demo"], ["b", "other"], ["c", "demo"]]) {
    c.server.create(ConfigMaps, {
      metadata: { name, namespace: "default", labels: { app } },
      data: { big: "x".repeat(100) },
    });
    c.server.create(Secrets, {
      metadata: { name, namespace: "default", labels: { app } },
    });
  }
  const stripData = (obj: KubeObject) => ({ ...obj, data: undefined });
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    cache: { byType: [[Secrets, { labelSelector: "app=demo" }]] },
  });
  const reconciled: string[] = [];
  const cached: { configMaps?: string[]; secrets?: string[] } = {};
  manager.controller("demo", ConfigMaps, {
    scope: { labelSelector: "app=demo", transform: stripData },
  }).owns(Secrets).complete(async (req, ctx) => {
    reconciled.push(req.name);
    cached.configMaps = (await ctx.cache(ConfigMaps)).list().map((o) =>
      `${o.metadata.name}:${o.data === undefined ? "stripped" : "data"}`
    ).sort();
    cached.secrets = (await ctx.cache(Secrets)).list().map((o) =>
      o.metadata.name!
    ).sort();
  });
  // Same scope (same transform function): shares the informer.
  manager.controller("twin", ConfigMaps, {
    scope: { labelSelector: "app=demo", transform: stripData },
  }).complete(() => {});
  // An explicit scope beats the type's default.
  manager.controller("all-secrets", Secrets, { scope: {} }).complete(() => {});
  const run = c.run(manager);
  await c.until(() => reconciled.length >= 2, "the two demo ConfigMaps");
  await c.settle();
  assert.deepEqual([...reconciled].sort(), ["a", "c"]);
  assert.deepEqual(cached.configMaps, ["a:stripped", "c:stripped"]);
  assert.deepEqual(cached.secrets, ["a", "c"], "byType's default");
  const lists = (resource: string) =>
    c.server.requests.filter((r) =>
      r.method === "GET" && r.path === `/api/v1/${resource}` &&
      r.query.get("watch") !== "true"
    ).map((r) => r.query.get("labelSelector") ?? "");
  assert.deepEqual(lists("configmaps"), ["app=demo"], "one informer for both");
  assert.deepEqual(lists("secrets").sort(), ["", "app=demo"]);
  await run.stop();
  assert.throws(
    () =>
      manager.controller("bad", ConfigMaps, {
        scope: { labelSelector: 1 } as never,
      }),
    /Manager.controller: opts.scope.labelSelector must be a string, got 1/,
  );
});

Deno.test("scopes: metadataOnly caches PartialObjectMetadata; ctx.cache of such a scope rejects saying so", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "a", namespace: "default" },
    data: { k: "v" },
  });
  await using manager = new Manager(c.client(), { clock: c.clock });
  let err: unknown;
  const controller = manager.controller("meta", ConfigMaps, {
    scope: { metadataOnly: true },
  }).complete(async (_req, ctx) => {
    err = await ctx.cache(ConfigMaps).catch((e) => e);
  });
  const run = c.run(manager);
  await c.until(() => err !== undefined, "a reconcile");
  const cm = controller.informers[0].informer.getStore().list()[0];
  assert.equal(cm.kind, "PartialObjectMetadata");
  assert.equal((cm as { data?: unknown }).data, undefined);
  assert.match(
    String(err),
    /TypeError: ReconcileContext.cache: the cache of configmaps\(metadata-only\) holds metadata only/,
  );
  await run.stop();
});
