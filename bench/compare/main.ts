/**
 * Side-by-side comparison: the same pods served by a bench server process
 * (`_server.ts`) to kubecache's informer, to @kubernetes/client-node's
 * makeInformer and to a raw baseline (fetch pages, JSON.parse, Map.set;
 * split the watch stream, JSON.parse, Map.set). Each client runs in its
 * own process, one at a time, so heap figures are each client's own.
 *
 * Run with `--help` for the options. Prints a Markdown table: initial sync
 * time (wall clock and CPU time of the client process), heap bytes per
 * object after a forced GC, watch events/s to a no-op handler (per
 * wall-clock second and per CPU second); ratios to the raw baseline use CPU
 * time, which a busy machine disturbs far less than wall time. `--huge N`
 * adds one N-pod run without client-node (known to fail well before 300k
 * pods). A second table gives watch throughput without HTTP
 * (`_watch_inproc.ts`).
 *
 * With `--rounds N` every implementation runs N times per size, in a
 * rotating order; the table shows medians, and each "vs raw" figure is the
 * median of the per-round ratios (each run compared with the raw run of
 * the same round), which a noisy shared machine disturbs least.
 *
 * @module
 */

import { readTextUntil } from "../../testing/read_text.ts";
import { peakRssMB } from "./_rss.ts";
import { makePki } from "../../testing/pki_test_util.ts";

const USAGE = `Usage: deno task bench:compare [options]

Serves N realistic pods (~4.5 KB of JSON each) from a bench server process
and syncs + watches them with each implementation, one client process at a
time; prints Markdown tables (medians, paired "vs raw" ratios, each
client's peak RSS). A client that fails gets a row saying why: V8's heap
limit (with its heap after the last GC), the kernel's OOM killer, the
timeout or its last error line, then its last progress line (objects
added, heap, RSS every 10 s) and how many list items the server had sent.

Options:
  --sizes A,B,...      pod counts (default 10000,50000,100000)
  --huge N             one more size, without client-node (default 300000; 0 = none)
  --events E           MODIFIED events per watch measurement (default 20000)
  --rounds N           runs per implementation and size, rotating order (default 1)
  --first-list M,...   how the server answers the informer's first list
                       (resourceVersion "0" with a limit): unpaged (in one
                       piece, as the apiserver's watch cache does) and/or
                       paged (pages of the limit, as the apiserver does for
                       resourceVersion ""); default unpaged,paged
  --impls I,...        default raw,kubecache,kubecache-strip,kubecache-delete,client-node
                       also: raw-limits (the raw loop with kubecache's JSON
                       depth limit on each page), kubecache-client
                       (KubeClient.list and watch into a Map, no informer),
                       kubecache-watchlist, kubecache-metadata,
                       kubecache-metadata-strip, kubecache-fetch (the
                       watch over fetch instead of its own socket), idle
                       (a process with a KubeClient and nothing else: the
                       RSS floor of any client)
  --client-heap MB     --max-old-space-size of the client processes, or
                       "default" for V8's default (default 16384)
  --client-v8-flags F  more V8 flags for the client processes, comma-separated
                       (e.g. --max-semi-space-size=2)
  --timeout MS         per client process, then it is killed (default 600000)
  --watch-writes W     how the server writes watch events: event (one
                       chunk per event, as a real apiserver flushes; the
                       default) or 64k (~64 KiB chunks, many events each);
                       the watch-without-HTTP table uses the same chunking
  --tls                serve over HTTPS (a throw-away CA and server
                       certificate made with openssl; every client trusts
                       the CA)
  --no-inproc          skip the watch-without-HTTP table
  --help               print this and exit
`;

if (Deno.args.includes("--help") || Deno.args.includes("-h")) {
  console.log(USAGE);
  Deno.exit(0);
}

interface Result {
  impl: string;
  pods: number;
  syncMs?: number;
  syncCpuMs?: number;
  bytesPerObject?: number;
  eventsPerSec?: number;
  eventsPerCpuSec?: number;
  rssMB?: number;
  /** The client's peak RSS (its own VmHWM, or polled while it ran). */
  peakRssMB?: number;
  error?: string;
}

const KNOWN_FLAGS = new Set([
  "--sizes",
  "--huge",
  "--events",
  "--rounds",
  "--first-list",
  "--impls",
  "--client-heap",
  "--timeout",
  "--no-inproc",
  "--watch-writes",
  "--tls",
  "--client-v8-flags",
]);
for (const [i, a] of Deno.args.entries()) {
  // The value of --client-v8-flags is itself a flag.
  if (Deno.args[i - 1] === "--client-v8-flags") continue;
  if (a.startsWith("--") && !KNOWN_FLAGS.has(a)) {
    console.error(`Unknown option ${a}\n\n${USAGE}`);
    Deno.exit(2);
  }
}

function option(name: string, fallback: string): string {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : fallback;
}

const here = new URL(".", import.meta.url);
const sizes = option("--sizes", "10000,50000,100000").split(",").map(Number);
const huge = Number(option("--huge", "300000"));
const events = Number(option("--events", "20000"));
const impls = option(
  "--impls",
  "raw,kubecache,kubecache-strip,kubecache-delete,client-node",
).split(",");
const timeoutMs = Number(option("--timeout", "600000"));
const rounds = Number(option("--rounds", "1"));
if (!Number.isInteger(rounds) || rounds < 1) {
  throw new RangeError(`--rounds must be a whole number >= 1: got ${rounds}`);
}
const firstLists = option("--first-list", "unpaged,paged").split(",");
for (const m of firstLists) {
  if (m !== "unpaged" && m !== "paged") {
    throw new RangeError(`--first-list takes unpaged and/or paged: got ${m}`);
  }
}
const watchWrites = option("--watch-writes", "event");
if (watchWrites !== "event" && watchWrites !== "64k") {
  throw new RangeError(
    `--watch-writes takes event or 64k: got ${watchWrites}`,
  );
}
const clientHeap = option("--client-heap", "16384");
// The PKI lives for the run; its directory is removed at the end.
const pki = Deno.args.includes("--tls") ? await makePki() : undefined;
const tlsArgs = pki ? ["--tls", pki.dir] : [];
const caArgs = pki ? ["--ca", `${pki.dir}/ca.crt`] : [];
const HEAP = "--max-old-space-size=16384";
const extraFlags = option("--client-v8-flags", "");
const CLIENT_FLAGS =
  (clientHeap === "default"
    ? "--expose-gc"
    : `--expose-gc,--max-old-space-size=${clientHeap}`) +
  (extraFlags ? `,${extraFlags}` : "");
// The server holds only the encodings some implementation asks for.
const serve = [
  ...(impls.some((i) => !i.includes("metadata")) ? ["full"] : []),
  ...(impls.some((i) => i.includes("metadata")) ? ["metadata"] : []),
].join(",");

/** A running bench server: its URLs and what to ask it when a client fails. */
interface Server {
  url: string;
  control: string;
  pid: number;
  /** Set once the server process has exited (it should outlive every client). */
  exited?: Deno.CommandStatus;
}

async function withServer<T>(
  pods: number,
  firstList: string,
  fn: (server: Server) => Promise<T>,
): Promise<T> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-lock",
      "-A",
      `--v8-flags=${HEAP}`,
      new URL("_server.ts", here).pathname,
      "--pods",
      String(pods),
      "--first-list",
      firstList,
      "--serve",
      serve,
      "--watch-writes",
      watchWrites,
      ...tlsArgs,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { text, ended } = await readTextUntil(reader, (t) => t.includes("\n"));
  if (ended) throw new Error(`Bench server for ${pods} pods exited early`);
  const { url, control } = JSON.parse(text.split("\n")[0]);
  const server: Server = { url, control, pid: child.pid };
  child.status.then((s) => server.exited = s);
  try {
    return await fn(server);
  } finally {
    console.error(JSON.stringify({
      server: { pods, firstList, peakRssMB: peakRssMB(child.pid) },
    }));
    await child.stdin.close();
    await reader.cancel();
    await child.status;
  }
}

/** What the server had sent when a client failed, e.g. "412000 of 600000 list items sent". */
async function serverProgress(server: Server): Promise<string> {
  if (server.exited) {
    return `the bench server had exited (code ${server.exited.code}${
      server.exited.signal ? `, ${server.exited.signal}` : ""
    })`;
  }
  try {
    const res = await fetch(`${server.control}/stats`, {
      signal: AbortSignal.timeout(10_000),
    });
    const s = await res.json();
    return `server: ${s.listItemsSent} of ${s.listItems} items of list ${s.lists} sent`;
  } catch (e) {
    return `bench server not answering (${(e as Error).message})`;
  }
}

/** Whether the kernel log names `pid` as killed by the out-of-memory killer. */
async function oomKilled(pid: number): Promise<boolean> {
  try {
    const out = await new Deno.Command("dmesg", {
      stdout: "piped",
      stderr: "null",
    })
      .output();
    return new RegExp(`Killed process ${pid}\\b`).test(
      new TextDecoder().decode(out.stdout),
    );
  } catch {
    return false;
  }
}

/**
 * Why a client process failed, in one line for the table: V8's heap limit
 * (with the heap size of its last GC), the kernel's OOM killer, the bench's
 * timeout, a signal, or the client's last error line; then how far it got
 * (its last progress line, what the server had sent).
 */
async function failureReason(
  stderrText: string,
  status: Deno.CommandStatus,
  opts: { pid: number; timedOut: boolean; server: Server },
): Promise<string> {
  const lines = stderrText.split("\n").map((l) => l.trim()).filter((l) =>
    l !== "" && l !== "#"
  );
  const progress = lines.findLast((l) => l.startsWith("progress "));
  const other = lines.filter((l) => !l.startsWith("progress "));
  const oom = other.find((l) => /out of memory/i.test(l));
  let why: string;
  if (opts.timedOut) {
    why = `timed out after ${timeoutMs / 1000} s (--timeout)`;
  } else if (oom) {
    // V8's "Last few GCs" lines: "Mark-Compact 4093.2 (4130.5) -> ...".
    const gc = other.findLast((l) => /Mark-Compact/.test(l))?.match(
      /Mark-Compact[^\d]*([\d.]+) \(([\d.]+)\) -> ([\d.]+)/,
    );
    why = `V8 heap limit: "${oom.replace(/^#\s*/, "")}"${
      gc ? ` (heap ${Math.round(Number(gc[3]))} MB after the last GC)` : ""
    }`;
  } else if (status.signal === "SIGKILL" && await oomKilled(opts.pid)) {
    why = "killed by the kernel's out-of-memory killer (dmesg)";
  } else {
    const line = other.findLast((l) => /error/i.test(l)) ?? other.at(-1);
    why = line ?? `no message on stderr`;
  }
  const how = status.signal
    ? `signal ${status.signal}`
    : `exit code ${status.code}`;
  const at = progress
    ? `last progress ${progress.slice("progress ".length)}`
    : "no progress line";
  return `${why}; ${how}; ${at}; ${await serverProgress(opts.server)}`;
}

/** Runs one client process; never throws: a failure is a Result with `error`. */
async function runClient(
  impl: string,
  pods: number,
  server: Server,
): Promise<Result> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-lock",
      "-A",
      `--v8-flags=${CLIENT_FLAGS}`,
      new URL("_client.ts", here).pathname,
      "--impl",
      impl,
      "--url",
      server.url,
      "--control",
      server.control,
      "--pods",
      String(pods),
      "--events",
      String(events),
      ...caArgs,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Peak RSS while it runs (the process's own figure is lost if it dies).
  let peak: number | undefined;
  const poll = setInterval(() => {
    peak = peakRssMB(child.pid) ?? peak;
  }, 1000);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, timeoutMs);
  try {
    const out = await child.output();
    const stdout = new TextDecoder().decode(out.stdout).trim();
    const line = stdout.split("\n").findLast((l) => l.startsWith("{"));
    if (out.success && line) return JSON.parse(line);
    const error = await failureReason(
      new TextDecoder().decode(out.stderr),
      out,
      { pid: child.pid, timedOut, server },
    );
    return { impl, pods, peakRssMB: peak, error };
  } catch (e) {
    return { impl, pods, peakRssMB: peak, error: `bench: ${e}` };
  } finally {
    clearInterval(poll);
    clearTimeout(timer);
  }
}

function median(xs: number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

type Metric =
  | "syncMs"
  | "syncCpuMs"
  | "bytesPerObject"
  | "eventsPerSec"
  | "eventsPerCpuSec"
  | "peakRssMB"
  | "rssMB";

/** One implementation at one size: a result per round (same index = same round). */
interface Row {
  pods: number;
  firstList: string;
  impl: string;
  runs: Result[];
}

function medianOf(runs: Result[], m: Metric): number | undefined {
  const v = median(runs.flatMap((r) => r[m] === undefined ? [] : [r[m]!]));
  return v === undefined ? undefined : Math.round(v);
}

/** Median over rounds of this run's metric divided by `base`'s run of the same round. */
function pairedRatio(row: Row, base: Row | undefined, m: Metric): string {
  if (!base) return "";
  const ratios = row.runs.flatMap((r, i) => {
    const a = r[m], b = base.runs[i]?.[m];
    return a !== undefined && b !== undefined && b > 0 ? [a / b] : [];
  });
  const v = median(ratios);
  return v === undefined ? "" : `${v.toFixed(2)}×`;
}

function table(rows: Row[]): string {
  const lines = [
    "| pods | first list | implementation | initial sync | sync vs raw | sync CPU | CPU vs raw | heap bytes/object | heap vs raw | watch events/s | events/s vs raw | events/s vs client-node | events per CPU-s | events/CPU-s vs raw | events/CPU-s vs client-node | peak RSS MB | peak RSS vs raw | RSS MB at end |",
    "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const row of rows) {
    const base = rows.find((b) =>
      b.impl === "raw" && b.pods === row.pods && b.firstList === row.firstList
    );
    // client-node runs only unpaged (it lists without a limit); its watch
    // is the same whatever the first list was.
    const peer = rows.find((b) =>
      b.impl === "client-node" && b.pods === row.pods &&
      b.firstList === "unpaged"
    );
    // An empty message still means the run failed.
    const failed = row.runs.find((r) => r.error !== undefined);
    if (failed) {
      lines.push(
        `| ${row.pods} | ${row.firstList} | ${row.impl} | failed: ${
          (failed.error || "no reason given").replaceAll("|", "/")
        } | | | | | | | | | | | | ${failed.peakRssMB ?? ""} | | |`,
      );
      continue;
    }
    const m = (k: Metric) => medianOf(row.runs, k) ?? "";
    const ms = (k: Metric) => {
      const v = medianOf(row.runs, k);
      return v === undefined ? "" : `${v} ms`;
    };
    lines.push(
      `| ${row.pods} | ${row.firstList} | ${row.impl} | ${ms("syncMs")} | ${
        pairedRatio(row, base, "syncMs")
      } | ${ms("syncCpuMs")} | ${pairedRatio(row, base, "syncCpuMs")} | ${
        m("bytesPerObject")
      } | ${pairedRatio(row, base, "bytesPerObject")} | ${
        m("eventsPerSec")
      } | ${pairedRatio(row, base, "eventsPerSec")} | ${
        pairedRatio(row, peer, "eventsPerSec")
      } | ${m("eventsPerCpuSec")} | ${
        pairedRatio(row, base, "eventsPerCpuSec")
      } | ${pairedRatio(row, peer, "eventsPerCpuSec")} | ${m("peakRssMB")} | ${
        pairedRatio(row, base, "peakRssMB")
      } | ${m("rssMB")} |`,
    );
  }
  return lines.join("\n");
}

const rows: Row[] = [];
const runs: [number, string[]][] = sizes.map((n) => [n, impls]);
if (huge > 0) {
  runs.push([huge, impls.filter((i) => i !== "client-node")]);
}
for (const [pods, all] of runs) {
  for (const firstList of firstLists) {
    // client-node lists without a limit: the mode does not change its run.
    const which = firstList === "paged"
      ? all.filter((i) => i !== "client-node")
      : all;
    const sized: Row[] = which.map((impl) => ({
      pods,
      firstList,
      impl,
      runs: [],
    }));
    rows.push(...sized);
    try {
      await withServer(pods, firstList, async (server) => {
        for (let round = 0; round < rounds; round++) {
          // Rotate the order so no implementation always runs first or last.
          for (let i = 0; i < sized.length; i++) {
            const row = sized[(i + round) % sized.length];
            const r = await runClient(row.impl, pods, server);
            console.error(JSON.stringify({ round, firstList, ...r }));
            row.runs[round] = r;
          }
        }
      });
    } catch (e) {
      // The table is still printed, with this size's rows failed.
      for (const row of sized) {
        row.runs.push({ impl: row.impl, pods, error: `bench server: ${e}` });
      }
    }
  }
}
/** Watch without HTTP: raw, the decoder alone and kubecache, alternating in one process. */
async function inproc(): Promise<InprocResult> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-lock",
      "-A",
      "--v8-flags=--expose-gc",
      new URL("_watch_inproc.ts", here).pathname,
      "--impl",
      "raw,decode,kubecache",
      "--events",
      String(events * 2),
      "--rounds",
      String(inprocRounds),
      "--chunks",
      watchWrites,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  console.error(JSON.stringify(r));
  return r;
}

interface InprocResult {
  raw: { eventsPerSec: number; eventsPerCpuSec: number };
  decode: { eventsPerSec: number; eventsPerCpuSec: number };
  kubecache: { eventsPerSec: number; eventsPerCpuSec: number };
  ratios: { decode: number; kubecache: number };
  cpuRatios: { decode: number; kubecache: number };
}

const inprocRounds = Math.max(9, rounds * 3);
const watch = Deno.args.includes("--no-inproc") ? undefined : await inproc();
console.log(
  `\n${events} watch events per run, ${rounds} round(s); Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores\n`,
);
console.log(table(rows));
if (watch) {
  console.log(`
Watch decode and dispatch without HTTP (${events * 2} MODIFIED events, ${
    watchWrites === "event" ? "one chunk per event" : "64 KiB chunks"
  }; ${inprocRounds} alternating rounds in one process, medians; "vs raw" is the median of per-round ratios):

| implementation | events/s | vs raw | events per CPU-s | CPU vs raw |
| --- | ---: | ---: | ---: | ---: |
| raw | ${watch.raw.eventsPerSec} | 1.00× | ${watch.raw.eventsPerCpuSec} | 1.00× |
| decodeWatch alone | ${watch.decode.eventsPerSec} | ${
    watch.ratios.decode.toFixed(2)
  }× | ${watch.decode.eventsPerCpuSec} | ${watch.cpuRatios.decode.toFixed(2)}× |
| kubecache | ${watch.kubecache.eventsPerSec} | ${
    watch.ratios.kubecache.toFixed(2)
  }× | ${watch.kubecache.eventsPerCpuSec} | ${
    watch.cpuRatios.kubecache.toFixed(2)
  }× |`);
}
await pki?.[Symbol.asyncDispose]();
