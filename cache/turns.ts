/**
 * Yielding to the event loop, the one {@link nextTurn}. A queue's pop loop
 * yields with it at run time (`delta_fifo.ts`), and tests wait with it
 * through `testing/turns.ts`, which re-exports it: testing/ builds on
 * cache/, not the reverse. Not exported from `cache/mod.ts`.
 *
 * @module
 */

/**
 * A promise settled on a later turn of the event loop (after timers and
 * I/O callbacks due now), unlike a resolved promise, whose callbacks run
 * before anything else. Loops that could spin on their own work yield with
 * it, so an abort timer or a socket still gets its turn.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
