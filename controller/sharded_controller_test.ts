/**
 * The proof of sharded controllers: three replicas on one FakeApiServer
 * (with and without server-side sharding) and 3 000 ConfigMaps. Each
 * replica: a ShardMembership, an informer over `shardedListWatch`, a work
 * queue, and workers that reconcile a key only while its object's uid is
 * owned. Checked throughout: no key is reconciled by two replicas at once,
 * no two replicas own a common hash; checked after each change (a replica
 * cut off until its Lease expires, one added, one stopped gracefully):
 * every key is reconciled by its owner.
 */
import assert from "node:assert/strict";
import { type HashRange, ShardMembership, shareOf } from "./sharding.ts";
import { shardedListWatch } from "./sharded_source.ts";
import { KubeClient } from "../client/rest.ts";
import { KubeConfig } from "../client/config.ts";
import { listWatch } from "../api/resource_client.ts";
import { ConfigMaps } from "../api/resources.ts";
import type { KubeObject } from "../api/object.ts";
import { shardHash } from "../api/shard_selector.ts";
import { newSharedIndexInformer } from "../cache/shared_informer.ts";
import {
  DeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
} from "../cache/keys.ts";
import { WorkQueue } from "../workqueue/queue.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { ioTurn } from "../testing/turns.ts";

const START = Date.parse("2026-01-01T00:00:00Z");
const N = 3_000;

function ownerOf(
  ranges: Map<string, readonly HashRange[]>,
  uid: string,
): string[] {
  const h = BigInt("0x" + shardHash(uid));
  return [...ranges].filter(([, rs]) =>
    rs.some((r) => h >= r.start && h < r.end)
  ).map(([id]) => id);
}

interface Replica {
  id: string;
  m: ShardMembership;
  cut: { cut: boolean };
  stop: AbortController;
  done: Promise<unknown>;
  /** Keys reconciled, with the clock time. */
  reconciled: Map<string, number>;
}

class Cluster {
  replicas = new Map<string, Replica>();
  /** key → replica reconciling it now. */
  active = new Map<string, string>();
  violations: string[] = [];
  clients: KubeClient[] = [];
  constructor(readonly server: FakeApiServer, readonly clock: FakeClock) {}

  start(id: string): Replica {
    const real = new KubeClient(
      KubeConfig.fromOptions({ server: this.server.url }),
    );
    this.clients.push(real);
    const cut = { cut: false };
    const guard =
      <A extends unknown[], R>(f: (...a: A) => Promise<R>) => (...a: A) =>
        cut.cut ? Promise.reject(new Error("connection refused")) : f(...a);
    const client = {
      get: guard(real.get.bind(real)),
      list: guard(real.list.bind(real)),
      watch: guard(real.watch.bind(real)),
      create: guard(real.create.bind(real)),
      update: guard(real.update.bind(real)),
    } as unknown as KubeClient;
    const m = new ShardMembership(client, {
      name: "cms",
      namespace: "kube-system",
      identity: id,
      clock: this.clock,
    });
    const stop = new AbortController();
    const reconciled = new Map<string, number>();
    const informer = newSharedIndexInformer(
      shardedListWatch(listWatch(client, ConfigMaps), m),
      { clock: this.clock },
    );
    informer.setWatchErrorHandler(() => {});
    const queue = new WorkQueue<string>({ clock: this.clock });
    const uids = new Map<string, string>();
    const inFlight = new Map<string, Promise<void>>();
    const enqueue = (obj: unknown) => {
      const o = (obj instanceof DeletedFinalStateUnknown ? obj.obj : obj) as
        | KubeObject
        | undefined;
      if (!o) return;
      const key = metaNamespaceKeyFunc(o);
      uids.set(key, o.metadata.uid!);
      queue.add(key);
    };
    informer.addEventHandler({
      onAdd: enqueue,
      onUpdate: (_, o) => enqueue(o),
      onDelete: enqueue,
    });
    // Before a release is published: the work on keys no longer owned ends.
    m.subscribe(async () => {
      await Promise.all(
        [...inFlight].filter(([k]) => !m.owns(uids.get(k)!)).map(([, p]) => p),
      );
      // What it reconciled of the ranges it lost no longer counts.
      for (const k of [...reconciled.keys()]) {
        if (!m.owns(uids.get(k)!)) reconciled.delete(k);
      }
    });
    const reconcile = async (key: string) => {
      const uid = uids.get(key);
      if (uid === undefined || !m.owns(uid)) return; // another replica's
      const other = this.active.get(key);
      if (other !== undefined) {
        this.violations.push(`${key}: ${id} while ${other}`);
      }
      this.active.set(key, id);
      // Work that spans event-loop turns, so overlaps would be seen.
      await new Promise((r) => setTimeout(r, 0));
      if (this.active.get(key) === id) this.active.delete(key);
      reconciled.set(key, this.clock.now());
    };
    const workers = (async () => {
      for (;;) {
        const key = await queue.get();
        if (key === undefined) return;
        const p = reconcile(key);
        inFlight.set(key, p);
        try {
          await p;
        } finally {
          inFlight.delete(key);
          queue.done(key);
        }
      }
    })();
    stop.signal.addEventListener("abort", () => queue.shutDown(), {
      once: true,
    });
    const done = Promise.all([
      m.run(stop.signal),
      informer.run(stop.signal),
      workers,
    ]);
    const r = { id, m, cut, stop, done, reconciled };
    this.replicas.set(id, r);
    return r;
  }

  check(): void {
    const live = [...this.replicas.values()];
    for (let i = 0; i < live.length; i++) {
      for (let j = i + 1; j < live.length; j++) {
        const a = live[i].m.owned(), b = live[j].m.owned();
        assert.ok(
          !a.some((x) => b.some((y) => x.start < y.end && y.start < x.end)),
          `${live[i].id} and ${live[j].id} own a common range`,
        );
      }
    }
    assert.deepEqual(this.violations, []);
  }

  /** The members own equal shares, in identity order, nothing moving. */
  settled(ids: string[]): boolean {
    return ids.every((id, i) => {
      const m = this.replicas.get(id)!.m;
      const share = shareOf(i, ids.length);
      return !m.moving() && m.owned().length === 1 &&
        m.owned()[0].start === share.start && m.owned()[0].end === share.end;
    });
  }

  /** Every ConfigMap reconciled by the one replica owning it, since it gained it. */
  allReconciled(ids: string[]): boolean {
    const ranges = new Map(
      ids.map((id) => [id, this.replicas.get(id)!.m.owned()] as const),
    );
    if (ids.some((id) => this.replicas.get(id)!.m.moving())) return false;
    for (const cm of this.server.list(ConfigMaps, "default")) {
      const owners = ownerOf(ranges, cm.metadata.uid!);
      if (owners.length !== 1) return false;
      const at = this.replicas.get(owners[0])!.reconciled.get(
        metaNamespaceKeyFunc(cm),
      );
      if (at === undefined) return false;
    }
    return true;
  }

  async until(
    cond: () => boolean,
    what: string,
    maxMs = 120_000,
  ): Promise<number> {
    const from = this.clock.now();
    const deadline = performance.now() + 120_000;
    while (!cond()) {
      assert.ok(
        this.clock.now() - from <= maxMs,
        `no ${what} within ${maxMs} ms of clock`,
      );
      assert.ok(
        performance.now() < deadline,
        `no ${what} within 120 s of wall time`,
      );
      await this.clock.step(250);
      for (let i = 0; i < 20; i++) {
        await ioTurn();
        this.check();
      }
      await new Promise((r) => setTimeout(r, 2));
      this.check();
    }
    return this.clock.now() - from;
  }

  async stopAll(): Promise<void> {
    for (const r of this.replicas.values()) r.stop.abort();
    await Promise.all([...this.replicas.values()].map((r) => r.done));
    for (const c of this.clients) await c.close();
  }
}

for (const sharded of [true, false]) {
  Deno.test(`three sharded replicas over 3 000 ConfigMaps reconcile every key exactly once at a time through a cut-off, a join and a graceful stop (server ${sharded ? "filters" : "ignores shardSelector"})`, async () => {
    await using server = await FakeApiServer.start({
      shardedListAndWatch: sharded,
    });
    for (let i = 0; i < N; i++) {
      server.create(ConfigMaps, {
        metadata: { name: `cm-${i}`, namespace: "default" },
      });
    }
    const clock = new FakeClock(START);
    const c = new Cluster(server, clock);
    try {
      for (const id of ["r1", "r2", "r3"]) c.start(id);
      await c.until(
        () => c.allReconciled(["r1", "r2", "r3"]),
        "the first full reconcile",
      );

      // r2 is cut off from the server: it owns nothing from its renew
      // deadline on, and r1 and r3 take its range once its Lease expired.
      c.replicas.get("r2")!.cut.cut = true;
      const takeover = await c.until(
        () => c.settled(["r1", "r3"]),
        "the takeover of r2's range",
      );
      assert.ok(
        takeover >= 15_000,
        `r2's range moved after ${takeover} ms, before its Lease expired`,
      );
      await c.until(
        () => c.allReconciled(["r1", "r3"]),
        "the reconcile of r2's keys",
      );

      // r4 joins.
      c.start("r4");
      await c.until(() => c.settled(["r1", "r3", "r4"]), "r4's share");
      await c.until(
        () => c.allReconciled(["r1", "r3", "r4"]),
        "the reconcile after r4 joined",
      );

      // r3 stops gracefully: it releases, so the others need not wait for expiry.
      c.replicas.get("r3")!.stop.abort();
      const graceful = await c.until(
        () => c.settled(["r1", "r4"]),
        "the takeover of r3's range",
      );
      assert.ok(graceful < 15_000, `graceful handover took ${graceful} ms`);
      await c.until(
        () => c.allReconciled(["r1", "r4"]),
        "the reconcile of r3's keys",
      );
      // Server-side: each replica's lists carried its selector.
      const lists = server.requests.filter((r) =>
        r.path === "/api/v1/configmaps" && r.query.get("watch") !== "true"
      );
      assert.ok(
        lists.length > 0 &&
          lists.every((r) =>
            r.query.get("shardSelector")?.startsWith(
              "shardRange(object.metadata.uid, ",
            )
          ),
      );
      console.log(
        `takeover after a cut-off: ${takeover} ms of clock; after a graceful stop: ${graceful} ms`,
      );
    } finally {
      await c.stopAll();
    }
  });
}
