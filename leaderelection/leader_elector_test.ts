import assert from "node:assert/strict";
import { Leases } from "../api/resources.ts";
import { Election, microTimeMs } from "./_test_util.ts";
import { LeaderElector, type LeaderElectorConfig } from "./leader_elector.ts";
import { LeaseLock } from "./lease_lock.ts";
import { KubeClient, type WriteOptions } from "../client/rest.ts";
import { KubeConfig } from "../client/config.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { ioTurn } from "../testing/turns.ts";
import { isConflict } from "../api/errors.ts";
import type { KubeObject } from "../api/object.ts";
import type { ResourceType } from "../api/resources.ts";
import { TrackedClient } from "../testing/tracked_client.ts";

const START = Date.UTC(2026, 0, 1);

Deno.test("LeaderElector writes the lease as client-go: acquire, renew every retryPeriod, take over", async () => {
  await using e = await Election.start(START);
  const a = await e.addLeader("a");
  let spec = e.lease()!.spec!;
  assert.deepEqual(spec, {
    holderIdentity: "a",
    leaseDurationSeconds: 15,
    acquireTime: "2026-01-01T00:00:00.000000Z",
    renewTime: "2026-01-01T00:00:00.000000Z",
    leaseTransitions: 0,
  });
  const before = e.server.requests.length;
  await e.step(6_000);
  const renews = e.server.requests.slice(before);
  assert.deepEqual(
    renews.map((r) => `${r.method} ${r.at - START}`),
    ["PUT 2000", "PUT 4000", "PUT 6000"],
    "one optimistic update per retryPeriod, no read",
  );
  spec = e.lease()!.spec!;
  assert.equal(spec.renewTime, "2026-01-01T00:00:06.000000Z");
  assert.equal(spec.acquireTime, "2026-01-01T00:00:00.000000Z", "kept");

  // a dies without releasing; b takes over once the lease expired.
  a.stop.abort();
  await e.quiesce();
  await a.done;
  const b = e.add("b");
  await e.stepUntil(() => b.elector.isLeader(), "b leading");
  spec = e.lease()!.spec!;
  assert.equal(spec.holderIdentity, "b");
  assert.equal(spec.leaseTransitions, 1);
  assert.equal(spec.acquireTime, spec.renewTime);
});

Deno.test("LeaderElector measures expiry on its own observation clock, not the lease's renewTime", async () => {
  await using e = await Election.start(START);
  // A holder whose clock is far behind: its renewTime looks an hour old.
  e.createLease("skewed", "2025-12-31T23:00:00.000000Z", 3);
  const b = e.add("b");
  let acquiredAfter = -1;
  await e.step(30_000, () => {
    if (b.elector.isLeader() && acquiredAfter < 0) {
      acquiredAfter = e.clock.now() - START;
    }
  });
  assert.ok(
    acquiredAfter > 15_000,
    `taken ${acquiredAfter} ms after first seeing it, before 15 s without change`,
  );
  assert.equal(e.lease()!.spec!.leaseTransitions, 4);
  assert.equal(b.events[0], "leader skewed");
});

Deno.test("LeaderElector retries acquisition every retryPeriod × [1, 2.2) (client-go JitterFactor 1.2)", async () => {
  await using e = await Election.start(START);
  e.createLease("other", "2026-01-01T00:00:00.000000Z", 0);
  const b = e.add("b");
  // "other" keeps renewing, so b only reads. Requests are logged at the
  // end of the 100 ms step they happen in, so gaps are exact to ±100 ms.
  const tick = 100;
  await e.step(40_000, () => {
    const lease = e.lease()!;
    if (e.clock.now() % 2_000 === 0) {
      e.server.update(Leases, {
        ...lease,
        spec: {
          ...lease.spec,
          renewTime: new Date(e.clock.now()).toISOString().replace("Z", "000Z"),
        },
      });
    }
  }, tick);
  assert.equal(b.elector.isLeader(), false);
  const reads = e.server.requests.filter((r) => r.method === "GET").map((r) =>
    r.at
  );
  assert.ok(reads.length >= 40_000 / 4_400);
  const gaps = reads.slice(1).map((t, i) => t - reads[i]);
  for (const gap of gaps) {
    assert.ok(
      gap >= 2_000 - tick && gap < 4_400 + tick,
      `retry after ${gap} ms`,
    );
  }
  assert.ok(new Set(gaps).size > 1, "jittered, not fixed");
});

Deno.test('LeaderElector with releaseOnCancel waits for the leader\'s work, then releases as client-go (holder "", 1 s)', async () => {
  await using e = await Election.start(START);
  const a = e.add("a", { releaseOnCancel: true }, true, async (signal) => {
    await new Promise((resolve) => signal.addEventListener("abort", resolve));
    await e.clock.sleep(1_000); // finishing the work in flight
  });
  await e.stepUntil(() => a.elector.isLeader(), "a leading");
  const stoppedAt = e.clock.now();
  a.stop.abort();
  await e.quiesce(); // the work sees the abort before the clock moves
  await e.step(900);
  assert.equal(e.lease()!.spec!.holderIdentity, "a", "not while the work runs");
  assert.equal(a.elector.isLeader(), false, "but no longer leading");
  await e.step(200);
  await a.done;
  const spec = e.lease()!.spec!;
  assert.equal(spec.holderIdentity, "");
  assert.equal(spec.leaseDurationSeconds, 1);
  assert.equal(spec.leaseTransitions, 0);
  assert.equal(microTimeMs(spec.renewTime), stoppedAt + 1_000);
  // The release is not a new leader: client-go reports no empty holder.
  assert.deepEqual(a.events, ["leader a", "started", "stopped"]);
});

Deno.test('LeaderElector never calls onNewLeader with "": a waiting candidate sees the leader, then itself', async () => {
  await using e = await Election.start(START);
  const a = e.add("a", { releaseOnCancel: true });
  await e.stepUntil(() => a.elector.isLeader(), "a leading");
  const b = e.add("b");
  await e.stepUntil(() => b.events.includes("leader a"), "b sees a");
  a.stop.abort();
  await e.quiesce();
  await a.done;
  assert.equal(e.lease()!.spec!.holderIdentity, "", "released");
  await e.stepUntil(() => b.elector.isLeader(), "b leading");
  assert.deepEqual(a.events, ["leader a", "started", "stopped"]);
  assert.deepEqual(b.events, ["leader a", "leader b", "started"]);
});

Deno.test("LeaderElector: a failing onStartedLeading steps down, releases, and run() rejects with its error", async () => {
  await using e = await Election.start(START);
  const a = e.add("a", { releaseOnCancel: true }, true, async (signal) => {
    await e.clock.sleep(3_000, signal);
    throw new Error("controller crashed");
  });
  await e.stepUntil(() => a.elector.isLeader(), "a leading");
  await e.step(3_000);
  await assert.rejects(a.done, /controller crashed/);
  assert.equal(a.elector.isLeader(), false);
  assert.equal(e.lease()!.spec!.holderIdentity, "");
  assert.equal(a.events.at(-1), "stopped");
});

Deno.test("LeaderElector.run() calls onStoppedLeading even when it never led (as client-go), and a second run() while running is the same run", async () => {
  await using e = await Election.start(START);
  await e.addLeader("a");
  const b = e.add("b");
  assert.equal(b.elector.run(b.stop.signal), b.done);
  await e.step(2_000);
  b.stop.abort();
  await e.quiesce();
  await b.done;
  assert.deepEqual(b.events, ["leader a", "stopped"]);
  assert.equal(b.elector.getLeader(), "a");
});

Deno.test("LeaderElector rejects bad timing and missing callbacks (client-go's checks)", () => {
  const never = () => Promise.reject(new Error("no request expected"));
  const lock = new LeaseLock({
    client: {
      get: never,
      create: never,
      update: never,
    } as unknown as KubeClient,
    namespace: "ns",
    name: "n",
    identity: "i",
  });
  const callbacks = { onStartedLeading() {}, onStoppedLeading() {} };
  const make = (c: Partial<LeaderElectorConfig>) =>
    new LeaderElector({ lock, callbacks, ...c });
  assert.throws(
    () => make({ leaseDuration: 10_000 }),
    /leaseDuration \(10000 ms\) must be greater than renewDeadline \(10000 ms\)/,
  );
  assert.throws(
    () => make({ retryPeriod: 9_000 }),
    /renewDeadline \(10000 ms\) must be greater than retryPeriod × 1.2 \(10800 ms\)/,
  );
  assert.throws(
    () => make({ leaseDuration: 15_500 }),
    /leaseDuration must be whole seconds .* 15500 ms/,
  );
  assert.throws(() => make({ retryPeriod: 0 }), /retryPeriod must be .* got 0/);
  assert.throws(() => make({ renewDeadline: NaN }), RangeError);
  assert.throws(
    () => make({ callbacks: { onStartedLeading() {} } as never }),
    /callbacks.onStoppedLeading must be a function, got undefined/,
  );
  assert.equal(make({}).isLeader(), false);
  assert.equal(make({}).getLeader(), "");
});

/**
 * A client whose next Lease update reaches the server but whose answer is
 * lost: the write is stored (its resourceVersion moves), then the caller
 * sees `onLost()`'s error, as when a leader is cancelled mid-renew.
 */
class LosingClient extends TrackedClient {
  onLost: (() => Error) | undefined;
  override async update<T extends KubeObject>(
    type: ResourceType<T>,
    obj: T,
    opts?: WriteOptions,
  ): Promise<T> {
    const lost = this.onLost;
    // The renew is sent on its own, not aborted by the caller's signal.
    const stored = await super.update(type, obj, lost ? {} : opts);
    if (lost === undefined) return stored;
    this.onLost = undefined;
    throw lost();
  }
}

Deno.test("LeaderElector release after a renew whose answer was lost re-reads the Lease and releases it (no 409, no wait for expiry)", async () => {
  await using e = await Election.start(START);
  e.Client = LosingClient;
  const a = e.add("a", { releaseOnCancel: true });
  await e.stepUntil(() => a.elector.isLeader(), "a leading");
  const rvBefore = e.lease()!.metadata.resourceVersion;
  // The next renew lands, then a is cancelled before its answer arrives.
  (a.client as LosingClient).onLost = () => {
    a.stop.abort();
    return new Error("the answer was lost: cancelled");
  };
  await e.step(2_000);
  await a.done;
  const lease = e.lease()!;
  assert.notEqual(lease.metadata.resourceVersion, rvBefore);
  assert.equal(lease.spec!.holderIdentity, "", "released at once");
  assert.equal(lease.spec!.leaseDurationSeconds, 1);
  assert.deepEqual(a.errors.filter((err) => isConflict(err)), []);
  // So b takes over within one jittered retry, not after ~15 s.
  const b = e.add("b");
  const took = await e.stepUntil(() => b.elector.isLeader(), "b leading");
  assert.ok(took <= 4_400, `b took over after ${took} ms`);
});

Deno.test("LeaderElector release never clears a Lease another holder took meanwhile", async () => {
  await using e = await Election.start(START);
  const a = e.add("a", { releaseOnCancel: true });
  await e.stepUntil(() => a.elector.isLeader(), "a leading");
  // b writes the Lease while a still believes it leads (e.g. after a long
  // pause of a); a's release then reads b as the holder.
  const lease = e.lease()!;
  e.server.update(Leases, {
    ...lease,
    spec: { ...lease.spec, holderIdentity: "b", leaseTransitions: 1 },
  });
  a.stop.abort();
  await e.quiesce();
  await e.step(1_000);
  await a.done;
  assert.equal(e.lease()!.spec!.holderIdentity, "b");
  assert.ok(a.events.includes("leader b"), `${a.events}`);
});

Deno.test("LeaderElector's default error report is one line: a refused connection is KubeClient's 'Cannot reach the API server' message, no stack", async () => {
  // A port that refuses: a server's, closed.
  const gone = await FakeApiServer.start();
  const url = gone.url;
  await gone.close();
  await using client = new KubeClient(KubeConfig.fromOptions({ server: url }));
  const lock = new LeaseLock({
    client,
    namespace: "default",
    name: "lock",
    identity: "a",
  });
  const lines: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args);
  const stop = new AbortController();
  try {
    const elector = new LeaderElector({
      lock,
      name: "labeller",
      clock: new FakeClock(START),
      callbacks: { onStartedLeading() {}, onStoppedLeading() {} },
    });
    const done = elector.run(stop.signal);
    // The refused connect is real I/O: wait for it by turns, not by time.
    for (let i = 0; lines.length === 0 && i < 10_000; i++) await ioTurn();
    stop.abort();
    await done;
  } finally {
    console.error = original;
  }
  assert.deepEqual(lines[0], [
    `leaderelection labeller: Cannot reach the API server at ${url}: connection refused`,
  ]);
});
