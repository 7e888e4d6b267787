/**
 * Shard membership: three members on one FakeApiServer, their clock a
 * FakeClock. Checked after every step: no hash is owned by two members.
 * Through a member cut off from the server (its Lease expires), one added,
 * and one stopped gracefully (released at once).
 */
import assert from "node:assert/strict";
import {
  type HashRange,
  selectorOf,
  ShardMembership,
  shareOf,
} from "./sharding.ts";
import { KubeClient } from "../client/rest.ts";
import { KubeConfig } from "../client/config.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { ioTurn } from "../testing/turns.ts";
import { Leases } from "../api/resources.ts";

const START = Date.parse("2026-01-01T00:00:00Z");

/** A client that can be cut off, as a partitioned or frozen replica's. */
function cuttable(client: KubeClient) {
  const state = { cut: false };
  const guard =
    <A extends unknown[], R>(f: (...a: A) => Promise<R>) => (...a: A) =>
      state.cut ? Promise.reject(new Error("connection refused")) : f(...a);
  return {
    state,
    client: {
      get: guard(client.get.bind(client)),
      list: guard(client.list.bind(client)),
      create: guard(client.create.bind(client)),
      update: guard(client.update.bind(client)),
    } as unknown as KubeClient,
  };
}

function overlap(a: readonly HashRange[], b: readonly HashRange[]): boolean {
  return a.some((x) => b.some((y) => x.start < y.end && y.start < x.end));
}

class World {
  members = new Map<
    string,
    {
      m: ShardMembership;
      stop: AbortController;
      run: Promise<void>;
      cut: { cut: boolean };
    }
  >();
  constructor(readonly client: KubeClient, readonly clock: FakeClock) {}

  add(identity: string): ShardMembership {
    const { client, state } = cuttable(this.client);
    const m = new ShardMembership(client, {
      name: "ctl",
      namespace: "default",
      identity,
      clock: this.clock,
    });
    const stop = new AbortController();
    this.members.set(identity, {
      m,
      stop,
      run: m.run(stop.signal),
      cut: state,
    });
    return m;
  }

  /** No two members own a common hash. */
  check(): void {
    const all = [...this.members.values()].map((e) => e.m);
    for (let i = 0; i < all.length; i++) {
      for (let j = i + 1; j < all.length; j++) {
        assert.ok(
          !overlap(all[i].owned(), all[j].owned()),
          `${all[i].identity} and ${all[j].identity} own a common range`,
        );
      }
    }
  }

  /** Step the clock 250 ms at a time, letting loopback I/O run, until `cond`; checks after each step. */
  async until(
    cond: () => boolean,
    what: string,
    maxMs = 120_000,
  ): Promise<number> {
    const from = this.clock.now();
    const deadline = performance.now() + 60_000;
    while (!cond()) {
      assert.ok(
        this.clock.now() - from <= maxMs,
        `no ${what} within ${maxMs} ms of clock`,
      );
      assert.ok(
        performance.now() < deadline,
        `no ${what} within 60 s of wall time`,
      );
      await this.clock.step(250);
      for (let i = 0; i < 30; i++) {
        await ioTurn();
        this.check();
      }
      await new Promise((r) => setTimeout(r, 1));
      this.check();
    }
    return this.clock.now() - from;
  }

  settled(ids: string[]): boolean {
    return ids.every((id, i) => {
      const m = this.members.get(id)!.m;
      return !m.moving() && m.owned().length === 1 &&
        m.owned()[0].start === shareOf(i, ids.length).start &&
        m.owned()[0].end === shareOf(i, ids.length).end;
    });
  }

  async stopAll(): Promise<void> {
    for (const e of this.members.values()) e.stop.abort();
    await Promise.all([...this.members.values()].map((e) => e.run));
  }
}

Deno.test("three members split the space, then survive a cut-off member, a new one and a graceful stop, never owning a hash twice", async () => {
  await using server = await FakeApiServer.start();
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  const clock = new FakeClock(START);
  const w = new World(client, clock);
  try {
    for (const id of ["a", "b", "c"]) w.add(id);
    await w.until(() => w.settled(["a", "b", "c"]), "three thirds");
    const leases = server.list(Leases, "default").map((l) => l.metadata.name)
      .sort();
    assert.deepEqual(leases, ["ctl-a", "ctl-b", "ctl-c"]);

    // b is cut off: it stops owning at its renew deadline; a and c take
    // its third only once its Lease expired on their clocks.
    w.members.get("b")!.cut.cut = true;
    const cutAt = clock.now();
    let bStoppedAt = 0;
    const takeover = await w.until(() => {
      if (bStoppedAt === 0 && w.members.get("b")!.m.owned().length === 0) {
        bStoppedAt = clock.now();
      }
      return w.settled(["a", "c"]);
    }, "the takeover of b's range");
    assert.ok(
      bStoppedAt - cutAt <= 10_000 + 500,
      `b owned for ${bStoppedAt - cutAt} ms after the cut`,
    );
    assert.ok(
      takeover >= 15_000,
      `taken over after ${takeover} ms, before b's Lease expired`,
    );
    assert.ok(
      takeover <= 15_000 + 4 * 2_000 + 1_000,
      `takeover took ${takeover} ms`,
    );

    // d joins.
    w.add("d");
    await w.until(() => w.settled(["a", "c", "d"]), "d's third");

    // c stops gracefully: it releases, the others take over without waiting for expiry.
    const c = w.members.get("c")!;
    c.stop.abort();
    const graceful = await w.until(
      () => w.settled(["a", "d"]),
      "the takeover of c's range",
    );
    await c.run;
    assert.ok(graceful < 15_000, `graceful takeover took ${graceful} ms`);
    assert.equal(
      server.list(Leases, "default").find((l) => l.metadata.name === "ctl-c")
        ?.spec?.holderIdentity ?? "",
      "",
    );
    // The selector of a's half.
    assert.equal(
      selectorOf(w.members.get("a")!.m.owned()),
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
    );
    assert.ok(w.members.get("a")!.m.reshards() >= 3);
  } finally {
    await w.stopAll();
  }
});
