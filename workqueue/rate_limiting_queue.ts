/**
 * {@link RateLimitingQueue}: a {@link DelayingQueue} that retries items
 * with a {@link RateLimiter} (client-go
 * `util/workqueue/rate_limiting_queue.go`).
 *
 * @module
 */

import { DelayingQueue } from "./delaying_queue.ts";
import { checkRateLimiter } from "./_validate.ts";
import type { WorkQueueOptions } from "./queue.ts";
import {
  defaultControllerRateLimiter,
  type RateLimiter,
} from "./rate_limiter.ts";

/**
 * The queue a controller uses (client-go `TypedRateLimitingInterface`): a
 * failed item goes back with {@link RateLimitingQueue.addRateLimited},
 * after the delay its rate limiter gives; a successful one is
 * {@link RateLimitingQueue.forget}-ten so its backoff starts over.
 *
 * The worker's part, as in client-go's controllers: `get` a key, reconcile
 * it; on failure `addRateLimited(key)`, on success `forget(key)`; in any
 * case `done(key)`. {@link runWorkers} does exactly that.
 *
 * @typeParam T the item type (usually a `string` key)
 *
 * @example Retry with backoff, then succeed
 * ```ts
 * import {
 *   ItemExponentialFailureRateLimiter,
 *   RateLimitingQueue,
 * } from "@kubecache/core/workqueue";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const queue = new RateLimitingQueue<string>(
 *   new ItemExponentialFailureRateLimiter(100, 10_000),
 *   { clock },
 * );
 * queue.add("default/a");
 * let key = await queue.get();
 * queue.addRateLimited(key!); // failed: back in 100 ms
 * queue.done(key!);
 * assert.equal(queue.numRequeues("default/a"), 1);
 * await clock.step(100);
 * key = await queue.get();
 * queue.forget(key!); // succeeded: the next failure waits 100 ms again
 * queue.done(key!);
 * assert.equal(queue.numRequeues("default/a"), 0);
 * queue.shutDown();
 * ```
 */
export class RateLimitingQueue<T> extends DelayingQueue<T> {
  readonly #limiter: RateLimiter<T>;

  /**
   * Create a rate-limiting queue.
   * @param rateLimiter the retry policy; default
   *   {@link defaultControllerRateLimiter} on `opts.clock`
   * @param opts name (for metrics) and clock (of the delays)
   * @throws {TypeError} when `rateLimiter` is not a RateLimiter (`when`,
   *   `forget`, `numRequeues`) or `opts` not an options object
   */
  constructor(rateLimiter?: RateLimiter<T>, opts: WorkQueueOptions = {}) {
    super(opts);
    if (rateLimiter !== undefined) {
      checkRateLimiter("new RateLimitingQueue", "rateLimiter", rateLimiter);
    }
    this.#limiter = rateLimiter ??
      defaultControllerRateLimiter<T>({ clock: opts.clock });
  }

  /**
   * Add `item` after the delay the rate limiter says (client-go
   * `AddRateLimited`), counting one more failure of it. Ignored after shut
   * down.
   * @param item the item that failed
   * @throws {TypeError} when `item` is `undefined`
   */
  addRateLimited(item: T): void {
    if (this.shuttingDown()) return;
    this.addAfter(item, this.#limiter.when(item));
  }

  /**
   * Stop tracking `item`'s failures (client-go `Forget`): call it when the
   * item succeeded, or when you give up on it. It does not take the item
   * off the queue.
   * @param item the item
   */
  forget(item: T): void {
    this.#limiter.forget(item);
  }

  /**
   * How many times `item` failed since it was last forgotten (client-go
   * `NumRequeues`), e.g. to give up after some number of retries.
   * @param item the item
   * @returns the count
   */
  numRequeues(item: T): number {
    return this.#limiter.numRequeues(item);
  }
}
