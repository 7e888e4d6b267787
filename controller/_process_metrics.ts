// The process metrics a Go controller exposes through client_golang's
// process collector (`process_*`, same names, help and meanings), read from
// Deno, plus the V8 heap in place of Go's runtime metrics. Internal to
// controller/; the Manager registers it.

import process from "node:process";
import type { MetricsRegistry } from "./metrics.ts";

/** Clock ticks per second of /proc's CPU times (procfs' `userHZ`). */
const USER_HZ = 100;

/**
 * Register the process collector on `registry`. Always:
 * `process_cpu_seconds_total`, `process_resident_memory_bytes`,
 * `process_start_time_seconds` and the V8 heap gauges (named as Node's
 * prom-client names them, so Node.js dashboards read them). On Linux, when
 * the program may read /proc (Deno allows it only with `-A`; never prompted
 * for):
 * `process_open_fds`, `process_max_fds`, `process_virtual_memory_bytes`,
 * `process_virtual_memory_max_bytes` and the network byte counters, as
 * client_golang reads them from procfs. Without it those are left out, as
 * client_golang leaves out what it cannot read.
 */
export function registerProcessMetrics(registry: MetricsRegistry): void {
  const cpu = registry.counter(
    "process_cpu_seconds_total",
    "Total user and system CPU time spent in seconds.",
  );
  const rss = registry.gauge(
    "process_resident_memory_bytes",
    "Resident memory size in bytes.",
  );
  const start = registry.gauge(
    "process_start_time_seconds",
    "Start time of the process since unix epoch in seconds.",
  );
  const heapTotal = registry.gauge(
    "nodejs_heap_size_total_bytes",
    "Process heap size from V8 in bytes.",
  );
  const heapUsed = registry.gauge(
    "nodejs_heap_size_used_bytes",
    "Process heap size used from V8 in bytes.",
  );
  const external = registry.gauge(
    "nodejs_external_memory_bytes",
    "V8 external memory size in bytes.",
  );
  // The runtime's start (performance.timeOrigin) until /proc says better.
  let startSeconds = performance.timeOrigin / 1000;
  let startFromProc = false;
  registry.addCollector(() => {
    const usage = process.cpuUsage();
    const seconds = (usage.user + usage.system) / 1e6;
    cpu.inc(Math.max(0, seconds - cpu.get()));
    const mem = Deno.memoryUsage();
    rss.set(mem.rss);
    heapTotal.set(mem.heapTotal);
    heapUsed.set(mem.heapUsed);
    external.set(mem.external);
    const proc = readProc();
    if (proc) {
      if (!startFromProc && proc.startSeconds !== undefined) {
        startSeconds = proc.startSeconds;
        startFromProc = true;
      }
      const g = (name: string, help: string, v: number | undefined) => {
        if (v !== undefined) registry.gauge(name, help).set(v);
      };
      const c = (name: string, help: string, v: number | undefined) => {
        if (v === undefined) return;
        const counter = registry.counter(name, help);
        counter.inc(Math.max(0, v - counter.get()));
      };
      g("process_open_fds", "Number of open file descriptors.", proc.openFds);
      g(
        "process_max_fds",
        "Maximum number of open file descriptors.",
        proc.maxFds,
      );
      g(
        "process_virtual_memory_bytes",
        "Virtual memory size in bytes.",
        proc.vsize,
      );
      g(
        "process_virtual_memory_max_bytes",
        "Maximum amount of virtual memory available in bytes.",
        proc.maxVsize,
      );
      c(
        "process_network_receive_bytes_total",
        "Number of bytes received by the process over the network.",
        proc.inBytes,
      );
      c(
        "process_network_transmit_bytes_total",
        "Number of bytes sent by the process over the network.",
        proc.outBytes,
      );
    }
    start.set(startSeconds);
  });
}

/** What /proc tells of this process; undefined where it could not be read. */
interface ProcStats {
  startSeconds?: number;
  openFds?: number;
  maxFds?: number;
  vsize?: number;
  maxVsize?: number;
  inBytes?: number;
  outBytes?: number;
}

/**
 * Whether /proc may be read: Deno lets a program read /proc only with all
 * permissions (`-A`), and asking otherwise would throw (or prompt on a
 * terminal, and a scrape must never wait on one). Decided once.
 */
let procReadable: boolean | undefined;

/**
 * Read /proc/self as procfs does, or undefined when the program may not
 * read it or there is no /proc (macOS, Windows).
 */
function readProc(): ProcStats | undefined {
  if (procReadable === undefined) {
    try {
      procReadable = Deno.build.os === "linux" &&
        Deno.permissions.querySync({ name: "read", path: "/proc/self" })
            .state === "granted" &&
        canRead("/proc/self/stat");
    } catch {
      procReadable = false;
    }
  }
  if (!procReadable) return undefined;
  const read = (path: string): string | undefined => {
    try {
      return Deno.readTextFileSync(path);
    } catch {
      return undefined;
    }
  };
  const out: ProcStats = {};
  const stat = read("/proc/self/stat");
  if (stat === undefined) return undefined;
  // Fields after the command, which may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).trim().split(" ");
  // stat(5) numbers fields from 1 with pid and comm first: field n is
  // fields[n - 3] here.
  const vsize = Number(fields[23 - 3]);
  if (Number.isFinite(vsize)) out.vsize = vsize;
  const startTicks = Number(fields[22 - 3]);
  const btime = read("/proc/stat")?.match(/^btime (\d+)$/m)?.[1];
  if (Number.isFinite(startTicks) && btime !== undefined) {
    out.startSeconds = Number(btime) + startTicks / USER_HZ;
  }
  try {
    let n = 0;
    for (const _ of Deno.readDirSync("/proc/self/fd")) n++;
    out.openFds = n;
  } catch {
    // unreadable: left out
  }
  const limits = read("/proc/self/limits");
  if (limits !== undefined) {
    out.maxFds = limit(limits, "Max open files");
    out.maxVsize = limit(limits, "Max address space");
  }
  const netstat = read("/proc/self/net/netstat");
  if (netstat !== undefined) {
    const lines = netstat.split("\n").filter((l) => l.startsWith("IpExt:"));
    if (lines.length >= 2) {
      const names = lines[0].split(/\s+/);
      const values = lines[1].split(/\s+/);
      const at = (name: string) => {
        const i = names.indexOf(name);
        return i < 0 ? undefined : Number(values[i]);
      };
      out.inBytes = at("InOctets");
      out.outBytes = at("OutOctets");
    }
  }
  return out;
}

/** Whether `path` can be read now (it throws NotCapable without -A). */
function canRead(path: string): boolean {
  try {
    Deno.readTextFileSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A soft limit of /proc/self/limits; "unlimited" is 2^64 - 1, as procfs reads it. */
function limit(text: string, name: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(name));
  const soft = line?.slice(name.length).trim().split(/\s+/)[0];
  if (soft === undefined) return undefined;
  if (soft === "unlimited") return 18446744073709551615;
  const n = Number(soft);
  return Number.isFinite(n) ? n : undefined;
}
