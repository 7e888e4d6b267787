/**
 * Memory under churn: RSS over time of a client that syncs N pods from a
 * FakeApiServer over TLS and then follows a stream of updates to them, as
 * a controller's informer does on a busy cluster.
 *
 * The FakeApiServer runs in a process of its own (its memory is not the
 * client's), seeded with `--pods` bench pods (about 4.5 KB of JSON each).
 * Each variant runs in a fresh client process: it syncs, says so, and the
 * server then replaces pods one after the other (a label and the status's
 * probe time change, the size stays) at `--rate` updates per second until
 * `--updates` were made; the client counts the MODIFIED events. The
 * orchestrator samples the client's RSS (`/proc/PID/status` VmRSS) every
 * 100 ms and its CPU time (`/proc/PID/stat`), and prints per variant: the
 * peak RSS until the sync, the peak under churn, the RSS at the end, the
 * sync's and the churn's CPU time. No client forces a collection.
 *
 * A variant is an implementation, optionally with V8 flags after a colon:
 * `kubecache`, `kubecache:--max-old-space-size=128` (several flags joined
 * by `/`: `kubecache:--max-semi-space-size=1/--max-old-space-size=128`),
 * `raw` (fetch 500-item
 * pages, `JSON.parse`, `Map.set`; then the watch read with `fetch`, lines
 * split and parsed, `Map.set`), `kubecache-strip` (`stripManagedFields` on
 * the ListerWatcher), `idle` (a process that made a `KubeClient` and waits).
 * With `--rounds R` the variants run R times in a rotating order.
 *
 * Run: deno run -A bench/churn_rss.ts [--pods 10000] [--updates 20000]
 *   [--rate 500] [--rounds 1] [--samples FILE.csv]
 *   [--variants raw,kubecache,kubecache:--max-semi-space-size=1]
 *
 * @module
 */

import { FakeApiServer } from "../testing/fake_api_server.ts";
import { makePki } from "../testing/pki_test_util.ts";
import { benchPod, Rng } from "./_pods.ts";
import { Pods } from "../api/resources.ts";
import type { Pod } from "../api/types.ts";
import type { KubeObject } from "../api/object.ts";
import { KubeClient } from "../client/rest.ts";
import { KubeConfig } from "../client/config.ts";
import { listWatch } from "../api/resource_client.ts";
import { newSharedIndexInformer } from "../cache/shared_informer.ts";
import { stripManagedFields } from "../cache/transform.ts";
import { readTextUntil } from "../testing/read_text.ts";

function option(name: string, fallback: string): string {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : fallback;
}

const role = option("--role", "main");
const pods = Number(option("--pods", "10000"));

// --- server ----------------------------------------------------------------

async function server(): Promise<void> {
  const dir = option("--pki", "");
  const read = (f: string) => Deno.readTextFileSync(`${dir}/${f}`);
  const api = await FakeApiServer.start({
    tls: { cert: read("server.crt"), key: read("server.key") },
    controllers: false,
  });
  const rng = new Rng(3);
  const now = Date.now();
  const names: [string, string][] = [];
  for (let i = 0; i < pods; i++) {
    const pod = api.create(Pods, benchPod(i, rng, now));
    names.push([pod.metadata.namespace!, pod.metadata.name!]);
  }
  console.log(JSON.stringify({ url: api.url }));
  let next = 0;
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
  let buffered = "";
  for await (const text of lines) {
    buffered += text;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const [cmd, n, rate] = buffered.slice(0, nl).split(" ");
      buffered = buffered.slice(nl + 1);
      if (cmd !== "churn") continue;
      // Updates in 10 ms ticks, each tick catching up with the rate.
      const total = Number(n);
      const t0 = performance.now();
      let done = 0;
      while (done < total) {
        const due = Math.min(
          total,
          Math.floor((performance.now() - t0) / 1000 * Number(rate)) + 1,
        );
        for (; done < due; done++) {
          const [ns, name] = names[next++ % names.length];
          const old = api.get(Pods, ns, name)!;
          api.update(Pods, changed(old, next));
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      console.log("churned");
    }
  }
  await api.close();
}

/** `pod` with a new label value and probe time: a new object, the same size. */
function changed(pod: Pod, n: number): Pod {
  const conditions = pod.status?.conditions?.map((c) => ({
    ...c,
    lastProbeTime: new Date(Date.now()).toISOString(),
  }));
  return {
    ...pod,
    metadata: {
      ...pod.metadata,
      labels: { ...pod.metadata.labels, churn: String(n % 1000) },
    },
    status: { ...pod.status, conditions },
  };
}

// --- client ----------------------------------------------------------------

async function client(): Promise<void> {
  const impl = option("--impl", "kubecache");
  const url = option("--url", "");
  const caData = Deno.readTextFileSync(option("--ca", ""));
  const updates = Number(option("--updates", "0"));
  let added = 0;
  let updated = 0;
  const synced = Promise.withResolvers<void>();
  const watched = Promise.withResolvers<void>();
  const h = {
    add() {
      if (++added === pods) synced.resolve();
    },
    update() {
      if (++updated === updates) watched.resolve();
    },
  };
  if (impl === "idle") {
    const c = new KubeClient(KubeConfig.fromOptions({ server: url, caData }));
    console.log("synced");
    await new Promise((r) => setTimeout(r, 2000));
    c.close();
    console.log("done");
    Deno.exit(0);
  }
  if (impl === "raw") rawLoop(url, caData, h);
  else {
    const c = new KubeClient(KubeConfig.fromOptions({ server: url, caData }));
    const lw = impl === "kubecache-strip"
      ? listWatch(c, Pods, { transform: stripManagedFields })
      : listWatch(c, Pods);
    const informer = newSharedIndexInformer(lw);
    informer.addEventHandler({ onAdd: h.add, onUpdate: h.update });
    informer.run(new AbortController().signal);
  }
  await synced.promise;
  console.log("synced");
  await watched.promise;
  console.log("done");
  Deno.exit(0);
}

/** fetch 500-item pages, JSON.parse, Map.set; then the watch, line by line. */
async function rawLoop(
  url: string,
  caData: string,
  h: { add(): void; update(): void },
): Promise<void> {
  const http = Deno.createHttpClient({ caCerts: [caData] });
  const map = new Map<string, KubeObject>();
  const key = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
  let cont = "";
  let rv = "";
  do {
    const q = new URLSearchParams({ limit: "500" });
    if (cont) q.set("continue", cont);
    const res = await fetch(`${url}/api/v1/pods?${q}`, { client: http });
    const page = JSON.parse(await res.text());
    rv ||= page.metadata.resourceVersion;
    for (const item of page.items) {
      map.set(key(item), item);
      h.add();
    }
    cont = page.metadata.continue ?? "";
  } while (cont);
  const res = await fetch(
    `${url}/api/v1/pods?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`,
    { client: http },
  );
  const utf8 = new TextDecoder();
  let rest = "";
  for await (const chunk of res.body!) {
    const lines = (rest + utf8.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      if (!line) continue;
      const ev = JSON.parse(line);
      if (ev.type !== "MODIFIED") continue;
      map.set(key(ev.object), ev.object);
      h.update();
    }
  }
}

// --- orchestrator ----------------------------------------------------------

/** VmRSS of a process in MB, or undefined once it is gone. */
function rssMB(pid: number): number | undefined {
  try {
    const s = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = s.match(/^VmRSS:\s+(\d+) kB/m)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** User + system CPU time of a process (all threads), in ms. */
function cpuMsOf(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 (11 and 12 after the name).
  return (Number(f[11]) + Number(f[12])) * 10;
}

interface Row {
  variant: string;
  syncPeak: number;
  churnPeak: number;
  end: number;
  syncCpu: number;
  churnCpu: number;
}

async function main(): Promise<void> {
  const updates = Number(option("--updates", "20000"));
  const rate = Number(option("--rate", "500"));
  const rounds = Number(option("--rounds", "1"));
  const variants = option("--variants", "raw,kubecache").split(",");
  const samplesFile = option("--samples", "");
  const pki = await makePki();
  const here = new URL(import.meta.url).pathname;
  const srv = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-lock",
      here,
      "--role",
      "server",
      "--pods",
      String(pods),
      "--pki",
      pki.dir,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const srvOut = srv.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const srvIn = srv.stdin.getWriter();
  const first = await readTextUntil(srvOut, (t) => t.includes("\n"));
  const { url } = JSON.parse(first.text.split("\n")[0]);
  let srvText = first.text.slice(first.text.indexOf("\n") + 1);
  const samples: string[] = ["variant,round,ms,phase,rssMB"];
  const rows: Row[] = [];
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(k + round) % variants.length];
      const [impl, more = ""] = variant.split(":");
      const flags = more.replaceAll("/", ",");
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--no-lock",
          ...(flags ? [`--v8-flags=${flags}`] : []),
          here,
          "--role",
          "client",
          "--impl",
          impl,
          "--url",
          url,
          "--ca",
          `${pki.dir}/ca.crt`,
          "--pods",
          String(pods),
          "--updates",
          String(impl === "idle" ? 0 : updates),
        ],
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      const t0 = performance.now();
      let phase = "sync";
      let syncPeak = 0;
      let churnPeak = 0;
      let last = 0;
      const poll = setInterval(() => {
        const r = rssMB(child.pid);
        if (r === undefined) return;
        last = r;
        if (phase === "sync") syncPeak = Math.max(syncPeak, r);
        else churnPeak = Math.max(churnPeak, r);
        samples.push(
          `${variant},${round},${Math.round(performance.now() - t0)},${phase},${
            r.toFixed(1)
          }`,
        );
      }, 100);
      const out = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      const text = (await readTextUntil(out, (t) => t.includes("synced")))
        .text;
      const syncCpu = cpuMsOf(child.pid);
      phase = "churn";
      if (impl !== "idle") {
        await srvIn.write(
          new TextEncoder().encode(`churn ${updates} ${rate}\n`),
        );
      }
      const ended = await readTextUntil(out, (t) => t.includes("done"), text);
      if (ended.ended && !ended.text.includes("done")) {
        throw new Error(`The ${variant} client ended before its updates`);
      }
      const churnCpu = cpuMsOf(child.pid) - syncCpu;
      const end = last;
      clearInterval(poll);
      if (impl !== "idle") {
        const got = await readTextUntil(
          srvOut,
          (t) => t.includes("churned"),
          srvText,
        );
        srvText = got.text.slice(got.text.indexOf("churned") + 8);
      }
      await child.status;
      out.releaseLock();
      const row = { variant, syncPeak, churnPeak, end, syncCpu, churnCpu };
      rows.push(row);
      console.error(JSON.stringify(row));
    }
  }
  await srvIn.close();
  srv.kill();
  await srv.status;
  await Deno.remove(pki.dir, { recursive: true });
  if (samplesFile) await Deno.writeTextFile(samplesFile, samples.join("\n"));
  console.log(
    `\n${pods} pods over TLS, ${updates} updates at ${rate}/s, ${rounds} round(s); Deno ${Deno.version.deno}\n`,
  );
  console.log(
    "| variant | peak RSS to sync MB | peak RSS under churn MB | RSS at end MB | sync CPU ms | churn CPU ms |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
  const fmt = (xs: number[]) => {
    xs.sort((a, b) => a - b);
    const med = xs[(xs.length - 1) >> 1];
    return xs.length === 1
      ? med.toFixed(0)
      : `${med.toFixed(0)} (${xs[0].toFixed(0)}–${xs.at(-1)!.toFixed(0)})`;
  };
  for (const v of variants) {
    const rs = rows.filter((r) => r.variant === v);
    console.log(
      `| ${v} | ${fmt(rs.map((r) => r.syncPeak))} | ${
        fmt(rs.map((r) => r.churnPeak))
      } | ${fmt(rs.map((r) => r.end))} | ${fmt(rs.map((r) => r.syncCpu))} | ${
        fmt(rs.map((r) => r.churnCpu))
      } |`,
    );
  }
}

if (role === "server") await server();
else if (role === "client") await client();
else await main();
