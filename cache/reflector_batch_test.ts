// The Reflector's batch path (a decoder's nextBatch: one promise per decoded
// chunk) against its per-event path (plain next()) over the same bytes: the
// same store calls, RVs and errors.

import assert from "node:assert/strict";
import { eventually, harness } from "./_reflector_test_util.ts";
import { decodeWatch } from "../client/watch.ts";
import {
  hasNextBatch,
  type ListerWatcher,
  type ListOptions,
  type WatchEvent,
} from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import { INITIAL_EVENTS_END } from "./_reflector_watch.ts";

const line = (type: string, name: string, rv: string, extra = {}) =>
  JSON.stringify({
    type,
    object: {
      metadata: { namespace: "ns", name, resourceVersion: rv, ...extra },
    },
  }) + "\n";

const errorLine = JSON.stringify({
  type: "ERROR",
  object: {
    kind: "Status",
    status: "Failure",
    code: 500,
    reason: "InternalError",
    message: "boom",
  },
}) + "\n";

/** A body of `chunks`; with `hold`, it stays open after them until cancelled. */
function body(chunks: string[], hold: boolean): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i < chunks.length) c.enqueue(enc.encode(chunks[i++]));
      else if (!hold) c.close();
      else return new Promise(() => {});
    },
  });
}

/**
 * A ListerWatcher whose n-th watch streams `streams[n]` through decodeWatch
 * (the last one held open), handing the Reflector the decoder's iterator
 * (`batch`) or one that hides nextBatch.
 */
function scripted(
  streams: string[][],
  batch: boolean,
  list: KubeObject[] = [],
): ListerWatcher & {
  watchRVs: (string | undefined)[];
  batchCalls: number;
  plain: number;
} {
  const lw = {
    watchRVs: [] as (string | undefined)[],
    batchCalls: 0,
    plain: 0,
    list: () =>
      Promise.resolve({ metadata: { resourceVersion: "1" }, items: list }),
    watch: (opts: ListOptions, signal?: AbortSignal) => {
      const n = lw.watchRVs.push(opts.resourceVersion) - 1;
      const chunks = streams[Math.min(n, streams.length - 1)];
      const it = decodeWatch(
        body(n < streams.length - 1 ? chunks : [], n >= streams.length - 1),
        { signal },
      );
      if (batch) {
        const nextBatch = it.nextBatch.bind(it);
        it.nextBatch = () => {
          lw.batchCalls++;
          return nextBatch();
        };
        return Promise.resolve(it);
      }
      const plain: AsyncIterator<WatchEvent<KubeObject>> = {
        next: () => {
          lw.plain++;
          return it.next();
        },
        return: () => it.return(),
      };
      assert.equal(hasNextBatch(plain), false);
      return Promise.resolve({ [Symbol.asyncIterator]: () => plain });
    },
  };
  return lw;
}

const obj = (name: string, rv: string): KubeObject => ({
  metadata: { namespace: "ns", name, resourceVersion: rv },
});

async function run(batch: boolean) {
  const lw = scripted(
    [
      // An ERROR in the middle of a chunk: the events before it apply, the
      // one after it does not.
      [
        line("ADDED", "c", "2") + line("MODIFIED", "a", "3") + errorLine +
        line("MODIFIED", "b", "4"),
      ],
      // A malformed line at the end: the events before it apply.
      [
        line("MODIFIED", "b", "5") + line("DELETED", "c", "6"),
        line("ADDED", "d", "7") + line("MODIFIED", "a", "8") + "{not json\n",
      ],
      [],
    ],
    batch,
    [obj("a", "1"), obj("b", "1")],
  );
  await using h = harness({ lw });
  h.start();
  for (let i = 0; i < 50 && lw.watchRVs.length < 3; i++) {
    await eventually(() => h.clock.waiters() > 0 || lw.watchRVs.length >= 3);
    if (lw.watchRVs.length < 3) await h.clock.step(1_000);
  }
  await eventually(() => lw.watchRVs.length === 3, "the third watch");
  const result = {
    ops: [...h.store.ops],
    rv: h.reflector.lastSyncResourceVersion(),
    watchRVs: [...lw.watchRVs],
    errors: h.errors.map((e) => (e as Error).name),
  };
  return { result, batchCalls: lw.batchCalls, plain: lw.plain };
}

Deno.test("Reflector: the batch path and the per-event path give the same store calls, RV and errors (ERROR mid-chunk, malformed last line)", async () => {
  const perEvent = await run(false);
  const batched = await run(true);
  assert.equal(perEvent.batchCalls, 0);
  assert.ok(perEvent.plain >= 6);
  assert.ok(batched.batchCalls >= 3, `nextBatch calls: ${batched.batchCalls}`);
  assert.equal(batched.plain, 0);
  assert.deepEqual(batched.result, perEvent.result);
  assert.deepEqual(perEvent.result.ops, [
    "replace a,b@1",
    "add c@2",
    "update a@3",
    // A 500 ERROR relists (the scripted list is still at RV 1).
    "replace a,b@1",
    "update b@5",
    "delete c@6",
    "add d@7",
    "update a@8",
  ]);
  assert.deepEqual(perEvent.result.watchRVs, ["1", "1", "8"]);
  assert.equal(perEvent.result.rv, "8");
  assert.deepEqual(perEvent.result.errors, ["StatusError", "WatchDecodeError"]);
});

Deno.test("Reflector batch path: events after a watch-list's end bookmark in the same chunk are applied by the watch that goes on", async () => {
  const bookmark = JSON.stringify({
    type: "BOOKMARK",
    object: {
      metadata: {
        resourceVersion: "3",
        annotations: { [INITIAL_EVENTS_END]: "true" },
      },
    },
  }) + "\n";
  for (const batch of [false, true]) {
    const chunk = line("ADDED", "a", "2") + line("ADDED", "b", "3") +
      bookmark + line("MODIFIED", "a", "4") + line("DELETED", "b", "5");
    // Every watch sends the chunk and stays open; only one is opened.
    const watchRVs: (string | undefined)[] = [];
    const lw: ListerWatcher = {
      list: () => Promise.reject(new Error("no list expected")),
      watch: (opts, signal) => {
        watchRVs.push(opts.resourceVersion);
        const it = decodeWatch(body([chunk], true), { signal });
        if (batch) return Promise.resolve(it);
        const plain = { next: () => it.next(), return: () => it.return() };
        return Promise.resolve({ [Symbol.asyncIterator]: () => plain });
      },
    };
    await using h = harness({ lw, useWatchList: true });
    h.start();
    await eventually(
      () => h.store.ops.length === 3,
      `${batch}: three store calls`,
    );
    assert.deepEqual(h.store.ops, [
      "replace a,b@3",
      "update a@4",
      "delete b@5",
    ], `batch ${batch}`);
    assert.equal(h.reflector.lastSyncResourceVersion(), "5");
    assert.equal(watchRVs.length, 1);
  }
});
