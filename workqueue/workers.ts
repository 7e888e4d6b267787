/**
 * {@link runWorkers}: the worker loop every client-go controller writes by
 * hand (`processNextWorkItem` run by `wait.Until` in n goroutines), as one
 * function.
 *
 * @module
 */

import type { RateLimitingQueue } from "./rate_limiting_queue.ts";
import type { CallbackResult } from "../api/callback.ts";
import { type Next, workLoop } from "./_worker_loop.ts";
import {
  checkFunction,
  checkInteger,
  checkMethods,
  checkOptions,
  checkSignal,
  show,
} from "../api/validate.ts";

/**
 * Reconciles one item. Throw (or reject) to have the item retried with
 * rate limiting. A returned promise is awaited; any other return value is
 * ignored (see {@link CallbackResult}). `signal` aborts when the workers are asked to stop; a
 * long reconcile should pass it on (to `fetch`, `client.get`, ...).
 *
 * @typeParam T the item type
 *
 * @example A reconcile function
 * ```ts
 * import { type Reconcile } from "@kubecache/core/workqueue";
 * import assert from "node:assert/strict";
 *
 * const done: string[] = [];
 * const reconcile: Reconcile<string> = async (key, signal) => {
 *   signal.throwIfAborted(); // a long reconcile should stop when asked
 *   done.push(key);
 * };
 * await reconcile("default/a", new AbortController().signal);
 * assert.deepEqual(done, ["default/a"]);
 * ```
 */
export type Reconcile<T> = (
  item: T,
  signal: AbortSignal,
) => CallbackResult;

/**
 * Options of {@link runWorkers}.
 *
 * @example Give up after three tries
 * ```ts
 * import { RateLimitingQueue, runWorkers, type RunWorkersOptions } from "@kubecache/core/workqueue";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const queue = new RateLimitingQueue<string>(undefined, { clock });
 * const stop = new AbortController();
 * const gaveUp = Promise.withResolvers<string>();
 * const opts: RunWorkersOptions<string> = {
 *   maxRetries: 3,
 *   onError: (err, key) => {
 *     if (queue.numRequeues(key) >= 3) gaveUp.resolve(`${key}: ${(err as Error).message}`);
 *   },
 * };
 * queue.add("default/broken");
 * const workers = runWorkers(queue, 1, () => {
 *   throw new Error("always fails");
 * }, stop.signal, opts);
 * while (!(await Promise.race([gaveUp.promise.then(() => true), clock.step(1_000).then(() => false)])));
 * assert.equal(await gaveUp.promise, "default/broken: always fails");
 * stop.abort();
 * await workers;
 * queue.shutDown();
 * ```
 */
export interface RunWorkersOptions<T> {
  /**
   * Told of every failed reconcile (client-go `utilruntime.HandleError`),
   * except a failure caused by the stop signal. Default: `console.error`.
   */
  onError?: (error: unknown, item: T) => void;
  /**
   * Retries of one item before it is given up on (forgotten and not
   * re-added) after a failure; the give-up failure still reaches
   * `onError`. Default `Infinity`: retry forever, with the queue's backoff.
   */
  maxRetries?: number;
}

/**
 * Run `workers` concurrent workers on `queue` until `signal` aborts or the
 * queue is shut down and empty (client-go's controller worker loop).
 *
 * Each worker takes an item with `get` and awaits `reconcile(item,
 * signal)`. On success it calls `forget(item)` (the item's backoff starts
 * over); when `reconcile` throws, it calls `addRateLimited(item)` so the
 * item comes back after the rate limiter's delay (or, past `maxRetries`,
 * forgets it). Either way it then calls `done(item)`, so an item changed
 * meanwhile is queued again. The queue never gives one item to two workers
 * at once, so `reconcile` never runs twice concurrently for the same key.
 *
 * After `signal` aborts, no worker takes a new item; the promise resolves
 * once the reconciles in flight have settled. The queue is not shut down:
 * what is queued stays for the next `runWorkers` (e.g. after leadership
 * comes back).
 *
 * @typeParam T the item type (usually a `string` key)
 * @param queue the queue to work on
 * @param workers how many items are reconciled at once (an integer >= 1)
 * @param reconcile does the work for one item; throws to retry
 * @param signal stops the workers
 * @param opts `onError` reporter, `maxRetries`
 * @returns once every worker has stopped
 * @throws {TypeError} (a rejection) when `queue` is not a RateLimitingQueue,
 *   `reconcile` not a function, `signal` not an AbortSignal, or `workers` or
 *   `maxRetries` not a number
 * @throws {RangeError} (a rejection) when `workers` is not an integer >= 1 or
 *   `maxRetries` is negative or NaN
 *
 * @example The controller idiom: handlers enqueue keys, workers reconcile them
 * ```ts
 * import { RateLimitingQueue, runWorkers } from "@kubecache/core/workqueue";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const queue = new RateLimitingQueue<string>(undefined, { clock });
 * // An informer's handlers would do this: enqueue the key, nothing more.
 * queue.add("default/a");
 * queue.add("default/b");
 *
 * const stop = new AbortController();
 * const attempts: string[] = [];
 * let failOnce = true;
 * const workers = runWorkers(queue, 2, (key) => {
 *   attempts.push(key);
 *   if (key === "default/b" && failOnce) {
 *     failOnce = false;
 *     throw new Error("transient"); // retried after 5 ms
 *   }
 *   if (attempts.length === 3) stop.abort();
 * }, stop.signal, { onError: () => {} });
 * await clock.waitForWaiters(1); // default/b failed: its retry is timed
 * await clock.step(5); // and comes due
 * await workers;
 * assert.deepEqual(attempts, ["default/a", "default/b", "default/b"]);
 * queue.shutDown();
 * ```
 */
export async function runWorkers<T>(
  queue: RateLimitingQueue<T>,
  workers: number,
  reconcile: Reconcile<T>,
  signal: AbortSignal,
  opts: RunWorkersOptions<T> = {},
): Promise<void> {
  const call = "runWorkers";
  checkMethods(call, "queue", queue, "a RateLimitingQueue", [
    "get",
    "done",
    "forget",
    "addRateLimited",
    "numRequeues",
  ]);
  checkInteger(call, "workers", workers, 1);
  checkFunction(call, "reconcile", reconcile);
  checkSignal(call, "signal", signal);
  checkOptions(call, "opts", opts);
  const maxRetries = opts.maxRetries ?? Infinity;
  if (typeof maxRetries !== "number") {
    throw new TypeError(
      `${call}: opts.maxRetries must be a number >= 0, got ${show(maxRetries)}`,
    );
  }
  if (!(maxRetries >= 0)) {
    throw new RangeError(
      `${call}: opts.maxRetries must be a number >= 0, got ${maxRetries}`,
    );
  }
  if (opts.onError !== undefined) {
    checkFunction(call, "opts.onError", opts.onError);
  }
  const onError = opts.onError ??
    ((error: unknown, item: T) =>
      console.error(`workqueue: reconcile of ${String(item)} failed:`, error));

  const report = (error: unknown, item: T) => {
    if (signal.aborted && error === signal.reason) return;
    try {
      onError(error, item);
    } catch (err) {
      console.error("workqueue: onError threw:", err);
    }
  };

  await workLoop(queue, workers, signal, async (item): Promise<Next> => {
    try {
      await reconcile(item, signal);
      return "forget";
    } catch (err) {
      report(err, item);
      return queue.numRequeues(item) < maxRetries ? "rateLimited" : "forget";
    }
  });
}
