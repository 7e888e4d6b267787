/**
 * The requeue rule of a queue's pop (client-go `ErrRequeue` in `fifo.go`):
 * {@link RequeueError}, which a pop's `process` throws to put its item
 * back, and the rule FIFO and DeltaFIFO apply when it does. `fifo.ts`
 * re-exports the error; the rule is internal.
 *
 * @module
 */

import type { CallbackResult } from "../api/callback.ts";

/**
 * Thrown by a pop's `process` function (`PopProcessFunc`) to requeue the item it was given
 * (client-go `ErrRequeue`).
 *
 * The queue puts the item back with `addIfNotPresent` (so a newer version
 * queued meanwhile wins). `pop` then resolves with the item when the error
 * has no `cause`, and rejects with the `cause` when it has one.
 *
 * @example Retry an item later
 * ```ts
 * import { FIFO, RequeueError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const fifo = new FIFO<{ name: string }>((o) => (o as { name: string }).name);
 * fifo.add({ name: "a" });
 * await fifo.pop(() => {
 *   throw new RequeueError();
 * });
 * assert.deepEqual(fifo.listKeys(), ["a"]);
 * ```
 */
export class RequeueError extends Error {
  /**
   * Create a requeue request.
   * @param cause the error `pop` should reject with; omit it to make `pop`
   * resolve with the item
   */
  constructor(cause?: unknown) {
    super(
      cause === undefined
        ? "Requeue requested: the popped item is put back without an error"
        : `Requeue requested: ${
          cause instanceof Error ? cause.message : String(cause)
        }`,
      cause === undefined ? undefined : { cause },
    );
    this.name = "RequeueError";
  }
}

/**
 * Run a pop's `process` on `item` with the requeue rule of `Queue.pop`: a
 * {@link RequeueError} calls `requeue` and then rethrows its cause (if any);
 * any other error propagates. Returns a promise only when `process` did, so
 * a synchronous process costs the pop no extra tick.
 */
export function processOrRequeue<P>(
  process: (
    item: P,
    isInInitialList: boolean,
    key?: string,
  ) => CallbackResult,
  item: P,
  opts: { key?: string; isInInitialList: boolean; requeue: () => void },
): Promise<void> | undefined {
  let pending: CallbackResult;
  try {
    pending = process(item, opts.isInInitialList, opts.key);
  } catch (err) {
    requeueOrThrow(err, opts.requeue);
    return undefined;
  }
  // Only a thenable is waited for; any other return value (e.g. from an
  // arrow function that returns what it pushed) means it ran synchronously.
  if (
    typeof (pending as PromiseLike<unknown> | undefined)?.then !== "function"
  ) {
    return undefined;
  }
  return Promise.resolve(pending).then(
    undefined,
    (err) => requeueOrThrow(err, opts.requeue),
  );
}

function requeueOrThrow(err: unknown, requeue: () => void): void {
  if (!(err instanceof RequeueError)) throw err;
  requeue();
  if (err.cause !== undefined) throw err.cause;
}
