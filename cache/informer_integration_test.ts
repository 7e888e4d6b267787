/**
 * End-to-end tests of the informer machinery against the FakeApiServer over
 * real HTTP: a seeded convergence property test under faults, the
 * no-tight-loop bound, and shutdown. The informer runs on a FakeClock, so
 * backoffs are stepped, never slept; the server keeps real time.
 *
 * Replay one seed: `KUBECACHE_SEED=17 deno test -A cache/informer_integration_test.ts`.
 * More seeds: `KUBECACHE_SEEDS=1000` (the same variables as every seeded suite).
 */

import assert from "node:assert/strict";
import {
  newSharedIndexInformer,
  type SharedIndexInformer,
} from "./shared_informer.ts";
import { DeletedFinalStateUnknown, metaNamespaceKeyFunc } from "./keys.ts";
import type { KubeObject } from "../api/object.ts";
import type { DeepReadonly } from "../api/readonly.ts";
import { KubeConfig } from "../client/config.ts";
import { listWatch } from "../api/resource_client.ts";
import { ConfigMaps } from "../api/resources.ts";
import { isExpired, isServerError, isTooManyRequests } from "../api/errors.ts";
import { KubeClient } from "../client/rest.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { ioTurn } from "../testing/turns.ts";
import { prng, seedsToRun } from "./_test_util.ts";

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/**
 * How long (real ms) {@link pump} lets a condition take before it fails.
 * Stated as time because it is time: the turns of real loopback HTTP
 * take as long as the machine's load makes them, so a count of turns
 * would be a wall-clock timeout in disguise. Far above a healthy run (a
 * few hundred ms), so only a broken rule reaches it.
 */
const PUMP_DEADLINE_MS = 60_000;

/**
 * Pump I/O until `cond` holds; whenever the informer waits on its clock
 * for a backoff or Retry-After (due within a minute), step to it. Fails
 * after {@link PUMP_DEADLINE_MS} instead of hanging.
 */
async function pump(
  clock: FakeClock,
  cond: () => boolean,
  what: string,
): Promise<void> {
  const deadline = performance.now() + PUMP_DEADLINE_MS;
  for (let i = 0; performance.now() < deadline; i++) {
    if (cond()) return;
    await ioTurn();
    if (i % 50 === 49) {
      const due = clock.nextDue();
      if (due !== undefined && due - clock.now() <= 61_000) {
        await clock.step(due - clock.now());
      }
    }
  }
  if (cond()) return;
  throw new Error(`Gave up waiting for ${what} after ${PUMP_DEADLINE_MS} ms`);
}

/**
 * A handler that keeps its own view of the objects and records every
 * inconsistency: an add for a key it has, an update for a key it lacks or
 * from a state it never got, a same-RV update (the informer has no
 * resync), a delete for a key it lacks.
 */
class ViewHandler {
  view = new Map<string, ConfigMap>();
  violations: string[] = [];
  onAdd = (obj: ConfigMap) => {
    const key = metaNamespaceKeyFunc(obj);
    if (this.view.has(key)) this.violations.push(`add for present ${key}`);
    this.view.set(key, obj);
  };
  onUpdate = (old: ConfigMap, obj: ConfigMap) => {
    const key = metaNamespaceKeyFunc(obj);
    const last = this.view.get(key);
    if (!last) this.violations.push(`update for absent ${key}`);
    else if (last.metadata.resourceVersion !== old.metadata.resourceVersion) {
      this.violations.push(`update of ${key} from a state it never got`);
    }
    // The informer has no resync: a same-RV update (a relist's unchanged
    // object) must never reach a handler.
    if (old.metadata.resourceVersion === obj.metadata.resourceVersion) {
      this.violations.push(`same-RV update of ${key}`);
    }
    this.view.set(key, obj);
  };
  onDelete = (obj: ConfigMap | DeletedFinalStateUnknown<ConfigMap>) => {
    const key = obj instanceof DeletedFinalStateUnknown
      ? obj.key
      : metaNamespaceKeyFunc(obj);
    if (!this.view.has(key)) this.violations.push(`delete for absent ${key}`);
    this.view.delete(key);
  };
}

/** key → resourceVersion, sorted by key. */
function versions(objs: Iterable<DeepReadonly<KubeObject>>): string {
  return [...objs].map((o) =>
    `${metaNamespaceKeyFunc(o)}@${o.metadata.resourceVersion}`
  )
    .sort().join(" ");
}

interface World {
  server: FakeApiServer;
  client: KubeClient;
  /** How often each kind of failure was seen, over all seeds. */
  seen: Record<string, number>;
}

function classify(err: unknown): string {
  if (isExpired(err)) return "expired";
  if (isTooManyRequests(err)) return "throttled";
  if (isServerError(err)) return "server error";
  const msg = String(err);
  if (msg.includes("silent")) return "watchdog";
  if (msg.includes("very short")) return "very short watch";
  return "other";
}

/** Run one random schedule; throws with the reason on any inconsistency. */
async function runSeed(world: World, seed: number): Promise<void> {
  const { server } = world;
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const ns = `seed-${seed}`;
  const names = ["a", "b", "c", "d", "e", "f"];
  let counter = 0;
  const write = () => {
    const name = pick(names);
    const existing = server.get<ConfigMap>(ConfigMaps, ns, name);
    if (!existing) {
      server.create<ConfigMap>(ConfigMaps, {
        metadata: { name, namespace: ns },
        data: { n: String(counter++) },
      });
    } else if (rand() < 0.6) {
      server.update<ConfigMap>(ConfigMaps, {
        ...existing,
        data: { n: String(counter++) },
      });
    } else {
      server.delete(ConfigMaps, ns, name);
    }
  };
  for (let i = 0; i < 3; i++) if (rand() < 0.6) write();

  const clock = new FakeClock(1_000_000);
  const informer: SharedIndexInformer<ConfigMap> = newSharedIndexInformer<
    ConfigMap
  >(
    listWatch(world.client, ConfigMaps, { namespace: ns }),
    {
      clock,
      // Some seeds stream the initial state, some page their lists.
      useWatchList: seed % 3 === 0,
      pageSize: seed % 5 === 0 ? 2 : undefined,
    },
  );
  const errors: unknown[] = [];
  informer.setWatchErrorHandler((_r, e) => errors.push(e));
  const handler = new ViewHandler();
  informer.addEventHandler(handler);
  const ctl = new AbortController();
  const running = informer.run(ctl.signal);
  const serverState = () => versions(server.list(ConfigMaps, ns));
  try {
    await pump(clock, () => informer.hasSynced(), "the initial sync");
    const steps = 8 + Math.floor(rand() * 16);
    for (let i = 0; i < steps; i++) {
      const r = rand();
      if (r < 0.5) write();
      else if (r < 0.58) server.faults.closeWatches();
      else if (r < 0.64) {
        server.compact();
        server.faults.closeWatches();
      } else if (r < 0.71) {
        server.faults.failNext(1 + Math.floor(rand() * 3), { status: 500 });
      } else if (r < 0.77) {
        server.faults.failNext(1, {
          status: 429,
          retryAfterSeconds: 1 + Math.floor(rand() * 3),
        });
      } else if (r < 0.82) server.faults.stallWatches(rand() < 0.6);
      else if (r < 0.86) server.faults.splitWrites("random", seed);
      else if (r < 0.90) {
        // Long silence: past any watch's timeout plus margin (watchdog).
        await clock.step(12 * 60_000);
      } else await clock.step(Math.floor(rand() * 40_000));
      const turns = Math.floor(rand() * 40);
      for (let t = 0; t < turns; t++) await ioTurn();
    }
    server.faults.clear();
    await pump(
      clock,
      () =>
        versions(informer.getIndexer().list()) === serverState() &&
        versions(handler.view.values()) === serverState(),
      "convergence",
    );
  } catch (err) {
    throw new Error(
      `${(err as Error).message}: indexer [${
        versions(informer.getIndexer().list())
      }], ` +
        `handler [${
          versions(handler.view.values())
        }], server [${serverState()}], ` +
        `last error ${String(informer.health()?.lastError)}`,
      { cause: err },
    );
  } finally {
    server.faults.clear();
    ctl.abort();
    await running;
  }
  assert.deepEqual(handler.violations, []);
  assert.ok(informer.isStopped());
  for (const e of errors) {
    const kind = classify(e);
    world.seen[kind] = (world.seen[kind] ?? 0) + 1;
  }
  world.seen.relists += informer.health()?.relists ?? 0;
}

Deno.test("SharedIndexInformer converges to the server's objects under random faults (seeded)", async () => {
  await using server = await FakeApiServer.start({ historyLimit: 50 });
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  const world: World = { server, client, seen: { relists: 0 } };
  const { seeds } = seedsToRun(200);
  for (const seed of seeds) {
    try {
      await runSeed(world, seed);
    } catch (err) {
      console.error(
        `Seed ${seed} failed; replay with: KUBECACHE_SEED=${seed} deno test -A cache/informer_integration_test.ts`,
      );
      throw err;
    }
  }
  world.seen["watch-list requests"] =
    server.requests.filter((r) => r.query.get("sendInitialEvents") === "true")
      .length;
  world.seen["continue pages"] =
    server.requests.filter((r) => r.query.has("continue")).length;
  if (Deno.env.get("STATS")) console.log(world.seen);
  if (seeds.length >= 50) {
    // The schedules did exercise every recovery path.
    for (
      const kind of [
        "relists",
        "expired",
        "throttled",
        "server error",
        "watchdog",
        "very short watch",
        "watch-list requests",
        "continue pages",
      ]
    ) {
      assert.ok(
        world.seen[kind] > 0,
        `no ${kind} in ${JSON.stringify(world.seen)}`,
      );
    }
  }
});

Deno.test("Reflector makes no more requests than the backoff schedule allows against a failing server", async () => {
  await using server = await FakeApiServer.start();
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  server.faults.failNext(1_000_000, { status: 500 });
  const clock = new FakeClock(0);
  const informer = newSharedIndexInformer(
    listWatch(client, ConfigMaps, { namespace: "default" }),
    { clock },
  );
  let failures = 0;
  informer.setWatchErrorHandler(() => failures++);
  const ctl = new AbortController();
  const running = informer.run(ctl.signal);
  const hour = 3_600_000;
  const requests = () =>
    server.requests.filter((r) => r.path.includes("configmaps")).length;
  // Each failure is followed by one backoff wait; step through them for a fake hour.
  while (clock.now() < hour) {
    const before = failures;
    await pump(clock, () => failures > before, "the next failure");
    await clock.waitForWaiters(1);
    const due = clock.nextDue()!;
    await clock.step(due - clock.now());
  }
  ctl.abort();
  await running;
  // Delays d_k = 800·2^k ms capped at 30 s, each drawn from [d_k, 2·d_k):
  // the count of requests in an hour lies between the schedules of the
  // longest and the shortest delays.
  const fits = (scale: number) => {
    let t = 0, n = 0, d = 800;
    while (t < hour) {
      n++; // a request at time t
      t += d * scale;
      d = Math.min(d * 2, 30_000);
    }
    return n;
  };
  const n = requests();
  assert.ok(
    n >= fits(2) && n <= fits(1) + 1,
    `${n} requests not in [${fits(2)}, ${fits(1) + 1}]`,
  );
  // Every request failed and was reported, except one the abort may cut
  // short on the wire (the server saw it, the Reflector never heard back):
  // the step that crosses the hour wakes the next attempt just before it.
  assert.ok(
    failures === n || failures === n - 1,
    `${failures} failures for ${n} requests`,
  );
});

Deno.test("SharedIndexInformer stops everything on abort, streams closed", async () => {
  await using server = await FakeApiServer.start();
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
  const clock = new FakeClock(0);
  const informer = newSharedIndexInformer(
    listWatch(client, ConfigMaps, { namespace: "default" }),
    { clock, resyncPeriod: 30_000 },
  );
  const seen: string[] = [];
  informer.addEventHandler({
    onAdd: (o) => {
      seen.push(o.metadata.name!);
    },
  });
  // The control: a second informer that keeps running. Once it has seen
  // a write, the stopped one had as long to see it.
  const controlClock = new FakeClock(0);
  const control = newSharedIndexInformer(
    listWatch(client, ConfigMaps, { namespace: "default" }),
    { clock: controlClock },
  );
  const controlSeen: string[] = [];
  control.addEventHandler({
    onAdd: (o) => void controlSeen.push(o.metadata.name!),
  });
  const ctl = new AbortController();
  const running = informer.run(ctl.signal);
  const controlStop = new AbortController();
  const controlRunning = control.run(controlStop.signal);
  await pump(clock, () => seen.length === 1, "the first add");
  const watches = () =>
    server.requests.filter((r) => r.query.get("watch") === "true").length;
  await pump(clock, () => watches() === 2, "the watches");
  ctl.abort();
  await running;
  assert.ok(informer.isStopped());
  assert.equal(clock.waiters(), 0);
  // Writes after the stop reach nobody.
  server.create(ConfigMaps, { metadata: { name: "b", namespace: "default" } });
  await pump(
    controlClock,
    () => controlSeen.includes("b"),
    "the control's add",
  );
  assert.deepEqual(seen, ["a"]);
  controlStop.abort();
  await controlRunning;
});
