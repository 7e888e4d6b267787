// Run-time failures a review found: a fatal informer error after the sync,
// a sharded replica cut off mid-reconcile, and shutdowns that must not hang.

import assert from "node:assert/strict";
import { ConfigMaps, Leases } from "../api/resources.ts";
import type { Lease } from "../api/types.ts";
import { MUTATION_DETECTOR_ENV } from "../cache/mutation_detector.ts";
import { Manager } from "./manager.ts";
import { TestCluster } from "./_test_util.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { ioTurn } from "../testing/turns.ts";
import { KubeClient } from "../client/rest.ts";
import { KubeConfig } from "../client/config.ts";

Deno.test("Manager: an informer that stops on a fatal error after the caches synced rejects run() with that error", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "a", namespace: "default" },
    data: { k: "v" },
  });
  const before = Deno.env.get(MUTATION_DETECTOR_ENV);
  Deno.env.set(MUTATION_DETECTOR_ENV, "true");
  try {
    await using manager = new Manager(c.client(), { clock: c.clock });
    let reconciled = false;
    manager.controller("cm", ConfigMaps).complete(() => {
      // A bug of the user's: the cached object is changed in place.
      const cm = manager.factory.lister(ConfigMaps).namespaced("default")
        .get("a") as unknown as { data: Record<string, string> };
      cm.data.k = "changed";
      reconciled = true;
    });
    const ctrl = new AbortController();
    let settled: { error?: unknown } | undefined;
    const done = manager.run(ctrl.signal).then(
      () => (settled = {}),
      (error) => (settled = { error }),
    );
    await c.until(() => reconciled, "the reconcile");
    await c.until(() => settled !== undefined, "run() to settle", {
      maxMs: 60_000,
    }).catch(() => {});
    const result = settled;
    ctrl.abort();
    await c.until(() => settled !== undefined, "run() to settle after abort", {
      maxMs: 120_000,
    });
    await done;
    assert.ok(result?.error, "run() went on after its cache stopped for good");
    assert.match(String(result.error), /mutat/i);
  } finally {
    if (before === undefined) Deno.env.delete(MUTATION_DETECTOR_ENV);
    else Deno.env.set(MUTATION_DETECTOR_ENV, before);
  }
});

const START = Date.parse("2026-01-01T00:00:00Z");

Deno.test("Manager sharding: a replica cut off from the server aborts the ctx.signal of its reconciles of the keys it gives up, before another replica takes them", async () => {
  await using server = await FakeApiServer.start();
  const cm = server.create(ConfigMaps, {
    metadata: { name: "x", namespace: "default" },
  });
  const clock = new FakeClock(START);
  const clients: KubeClient[] = [];
  const cut = new Map<string, boolean>();
  const stop = new AbortController();
  const managers = new Map<string, Manager>();
  const runs: Promise<unknown>[] = [];
  /** The replica reconciling x now; overlaps found. */
  let active: string | undefined;
  const overlaps: string[] = [];
  const reconciledBy: string[] = [];
  for (const id of ["a", "b"]) {
    const real = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
    clients.push(real);
    const guarded = new Set([
      "get",
      "list",
      "watch",
      "create",
      "update",
      "patch",
      "delete",
    ]);
    const client = new Proxy(real, {
      get(t, p) {
        const v = Reflect.get(t, p, t);
        if (typeof v !== "function") return v;
        if (!guarded.has(p as string)) return v.bind(t);
        return (...a: unknown[]) =>
          cut.get(id)
            ? Promise.reject(new Error("connection refused"))
            : v.apply(t, a);
      },
    });
    const mgr = new Manager(client, {
      clock,
      sharding: { name: "cms", namespace: "kube-system", identity: id },
    });
    mgr.controller("cm", ConfigMaps).complete(async (_req, ctx) => {
      if (active !== undefined) overlaps.push(`${id} while ${active}`);
      active = id;
      reconciledBy.push(id);
      try {
        // A long reconcile that stops when told to.
        await new Promise<void>((resolve) => {
          if (ctx.signal.aborted) return resolve();
          ctx.signal.addEventListener("abort", () => resolve(), {
            once: true,
          });
        });
      } finally {
        if (active === id) active = undefined;
      }
    });
    managers.set(id, mgr);
    const run = mgr.run(stop.signal);
    run.catch(() => {});
    runs.push(run.catch(() => {}));
  }
  const step = async (ms: number) => {
    await clock.step(ms);
    for (let i = 0; i < 20; i++) await ioTurn();
    await new Promise((r) => setTimeout(r, 2));
  };
  const deadline = performance.now() + 60_000;
  try {
    while (reconciledBy.length === 0) {
      assert.ok(performance.now() < deadline, "x never reconciled");
      await step(250);
    }
    const first = reconciledBy[0];
    const other = first === "a" ? "b" : "a";
    assert.ok(managers.get(first)!.shards!.owns(cm.metadata.uid!));
    // The owner loses the server: its Lease expires, the other takes x.
    cut.set(first, true);
    while (!reconciledBy.includes(other)) {
      assert.ok(
        performance.now() < deadline,
        `${other} never took x over`,
      );
      await step(250);
    }
    assert.deepEqual(overlaps, []);
  } finally {
    stop.abort();
    cut.clear();
    while (true) {
      let settled = false;
      const all = Promise.all(runs).then(() => (settled = true));
      await step(1000);
      if (settled) break;
      assert.ok(performance.now() < deadline + 60_000, "run() hangs");
      void all;
    }
    for (const c of clients) await c.close();
    for (const m of managers.values()) await m[Symbol.asyncDispose]();
  }
});

Deno.test("Manager sharding: a reconcile that never settles does not hold run() after the abort (the shard release gives up on it as the drain does)", async () => {
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, { metadata: { name: "x", namespace: "default" } });
  const clock = new FakeClock(START);
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  await using mgr = new Manager(client, {
    clock,
    gracefulShutdownTimeout: 1_000,
    sharding: { name: "cms", namespace: "kube-system", identity: "a" },
  });
  let started = false;
  mgr.controller("cm", ConfigMaps).complete(() => {
    started = true;
    return new Promise<void>(() => {}); // ignores every signal
  });
  const stop = new AbortController();
  let settled: { error?: unknown } | undefined;
  const done = mgr.run(stop.signal).then(
    () => (settled = {}),
    (error) => (settled = { error }),
  );
  const step = async (ms: number) => {
    await clock.step(ms);
    for (let i = 0; i < 20; i++) await ioTurn();
    await new Promise((r) => setTimeout(r, 2));
  };
  const deadline = performance.now() + 60_000;
  while (!started) {
    assert.ok(performance.now() < deadline, "x never reconciled");
    await step(250);
  }
  stop.abort();
  for (let i = 0; i < 400 && settled === undefined; i++) await step(250);
  assert.ok(settled, "run() still pending 100 s of clock after the abort");
  assert.match(String(settled.error), /did not end/);
  await done;
});

Deno.test("Manager: a runnable that ignores its signal does not hold run() (with leader election); run() rejects saying so and the Lease is released", async () => {
  await using c = await TestCluster.start();
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    gracefulShutdownTimeout: 2_000,
    leaderElection: { name: "lock", namespace: "default", identity: "a" },
  });
  let started = 0;
  for (const needLeaderElection of [true, false]) {
    manager.add({
      needLeaderElection,
      start: () => {
        started++;
        return new Promise<void>(() => {});
      },
    });
  }
  const run = c.run(manager);
  await c.until(() => started === 2, "both runnables to start");
  await assert.rejects(run.stop(), /2 runnable\(s\) did not end/);
  const lease = c.server.get(Leases, "default", "lock") as Lease | undefined;
  assert.equal(lease?.spec?.holderIdentity ?? "", "");
});

Deno.test("Manager sharding: ctx.cache(forType) reads this replica's sharded cache, not a second cache of every object", async () => {
  await using server = await FakeApiServer.start();
  for (let i = 0; i < 40; i++) {
    server.create(ConfigMaps, {
      metadata: { name: `cm-${i}`, namespace: "default" },
    });
  }
  const clock = new FakeClock(START);
  const stop = new AbortController();
  const clients: KubeClient[] = [];
  const managers: Manager[] = [];
  const runs: Promise<unknown>[] = [];
  /** Per replica: what its reconciles read from ctx.cache. */
  const reads: { mgr: Manager; found: boolean; listed: string[] }[] = [];
  for (const id of ["a", "b"]) {
    const client = new KubeClient(
      KubeConfig.fromOptions({ server: server.url }),
    );
    clients.push(client);
    const mgr = new Manager(client, {
      clock,
      sharding: { name: "cms", namespace: "kube-system", identity: id },
    });
    mgr.controller("cm", ConfigMaps).complete(async (req, ctx) => {
      const cms = await ctx.cache(ConfigMaps);
      reads.push({
        mgr,
        found: cms.namespaced(req.namespace!).get(req.name) !== undefined,
        listed: cms.list().map((o) => o.metadata.uid!),
      });
    });
    managers.push(mgr);
    runs.push(mgr.run(stop.signal).catch(() => {}));
  }
  const step = async (ms: number) => {
    await clock.step(ms);
    for (let i = 0; i < 20; i++) await ioTurn();
    await new Promise((r) => setTimeout(r, 2));
  };
  const deadline = performance.now() + 60_000;
  try {
    while (
      managers.some((m) => m.shards!.moving() || m.shards!.members().length < 2)
    ) {
      assert.ok(performance.now() < deadline, "the shards never settled");
      await step(250);
    }
    reads.length = 0;
    // One more event per object: each is read on its owner's replica.
    for (let i = 0; i < 40; i++) {
      const cm = server.get(ConfigMaps, "default", `cm-${i}`)!;
      server.update(ConfigMaps, { ...cm, data: { v: "2" } });
    }
    while (reads.length < 40) {
      assert.ok(performance.now() < deadline, `only ${reads.length} reads`);
      await step(250);
    }
    for (const r of reads) {
      assert.ok(r.found, "the reconciled object is in the cache");
      const foreign = r.listed.filter((uid) => !r.mgr.shards!.owns(uid));
      assert.deepEqual(foreign, [], "objects of the other replica's shard");
    }
  } finally {
    stop.abort();
    for (let i = 0; i < 400; i++) {
      let settled = false;
      const all = Promise.all(runs).then(() => (settled = true));
      await step(500);
      if (settled) break;
      void all;
    }
    await Promise.all(runs);
    for (const c of clients) await c.close();
    for (const m of managers) await m[Symbol.asyncDispose]();
  }
});
