/**
 * What a scoped cache saves: the resident memory of a process running a
 * {@link Manager} with one ConfigMap controller on a cluster of
 * `--objects` ConfigMaps (each with `--bytes` of data) of which
 * `--matching` carry `app=demo`, the controller caching all of them
 * (unscoped) against caching only `app=demo` (`scope: { labelSelector }`),
 * and a process holding only a KubeClient (the floor). Each runs in a
 * child process (the FakeApiServer and its objects stay in this one) until
 * the controller's cache has synced, then collects garbage and prints its
 * RSS and peak RSS. `--rounds` repeats the three children, alternating
 * which controller goes first; the medians are reported.
 *
 * Run: `deno run -A --v8-flags=--expose-gc bench/scoped_cache_bench.ts
 *        [--objects 100000] [--matching 1000] [--bytes 256] [--rounds 2]`
 *
 * @module
 */

import { FakeApiServer } from "../testing/fake_api_server.ts";
import { KubeClient } from "../client/rest.ts";
import { KubeConfig } from "../client/config.ts";
import { ConfigMaps } from "../api/resources.ts";
import { Manager } from "../controller/manager.ts";
import { peakRssMB } from "./compare/_rss.ts";

function arg(name: string, fallback: string): string {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : fallback;
}

const gc = () => (globalThis as { gc?: () => void }).gc?.();

/** `--child scoped|unscoped|bare URL`: one measured process. */
if (Deno.args.includes("--child")) {
  const mode = arg("--child", "");
  const client = new KubeClient(
    KubeConfig.fromOptions({ server: arg("--url", "") }),
  );
  let cached = 0;
  if (mode === "bare") {
    await client.list(ConfigMaps, { limit: 1 });
  } else {
    const manager = new Manager(client);
    let reconciles = 0;
    const controller = manager.controller("demo", ConfigMaps, {
      scope: mode === "scoped" ? { labelSelector: "app=demo" } : undefined,
    }).complete(() => {
      reconciles++;
    });
    const stop = new AbortController();
    const running = manager.run(stop.signal);
    await manager.waitForCacheSync(stop.signal);
    cached = controller.informers[0].informer.getStore().list().length;
    // Let the first reconciles of the matching objects go through.
    while (reconciles < Number(arg("--matching", "0"))) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 500));
    gc();
    await new Promise((r) => setTimeout(r, 100));
    gc();
    console.log(JSON.stringify({
      rssMB: Math.round(Deno.memoryUsage().rss / 2 ** 20),
      peakRssMB: peakRssMB(),
      heapUsedMB: Math.round(Deno.memoryUsage().heapUsed / 2 ** 20),
      cached,
    }));
    stop.abort();
    await running;
    client.close();
    Deno.exit(0);
  }
  gc();
  console.log(JSON.stringify({
    rssMB: Math.round(Deno.memoryUsage().rss / 2 ** 20),
    peakRssMB: peakRssMB(),
    heapUsedMB: Math.round(Deno.memoryUsage().heapUsed / 2 ** 20),
    cached,
  }));
  client.close();
  Deno.exit(0);
}

const objects = Number(arg("--objects", "100000"));
const matching = Number(arg("--matching", "1000"));
const bytes = Number(arg("--bytes", "256"));
const rounds = Number(arg("--rounds", "2"));
const every = Math.floor(objects / matching);

await using server = await FakeApiServer.start();
for (let i = 0; i < objects; i++) {
  server.create(ConfigMaps, {
    metadata: {
      name: `cm-${i}`,
      namespace: `ns-${i % 100}`,
      labels: { app: i % every === 0 ? "demo" : "other" },
    },
    data: { payload: "x".repeat(bytes) },
  });
}

const child = async (mode: string) => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--v8-flags=--expose-gc",
      new URL(import.meta.url).pathname,
      "--child",
      mode,
      "--url",
      server.url,
      "--matching",
      String(mode === "scoped" ? matching : objects),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout)) as {
    rssMB: number;
    peakRssMB?: number;
    heapUsedMB: number;
    cached: number;
  };
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2
    ? s[(s.length - 1) / 2]
    : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const runs: Record<string, Awaited<ReturnType<typeof child>>[]> = {
  scoped: [],
  unscoped: [],
  bare: [],
};
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0
    ? ["unscoped", "scoped", "bare"]
    : ["scoped", "unscoped", "bare"];
  for (const mode of order) runs[mode].push(await child(mode));
}
const summary = Object.fromEntries(
  Object.entries(runs).map(([mode, rs]) => [mode, {
    cached: rs[0].cached,
    rssMB: median(rs.map((x) => x.rssMB)),
    peakRssMB: median(rs.map((x) => x.peakRssMB ?? 0)),
    heapUsedMB: median(rs.map((x) => x.heapUsedMB)),
    rssRuns: rs.map((x) => x.rssMB),
  }]),
);
const floor = summary.bare.rssMB;
console.log(JSON.stringify(
  {
    objects,
    matching,
    bytes,
    rounds,
    ...summary,
    cacheMBUnscoped: summary.unscoped.rssMB - floor,
    cacheMBScoped: summary.scoped.rssMB - floor,
    ratioAboveFloor: Number(
      ((summary.unscoped.rssMB - floor) /
        Math.max(1, summary.scoped.rssMB - floor))
        .toFixed(1),
    ),
  },
  null,
  1,
));
