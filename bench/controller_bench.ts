/**
 * The controller runtime's cost per reconcile: a {@link Manager} with one
 * controller against the same loop wired by hand (a factory informer whose
 * handlers add keys to a RateLimitingQueue, `runWorkers` with one worker),
 * both reconciling every ConfigMap of a FakeApiServer once (a lister get
 * per key), with `--workers` workers (`maxConcurrentReconciles`), both
 * starting them once the cache has synced (as the Manager does). Each
 * round runs each implementation on a fresh client and
 * factory, alternating which goes first; the server is the same process,
 * so both pay its list. Reports CPU ms per implementation (medians), the
 * median of per-round ratios, the difference per reconcile in µs, and the
 * wall-clock reconcile rate (first to last reconcile; the list is not in
 * it) of each. `--idle` also starts child processes: one holding a running
 * Manager with `--controllers` controllers (ConfigMaps, Secrets, Services)
 * on a cluster of a few objects, one holding only a KubeClient (the
 * floor), and prints their RSS.
 *
 * Run: `deno run -A --v8-flags=--expose-gc bench/controller_bench.ts
 *        [--objects 20000] [--rounds 5] [--workers 1] [--idle [--controllers 3]]`
 *
 * @module
 */

import process from "node:process";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { KubeClient } from "../client/rest.ts";
import { KubeConfig } from "../client/config.ts";
import { ConfigMaps, Secrets, Services } from "../api/resources.ts";
import type { KubeObject } from "../api/object.ts";
import { SharedInformerFactory } from "../cache/factory.ts";
import { metaNamespaceKeyFunc } from "../cache/keys.ts";
import { RateLimitingQueue } from "../workqueue/rate_limiting_queue.ts";
import { runWorkers } from "../workqueue/workers.ts";
import { Manager } from "../controller/manager.ts";
import { peakRssMB } from "./compare/_rss.ts";

function arg(name: string, fallback: string): string {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : fallback;
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** `--child-idle URL`: a running Manager with `--controllers` controllers, nothing to do; prints RSS. */
if (Deno.args.includes("--child-idle")) {
  const client = new KubeClient(
    KubeConfig.fromOptions({ server: arg("--child-idle", "") }),
  );
  const manager = new Manager(client);
  const types = [ConfigMaps, Secrets, Services];
  const n = Number(arg("--controllers", "1"));
  for (let i = 0; i < n; i++) {
    manager.controller(`idle-${i}`, types[i % types.length]).complete(() => {});
  }
  const stop = new AbortController();
  const running = manager.run(stop.signal);
  await new Promise((r) => setTimeout(r, 2000));
  (globalThis as { gc?: () => void }).gc?.();
  console.log(JSON.stringify({
    rssMB: Math.round(Deno.memoryUsage().rss / 2 ** 20),
    peakRssMB: peakRssMB(),
  }));
  stop.abort();
  await running;
  client.close();
  Deno.exit(0);
}

/** `--child-bare URL`: a KubeClient that lists once, nothing else; prints RSS (the floor). */
if (Deno.args.includes("--child-bare")) {
  const client = new KubeClient(
    KubeConfig.fromOptions({ server: arg("--child-bare", "") }),
  );
  await client.list(ConfigMaps);
  await new Promise((r) => setTimeout(r, 2000));
  (globalThis as { gc?: () => void }).gc?.();
  console.log(JSON.stringify({
    rssMB: Math.round(Deno.memoryUsage().rss / 2 ** 20),
    peakRssMB: peakRssMB(),
  }));
  client.close();
  Deno.exit(0);
}

const objects = Number(arg("--objects", "20000"));
const rounds = Number(arg("--rounds", "5"));
const workers = Number(arg("--workers", "1"));

type Impl = (url: string, n: number) => Promise<void>;

/** Wall-clock reconcile rate of each run: first to last reconcile. */
const rates: Record<string, number[]> = { "hand-wired": [], manager: [] };
function rateMeter(name: string, n: number) {
  let first = 0;
  let count = 0;
  return () => {
    const now = performance.now();
    if (count++ === 0) first = now;
    if (count === n) rates[name].push((n - 1) * 1000 / (now - first));
    return count === n;
  };
}

/** Hand-wired: informer → queue of keys → one worker reading the lister. */
const hand: Impl = async (url, n) => {
  await using client = new KubeClient(KubeConfig.fromOptions({ server: url }));
  await using factory = new SharedInformerFactory(client);
  const informer = factory.informerFor(ConfigMaps);
  const lister = factory.lister(ConfigMaps);
  const queue = new RateLimitingQueue<string>();
  const enqueue = (obj: KubeObject) => queue.add(metaNamespaceKeyFunc(obj));
  informer.addEventHandler({
    onAdd: (obj) => enqueue(obj as KubeObject),
    onUpdate: (_old, obj) => enqueue(obj as KubeObject),
    onDelete: (obj) => enqueue(obj as KubeObject),
  });
  const stop = new AbortController();
  const done = Promise.withResolvers<void>();
  const tick = rateMeter("hand-wired", n);
  factory.start(stop.signal);
  await factory.waitForCacheSync(stop.signal);
  const running = runWorkers(queue, workers, (key) => {
    lister.get(key);
    if (tick()) done.resolve();
  }, stop.signal);
  await done.promise;
  stop.abort();
  queue.shutDown();
  await running;
  await factory.stopped();
};

/** The runtime: a Manager with one controller, the reconciler reading its lister. */
const manager: Impl = async (url, n) => {
  await using client = new KubeClient(KubeConfig.fromOptions({ server: url }));
  const m = new Manager(client);
  const lister = m.factory.lister(ConfigMaps);
  const done = Promise.withResolvers<void>();
  const tick = rateMeter("manager", n);
  m.controller("cms", ConfigMaps, { maxConcurrentReconciles: workers })
    .complete((req) => {
      lister.namespaced(req.namespace!).get(req.name);
      if (tick()) done.resolve();
    });
  const stop = new AbortController();
  const running = m.run(stop.signal);
  await done.promise;
  stop.abort();
  await running;
};

await using server = await FakeApiServer.start();
for (let i = 0; i < objects; i++) {
  server.create(ConfigMaps, {
    metadata: { name: `cm-${i}`, namespace: `ns-${i % 20}` },
    data: { key: `value-${i}` },
  });
}

const impls: [string, Impl][] = [["hand-wired", hand], ["manager", manager]];
const cpu: Record<string, number[]> = { "hand-wired": [], manager: [] };
// One warm-up round of each (JIT), not counted.
for (const [, f] of impls) await f(server.url, objects);
for (const k of Object.keys(rates)) rates[k] = [];
for (let r = 0; r < rounds; r++) {
  for (let i = 0; i < impls.length; i++) {
    const [name, f] = impls[(i + r) % impls.length];
    const c0 = cpuMs();
    await f(server.url, objects);
    cpu[name].push(cpuMs() - c0);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ratios = cpu.manager.map((m, i) => m / cpu["hand-wired"][i]);
const perReconcileUs = cpu.manager.map((m, i) =>
  (m - cpu["hand-wired"][i]) * 1000 / objects
);
const result: Record<string, unknown> = {
  objects,
  rounds,
  workers,
  handWiredReconcilesPerSec: Math.round(median(rates["hand-wired"])),
  managerReconcilesPerSec: Math.round(median(rates.manager)),
  handWiredCpuMs: Math.round(median(cpu["hand-wired"])),
  managerCpuMs: Math.round(median(cpu.manager)),
  managerVsHandWired: Number(median(ratios).toFixed(2)),
  extraUsPerReconcile: Number(median(perReconcileUs).toFixed(1)),
  roundsCpuMs: cpu,
};

if (Deno.args.includes("--idle")) {
  await using small = await FakeApiServer.start();
  for (const [type, kind] of [[ConfigMaps, "cm"], [Secrets, "s"]] as const) {
    for (let i = 0; i < 10; i++) {
      small.create(type, {
        metadata: { name: `${kind}-${i}`, namespace: "default" },
      });
    }
  }
  const child = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--v8-flags=--expose-gc",
        new URL(import.meta.url).pathname,
        ...args,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    return JSON.parse(new TextDecoder().decode(out.stdout));
  };
  result.idleControllers = Number(arg("--controllers", "1"));
  result.idleManager = await child(
    "--child-idle",
    small.url,
    "--controllers",
    arg("--controllers", "1"),
  );
  result.bareClient = await child("--child-bare", small.url);
}
console.log(JSON.stringify(result));
