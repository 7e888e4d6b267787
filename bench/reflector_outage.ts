/**
 * Measures how fast a Reflector's cache converges after an apiserver
 * outage (docs/behaviour.md, after a 410 on a watch): a real FakeApiServer on loopback is stopped, so
 * connections are refused for `--outage` seconds, then a new one starts on
 * the same port with the data kept, a few changes made and its history
 * compacted, so the old resourceVersion answers 410. Prints the time from
 * the first reconnect the new server answered to a cache equal to its state.
 *
 * Run: `deno run -A bench/reflector_outage.ts [--outage 20] [--objects 100]`
 * (wall-clock time: about the outage plus the backoff, up to a minute).
 *
 * @module
 */

import {
  ConfigMaps,
  KubeClient,
  KubeConfig,
  listWatch,
  metaNamespaceKeyFunc,
  newStore,
  Reflector,
} from "../mod.ts";
import type { KubeObject, ListerWatcher } from "../mod.ts";
import { FakeApiServer } from "../testing/mod.ts";

function flag(name: string, fallback: number): number {
  const i = Deno.args.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(Deno.args[i + 1]);
}

const outageS = flag("outage", 20);
const objects = flag("objects", 100);
const t0 = performance.now();
const at = () => `${((performance.now() - t0) / 1000).toFixed(3)} s`;

const cm = (name: string, data = "v1"): KubeObject => ({
  metadata: { namespace: "default", name },
  data: { v: data },
} as KubeObject);

let server = await FakeApiServer.start();
const port = server.port;
for (let i = 0; i < objects; i++) server.create(ConfigMaps, cm(`cm-${i}`));

const client = new KubeClient(
  KubeConfig.fromOptions({ server: `http://127.0.0.1:${port}` }),
);
// Record when the restarted server first answers (a 2xx or a Status).
let restarted = false;
let firstAnswer: number | undefined;
const answered = () => {
  if (restarted && firstAnswer === undefined) {
    firstAnswer = performance.now();
    console.log(`${at()}  first reconnect answered by the new server`);
  }
};
const inner = listWatch(client, ConfigMaps);
const lw: ListerWatcher<KubeObject> = {
  description: inner.description,
  expectedType: inner.expectedType,
  async list(opts, signal) {
    try {
      return await inner.list(opts, signal);
    } finally {
      if (!signal?.aborted) answered();
      console.log(`${at()}  LIST rv=${opts.resourceVersion ?? ""}`);
    }
  },
  async watch(opts, signal) {
    try {
      const w = await inner.watch(opts, signal);
      answered();
      return w;
    } catch (err) {
      if ((err as { name?: string }).name === "StatusError") answered();
      throw err;
    } finally {
      console.log(`${at()}  WATCH rv=${opts.resourceVersion ?? ""}`);
    }
  },
};

const store = newStore<KubeObject>(metaNamespaceKeyFunc);
const ctl = new AbortController();
const reflector = new Reflector(lw, store, {
  onStatus: (r, s) =>
    console.log(
      `${at()}  status ${s.type}${
        "cause" in s ? `: ${r.name}: ${s.cause}` : ""
      }${"retryInMs" in s ? ` (retry in ${s.retryInMs.toFixed(0)} ms)` : ""}`,
    ),
});
const running = reflector.run(ctl.signal);

const state = (objs: readonly KubeObject[]) =>
  objs.map((o) => `${metaNamespaceKeyFunc(o)}@${o.metadata.resourceVersion}`)
    .sort().join(",");
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
}

await until(() => store.list().length === objects);
console.log(
  `${at()}  synced ${objects} objects at RV ${reflector.lastSyncResourceVersion()}`,
);

const kept = server.list(ConfigMaps);
await server.close();
console.log(`${at()}  server stopped: connections refused for ${outageS} s`);
await new Promise((r) => setTimeout(r, outageS * 1000));

// The same data on a new server (the watch cache is new), changed while
// clients were away; its history starts after the old resourceVersion.
server = await FakeApiServer.start({ port });
for (const o of kept) server.create(ConfigMaps, cm(o.metadata.name!));
for (let i = 0; i < 5; i++) {
  server.update(ConfigMaps, cm(`cm-${i}`, "v2"));
}
server.create(ConfigMaps, cm("cm-new"));
server.compact();
restarted = true;
console.log(
  `${at()}  server restarted at RV ${server.resourceVersion()} (old RV answers 410)`,
);

const want = state(server.list(ConfigMaps));
await until(() => state(store.list()) === want);
const converged = performance.now();
console.log(`${at()}  cache converged`);
console.log(
  `RESULT: converged ${
    (converged - firstAnswer!).toFixed(0)
  } ms after the first reconnect the restarted server answered (outage ${outageS} s, ${objects} objects, ${reflector.health().relists} relists)`,
);
ctl.abort();
await running;
client.close();
await server.close();
