/**
 * The controller's work queue (client-go `util/workqueue`): a
 * {@link WorkQueue} that never hands one key to two workers, a
 * {@link DelayingQueue}, a {@link RateLimitingQueue} with client-go's rate
 * limiters, and {@link runWorkers}, the worker loop.
 *
 * Event handlers enqueue keys; workers reconcile a key from the informer's
 * cache, retrying failures with backoff:
 *
 * ```ts
 * import { RateLimitingQueue, runWorkers } from "@kubecache/core/workqueue";
 * import assert from "node:assert/strict";
 *
 * const queue = new RateLimitingQueue<string>();
 * queue.add("default/settings");
 * const stop = new AbortController();
 * const seen: string[] = [];
 * await runWorkers(queue, 1, (key) => {
 *   seen.push(key);
 *   stop.abort();
 * }, stop.signal);
 * assert.deepEqual(seen, ["default/settings"]);
 * queue.shutDown();
 * ```
 *
 * @module
 */

export * from "./queue.ts";
export * from "./delaying_queue.ts";
export * from "./rate_limiting_queue.ts";
export * from "./rate_limiter.ts";
export * from "./workers.ts";
export * from "./metrics.ts";
export type { CallbackResult } from "../api/callback.ts";
