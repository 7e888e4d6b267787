/**
 * Benchmark client process: syncs every pod of a bench server with one
 * implementation, then measures heap per object after a forced GC and the
 * rate of watch events delivered to a no-op handler. Prints one JSON line.
 *
 * Usage: deno run -A --v8-flags=--expose-gc bench/compare/_client.ts
 *          --impl raw|raw-limits|kubecache-client|kubecache|kubecache-strip|kubecache-delete|kubecache-watchlist|kubecache-fetch|
 *                 kubecache-metadata|kubecache-metadata-strip|client-node
 *          --url URL --control URL --pods N --events E [--ca FILE]
 *   (--impl idle: a process with a KubeClient and nothing else, for its RSS)
 *
 * @module
 */

import { KubeClient } from "../../client/rest.ts";
import { KubeConfig } from "../../client/config.ts";
import { listWatch, metadataListWatch } from "../../api/resource_client.ts";
import { Pods } from "../../api/resources.ts";
import { newSharedIndexInformer } from "../../cache/shared_informer.ts";
import { stripManagedFields } from "../../cache/transform.ts";
import type { KubeObject } from "../../api/object.ts";
import process from "node:process";
import { peakRssMB } from "./_rss.ts";
import { parseJson } from "../../client/list_decoder.ts";

interface Handlers {
  add(): void;
  update(): void;
}

/** Starts an implementation; returns a function that stops it. */
type Impl = (
  url: string,
  h: Handlers,
  signal: AbortSignal,
) => Promise<() => Promise<void> | void>;

function arg(name: string): string {
  const i = Deno.args.indexOf(name);
  if (i < 0) throw new Error(`Missing flag ${name}`);
  return Deno.args[i + 1];
}

/** `--ca FILE`: the CA of a bench server over TLS (absent: plain http). */
const caFile = Deno.args.includes("--ca") ? arg("--ca") : undefined;
const caData = caFile ? Deno.readTextFileSync(caFile) : undefined;
/** fetch's client for the raw loop: trusts the bench CA. */
const rawHttp = caData
  ? Deno.createHttpClient({ caCerts: [caData] })
  : undefined;

const keyOf = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;

type ListInto = (
  url: string,
  map: Map<string, KubeObject>,
  h: Handlers,
  signal: AbortSignal,
) => Promise<string>;

/** A list page as the raw loops read it. */
type Page = {
  items: KubeObject[];
  metadata: { resourceVersion: string; continue?: string };
};

/** The raw loops' list: fetch 500-item pages, decode each with `parse`, Map.set. */
function listPagesWith(parse: (res: Response) => Promise<Page>): ListInto {
  return async (url, map, h, signal) => {
    let cont = "";
    let rv = "";
    do {
      const q = new URLSearchParams({ limit: "500" });
      if (cont) q.set("continue", cont);
      const res = await fetch(`${url}/api/v1/pods?${q}`, {
        signal,
        client: rawHttp,
      });
      const page = await parse(res);
      rv ||= page.metadata.resourceVersion;
      for (const item of page.items) {
        map.set(keyOf(item), item);
        h.add();
      }
      cont = page.metadata.continue ?? "";
    } while (cont);
    return rv;
  };
}

/** The raw baseline's list: `JSON.parse` of each page's text. */
const listPages = listPagesWith(async (res) => JSON.parse(await res.text()));

/**
 * The raw loop with the JSON limits kubecache enforces on every list page
 * (client-go's depth limit of 10,000, checked as `KubeClient` checks it):
 * what a client that refuses pathological JSON cannot go below.
 */
const listPagesLimited = listPagesWith(async (res) =>
  parseJson(await res.bytes(), "the page") as Page
);

/**
 * `KubeClient` without the informer: `list` with the informer's first
 * request (resourceVersion "0", limit 500, then continue tokens) into a
 * Map, then `watch` into the Map. What the Reflector, DeltaFIFO, indexer
 * and processor add is the difference to the `kubecache` row.
 */
function kubeClientOnly(): Impl {
  return (url, h, signal) => {
    const client = new KubeClient(
      KubeConfig.fromOptions({ server: url, caData }),
    );
    const map = new Map<string, KubeObject>();
    const run = async () => {
      let cont = "";
      let rv = "";
      do {
        const page = await client.list(Pods, {
          limit: 500,
          resourceVersion: cont ? undefined : "0",
          continue: cont || undefined,
          signal,
        });
        rv ||= page.metadata.resourceVersion ?? "";
        for (const item of page.items) {
          map.set(keyOf(item), item);
          h.add();
        }
        cont = page.metadata.continue ?? "";
      } while (cont);
      const events = await client.watch(Pods, {
        resourceVersion: rv,
        allowWatchBookmarks: true,
        signal,
      });
      for await (const ev of events) {
        if (ev.type === "DELETED") map.delete(keyOf(ev.object));
        else if (ev.type === "ADDED" || ev.type === "MODIFIED") {
          map.set(keyOf(ev.object), ev.object);
          if (ev.type === "MODIFIED") h.update();
        }
      }
    };
    const done = run().catch((e) => {
      if (!signal.aborted) throw e;
    });
    return Promise.resolve(async () => {
      await done;
      await client.close();
    });
  };
}

/**
 * The raw baseline: a list, then read the watch stream, split lines,
 * JSON.parse, Map.set. Nothing else.
 */
function raw(listInto: ListInto): Impl {
  return (url, h, signal) => {
    const map = new Map<string, KubeObject>();
    const run = async () => {
      const rv = await listInto(url, map, h, signal);
      const q = new URLSearchParams({
        watch: "1",
        resourceVersion: rv,
        allowWatchBookmarks: "true",
      });
      const res = await fetch(`${url}/api/v1/pods?${q}`, {
        signal,
        client: rawHttp,
      });
      let tail = "";
      for await (
        const chunk of res.body!.pipeThrough(new TextDecoderStream())
      ) {
        const buf = tail + chunk;
        let start = 0;
        for (
          let nl = buf.indexOf("\n");
          nl >= 0;
          nl = buf.indexOf("\n", start)
        ) {
          const ev = JSON.parse(buf.slice(start, nl));
          start = nl + 1;
          if (ev.type === "DELETED") map.delete(keyOf(ev.object));
          else if (ev.type !== "BOOKMARK") {
            map.set(keyOf(ev.object), ev.object);
            if (ev.type === "MODIFIED") h.update();
          }
        }
        tail = buf.slice(start);
      }
    };
    run().catch((e) => {
      if (!signal.aborted) throw e;
    });
    return Promise.resolve(() => {});
  };
}

/** How a kubecache variant changes objects before caching them. */
type Transform = "none" | "strip" | "delete";

const TRANSFORMS: Record<
  Transform,
  ((obj: KubeObject) => KubeObject) | undefined
> = {
  none: undefined,
  // The ready transform: rebuilds metadata without managedFields.
  strip: stripManagedFields,
  // What the README used to suggest: `delete` leaves a dictionary-mode
  // metadata object behind (kept here to measure why not).
  delete: (obj) => {
    delete obj.metadata.managedFields;
    return obj;
  },
};

/**
 * kubecache: a SharedIndexInformer over KubeClient with its defaults,
 * optionally with a transform dropping managedFields or with watch-list.
 */
function kubecache(
  opts: {
    transform?: Transform;
    watchList?: boolean;
    metadata?: boolean;
    listWatchTransport?: "socket" | "fetch";
  } = {},
): Impl {
  const { transform = "none", watchList = false, metadata = false } = opts;
  return (url, h, signal) => {
    // Default settings: the 30 s timeout bounds each silence, not the list.
    const client = new KubeClient(
      KubeConfig.fromOptions({ server: url, caData }),
      {
        listWatchTransport: opts.listWatchTransport,
      },
    );
    // stripManagedFields goes on the ListerWatcher, which applies it to
    // each item as it is decoded (an informer transform would see a whole
    // untransformed list first); the delete transform stays on the
    // informer, as the README once suggested it.
    const fn = TRANSFORMS[transform];
    const early = transform === "strip" ? { transform: fn } : {};
    const lw = metadata
      ? metadataListWatch(client, Pods, early)
      : listWatch(client, Pods, early);
    const informer = newSharedIndexInformer<KubeObject>(lw, {
      useWatchList: watchList,
      transform: transform === "strip" ? undefined : fn,
    });
    informer.addEventHandler({
      onAdd: () => h.add(),
      onUpdate: () => h.update(),
    });
    // The Reflector retries a failed initial list forever; for the
    // benchmark a failure before the first sync is the result.
    informer.setWatchErrorHandler((_reflector, err) => {
      if (informer.hasSynced()) return;
      console.error(`kubecache error: ${(err as Error)?.message ?? err}`);
      Deno.exit(4);
    });
    const done = informer.run(signal);
    return Promise.resolve(async () => {
      await done;
      await client.close();
    });
  };
}

/** @kubernetes/client-node's makeInformer (ListWatch + ObjectCache). */
const clientNode: Impl = async (url, h) => {
  // Dev-only comparison target, deliberately not in deno.json imports.
  // deno-lint-ignore no-import-prefix
  const k8s = await import("npm:@kubernetes/client-node@2");
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    // client-node refuses plain http unless skipTLSVerify is set.
    clusters: [
      caData
        ? { name: "bench", server: url, caData: btoa(caData) }
        : { name: "bench", server: url, skipTLSVerify: true },
    ],
    users: [{ name: "bench" }],
    contexts: [{ name: "bench", cluster: "bench", user: "bench" }],
    currentContext: "bench",
  });
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(
    kc,
    "/api/v1/pods",
    () => api.listPodForAllNamespaces(),
  );
  informer.on("add", () => h.add());
  informer.on("update", () => h.update());
  informer.on("error", (err: unknown) => {
    console.error(`client-node informer error: ${err}`);
    Deno.exit(3);
  });
  await informer.start();
  return () => informer.stop();
};

const IMPLS: Record<string, Impl> = {
  raw: raw(listPages),
  "raw-limits": raw(listPagesLimited),
  "kubecache-client": kubeClientOnly(),
  kubecache: kubecache(),
  "kubecache-strip": kubecache({ transform: "strip" }),
  "kubecache-delete": kubecache({ transform: "delete" }),
  "kubecache-watchlist": kubecache({ watchList: true }),
  // The watch over fetch (one HTTP chunk per read) instead of its own socket.
  "kubecache-fetch": kubecache({ listWatchTransport: "fetch" }),
  "kubecache-metadata": kubecache({ metadata: true }),
  "kubecache-metadata-strip": kubecache({ metadata: true, transform: "strip" }),
  "client-node": clientNode,
};

async function collect(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("Run with --v8-flags=--expose-gc");
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  return Deno.memoryUsage().heapUsed;
}

/** CPU time used by this process so far (user + system, all threads), in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * `--impl idle`: the floor of any client, a Deno process that has loaded
 * kubecache and made a KubeClient, nothing cached; prints its RSS.
 */
async function idle(): Promise<void> {
  const url = arg("--url");
  const client = new KubeClient(
    KubeConfig.fromOptions({ server: url, caData }),
  );
  await collect();
  console.log(JSON.stringify({
    impl: "idle",
    pods: Number(arg("--pods")),
    rssMB: Math.round(Deno.memoryUsage().rss / 2 ** 20),
    peakRssMB: peakRssMB(),
  }));
  client.close();
  Deno.exit(0);
}

async function main(): Promise<void> {
  if (arg("--impl") === "idle") return await idle();
  const impl = IMPLS[arg("--impl")];
  const url = arg("--url");
  const control = arg("--control");
  const pods = Number(arg("--pods"));
  const events = Number(arg("--events"));
  const synced = Promise.withResolvers<void>();
  const watched = Promise.withResolvers<void>();
  let added = 0;
  let updated = 0;
  let firstEventAt = 0;
  let lastEventAt = 0;
  // CPU time (all threads of this process) tells the implementations apart
  // even when the shared machine is busy and wall time is noisy.
  let firstEventCpu = 0;
  let lastEventCpu = 0;
  const h: Handlers = {
    add() {
      if (++added === pods) synced.resolve();
    },
    update() {
      updated++;
      if (updated === 1) {
        firstEventAt = performance.now();
        firstEventCpu = cpuMs();
      }
      if (updated === events) {
        lastEventAt = performance.now();
        lastEventCpu = cpuMs();
        watched.resolve();
      }
    },
  };
  const base = await collect();
  // Progress on stderr every 10 s: when the process dies (out of heap, say),
  // the orchestrator reports the last line's heap and cached objects.
  const progress = setInterval(() => {
    const m = Deno.memoryUsage();
    console.error(
      `progress ${
        JSON.stringify({
          added,
          heapMB: Math.round(m.heapUsed / 2 ** 20),
          rssMB: Math.round(m.rss / 2 ** 20),
        })
      }`,
    );
  }, 10_000);
  const controller = new AbortController();
  const t0 = performance.now();
  const cpu0 = cpuMs();
  const stop = await impl(url, h, controller.signal);
  await synced.promise;
  const syncMs = performance.now() - t0;
  const syncCpuMs = cpuMs() - cpu0;
  const heap = (await collect()) - base;
  // The implementation's watch may be between two requests (a backoff):
  // ask again for up to a minute before calling the run failed.
  for (let attempt = 0;; attempt++) {
    const res = await fetch(`${control}/modify?count=${events}`);
    await res.body?.cancel();
    if (res.ok) break;
    if (attempt === 60) {
      console.error(
        `error: no watch open on the bench server after the sync (sync ${
          Math.round(syncMs)
        } ms, ${Math.round(syncCpuMs)} ms CPU)`,
      );
      Deno.exit(5);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  await watched.promise;
  const eventsPerSec = (events - 1) / ((lastEventAt - firstEventAt) / 1000);
  console.log(JSON.stringify({
    impl: arg("--impl"),
    pods,
    syncMs: Math.round(syncMs),
    syncCpuMs: Math.round(syncCpuMs),
    bytesPerObject: Math.round(heap / pods),
    eventsPerSec: Math.round(eventsPerSec),
    eventsPerCpuSec: Math.round(
      (events - 1) / ((lastEventCpu - firstEventCpu) / 1000),
    ),
    rssMB: Math.round(Deno.memoryUsage().rss / 2 ** 20),
    peakRssMB: peakRssMB(),
  }));
  clearInterval(progress);
  controller.abort();
  await Promise.race([stop(), new Promise((r) => setTimeout(r, 2000))]);
  Deno.exit(0);
}

await main();
