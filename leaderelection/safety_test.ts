// Safety of leader election on a real FakeApiServer and a FakeClock: never
// two leaders, fast handover on release, a cut-off leader steps down within
// its renew deadline and nobody takes over before the lease expires, 409s
// are lost races. Every step of the clock checks "at most one leader"
// (Election.step), and each new leader checks it when it starts.

import assert from "node:assert/strict";
import { Election, microTimeMs } from "./_test_util.ts";
import { Leases } from "../api/resources.ts";

const RETRY = 2_000;
const RENEW_DEADLINE = 10_000;
const LEASE_DURATION = 15_000;

Deno.test("LeaderElector: of 3 candidates exactly one leads, and never two at once through handovers and injected failures", async () => {
  await using e = await Election.start();
  const [a, b, c] = ["a", "b", "c"].map((id) =>
    e.add(id, { releaseOnCancel: true })
  );
  await e.stepUntil(() => e.leaders().length === 1, "leader");
  await e.step(30_000);
  assert.equal(e.leaders().length, 1, "the leader keeps leading");
  const first = e.leaders()[0];
  assert.deepEqual(
    [a, b, c].filter((x) => x.events.includes("started")).map((x) => x.id),
    [first.id],
    "nobody else ever started",
  );

  // Chaos: random 500/409/503 answers and latency spikes for 200 s of
  // fake time, with leaders stopped and restarted; check at every step.
  // Requests held by latency wait on the fake clock: settle on "nothing
  // moves" rather than "nothing in flight".
  e.stalled = true;
  let seed = 42;
  const random = () =>
    (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 20; round++) {
    const r = random();
    if (r < 0.3) {
      e.server.faults.failNext(1 + Math.floor(random() * 4), {
        status: [500, 409, 503][Math.floor(random() * 3)],
        match: (req) => req.url.includes("/leases"),
      });
    } else if (r < 0.45) {
      const ms = Math.floor(random() * 4) * 1_000;
      e.server.faults.latency(ms);
    } else if (r < 0.6) {
      const leader = e.leaders()[0];
      if (leader) {
        leader.stop.abort();
        await e.step(100);
        await leader.done;
        leader.run();
      }
    } else e.server.faults.clear();
    await e.step(10_000, undefined, 250);
  }
  e.server.faults.clear();
  await e.stepUntil(() => e.leaders().length === 1, "leader after the chaos");
  assert.equal(e.maxLeaders, 1);
  assert.ok(e.lease()!.spec!.leaseTransitions! >= 1);
});

Deno.test("LeaderElector with releaseOnCancel: a stopped leader is replaced within 2.2 × retryPeriod", async () => {
  await using e = await Election.start();
  for (const id of ["a", "b", "c"]) e.add(id, { releaseOnCancel: true });
  await e.stepUntil(() => e.leaders().length === 1, "leader");
  const waits: number[] = [];
  for (let handover = 0; handover < 6; handover++) {
    const leader = e.leaders()[0];
    const stoppedAt = e.clock.now();
    leader.stop.abort();
    await e.quiesce();
    await leader.done;
    assert.equal(e.lease()!.spec!.holderIdentity, "", "released");
    assert.equal(e.lease()!.spec!.leaseDurationSeconds, 1);
    await e.stepUntil(() => e.leaders().length === 1, "new leader", 10_000);
    const next = e.leaders()[0];
    assert.notEqual(next, leader);
    // The new holder's acquireTime is when its winning attempt began.
    const tookOver = microTimeMs(e.lease()!.spec!.acquireTime) - stoppedAt;
    waits.push(tookOver);
    assert.ok(
      tookOver <= 2.2 * RETRY,
      `taken over ${tookOver} ms after the release`,
    );
    leader.run(); // back as a candidate
    await e.step(1_000);
  }
  assert.equal(e.maxLeaders, 1);
});

Deno.test("LeaderElector: a leader whose requests fail stops leading within renewDeadline, and nobody acquires before the lease expires", async () => {
  await using e = await Election.start();
  const a = await e.addLeader("a");
  const b = e.add("b");
  const c = e.add("c");
  await e.step(5_000);
  assert.equal(b.elector.getLeader(), "a");

  // Cut a off: every request of a fails from now on.
  e.server.faults.failNext(1_000_000, {
    status: 503,
    match: (req) => req.headers.get("user-agent") === "candidate-a",
  });
  const lastRenew = microTimeMs(e.lease()!.spec!.renewTime);
  let stoppedAt: number | undefined;
  let takenAt: number | undefined;
  await e.step(30_000, () => {
    const now = e.clock.now();
    if (a.leadSignal!.aborted) stoppedAt ??= now;
    if (now >= lastRenew + RENEW_DEADLINE) {
      assert.equal(a.elector.isLeader(), false, `a still leads at ${now}`);
      assert.ok(a.leadSignal!.aborted, "a's work was not told");
    }
    if (b.elector.isLeader() || c.elector.isLeader()) takenAt ??= now;
  });
  assert.ok(stoppedAt! <= lastRenew + RENEW_DEADLINE);
  assert.ok(
    takenAt! > lastRenew + LEASE_DURATION,
    `taken at +${takenAt! - lastRenew} ms, before the lease expired`,
  );
  assert.deepEqual(a.events.filter((x) => x === "stopped"), ["stopped"]);
  assert.ok(a.errors.length >= 1, "the 503 was reported");
  assert.equal(e.maxLeaders, 1);
});

Deno.test("LeaderElector: when the server stalls, the leader stops within renewDeadline and nobody leads until it answers", async () => {
  await using e = await Election.start();
  const a = await e.addLeader("a");
  const b = e.add("b");
  await e.step(3_000);
  const lastRenew = microTimeMs(e.lease()!.spec!.renewTime);
  e.server.faults.latency(3_600_000); // requests hang (on the fake clock)
  e.stalled = true;
  await e.step(20_000, () => {
    if (e.clock.now() >= lastRenew + RENEW_DEADLINE) {
      assert.equal(a.elector.isLeader(), false);
      assert.ok(a.leadSignal!.aborted);
    }
    assert.equal(b.elector.isLeader(), false);
  });
  assert.equal(a.events.at(-1), "stopped");
  e.server.faults.latency(0); // requests already held still wait out their deadline
  await a.done;
  a.run();
  await e.stepUntil(() => e.leaders().length === 1, "a leader again");
  assert.equal(e.maxLeaders, 1);
});

Deno.test("LeaderElector: a 409 on renew is a lost race, handled without a crash", async (t) => {
  await t.step(
    "a spurious 409: the leader reads the lease and renews",
    async () => {
      await using e = await Election.start();
      const a = await e.addLeader("a");
      e.server.faults.failNext(1, {
        status: 409,
        match: (req) => req.method === "PUT",
      });
      const before = e.server.requests.length;
      await e.step(RETRY);
      const renewals = e.server.requests.slice(before).map((r) => r.method);
      assert.deepEqual(
        renewals,
        ["PUT", "GET", "PUT"],
        "fast path, read, write",
      );
      assert.equal(a.elector.isLeader(), true);
      assert.deepEqual(a.events, ["leader a", "started"]);
      assert.deepEqual(a.errors, [], "a lost race is not an error");
    },
  );
  await t.step(
    "another holder wrote the lease: the leader steps down at once",
    async () => {
      await using e = await Election.start();
      const a = await e.addLeader("a");
      const lease = e.lease()!;
      e.server.update(Leases, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: "intruder" },
      });
      await e.step(RETRY);
      assert.equal(a.elector.isLeader(), false);
      assert.ok(
        a.leadSignal!.aborted,
        "stepped down before the renew deadline",
      );
      assert.equal(a.elector.getLeader(), "intruder");
      assert.deepEqual(a.events, [
        "leader a",
        "started",
        "leader intruder",
        "stopped",
      ]);
    },
  );
});
