// The `workqueue_*` families of a controller's queue, as controller-runtime's
// workqueue metrics provider registers them (names, help, label names,
// buckets), in one place: the controller observes the two durations as they
// happen, the manager's collector sets the rest from `queue.metrics()` at
// scrape time. Internal to controller/.

import type { WorkQueueMetrics } from "../workqueue/metrics.ts";
import type { MetricsRegistry } from "./metrics.ts";

/**
 * client_golang `ExponentialBuckets(start, factor, count)`, computed the
 * way Go computes it (each bound the previous one times `factor`), so the
 * bounds are the same doubles as a Go controller's.
 */
export function exponentialBuckets(
  start: number,
  factor: number,
  count: number,
): number[] {
  const out: number[] = [];
  let b = start;
  for (let i = 0; i < count; i++) {
    out.push(b);
    b *= factor;
  }
  return out;
}

/** controller-runtime's buckets of the two queue histograms: 10 ns … 1000 s. */
const BUCKETS = exponentialBuckets(10e-9, 10, 12);

/**
 * The series of the queue of controller `name`, created now (a controller's
 * series are known at start). controller-runtime names the queue after its
 * controller, so both labels carry the controller's name; `workqueue_depth`
 * has a `priority` label too, "" for a queue without priorities.
 */
export function workqueueMetrics(registry: MetricsRegistry, name: string): {
  onDuration(which: "queue" | "work", ms: number): void;
  update(q: WorkQueueMetrics): void;
} {
  const labels = { name, controller: name };
  const labelNames = ["name", "controller"];
  const depth = registry.gauge(
    "workqueue_depth",
    "Current depth of workqueue by workqueue and priority",
    { labelNames: ["name", "controller", "priority"] },
  ).with({ ...labels, priority: "" });
  const adds = registry.counter(
    "workqueue_adds_total",
    "Total number of adds handled by workqueue",
    { labelNames },
  ).with(labels);
  const latency = registry.histogram(
    "workqueue_queue_duration_seconds",
    "How long in seconds an item stays in workqueue before being requested",
    { labelNames, buckets: BUCKETS },
  ).with(labels);
  const work = registry.histogram(
    "workqueue_work_duration_seconds",
    "How long in seconds processing an item from workqueue takes.",
    { labelNames, buckets: BUCKETS },
  ).with(labels);
  const unfinished = registry.gauge(
    "workqueue_unfinished_work_seconds",
    "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
    { labelNames },
  ).with(labels);
  const longest = registry.gauge(
    "workqueue_longest_running_processor_seconds",
    "How many seconds has the longest running processor for workqueue been running.",
    { labelNames },
  ).with(labels);
  const retries = registry.counter(
    "workqueue_retries_total",
    "Total number of items added to the workqueue with a non-zero delay (rate-limited requeues, explicit RequeueAfter or AddAfter calls)",
    { labelNames },
  ).with(labels);
  return {
    onDuration: (which, ms) =>
      (which === "queue" ? latency : work).observe(ms / 1000),
    update(q) {
      depth.set(q.depth);
      // The queue keeps totals; a counter only goes up by the difference.
      adds.inc(Math.max(0, q.adds - adds.get()));
      retries.inc(Math.max(0, q.retries - retries.get()));
      unfinished.set(q.unfinishedWorkMs / 1000);
      longest.set(q.longestRunningProcessorMs / 1000);
    },
  };
}
