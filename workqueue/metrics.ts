/**
 * What a work queue reports about itself (client-go `util/workqueue`
 * `metrics.go`): depth, adds, retries, queue latency, work duration,
 * unfinished work and the longest running item, as plain numbers read with
 * `queue.metrics()`. No metrics library: export them to yours.
 *
 * @module
 */

/**
 * Count, total and maximum of a series of durations, in ms (what a
 * Prometheus summary without quantiles keeps). The mean is
 * `totalMs / count`.
 *
 * @example Mean time in the queue
 * ```ts
 * import { WorkQueue } from "@kubecache/core/workqueue";
 * import type { DurationSummary } from "@kubecache/core/workqueue";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * // Durations are measured for a named queue (or one with onDuration).
 * const queue = new WorkQueue<string>({ name: "demo", clock });
 * queue.add("a");
 * await clock.step(40);
 * queue.done((await queue.get())!);
 * const latency: DurationSummary = queue.metrics().queueLatency;
 * assert.deepEqual(latency, { count: 1, totalMs: 40, maxMs: 40 });
 * queue.shutDown();
 * ```
 */
export interface DurationSummary {
  /** Number of durations observed. */
  count: number;
  /** Sum of the durations (ms). */
  totalMs: number;
  /** Longest duration observed (ms); 0 when none. */
  maxMs: number;
}

/**
 * A snapshot of a work queue's metrics (client-go `queueMetrics`: the
 * `workqueue_*` Prometheus series, under the same meanings). The durations
 * are measured only for a queue with a `name` or an `onDuration` hook (as
 * client-go measures only named queues); an anonymous queue reports them
 * as 0 and reads no clock.
 *
 * @example Read the metrics of a queue
 * ```ts
 * import { WorkQueue } from "@kubecache/core/workqueue";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const queue = new WorkQueue<string>({ name: "demo", clock });
 * queue.add("a");
 * await clock.step(30);
 * const key = await queue.get();
 * await clock.step(20);
 * queue.done(key!);
 * const m = queue.metrics();
 * assert.equal(m.adds, 1);
 * assert.equal(m.depth, 0);
 * assert.deepEqual(m.queueLatency, { count: 1, totalMs: 30, maxMs: 30 });
 * assert.deepEqual(m.workDuration, { count: 1, totalMs: 20, maxMs: 20 });
 * ```
 */
export interface WorkQueueMetrics {
  /** The queue's name ("" when unnamed). */
  name: string;
  /** Items waiting to be handed out (`workqueue_depth`, = `len()`). */
  depth: number;
  /** Items being processed: handed out by `get` and not yet `done`. */
  processing: number;
  /** Adds that queued an item; a duplicate of a waiting item does not count (`workqueue_adds_total`). */
  adds: number;
  /** Delayed or rate-limited re-adds: every `addAfter` and `addRateLimited` (`workqueue_retries_total`). */
  retries: number;
  /** Time items waited between `add` and `get` (`workqueue_queue_duration_seconds`). */
  queueLatency: DurationSummary;
  /** Time items took between `get` and `done` (`workqueue_work_duration_seconds`). */
  workDuration: DurationSummary;
  /** Sum, over the items being processed now, of how long each has run (ms) (`workqueue_unfinished_work_seconds`). */
  unfinishedWorkMs: number;
  /** How long the item processed for the longest has run so far (ms); 0 when idle (`workqueue_longest_running_processor_seconds`). */
  longestRunningProcessorMs: number;
}
