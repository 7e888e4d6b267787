// The Manager's /metrics against what a Go controller built on
// controller-runtime v0.24.1 exposes. Every expectation below is copied from
// the Go sources, never from kubecache's code:
//   controller-runtime pkg/internal/controller/metrics/metrics.go  (controller_runtime_*)
//   controller-runtime pkg/internal/metrics/workqueue.go           (workqueue_*)
//   controller-runtime pkg/metrics/client_go_adapter.go            (rest_client_requests_total)
//   controller-runtime pkg/metrics/leaderelection.go               (leader_election_master_status)
//   client_golang v1.23.2 prometheus/process_collector.go and
//     process_collector_procfsenabled.go                           (process_*, Linux)
// and the `le` strings are what client_golang's text encoder (prometheus/common
// expfmt writeFloat: strconv.AppendFloat(f, 'g', -1, 64)) writes for those
// buckets.

import assert from "node:assert/strict";
import { ConfigMaps } from "../api/resources.ts";
import { Manager } from "./manager.ts";
import { TestCluster } from "./_test_util.ts";
import { type Family, parsePrometheusText } from "./_prom_text_test_util.ts";

interface Pinned {
  type: Family["type"];
  help: string;
  labels: string[];
  /** `le` values of a histogram, as the Go encoder writes them. */
  le?: string[];
}

/** ReconcileTime's Buckets, metrics.go (40 bounds, 0.005 … 60). */
const RECONCILE_LE = [
  "0.005",
  "0.01",
  "0.025",
  "0.05",
  "0.1",
  "0.15",
  "0.2",
  "0.25",
  "0.3",
  "0.35",
  "0.4",
  "0.45",
  "0.5",
  "0.6",
  "0.7",
  "0.8",
  "0.9",
  "1",
  "1.25",
  "1.5",
  "1.75",
  "2",
  "2.5",
  "3",
  "3.5",
  "4",
  "4.5",
  "5",
  "6",
  "7",
  "8",
  "9",
  "10",
  "15",
  "20",
  "25",
  "30",
  "40",
  "50",
  "60",
  "+Inf",
];

/**
 * prometheus.ExponentialBuckets(10e-9, 10, 12), workqueue.go: each bound
 * the previous times 10 in float64, so two of them are not round.
 */
const WORKQUEUE_LE = [
  "1e-08",
  "1e-07",
  "1e-06",
  "9.999999999999999e-06",
  "9.999999999999999e-05",
  "0.001",
  "0.01",
  "0.1",
  "1",
  "10",
  "100",
  "1000",
  "+Inf",
];

const CONTROLLER_RUNTIME: Record<string, Pinned> = {
  controller_runtime_reconcile_total: {
    type: "counter",
    help: "Total number of reconciliations per controller",
    labels: ["controller", "result"],
  },
  controller_runtime_reconcile_errors_total: {
    type: "counter",
    help: "Total number of reconciliation errors per controller",
    labels: ["controller"],
  },
  controller_runtime_terminal_reconcile_errors_total: {
    type: "counter",
    help: "Total number of terminal reconciliation errors per controller",
    labels: ["controller"],
  },
  controller_runtime_reconcile_panics_total: {
    type: "counter",
    help: "Total number of reconciliation panics per controller",
    labels: ["controller"],
  },
  controller_runtime_reconcile_time_seconds: {
    type: "histogram",
    help: "Length of time per reconciliation per controller",
    labels: ["controller"],
    le: RECONCILE_LE,
  },
  controller_runtime_max_concurrent_reconciles: {
    type: "gauge",
    help: "Maximum number of concurrent reconciles per controller",
    labels: ["controller"],
  },
  controller_runtime_active_workers: {
    type: "gauge",
    help: "Number of currently used workers per controller",
    labels: ["controller"],
  },
  workqueue_depth: {
    type: "gauge",
    help: "Current depth of workqueue by workqueue and priority",
    labels: ["controller", "name", "priority"],
  },
  workqueue_adds_total: {
    type: "counter",
    help: "Total number of adds handled by workqueue",
    labels: ["controller", "name"],
  },
  workqueue_queue_duration_seconds: {
    type: "histogram",
    help:
      "How long in seconds an item stays in workqueue before being requested",
    labels: ["controller", "name"],
    le: WORKQUEUE_LE,
  },
  workqueue_work_duration_seconds: {
    type: "histogram",
    help: "How long in seconds processing an item from workqueue takes.",
    labels: ["controller", "name"],
    le: WORKQUEUE_LE,
  },
  workqueue_unfinished_work_seconds: {
    type: "gauge",
    help: "How many seconds of work has been done that " +
      "is in progress and hasn't been observed by work_duration. Large " +
      "values indicate stuck threads. One can deduce the number of stuck " +
      "threads by observing the rate at which this increases.",
    labels: ["controller", "name"],
  },
  workqueue_longest_running_processor_seconds: {
    type: "gauge",
    help: "How many seconds has the longest running " +
      "processor for workqueue been running.",
    labels: ["controller", "name"],
  },
  workqueue_retries_total: {
    type: "counter",
    help:
      "Total number of items added to the workqueue with a non-zero delay (rate-limited requeues, explicit RequeueAfter or AddAfter calls)",
    labels: ["controller", "name"],
  },
  rest_client_requests_total: {
    type: "counter",
    help:
      "Number of HTTP requests, partitioned by status code, method, and host.",
    labels: ["code", "host", "method"],
  },
  leader_election_master_status: {
    type: "gauge",
    help:
      "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
    labels: ["name"],
  },
};

/**
 * client_golang's process collector on Linux (controller-runtime registers
 * it): read from /proc, which Deno opens only to a program run with `-A`.
 */
const PROCESS: Record<string, Pinned> = {
  process_cpu_seconds_total: {
    type: "counter",
    help: "Total user and system CPU time spent in seconds.",
    labels: [],
  },
  process_open_fds: {
    type: "gauge",
    help: "Number of open file descriptors.",
    labels: [],
  },
  process_max_fds: {
    type: "gauge",
    help: "Maximum number of open file descriptors.",
    labels: [],
  },
  process_virtual_memory_bytes: {
    type: "gauge",
    help: "Virtual memory size in bytes.",
    labels: [],
  },
  process_virtual_memory_max_bytes: {
    type: "gauge",
    help: "Maximum amount of virtual memory available in bytes.",
    labels: [],
  },
  process_resident_memory_bytes: {
    type: "gauge",
    help: "Resident memory size in bytes.",
    labels: [],
  },
  process_start_time_seconds: {
    type: "gauge",
    help: "Start time of the process since unix epoch in seconds.",
    labels: [],
  },
  process_network_receive_bytes_total: {
    type: "counter",
    help: "Number of bytes received by the process over the network.",
    labels: [],
  },
  process_network_transmit_bytes_total: {
    type: "counter",
    help: "Number of bytes sent by the process over the network.",
    labels: [],
  },
};

/** The process families kubecache exposes under any permissions. */
const ALWAYS = [
  "process_cpu_seconds_total",
  "process_resident_memory_bytes",
  "process_start_time_seconds",
];

/**
 * What controller-runtime registers and kubecache does not, and why (the
 * test fails when one of them appears, so this list stays true).
 */
const NOT_EXPOSED = {
  // Counted only when a ReconciliationTimeout wraps the reconcile's
  // context; kubecache has no such option (ctx.signal is the shutdown's).
  controller_runtime_reconcile_timeouts_total: "no reconcile timeout",
  // client-go's elector counts a renewal that missed its fast path;
  // kubecache's elector has one path.
  leader_election_slowpath_total: "one renewal path",
};

/** Scrape a running manager's /metrics (one controller, leader election on). */
async function scrape(): Promise<Map<string, Family>> {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "a", namespace: "default" },
  });
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    metrics: { port: 0 },
    leaderElection: { name: "lock", namespace: "default", identity: "me" },
  });
  let n = 0;
  manager.controller("cm", ConfigMaps, { maxConcurrentReconciles: 2 })
    .complete(() => {
      n++;
    });
  const run = c.run(manager);
  await c.until(() => n === 1, "a reconcile");
  const res = await fetch(
    `http://127.0.0.1:${manager.addresses().metrics!.port}/metrics`,
  );
  const families = parsePrometheusText(await res.text());
  await run.stop();
  return families;
}

/** Assert `families` has each of `pinned` as the Go sources declare it. */
function assertPinned(
  families: Map<string, Family>,
  pinned: Record<string, Pinned>,
): void {
  for (const [name, want] of Object.entries(pinned)) {
    const got = families.get(name);
    assert.ok(got, `${name} is missing`);
    assert.equal(got.type, want.type, `${name}: type`);
    assert.equal(got.help, want.help, `${name}: help`);
    assert.ok(got.samples.length > 0, `${name}: no samples`);
    for (const s of got.samples) {
      // client_golang writes labels sorted by name, `le` last.
      assert.deepEqual(
        Object.keys(s.labels),
        s.name.endsWith("_bucket") ? [...want.labels, "le"] : want.labels,
        `${name}: label names (in the written order) of ${s.name}`,
      );
    }
    if (want.le) {
      const first = got.samples.find((s) => s.name === `${name}_bucket`)!;
      const sameSeries = (s: { labels: Record<string, string> }) =>
        want.labels.every((l) => s.labels[l] === first.labels[l]);
      const le = got.samples.filter((s) =>
        s.name === `${name}_bucket` && sameSeries(s)
      ).map((s) => s.labels.le);
      assert.deepEqual(le, want.le, `${name}: buckets`);
    }
  }
}

Deno.test("Manager /metrics: every family controller-runtime v0.24.1 exposes, with its type, help, label names and buckets", async () => {
  const families = await scrape();
  assertPinned(families, CONTROLLER_RUNTIME);
  assertPinned(
    families,
    Object.fromEntries(ALWAYS.map((name) => [name, PROCESS[name]])),
  );
  for (const name of Object.keys(NOT_EXPOSED)) {
    assert.ok(!families.has(name), `${name} is exposed: update NOT_EXPOSED`);
  }
});

Deno.test("Manager /metrics: the workqueue series carry the controller's name as both name and controller, and priority empty", async () => {
  const families = await scrape();
  const depth = families.get("workqueue_depth")!.samples;
  assert.deepEqual(depth.map((s) => s.labels), [
    { controller: "cm", name: "cm", priority: "" },
  ]);
  const adds = families.get("workqueue_adds_total")!.samples;
  assert.deepEqual(adds.map((s) => [s.labels, s.value]), [
    [{ controller: "cm", name: "cm" }, 1],
  ]);
});

Deno.test("Manager /metrics: process metrics read from Deno, and the V8 heap", async () => {
  const families = await scrape();
  const value = (name: string) => families.get(name)?.samples[0].value;
  const rss = value("process_resident_memory_bytes")!;
  // This test process holds at least a V8 heap: more than 1 MiB, less than 64 GiB.
  assert.ok(rss > 2 ** 20 && rss < 2 ** 36, `rss ${rss}`);
  assert.ok(value("process_cpu_seconds_total")! > 0);
  // Started before now, and not before this year.
  const start = value("process_start_time_seconds")!;
  assert.ok(start <= Date.now() / 1000 && start > Date.UTC(2026, 0, 1) / 1000);
  const heapUsed = value("nodejs_heap_size_used_bytes")!;
  const heapTotal = value("nodejs_heap_size_total_bytes")!;
  assert.ok(heapUsed > 0 && heapUsed <= heapTotal);
  assert.equal(families.get("nodejs_heap_size_used_bytes")!.type, "gauge");
  assert.ok(value("nodejs_external_memory_bytes")! >= 0);
});

/** The process metrics of a child Deno run with `flags`, as text. */
async function childProcessMetrics(flags: string[]): Promise<string> {
  const module = new URL("./_process_metrics.ts", import.meta.url).href;
  const registry = new URL("./metrics.ts", import.meta.url).href;
  const script = [
    `import { registerProcessMetrics } from ${JSON.stringify(module)};`,
    `import { MetricsRegistry } from ${JSON.stringify(registry)};`,
    "const r = new MetricsRegistry();",
    "registerProcessMetrics(r);",
    // One more open fd, where the child may open a file.
    'const read = Deno.permissions.querySync({ name: "read" }).state === "granted";',
    "const file = read ? Deno.openSync(Deno.execPath()) : undefined;",
    "console.log(r.expose());",
    "file?.close();",
  ].join("\n");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", ...flags, "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(script));
  await writer.close();
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  return new TextDecoder().decode(out.stdout).replace(/\n+$/, "\n");
}

Deno.test({
  name:
    "process metrics with -A on Linux: all of client_golang's process collector, read from /proc",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const families = parsePrometheusText(await childProcessMetrics(["-A"]));
    assertPinned(families, PROCESS);
    const value = (name: string) => families.get(name)!.samples[0].value;
    // stdin, stdout, stderr and the file the child opened, at least.
    assert.ok(value("process_open_fds") >= 4);
    assert.ok(value("process_max_fds") >= value("process_open_fds"));
    assert.ok(
      value("process_virtual_memory_bytes") >=
        value("process_resident_memory_bytes"),
    );
    // /proc's start time agrees with the runtime's to within a second or so.
    const start = value("process_start_time_seconds");
    assert.ok(Math.abs(start - Date.now() / 1000) < 120, `start ${start}`);
  },
});

Deno.test("process metrics without -A: Deno refuses /proc, so only what Deno itself tells is written, with no prompt", async () => {
  const families = parsePrometheusText(
    await childProcessMetrics(["--allow-read"]),
  );
  const processFamilies = [...families.keys()].filter((n) =>
    n.startsWith("process_")
  ).sort();
  assert.deepEqual(processFamilies, [...ALWAYS].sort());
  // Without even --allow-read (stdin is not a terminal: a prompt would fail the run).
  const bare = parsePrometheusText(await childProcessMetrics([]));
  assert.deepEqual(
    [...bare.keys()].filter((n) => n.startsWith("process_")).sort(),
    [...ALWAYS].sort(),
  );
});
