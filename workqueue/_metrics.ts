// The counters behind WorkQueue.metrics(), kept apart so the queue file is
// about the queue's guarantees. The per-item times live in the queue itself.
// Internal to workqueue/.

import type { DurationSummary, WorkQueueMetrics } from "./metrics.ts";

/** Counters and duration summaries of one queue (client-go `defaultQueueMetrics`). */
export class MetricsRecorder {
  readonly #name: string;
  adds = 0;
  retries = 0;
  readonly #latency: DurationSummary = { count: 0, totalMs: 0, maxMs: 0 };
  readonly #work: DurationSummary = { count: 0, totalMs: 0, maxMs: 0 };

  readonly #onDuration?: (which: "queue" | "work", ms: number) => void;

  constructor(
    name: string,
    onDuration?: (which: "queue" | "work", ms: number) => void,
  ) {
    this.#name = name;
    this.#onDuration = onDuration;
  }

  /** An item was handed out after waiting `ms`. */
  queued(ms: number): void {
    observe(this.#latency, ms);
    this.#onDuration?.("queue", ms);
  }

  /** An item was done after `ms` of processing. */
  worked(ms: number): void {
    observe(this.#work, ms);
    this.#onDuration?.("work", ms);
  }

  /**
   * A snapshot at `now`, given the queue's depth, how many items are in
   * flight and their start times (none when the queue is not timed).
   */
  snapshot(
    now: number,
    depth: number,
    processing: number,
    startTimes: Iterable<number>,
  ): WorkQueueMetrics {
    let unfinished = 0;
    let longest = 0;
    for (const started of startTimes) {
      const ran = now - started;
      unfinished += ran;
      if (ran > longest) longest = ran;
    }
    return {
      name: this.#name,
      depth,
      processing,
      adds: this.adds,
      retries: this.retries,
      queueLatency: { ...this.#latency },
      workDuration: { ...this.#work },
      unfinishedWorkMs: unfinished,
      longestRunningProcessorMs: longest,
    };
  }
}

function observe(s: DurationSummary, ms: number): void {
  s.count++;
  s.totalMs += ms;
  if (ms > s.maxMs) s.maxMs = ms;
}
