/**
 * Manager with `sharding`: three managers on one FakeApiServer each
 * reconcile only their share of the ConfigMaps (and owned Secrets map
 * through their owner's uid); the shard metrics and the readiness check.
 */
import assert from "node:assert/strict";
import { Manager } from "./manager.ts";
import { KubeClient } from "../client/rest.ts";
import { KubeConfig } from "../client/config.ts";
import { ConfigMaps, Secrets } from "../api/resources.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { ioTurn } from "../testing/turns.ts";

const START = Date.parse("2026-01-01T00:00:00Z");

for (const sharded of [true, false]) {
  Deno.test(`three sharded managers reconcile each ConfigMap on exactly one replica (server ${sharded ? "filters" : "ignores shardSelector"})`, async () => {
    await using server = await FakeApiServer.start({
      shardedListAndWatch: sharded,
    });
    const uids = new Map<string, string>();
    for (let i = 0; i < 300; i++) {
      const cm = server.create(ConfigMaps, {
        metadata: { name: `cm-${i}`, namespace: "default" },
      });
      uids.set(`cm-${i}`, cm.metadata.uid!);
    }
    const clock = new FakeClock(START);
    const clients: KubeClient[] = [];
    const managers: Manager[] = [];
    const byReplica = new Map<string, Set<string>>();
    const stop = new AbortController();
    const runs: Promise<void>[] = [];
    for (const id of ["m1", "m2", "m3"]) {
      const client = new KubeClient(
        KubeConfig.fromOptions({ server: server.url }),
      );
      clients.push(client);
      const mgr = new Manager(client, {
        clock,
        sharding: { name: "cms", namespace: "kube-system", identity: id },
      });
      const seen = new Set<string>();
      byReplica.set(id, seen);
      mgr.controller("cm", ConfigMaps).owns(Secrets).complete(
        async (req, ctx) => {
          // The own type is read from the shard's cache: the object is there.
          const cms = await ctx.cache(ConfigMaps);
          if (cms.namespaced(req.namespace!).get(req.name)) seen.add(req.name);
        },
      );
      managers.push(mgr);
      runs.push(mgr.run(stop.signal));
    }
    const deadline = performance.now() + 60_000;
    const done = () =>
      managers.every((m) => !m.shards!.moving()) &&
      [...uids.keys()].every((name) =>
        [...byReplica.values()].some((s) => s.has(name))
      );
    try {
      while (!done()) {
        assert.ok(
          performance.now() < deadline,
          "no full reconcile within 60 s",
        );
        await clock.step(250);
        for (let i = 0; i < 20; i++) await ioTurn();
        await new Promise((r) => setTimeout(r, 2));
      }
      // Each ConfigMap on exactly one replica: the one owning its uid.
      for (const [name, uid] of uids) {
        const on = [...byReplica].filter(([, s]) => s.has(name)).map(([id]) =>
          id
        );
        assert.equal(on.length, 1, `${name} reconciled on ${on.join(", ")}`);
        const owner = managers.filter((m) => m.shards!.owns(uid));
        assert.equal(owner.length, 1);
        assert.equal(owner[0].shards!.identity, on[0]);
      }
      // An owned Secret maps to its owner on the owner's replica only.
      const owner = server.list(ConfigMaps, "default")[0];
      for (const s of byReplica.values()) s.clear();
      server.create(Secrets, {
        metadata: {
          name: "child",
          namespace: "default",
          ownerReferences: [{
            apiVersion: "v1",
            kind: "ConfigMap",
            name: owner.metadata.name!,
            uid: owner.metadata.uid!,
            controller: true,
          }],
        },
      });
      const ownerReplica = managers.find((m) =>
        m.shards!.owns(owner.metadata.uid!)
      )!.shards!.identity;
      while (!byReplica.get(ownerReplica)!.has(owner.metadata.name!)) {
        assert.ok(
          performance.now() < deadline,
          "the owned Secret's event did not reach its owner's replica",
        );
        await clock.step(100);
        for (let i = 0; i < 20; i++) await ioTurn();
        await new Promise((r) => setTimeout(r, 2));
      }
      for (const [id, s] of byReplica) {
        if (id !== ownerReplica) {
          assert.equal(s.has(owner.metadata.name!), false);
        }
      }
      // No ConfigMap list or watch went out without a shard selector: the
      // reconciles' cache reads did not start an unsharded informer.
      const cmRequests = server.requests.filter((r) =>
        r.path.endsWith("/configmaps")
      );
      assert.ok(cmRequests.length > 0);
      assert.ok(cmRequests.every((r) => r.query.has("shardSelector")));
      // Metrics.
      const text = managers[0].metrics.expose();
      assert.match(text, /^kubecache_shard_members\{name="cms"\} 3$/m);
      assert.match(
        text,
        /^kubecache_shard_owned_fraction\{name="cms"\} 0\.333333$/m,
      );
      assert.match(text, /^kubecache_shard_moving\{name="cms"\} 0$/m);
      assert.match(
        text,
        /^kubecache_shard_reshards_total\{name="cms"\} [1-9]/m,
      );
    } finally {
      stop.abort();
      for (let i = 0; i < 400; i++) {
        const settled = await Promise.race([
          Promise.all(runs).then(() => true),
          new Promise((r) => setTimeout(() => r(false), 5)),
        ]);
        if (settled) break;
        await clock.step(1000);
      }
      await Promise.all(runs);
      for (const c of clients) await c.close();
    }
  });
}
