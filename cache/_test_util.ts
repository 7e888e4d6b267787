// Helpers shared by the informer tests: wait for a condition by yielding to
// the event loop or by stepping a FakeClock, never by sleeping on the wall
// clock.

import assert from "node:assert/strict";
import type { FakeClock } from "../testing/fake_clock.ts";
import type { FakeControllerSource } from "../testing/fake_controller_source.ts";
import type { ResourceEventHandler } from "./event_handler.ts";
import { DeletedFinalStateUnknown } from "./keys.ts";
import type { KubeObject } from "../api/object.ts";
import { Rng } from "../testing/rng.ts";

// The one turn-polling wait of the tests, re-exported for cache/'s tests.
import { eventually } from "../testing/turns.ts";
export { eventually };

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

/**
 * An event log whose `until(n)` resolves once `n` events were `seen()`, for
 * tests whose handlers fire on real I/O (a FakeApiServer), not a fake clock.
 */
export function eventLog(): {
  events: string[];
  seen: (e: string) => void;
  until: (n: number) => Promise<void>;
} {
  const events: string[] = [];
  let wake = () => {};
  return {
    events,
    seen: (e) => {
      events.push(e);
      wake();
    },
    until: async (n) => {
      while (events.length < n) {
        await new Promise<void>((resolve) => wake = resolve);
      }
    },
  };
}

/**
 * A seeded PRNG in [0, 1) (mulberry32, the demo workload's `Rng`), so a
 * failing seed of a property test replays exactly.
 */
export function prng(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}

/**
 * The seeds of a seeded property test, from one pair of variables for every
 * suite: `KUBECACHE_SEED=17` replays one seed, `KUBECACHE_SEEDS=1000` runs
 * seeds 1 to 1000; by default 1 to `count`. `replay` is true for one
 * replayed seed (suites then skip their "the seeds exercised X" checks).
 */
export function seedsToRun(
  count: number,
): { seeds: number[]; replay: boolean } {
  const one = Deno.env.get("KUBECACHE_SEED");
  if (one !== undefined) return { seeds: [Number(one)], replay: true };
  const n = Number(Deno.env.get("KUBECACHE_SEEDS") ?? count);
  return { seeds: Array.from({ length: n }, (_, i) => i + 1), replay: false };
}

/**
 * Behind an informer's synced watch, delete "b" and add "c" with the watch
 * dropping both events, then compact the history and cut the watches: the
 * watch cannot resume (410), so the informer relists. Steps the clock until
 * `events` holds 4 entries, then adds "marker" and waits for the fifth.
 */
export async function missEventsThenRelist<T extends KubeObject>(
  source: FakeControllerSource<T>,
  clock: FakeClock,
  events: string[],
  make: (name: string) => T,
): Promise<void> {
  source.deleteDropWatch(make("b"));
  source.addDropWatch(make("c"));
  source.compact();
  source.breakWatches();
  await stepUntil(clock, () => events.length === 4, "the relist");
  source.add(make("marker"));
  await eventually(() => events.length === 5, "the marker");
}

/** What the queue tests store: keyed by name, carrying a value (client-go's testFifoObject). */
export interface TestFifoObject {
  name: string;
  val: number;
}

/** A {@link TestFifoObject}. */
export const obj = (name: string, val: number): TestFifoObject => ({
  name,
  val,
});

/** The key function of the queue tests: a {@link TestFifoObject}'s name. */
export const byName = (o: unknown): string => (o as TestFifoObject).name;

/** A queue as the shared hasSynced() cases drive it (FIFO, DeltaFIFO). */
interface SyncingQueue {
  add(obj: TestFifoObject): unknown;
  replace(list: TestFifoObject[], resourceVersion: string): unknown;
  hasSynced(): boolean;
}

/**
 * One step per hasSynced() case: [name, what happens to a new queue,
 * hasSynced() after it]. Runs the cases FIFO and DeltaFIFO share (synced
 * means the first replace's items have all been popped, or something else
 * came first), then `more`. `pop` pops one item.
 */
export async function checkSyncedCases<Q extends SyncingQueue>(
  t: Deno.TestContext,
  newQueue: () => Q,
  pop: (q: Q) => Promise<unknown>,
  more: Array<[string, (q: Q) => unknown, boolean]>,
): Promise<void> {
  const ab = [{ name: "a", val: 1 }, { name: "b", val: 2 }];
  const cases: Array<[string, (q: Q) => unknown, boolean]> = [
    ["nothing happened", () => {}, false],
    ["an add came first", (q) => q.add({ name: "a", val: 1 }), true],
    ["an empty replace", (q) => q.replace([], "0"), true],
    ["a replace not yet popped", (q) => {
      q.replace(ab, "0");
    }, false],
    ["a replace half popped", async (q) => {
      q.replace(ab, "0");
      await pop(q);
    }, false],
    ["a replace fully popped", async (q) => {
      q.replace(ab, "0");
      await pop(q);
      await pop(q);
    }, true],
    ...more,
  ];
  for (const [name, act, synced] of cases) {
    await t.step(name, async () => {
      const q = newQueue();
      await act(q);
      assert.equal(q.hasSynced(), synced);
    });
  }
}

/**
 * Queue 500 "a" and 500 "b" objects interleaved (a0, b0, a1, b1...) on an
 * empty queue and pop all 1000: they must come out in the order queued.
 * `popVal` pops one item and returns its `val`.
 */
export async function checkPopOrder<Q extends SyncingQueue>(
  q: Q,
  popVal: (q: Q) => Promise<number>,
): Promise<void> {
  for (let i = 0; i < 500; i++) {
    q.add({ name: `a${i}`, val: i });
    q.add({ name: `b${i}`, val: 1000 + i });
  }
  const seen: number[] = [];
  for (let i = 0; i < 1000; i++) seen.push(await popVal(q));
  const expected: number[] = [];
  for (let i = 0; i < 500; i++) expected.push(i, 1000 + i);
  assert.deepEqual(seen, expected);
}

/**
 * client-go's detectLineJumpers: re-adding a queued key keeps its first
 * position (and the newest object); once popped, the key goes to the back.
 * `popVal` pops one item and returns its (newest) `val`.
 */
export async function checkLineJumpers<Q extends SyncingQueue>(
  q: Q,
  popVal: (q: Q) => Promise<number>,
): Promise<void> {
  q.add({ name: "foo", val: 10 });
  q.add({ name: "bar", val: 1 });
  q.add({ name: "foo", val: 11 });
  q.add({ name: "foo", val: 13 });
  q.add({ name: "zab", val: 30 });

  assert.equal(await popVal(q), 13);
  q.add({ name: "foo", val: 14 }); // foo was popped: it goes to the back now
  assert.equal(await popVal(q), 1);
  assert.equal(await popVal(q), 30);
  assert.equal(await popVal(q), 14);
}
