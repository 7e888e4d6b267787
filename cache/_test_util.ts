// Helpers shared by the informer tests: wait for a condition by yielding to
// the event loop or by stepping a FakeClock, never by sleeping on the wall
// clock.

import assert from "node:assert/strict";
import type { FakeClock } from "../testing/fake_clock.ts";
import type { ResourceEventHandler } from "./event_handler.ts";
import { DeletedFinalStateUnknown } from "./keys.ts";
import type { KubeObject } from "../api/object.ts";

/** Yield to timers and I/O until `cond` holds; fail instead of hanging. */
export async function eventually(
  cond: () => boolean,
  what: string,
): Promise<void> {
  for (let i = 0; i < 1_000; i++) {
    if (cond()) return;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  assert.fail(`Timed out waiting for ${what}`);
}

/** Step the fake clock (firing backoff timers) until `cond` holds. */
export async function stepUntil(
  clock: FakeClock,
  cond: () => boolean,
  what: string,
): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (cond()) return;
    await clock.step(1_000);
  }
  assert.fail(`Timed out waiting for ${what}`);
}

/** A promise with its resolver. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => resolve = r);
  return { promise, resolve };
}

/** A handler recording notifications as strings ("add a initial", "tombstone ns/a"). */
export function recorder<T extends KubeObject>():
  & ResourceEventHandler<T>
  & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    onAdd: (o, initial) =>
      void events.push(`add ${o.metadata.name}${initial ? " initial" : ""}`),
    onUpdate: (_o, n) => void events.push(`update ${n.metadata.name}`),
    onDelete: (o) =>
      void events.push(
        o instanceof DeletedFinalStateUnknown
          ? `tombstone ${o.key}`
          : `delete ${o.metadata.name}`,
      ),
  };
}
