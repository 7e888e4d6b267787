/**
 * Waiting in turns of the event loop, the one way tests wait for something
 * the code under test does on its own: yield a macrotask turn (timers of
 * 0 ms and ready I/O run) until a condition holds, and fail with what was
 * awaited after a budget of turns instead of hanging. A turn is not a unit
 * of time: use it for work that is already due (promise chains, FakeClock
 * timers that fired, in-process streams); to wait for something a real
 * socket delivers, await the promise that delivers it. Not exported from
 * `testing/mod.ts`.
 *
 * @module
 */

import { setImmediate } from "node:timers";
import { nextTurn } from "../cache/turns.ts";

// The one implementation is cache/'s (a queue yields with it at run time).
export { nextTurn };

/**
 * One turn of the event loop for a loop that pumps real I/O against a
 * deadline in milliseconds (loopback HTTP): ready I/O and due timers run,
 * without the minimum delay a chain of 0 ms timers is held to (about 2 ms
 * a turn for {@link nextTurn} here, against 0.01 ms), so the loop's turns
 * are spent on I/O, not on waiting.
 * Not for {@link eventually}: a turn budget must not shrink to
 * milliseconds.
 */
export function ioTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** How many turns {@link eventually} yields before it fails. */
export const TURN_BUDGET = 5_000;

/**
 * Yield turns until `cond()` holds; throw naming `what` after
 * {@link TURN_BUDGET} turns.
 * @param cond the condition
 * @param what what is awaited, for the failure message
 * @throws {Error} "Gave up waiting for <what> after 5000 turns"
 */
export async function eventually(
  cond: () => boolean,
  what = "a condition",
): Promise<void> {
  for (let i = 0; i < TURN_BUDGET; i++) {
    if (cond()) return;
    await nextTurn();
  }
  if (cond()) return;
  throw new Error(
    `Gave up waiting for ${what} after ${TURN_BUDGET} turns`,
  );
}
