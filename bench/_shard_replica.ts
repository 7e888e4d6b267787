/**
 * One replica of `bench/shard_replicas.ts`: a Manager with a ConfigMap
 * controller (sharded unless `--unsharded`), printing a JSON status line
 * every 250 ms: owned fraction, whether ranges move, objects received over
 * the wire (list items and watch events, before any client-side filter),
 * objects cached, resident memory.
 *
 * Run by the benchmark: `deno run -A bench/_shard_replica.ts URL IDENTITY [--unsharded]`
 *
 * @module
 */
import { ConfigMaps, KubeClient, KubeConfig } from "../mod.ts";
import { Manager } from "../controller/mod.ts";
import type { WatchEvent } from "../api/listwatch.ts";

const [url, identity] = Deno.args;
const unsharded = Deno.args.includes("--unsharded");
const real = new KubeClient(KubeConfig.fromOptions({ server: url }));
let received = 0;
// Count what arrives, before the client-side shard filter sees it.
const client = new Proxy(real, {
  get(target, prop, receiver) {
    if (prop === "list") {
      return async (...a: Parameters<KubeClient["list"]>) => {
        const page = await target.list(...a);
        if (a[0] === ConfigMaps) received += page.items.length;
        return page;
      };
    }
    if (prop === "watch") {
      return async (...a: Parameters<KubeClient["watch"]>) => {
        const events = await target.watch(...a);
        if (a[0] !== ConfigMaps) return events;
        return (async function* () {
          for await (const e of events as AsyncIterable<WatchEvent<unknown>>) {
            if (e.type !== "BOOKMARK") received++;
            yield e;
          }
        })();
      };
    }
    const v = Reflect.get(target, prop, receiver);
    return typeof v === "function" ? v.bind(target) : v;
  },
});
const manager = new Manager(client, {
  sharding: unsharded
    ? undefined
    : { name: "bench", namespace: "default", identity },
});
let reconciled = 0;
manager.controller("cm", ConfigMaps).complete(() => {
  reconciled++;
});
const stop = new AbortController();
Deno.addSignalListener("SIGTERM", () => stop.abort());
const running = manager.run(stop.signal);
const cached = () =>
  unsharded
    ? manager.factory.informerFor(ConfigMaps).getStore().listKeys().length
    : reconciled;
const timer = setInterval(() => {
  const s = manager.shards;
  console.log(JSON.stringify({
    id: identity,
    t: Date.now(),
    owned: s ? s.ownedFraction() : 1,
    moving: s ? s.moving() : false,
    received,
    cached: cached(),
    reconciled,
    rss: Deno.memoryUsage().rss,
  }));
}, 250);
await running;
clearInterval(timer);
await real.close();
