// The worker loop every controller runs (client-go's processNextWorkItem
// in n goroutines, controller-runtime's Controller workers): take a key,
// handle it, tell the queue what comes next, mark it done. runWorkers and
// controller/'s Controller both run this one loop; each says only what a
// handled key leads to. Internal to workqueue/ and controller/.

import type { RateLimitingQueue } from "./rate_limiting_queue.ts";

/**
 * What the queue does with a handled item: `"forget"` (its backoff starts
 * over), `"rateLimited"` (again after the rate limiter's delay), or
 * `{ after }` (forget, then again after that many ms).
 */
export type Next = "forget" | "rateLimited" | { after: number };

/**
 * Run `workers` loops on `queue` until `stop` aborts or the queue is shut
 * down and drained. Each takes an item (never one another worker holds),
 * awaits `handle(item)`, applies what it returned and calls `done(item)`,
 * so an item added meanwhile is queued again. After `stop` aborts no loop
 * takes an item; the promise resolves once the items in hand are done.
 * `handle` reports its own errors: one that throws anyway gets the item
 * rate limited and ends its loop with the error.
 */
export async function workLoop<T>(
  queue: RateLimitingQueue<T>,
  workers: number,
  stop: AbortSignal,
  handle: (item: T) => Promise<Next>,
): Promise<void> {
  const worker = async (): Promise<void> => {
    while (!stop.aborted) {
      let item: T | undefined;
      try {
        item = await queue.get({ signal: stop });
      } catch (err) {
        if (stop.aborted) return;
        throw err;
      }
      if (item === undefined) return; // shut down and drained
      let next: Next = "rateLimited";
      try {
        next = await handle(item);
      } finally {
        if (next === "forget") queue.forget(item);
        else if (next === "rateLimited") queue.addRateLimited(item);
        else {
          queue.forget(item);
          queue.addAfter(item, next.after);
        }
        queue.done(item);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
}
