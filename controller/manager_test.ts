// Manager.run on a FakeApiServer and a FakeClock: readiness, metrics
// (checked by a strict Prometheus text parser), leader election with two
// managers, graceful shutdown, and lost leadership (controller-runtime
// pkg/manager semantics).

import assert from "node:assert/strict";
import { ConfigMaps, Leases, resourceType, Secrets } from "../api/resources.ts";
import { CacheNotSyncedError } from "../cache/cache_not_synced_error.ts";
import type { Lease } from "../api/types.ts";
import { deepCopy } from "../api/readonly.ts";
import { formatMicroTime } from "../leaderelection/lease_lock.ts";
import { LeadershipLostError, Manager } from "./manager.ts";
import { parsePrometheusText } from "./_prom_text_test_util.ts";
import { TestCluster } from "./_test_util.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { TrackedClient } from "../testing/tracked_client.ts";
import { KubeConfig } from "../client/config.ts";
import type { RawRequestOptions } from "../client/rest.ts";

/** fetch that the test's settle() can wait for. */
async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

Deno.test("Manager /readyz answers 503 until every informer synced, then 200 (?verbose lists the checks); /healthz 200 while running; both stop with run()", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "a", namespace: "default" },
  });
  // The first lists fail: the informers retry with backoff on the fake clock.
  c.server.faults.failNext(2, {
    status: 500,
    match: (r) => new URL(r.url).pathname.endsWith("/configmaps"),
  });
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    health: { port: 0 },
  });
  manager.controller("cm", ConfigMaps).owns(Secrets).complete(() => {});
  const run = c.run(manager);
  const base = `http://127.0.0.1:${manager.addresses().health!.port}`;
  await c.settle();
  let ready = await get(`${base}/readyz`);
  assert.equal(ready.status, 503);
  assert.equal(
    ready.body,
    "[+]ping ok\n[-]informer-sync:configmaps failed: reason withheld\n[+]informer-sync:secrets ok\nreadyz check failed\n",
  );
  assert.deepEqual(await get(`${base}/healthz`), { status: 200, body: "ok" });
  await c.until(() => manager.controllers()[0].hasSynced(), "sync");
  ready = await get(`${base}/readyz`);
  assert.deepEqual(ready, { status: 200, body: "ok" });
  ready = await get(`${base}/readyz?verbose`);
  assert.equal(
    ready.body,
    "[+]ping ok\n[+]informer-sync:configmaps ok\n[+]informer-sync:secrets ok\nreadyz check passed\n",
  );
  assert.equal((await get(`${base}/nope`)).status, 404);
  await run.stop();
  await assert.rejects(fetch(`${base}/healthz`), TypeError, "server closed");
  assert.deepEqual(manager.addresses(), {});
});

Deno.test("Manager.waitForCacheSync / hasSynced: false until run() has listed every controller's types (even when the first list fails), true after", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "a", namespace: "default" },
  });
  await using manager = new Manager(c.client(), { clock: c.clock });
  manager.controller("cm", ConfigMaps).owns(Secrets).complete(() => {});
  assert.equal(manager.hasSynced(), false);
  // Called before run(): waits for run() to start and sync the informers.
  let synced: boolean | undefined;
  const waiting = manager.waitForCacheSync(new AbortController().signal)
    .then((v) => (synced = v));
  // The first list of configmaps fails: not synced until the retry.
  c.server.faults.failNext(1, {
    status: 500,
    match: (r) =>
      r.method === "GET" && new URL(r.url).pathname.endsWith("/configmaps"),
  });
  const run = c.run(manager);
  await c.settle();
  assert.equal(synced, undefined);
  assert.equal(manager.hasSynced(), false);
  await c.until(() => synced !== undefined, "waitForCacheSync");
  assert.equal(await waiting, true);
  assert.equal(manager.hasSynced(), true);
  const aborted = new AbortController();
  aborted.abort();
  assert.equal(await manager.waitForCacheSync(aborted.signal), true);
  await run.stop();
  await assert.rejects(
    manager.waitForCacheSync("soon" as never),
    TypeError,
    'Manager.waitForCacheSync: signal must be an AbortSignal, got "soon"',
  );
});

Deno.test("Manager.waitForCacheSync resolves false when its signal aborts before the caches sync", async () => {
  await using c = await TestCluster.start();
  await using manager = new Manager(c.client(), { clock: c.clock });
  manager.controller("cm", ConfigMaps).complete(() => {});
  const stop = new AbortController();
  const waiting = manager.waitForCacheSync(stop.signal);
  stop.abort();
  assert.equal(await waiting, false);
});

Deno.test("Manager /metrics: the controller-runtime, workqueue, client-go and informer families, valid Prometheus text", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "a", namespace: "default" },
  });
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    metrics: { port: 0 },
    leaderElection: { name: "lock", namespace: "default", identity: "me" },
  });
  let n = 0;
  manager.controller("cm", ConfigMaps, { maxConcurrentReconciles: 2 })
    .complete(() => {
      n++;
    });
  const run = c.run(manager);
  await c.until(() => n === 1, "a reconcile");
  const res = await fetch(
    `http://127.0.0.1:${manager.addresses().metrics!.port}/metrics`,
  );
  assert.equal(
    res.headers.get("content-type"),
    "text/plain; version=0.0.4; charset=utf-8",
  );
  const families = parsePrometheusText(await res.text());
  const value = (name: string, labels: Record<string, string>) =>
    [...families.values()].flatMap((f) => f.samples).find((s) =>
      s.name === name &&
      Object.entries(labels).every(([k, v]) => s.labels[k] === v)
    )?.value;
  const types = Object.fromEntries([...families].map(([k, f]) => [k, f.type]));
  assert.deepEqual(types, {
    controller_runtime_active_workers: "gauge",
    controller_runtime_max_concurrent_reconciles: "gauge",
    controller_runtime_reconcile_errors_total: "counter",
    controller_runtime_reconcile_panics_total: "counter",
    controller_runtime_reconcile_time_seconds: "histogram",
    controller_runtime_terminal_reconcile_errors_total: "counter",
    controller_runtime_reconcile_total: "counter",
    kubecache_informer_synced: "gauge",
    kubecache_listener_pending: "gauge",
    kubecache_reflector_last_sync_resource_version: "gauge",
    kubecache_reflector_lists_total: "counter",
    kubecache_reflector_watch_events_total: "counter",
    leader_election_master_status: "gauge",
    nodejs_external_memory_bytes: "gauge",
    nodejs_heap_size_total_bytes: "gauge",
    nodejs_heap_size_used_bytes: "gauge",
    process_cpu_seconds_total: "counter",
    process_resident_memory_bytes: "gauge",
    process_start_time_seconds: "gauge",
    rest_client_request_duration_seconds: "histogram",
    rest_client_requests_total: "counter",
    workqueue_adds_total: "counter",
    workqueue_depth: "gauge",
    workqueue_longest_running_processor_seconds: "gauge",
    workqueue_queue_duration_seconds: "histogram",
    workqueue_retries_total: "counter",
    workqueue_unfinished_work_seconds: "gauge",
    workqueue_work_duration_seconds: "histogram",
  });
  const ctl = { controller: "cm" };
  assert.equal(
    value("controller_runtime_reconcile_total", { ...ctl, result: "success" }),
    1,
  );
  assert.equal(
    value("controller_runtime_reconcile_total", { ...ctl, result: "error" }),
    0,
  );
  assert.equal(value("controller_runtime_max_concurrent_reconciles", ctl), 2);
  assert.equal(value("workqueue_adds_total", { name: "cm" }), 1);
  assert.equal(value("workqueue_depth", { name: "cm" }), 0);
  assert.equal(
    value("workqueue_work_duration_seconds_count", { name: "cm" }),
    1,
  );
  assert.equal(value("leader_election_master_status", { name: "lock" }), 1);
  const host = new URL(c.server.url).host;
  // The Lease was created (POST 201) and the lists answered (GET 200).
  assert.equal(
    value("rest_client_requests_total", { code: "201", method: "POST", host }),
    1,
  );
  assert.ok(
    value("rest_client_requests_total", {
      code: "200",
      method: "GET",
      host,
    })! >=
      2,
  );
  assert.ok(
    value("rest_client_request_duration_seconds_count", {
      verb: "GET",
      host,
    })! >= 2,
  );
  assert.equal(
    value("kubecache_informer_synced", { resource: "configmaps" }),
    1,
  );
  assert.equal(
    value("kubecache_reflector_lists_total", { resource: "configmaps" }),
    1,
  );
  // Each handler's buffer, by the controller's name (and the manager's own).
  for (const handler of ["cm", "kubecache-metrics"]) {
    assert.equal(
      value("kubecache_listener_pending", { resource: "configmaps", handler }),
      0,
      handler,
    );
  }
  assert.equal(
    value("kubecache_reflector_last_sync_resource_version", {
      resource: "configmaps",
    }),
    Number(manager.factory.informerFor(ConfigMaps).lastSyncResourceVersion()),
  );
  c.server.create(ConfigMaps, {
    metadata: { name: "b", namespace: "default" },
  });
  await c.until(() => n === 2, "second reconcile");
  assert.match(
    manager.metrics.expose(),
    /^kubecache_reflector_watch_events_total\{resource="configmaps"\} 1$/m,
  );
  await run.stop();
});

/** A manager with leader election on `c`, logging what it reconciles. */
function replica(c: TestCluster, id: string) {
  const reconciled: string[] = [];
  const manager = new Manager(c.client(), {
    clock: c.clock,
    leaderElection: { name: "lock", namespace: "default", identity: id },
  });
  manager.controller("cm", ConfigMaps).complete((req) => {
    reconciled.push(req.name);
  });
  return { id, manager, reconciled, run: c.run(manager) };
}

const holder = (c: TestCluster) =>
  c.server.get(Leases, "default", "lock")?.spec?.holderIdentity;

Deno.test("Manager leader election: of two managers one reconciles; when it stops it releases the Lease and the other takes over", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "one", namespace: "default" },
  });
  const a = replica(c, "A");
  await c.until(() => a.reconciled.includes("one"), "A reconciles");
  const b = replica(c, "B");
  await c.until(() => b.manager.controllers()[0].hasSynced(), "B synced");
  c.server.create(ConfigMaps, {
    metadata: { name: "two", namespace: "default" },
  });
  await c.until(() => a.reconciled.includes("two"), "A reconciles two");
  await c.clock.step(5_000);
  await c.settle();
  assert.deepEqual(b.reconciled, [], "B works while A leads");
  assert.equal(holder(c), "A");

  const stoppedAt = c.clock.now();
  await a.run.stop();
  assert.equal(holder(c), "", "A released the Lease");
  await c.until(() => holder(c) === "B", "B takes over");
  const tookOver = Date.parse(
    c.server.get(Leases, "default", "lock")!.spec!.acquireTime!,
  ) - stoppedAt;
  assert.ok(tookOver <= 2.2 * 2_000 + 500, `B took over after ${tookOver} ms`);
  // B's warm cache and queue: it reconciles every key once on taking over.
  await c.until(() => b.reconciled.length === 2, "B reconciles its queue");
  assert.deepEqual(b.reconciled.sort(), ["one", "two"]);
  await b.run.stop();
  await a.manager[Symbol.asyncDispose]();
  await b.manager[Symbol.asyncDispose]();
});

Deno.test("Manager losing leadership aborts the reconciles in flight and rejects run() with LeadershipLostError", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "slow", namespace: "default" },
  });
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    leaderElection: { name: "lock", namespace: "default", identity: "me" },
  });
  let inFlight: AbortSignal | undefined;
  manager.controller("cm", ConfigMaps).complete(async (_req, ctx) => {
    inFlight = ctx.signal;
    await new Promise((resolve) =>
      ctx.signal.addEventListener("abort", resolve)
    );
  });
  const stop = new AbortController();
  const done = manager.run(stop.signal);
  let outcome: unknown;
  done.then(() => (outcome = "resolved"), (err) => (outcome = err));
  await c.until(() => inFlight !== undefined, "reconcile started");
  // Another replica takes the Lease (as after a long pause of this one).
  const lease = deepCopy(c.server.get(Leases, "default", "lock")!) as Lease;
  lease.spec!.holderIdentity = "thief";
  lease.spec!.renewTime = formatMicroTime(c.clock.now());
  c.server.update(Leases, lease);
  await c.until(() => outcome !== undefined, "run() to end", {
    maxMs: 20_000,
  });
  assert.ok(outcome instanceof LeadershipLostError, String(outcome));
  assert.ok(inFlight!.aborted, "the reconcile in flight was told to stop");
  assert.ok(!stop.signal.aborted);
});

Deno.test("Manager losing leadership because the cluster went away logs one line per failure, not a stack, and rejects run() with LeadershipLostError", async () => {
  await using c = await TestCluster.start();
  // The Lease requests meet a closed port (a real fetch failure) once the
  // cluster is "gone"; the rest keeps working, so only the elector speaks.
  let gone = false;
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const deadPort = closed.addr.port;
  closed.close();
  class Flaky extends TrackedClient {
    override request<R>(
      method: string,
      path: string,
      opts?: RawRequestOptions,
    ): Promise<R> {
      if (gone && path.includes("/leases")) {
        return fetch(`http://127.0.0.1:${deadPort}${path}`, {
          signal: opts?.signal,
        }) as Promise<never>;
      }
      return super.request<R>(method, path, opts);
    }
  }
  const client = new Flaky(KubeConfig.fromOptions({ server: c.server.url }));
  c.clients.push(client);
  await using manager = new Manager(client, {
    clock: c.clock,
    leaderElection: { name: "lock", namespace: "default", identity: "me" },
  });
  manager.controller("cm", ConfigMaps).complete(() => {});
  const lines: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => lines.push(args);
  try {
    const run = c.run(manager);
    let outcome: unknown;
    run.done.then(() => (outcome = "resolved"), (err) => (outcome = err));
    await c.until(() => holder(c) === "me", "leading");
    gone = true;
    await c.until(() => outcome !== undefined, "run() to end", {
      maxMs: 30_000,
    });
    assert.ok(outcome instanceof LeadershipLostError, String(outcome));
  } finally {
    console.error = original;
  }
  assert.ok(lines.length >= 1, "the failure was reported");
  for (const args of lines) {
    assert.equal(args.length, 1, `one string per line: ${args}`);
    assert.equal(
      args[0],
      `leaderelection lock: cannot reach http://127.0.0.1:${deadPort}: connection refused`,
    );
  }
});

Deno.test("Manager graceful shutdown: no new keys, in-flight reconciles get gracefulShutdownTimeout before ctx.signal aborts, then run() resolves", async () => {
  await using c = await TestCluster.start();
  for (const name of ["a", "b"]) {
    c.server.create(ConfigMaps, { metadata: { name, namespace: "default" } });
  }
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    gracefulShutdownTimeout: 10_000,
  });
  const started: string[] = [];
  let abortedAt: number | undefined;
  manager.controller("cm", ConfigMaps).complete(async (req, ctx) => {
    started.push(req.name);
    // Slow: ends only when told to.
    await new Promise((resolve) =>
      ctx.signal.addEventListener("abort", resolve)
    );
    abortedAt = c.clock.now();
  });
  const stop = new AbortController();
  let resolvedAt: number | undefined;
  const done = manager.run(stop.signal).then(() => {
    resolvedAt = c.clock.now();
  });
  await c.until(() => started.length === 1, "one reconcile in flight");
  const stoppedAt = c.clock.now();
  stop.abort();
  await c.until(() => resolvedAt !== undefined, "run() resolves", {
    stepMs: 500,
  });
  await done;
  assert.equal(abortedAt! - stoppedAt, 10_000);
  assert.ok(resolvedAt! - stoppedAt < 10_600);
  assert.equal(started.length, 1, "no new key was taken after the stop");
});

Deno.test("Manager graceful shutdown: a reconcile that ends within the timeout is not aborted, and run() resolves without waiting for the timeout", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "a", namespace: "default" },
  });
  await using manager = new Manager(c.client(), { clock: c.clock });
  let aborted: boolean | undefined;
  let entered = false;
  manager.controller("cm", ConfigMaps).complete(async (_req, ctx) => {
    entered = true;
    await c.clock.sleep(1_000);
    aborted = ctx.signal.aborted;
  });
  const stop = new AbortController();
  let resolvedAt: number | undefined;
  const done = manager.run(stop.signal).then(() => {
    resolvedAt = c.clock.now();
  });
  await c.until(() => entered, "reconcile in flight");
  const stoppedAt = c.clock.now();
  stop.abort();
  await c.until(() => resolvedAt !== undefined, "run() resolves");
  await done;
  assert.equal(aborted, false);
  assert.ok(resolvedAt! - stoppedAt < 1_200, `${resolvedAt! - stoppedAt} ms`);
});

Deno.test("Manager checks its arguments at the call and runs once", async () => {
  await using c = await TestCluster.start();
  const client = c.client();
  assert.throws(
    () => new Manager({} as never),
    /new Manager: client must be a KubeClient, got an object/,
  );
  assert.throws(
    () => new Manager(client, { gracefulShutdownTimeout: -1 }),
    /gracefulShutdownTimeout must be a finite number of milliseconds >= 0, got -1/,
  );
  assert.throws(
    () => new Manager(client, { leaderElection: { name: "", namespace: "x" } }),
    /opts.leaderElection.name must be a non-empty string, got ""/,
  );
  assert.throws(
    () =>
      new Manager(client, {
        leaderElection: { name: "l", namespace: "x", renewDeadline: 20_000 },
      }),
    /leaseDuration \(15000 ms\) must be greater than renewDeadline \(20000 ms\)/,
  );
  // A taken port rejects run(), it does not throw.
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const busy = new Manager(client, {
    health: { port: (taken.addr as Deno.NetAddr).port },
  });
  await assert.rejects(
    busy.run(new AbortController().signal),
    Deno.errors.AddrInUse,
  );
  taken.close();
  await busy[Symbol.asyncDispose]();
  await using manager = new Manager(client, { clock: c.clock });
  await assert.rejects(
    manager.run("no" as never),
    /Manager.run: signal must be an AbortSignal, got "no"/,
  );
  const run = c.run(manager);
  await assert.rejects(
    manager.run(new AbortController().signal),
    /run already/,
  );
  assert.throws(
    () => manager.controller("late", ConfigMaps),
    /the manager has started/,
  );
  await run.stop();
});

Deno.test("Manager: keys waiting out a requeueAfter or a backoff when run() ends leave no timer behind (the process can exit)", async () => {
  await using c = await TestCluster.start();
  for (const name of ["later", "failing"]) {
    c.server.create(ConfigMaps, { metadata: { name, namespace: "default" } });
  }
  // The manager's own clock: whatever still sleeps on it after run() is a
  // timer that would keep a real process alive (the test sanitizer does
  // not count timers).
  const clock = new FakeClock(c.clock.now());
  await using manager = new Manager(c.client(), { clock, onError: () => {} });
  const seen = new Set<string>();
  const both = Promise.withResolvers<void>();
  const controller = manager.controller("cm", ConfigMaps).complete((req) => {
    seen.add(req.name);
    if (seen.size === 2) both.resolve();
    if (req.name === "failing") throw new Error("retried in a while");
    return { requeueAfter: 3_600_000 };
  });
  const stop = new AbortController();
  const running = manager.run(stop.signal);
  let settled = false;
  running.finally(() => (settled = true)).catch(() => {});
  while (seen.size < 2) {
    await c.settle();
    await clock.step(1_000);
  }
  await both.promise;
  await c.settle(); // the worker has handled both outcomes
  stop.abort();
  while (!settled) {
    await c.settle();
    await clock.step(1_000);
  }
  await running;
  assert.equal(clock.waiters(), 0, "timers left after run()");
  controller.enqueue({ namespace: "default", name: "later" });
  assert.equal(controller.queue.len(), 0, "the queue is shut down");
});

Deno.test("Manager graceful shutdown: a reconcile that ignores its aborted signal does not hold the shutdown or the Lease; run() rejects saying so", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "stuck", namespace: "default" },
  });
  // Not `await using`: without the bound its dispose would wait forever.
  const manager = new Manager(c.client(), {
    clock: c.clock,
    gracefulShutdownTimeout: 10_000,
    leaderElection: { name: "lock", namespace: "default", identity: "me" },
  });
  const never = Promise.withResolvers<void>();
  let entered = false;
  manager.controller("cm", ConfigMaps).complete(async () => {
    entered = true;
    await never.promise; // e.g. a request made without ctx.signal
  });
  const stop = new AbortController();
  let outcome: unknown;
  let settledAt: number | undefined;
  manager.run(stop.signal).then(
    () => (outcome = "resolved"),
    (err) => (outcome = err),
  ).finally(() => (settledAt = c.clock.now()));
  await c.until(() => entered, "reconcile in flight");
  const stoppedAt = c.clock.now();
  stop.abort();
  await c.until(() => outcome !== undefined, "run() to settle", {
    stepMs: 250,
  });
  assert.match(
    String(outcome),
    /1 reconcile\(s\) did not end within 1000 ms after their ctx.signal aborted/,
  );
  assert.ok(settledAt! - stoppedAt <= 11_500, `${settledAt! - stoppedAt} ms`);
  assert.equal(holder(c), "", "the Lease was released");
  never.resolve();
  await manager[Symbol.asyncDispose]();
});

Deno.test("Manager graceful shutdown with leader election: the Lease is renewed while reconciles drain past leaseDuration, and released after", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "slow", namespace: "default" },
  });
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    leaderElection: { name: "lock", namespace: "default", identity: "me" },
  });
  let entered = false;
  let finished = false;
  manager.controller("cm", ConfigMaps).complete(async (_req, ctx) => {
    entered = true;
    await c.clock.sleep(20_000); // longer than the 15 s lease
    finished = !ctx.signal.aborted;
  });
  const stop = new AbortController();
  let settled = false;
  const done = manager.run(stop.signal).finally(() => (settled = true));
  await c.until(() => entered, "reconcile in flight");
  const stoppedAt = c.clock.now();
  stop.abort();
  await c.until(() => c.clock.now() - stoppedAt >= 18_000, "18 s of drain", {
    stepMs: 500,
  });
  const draining = !finished && !settled;
  const lease = c.server.get(Leases, "default", "lock")!;
  const age = c.clock.now() - Date.parse(lease.spec!.renewTime!);
  // Let the drain end whatever the Lease says, then judge.
  await c.until(() => settled, "run() to resolve");
  await done;
  assert.ok(draining);
  // Past leaseDuration since the stop, the Lease was still ours and fresh.
  assert.equal(lease.spec?.holderIdentity, "me");
  assert.ok(age < 15_000, `renewed ${age} ms before, during the drain`);
  assert.ok(finished, "the reconcile finished unaborted");
  assert.equal(holder(c), "", "released after the drain");
});

Deno.test("Manager /readyz does not depend on leadership: a replica waiting for the Lease is ready once its caches synced", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "a", namespace: "default" },
  });
  // Another replica holds the Lease, and keeps renewing it.
  const lease = (): Lease => ({
    metadata: { name: "lock", namespace: "default" },
    spec: {
      holderIdentity: "other",
      leaseDurationSeconds: 15,
      renewTime: formatMicroTime(c.clock.now()),
    },
  });
  c.server.create(Leases, lease());
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    health: { port: 0 },
    metrics: { port: 0 },
    leaderElection: { name: "lock", namespace: "default", identity: "me" },
  });
  let reconciled = 0;
  manager.controller("cm", ConfigMaps).complete(() => {
    reconciled++;
  });
  const run = c.run(manager);
  await c.until(() => manager.controllers()[0].hasSynced(), "sync");
  for (let i = 0; i < 4; i++) {
    const current = c.server.get(Leases, "default", "lock")!;
    c.server.update(Leases, {
      ...lease(),
      metadata: current.metadata,
    });
    await c.clock.step(2_000);
    await c.settle();
  }
  const { health, metrics } = manager.addresses();
  const ready = await get(`http://127.0.0.1:${health!.port}/readyz`);
  assert.deepEqual(ready, { status: 200, body: "ok" });
  const text = (await get(`http://127.0.0.1:${metrics!.port}/metrics`)).body;
  assert.match(text, /^leader_election_master_status\{name="lock"\} 0$/m);
  assert.equal(reconciled, 0, "not leading: no reconcile");
  assert.equal(holder(c), "other");
  await run.stop();
});

Deno.test("Manager graceful shutdown without leader election: a reconcile that never settles is given up on 1 s after its ctx.signal aborted; run() rejects saying so", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "stuck", namespace: "default" },
  });
  // Not `await using`: without the bound its dispose would wait forever.
  const manager = new Manager(c.client(), {
    clock: c.clock,
    gracefulShutdownTimeout: 300,
  });
  const never = Promise.withResolvers<void>();
  let entered = false;
  manager.controller("cm", ConfigMaps).complete(async () => {
    entered = true;
    await never.promise; // ignores ctx.signal
  });
  const stop = new AbortController();
  let outcome: unknown;
  let settledAt: number | undefined;
  manager.run(stop.signal).then(
    () => (outcome = "resolved"),
    (err) => (outcome = err),
  ).finally(() => (settledAt = c.clock.now()));
  await c.until(() => entered, "reconcile in flight");
  const stoppedAt = c.clock.now();
  stop.abort();
  await c.until(() => outcome !== undefined, "run() to settle", {
    stepMs: 100,
    maxMs: 10_000,
  });
  assert.match(
    String(outcome),
    /1 reconcile\(s\) did not end within 1000 ms after their ctx.signal aborted \(gracefulShutdownTimeout 300 ms\)/,
  );
  assert.ok(settledAt! - stoppedAt <= 1_500, `${settledAt! - stoppedAt} ms`);
  never.resolve();
  await manager[Symbol.asyncDispose]();
});

Deno.test("Manager shutdown: ctx.stopping aborts the moment shutdown starts, ctx.signal only when gracefulShutdownTimeout passes", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "a", namespace: "default" },
  });
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    gracefulShutdownTimeout: 5_000,
  });
  let stoppingAt: number | undefined;
  let signalAt: number | undefined;
  let entered = false;
  manager.controller("cm", ConfigMaps).complete(async (_req, ctx) => {
    entered = true;
    assert.equal(ctx.stopping.aborted, false);
    ctx.stopping.addEventListener("abort", () => {
      stoppingAt = c.clock.now();
    });
    await new Promise((resolve) =>
      ctx.signal.addEventListener("abort", resolve)
    );
    signalAt = c.clock.now();
  });
  const run = c.run(manager);
  await c.until(() => entered, "reconcile in flight");
  const stoppedAt = c.clock.now();
  await run.stop();
  assert.equal(stoppingAt, stoppedAt);
  assert.equal(signalAt! - stoppedAt, 5_000);
});

Deno.test("Manager shutdown with the defaults fits Kubernetes' default terminationGracePeriodSeconds: a reconcile ignoring its signal still lets the Lease go before 30 s", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "stuck", namespace: "default" },
  });
  const manager = new Manager(c.client(), {
    clock: c.clock,
    leaderElection: { name: "lock", namespace: "default", identity: "me" },
  });
  const never = Promise.withResolvers<void>();
  let entered = false;
  let signalAt: number | undefined;
  manager.controller("cm", ConfigMaps).complete(async (_req, ctx) => {
    entered = true;
    ctx.signal.addEventListener("abort", () => (signalAt = c.clock.now()));
    await never.promise;
  });
  const stop = new AbortController();
  let settledAt: number | undefined;
  manager.run(stop.signal).catch(() => {}).finally(() =>
    settledAt = c.clock.now()
  );
  await c.until(() => entered, "reconcile in flight");
  const stoppedAt = c.clock.now();
  stop.abort(); // SIGTERM; the kubelet sends SIGKILL 30 s later
  await c.until(() => settledAt !== undefined, "run() to settle", {
    stepMs: 250,
    maxMs: 60_000,
  });
  assert.equal(signalAt! - stoppedAt, 25_000, "the default grace");
  assert.ok(settledAt! - stoppedAt < 30_000, `${settledAt! - stoppedAt} ms`);
  assert.equal(holder(c), "", "the Lease was released");
  never.resolve();
  await manager[Symbol.asyncDispose]();
});

Deno.test("Manager: a type first read inside a reconcile after run() is started at once; its lister throws CacheNotSyncedError until synced, ctx.cache(type) waits and finds the object", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "a", namespace: "default" },
  });
  c.server.create(Secrets, {
    metadata: { name: "a-secret", namespace: "default" },
  });
  await using manager = new Manager(c.client(), { clock: c.clock });
  let early: unknown;
  let found: string | undefined;
  manager.controller("cm", ConfigMaps).complete(async (req, ctx) => {
    // Secrets are watched by no controller: the first read starts them.
    try {
      manager.factory.lister(Secrets).namespaced("default").get("a-secret");
    } catch (err) {
      early = err;
    }
    const secrets = await ctx.cache(Secrets);
    found = secrets.namespaced(req.namespace!).get(`${req.name}-secret`)
      ?.metadata.name;
  });
  const run = c.run(manager);
  await c.until(() => found !== undefined, "the reconcile read the Secret");
  assert.ok(early instanceof CacheNotSyncedError, String(early));
  assert.equal(found, "a-secret");
  // The later reads are served from the started informer.
  assert.equal(
    manager.factory.lister(Secrets).namespaced("default").list().length,
    1,
  );
  await run.stop();
});

const Widgets = resourceType({
  apiVersion: "example.com/v1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
});

Deno.test("Manager: a controller whose type cannot list (CRD not installed) does not hold the others; run() rejects after its cacheSyncTimeout naming the resource", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "a", namespace: "default" },
  });
  const manager = new Manager(c.client(), {
    clock: c.clock,
    cacheSyncTimeout: 60_000,
  });
  const reconciled: string[] = [];
  manager.controller("cm", ConfigMaps).complete((req) => {
    reconciled.push(req.name);
  });
  manager.controller("widgets", Widgets, { cacheSyncTimeout: 30_000 })
    .complete(() => {});
  const stop = new AbortController();
  let outcome: unknown;
  let settledAt: number | undefined;
  const startedAt = c.clock.now();
  manager.run(stop.signal).then(() => (outcome = "resolved"), (err) => {
    outcome = err;
  }).finally(() => (settledAt = c.clock.now()));
  await c.until(() => reconciled.length === 1, "the ConfigMap controller ran", {
    maxMs: 5_000,
  });
  await c.until(() => outcome !== undefined, "run() to reject", {
    stepMs: 1_000,
    maxMs: 60_000,
  });
  assert.ok(outcome instanceof Error, String(outcome));
  assert.match(
    outcome.message,
    /controller "widgets": the cache did not sync within 30000 ms: widgets.example.com \(.*404.*\)/,
  );
  assert.ok(settledAt! - startedAt >= 30_000);
  assert.ok(settledAt! - startedAt < 35_000, `${settledAt! - startedAt} ms`);
  await manager[Symbol.asyncDispose]();
});

Deno.test("Manager with no controllers runs until its signal, then closes its recorders", async () => {
  await using c = await TestCluster.start();
  await using manager = new Manager(c.client(), { clock: c.clock });
  manager.eventRecorder("idle");
  let settled = false;
  const stop = new AbortController();
  const done = manager.run(stop.signal).finally(() => (settled = true));
  await c.settle();
  await c.clock.step(60_000);
  await c.settle();
  assert.equal(settled, false, "still running with nothing to do");
  assert.equal(manager.isLeader(), true, "no election: it leads");
  stop.abort();
  await c.until(() => settled, "run() settles");
  await done;
  assert.equal(manager.isLeader(), false);
});

Deno.test("Manager.add: a runnable starts after the caches synced, its signal aborts as shutdown starts, and run() waits for it", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "a", namespace: "default" },
  });
  // The first list fails: the runnable waits for the retry to sync.
  c.server.faults.failNext(1, {
    status: 500,
    match: (r) => new URL(r.url).pathname.endsWith("/configmaps"),
  });
  await using manager = new Manager(c.client(), { clock: c.clock });
  manager.controller("cm", ConfigMaps).complete(() => {});
  const log: string[] = [];
  manager.add({
    start: async (signal) => {
      log.push(`start synced=${manager.hasSynced()}`);
      await new Promise((resolve) => signal.addEventListener("abort", resolve));
      log.push(`abort at ${c.clock.now() - stoppedAt}`);
      await c.clock.sleep(2_000);
      log.push("end");
    },
  });
  let stoppedAt = 0;
  const run = c.run(manager);
  await c.until(() => log.length === 1, "the runnable started", {
    maxMs: 10_000,
  });
  assert.deepEqual(log, ["start synced=true"]);
  stoppedAt = c.clock.now();
  await run.stop();
  assert.deepEqual(log, ["start synced=true", "abort at 0", "end"]);
});

Deno.test("Manager.add: a runnable that rejects before the stop makes run() reject with its error", async () => {
  await using c = await TestCluster.start();
  await using manager = new Manager(c.client(), { clock: c.clock });
  manager.add({
    start: () => Promise.reject(new Error("port 9000 taken")),
  });
  const stop = new AbortController();
  let outcome: unknown;
  manager.run(stop.signal).then(() => (outcome = "resolved"), (e) => {
    outcome = e;
  });
  await c.until(() => outcome !== undefined, "run() rejects");
  assert.match(String(outcome), /port 9000 taken/);
});

Deno.test("Manager leader election: needLeaderElection runnables run only on the leader, others on every replica; isLeader() and the callbacks follow the Lease", async () => {
  await using c = await TestCluster.start();
  const replicas = ["a", "b"].map((id) => {
    const events: string[] = [];
    const manager = new Manager(c.client(), {
      clock: c.clock,
      leaderElection: {
        name: "lock",
        namespace: "default",
        identity: id,
        onStartedLeading: () => events.push("started"),
        onStoppedLeading: () => events.push("stopped"),
      },
    });
    const running = { leader: 0, every: 0 };
    const hold = (key: "leader" | "every") => async (signal: AbortSignal) => {
      running[key]++;
      await new Promise((r) => signal.addEventListener("abort", r));
      running[key]--;
    };
    manager.add({ start: hold("leader"), needLeaderElection: true });
    manager.add({ start: hold("every") });
    return { id, manager, events, running, run: c.run(manager) };
  });
  await c.until(
    () => replicas.some((r) => r.manager.isLeader()),
    "a leader",
    { maxMs: 10_000 },
  );
  await c.until(
    () => replicas.every((r) => r.running.every === 1),
    "the plain runnables everywhere",
  );
  const [leader, other] = replicas[0].manager.isLeader()
    ? replicas
    : [replicas[1], replicas[0]];
  await c.until(() => leader.running.leader === 1, "the leader's runnable");
  assert.equal(other.running.leader, 0);
  assert.equal(other.manager.isLeader(), false);
  assert.deepEqual(leader.events, ["started"]);
  assert.deepEqual(other.events, []);
  await leader.run.stop();
  assert.deepEqual(leader.events, ["started", "stopped"]);
  assert.equal(leader.manager.isLeader(), false);
  await c.until(() => other.running.leader === 1, "the takeover", {
    maxMs: 30_000,
  });
  assert.equal(other.manager.isLeader(), true);
  assert.deepEqual(other.events, ["started"]);
  await other.run.stop();
  for (const r of replicas) await r.manager[Symbol.asyncDispose]();
});

Deno.test("Manager.run rejects naming a builder never completed; add() checks its argument", async () => {
  await using c = await TestCluster.start();
  await using manager = new Manager(c.client(), { clock: c.clock });
  manager.controller("done", ConfigMaps).complete(() => {});
  manager.controller("forgotten", Secrets).owns(ConfigMaps);
  await assert.rejects(
    manager.run(new AbortController().signal),
    /Manager.run: controller "forgotten" never completed: finish each with .complete\(reconcile\)/,
  );
  assert.throws(
    () => manager.controller("forgotten", ConfigMaps),
    /a controller named "forgotten" exists/,
  );
  assert.throws(
    () =>
      manager.add(
        { start: () => Promise.resolve(), needLeaderElection: 1 } as never,
      ),
    /Manager.add: runnable.needLeaderElection must be a boolean, got 1/,
  );
});
