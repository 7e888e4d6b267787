import assert from "node:assert/strict";
import {
  shardFilteredListWatch,
  type ShardFilterStats,
} from "./shard_filter.ts";
import type { ListerWatcher, ListOptions, WatchEvent } from "./listwatch.ts";
import type { KubeObject } from "./object.ts";
import { shardHash, shardRange } from "./shard_selector.ts";

const LOWER = shardRange("object.metadata.uid", 0n, 1n << 63n);
const isLower = (uid: string) => BigInt("0x" + shardHash(uid)) < 1n << 63n;
// Prefixes that differ in their first bytes (FNV-1a barely moves the top
// bits for a change in the last byte alone).
const uids = Array.from(
  { length: 40 },
  (_, i) => `${((i + 1) * 2654435761 >>> 0).toString(16)}-uid`,
);
const obj = (uid: string): KubeObject => ({ metadata: { name: uid, uid } });

function fakeLw(
  shardInfo: { selector: string } | undefined,
  batches: WatchEvent<KubeObject>[][],
  seen: ListOptions[],
): ListerWatcher<KubeObject> {
  return {
    list: (opts) => {
      seen.push(opts);
      return Promise.resolve({
        metadata: { resourceVersion: "1", shardInfo },
        items: uids.map(obj),
      });
    },
    watch: (opts) => {
      seen.push(opts);
      let i = 0;
      const it = {
        next: () => Promise.reject(new Error("unused")),
        nextBatch: () =>
          Promise.resolve(
            i < batches.length
              ? { done: false as const, value: batches[i++] }
              : { done: true as const, value: undefined },
          ),
        return: () =>
          Promise.resolve({ done: true as const, value: undefined }),
        [Symbol.asyncIterator]() {
          return this;
        },
      };
      return Promise.resolve(
        it as unknown as AsyncIterable<WatchEvent<KubeObject>>,
      );
    },
  };
}

Deno.test("a list whose shardInfo echoes the selector is trusted as the server's filtering", async () => {
  const seen: ListOptions[] = [];
  const stats: ShardFilterStats = {
    serverFilteredPages: 0,
    clientFilteredPages: 0,
    dropped: 0,
  };
  // The echo may be written differently (quotes, spacing): it is compared parsed.
  const echo = LOWER.replaceAll("'", '"').replaceAll(", ", ",");
  const lw = shardFilteredListWatch(
    fakeLw({ selector: echo }, [], seen),
    LOWER,
    stats,
  );
  const page = await lw.list({ limit: 5 });
  assert.equal(page.items.length, uids.length); // passed on untouched
  assert.deepEqual(seen[0], { limit: 5, shardSelector: LOWER });
  assert.deepEqual(stats, {
    serverFilteredPages: 1,
    clientFilteredPages: 0,
    dropped: 0,
  });
});

Deno.test("a list without shardInfo, or echoing another selector, is filtered here", async () => {
  for (
    const info of [undefined, {
      selector: shardRange("object.metadata.uid", 0n, 1n << 62n),
    }]
  ) {
    const stats: ShardFilterStats = {
      serverFilteredPages: 0,
      clientFilteredPages: 0,
      dropped: 0,
    };
    const lw = shardFilteredListWatch(fakeLw(info, [], []), LOWER, stats);
    const page = await lw.list({});
    assert.deepEqual(
      page.items.map((o) => o.metadata.uid),
      uids.filter(isLower),
    );
    assert.equal(stats.dropped, uids.length - page.items.length);
  }
});

Deno.test("watch events outside the shard are dropped, bookmarks kept, and no batch is empty", async () => {
  const out = uids.filter((u) => !isLower(u));
  const inside = uids.filter(isLower);
  const batches: WatchEvent<KubeObject>[][] = [
    out.slice(0, 3).map((u) => ({ type: "ADDED", object: obj(u) })),
    [{ type: "MODIFIED", object: obj(inside[0]) }, {
      type: "DELETED",
      object: obj(out[3]),
    }],
    [{ type: "BOOKMARK", object: { metadata: { resourceVersion: "9" } } }],
  ];
  const seen: ListOptions[] = [];
  const lw = shardFilteredListWatch(
    fakeLw(undefined, batches, seen),
    undefined,
  );
  const events = await lw.watch({ shardSelector: LOWER, resourceVersion: "1" });
  const it = events[Symbol.asyncIterator]() as unknown as {
    nextBatch(): Promise<IteratorResult<WatchEvent<KubeObject>[]>>;
  };
  const got: string[][] = [];
  for (;;) {
    const r = await it.nextBatch();
    if (r.done) break;
    assert.ok(r.value.length > 0);
    got.push(
      r.value.map((e) =>
        `${e.type} ${(e.object as KubeObject).metadata.name ?? ""}`
      ),
    );
  }
  assert.deepEqual(got, [[`MODIFIED ${inside[0]}`], ["BOOKMARK "]]);
  assert.equal(seen[0].shardSelector, LOWER);
});

Deno.test("without a selector the ListerWatcher passes through", async () => {
  const seen: ListOptions[] = [];
  const lw = shardFilteredListWatch(fakeLw(undefined, [], seen));
  assert.equal((await lw.list({})).items.length, uids.length);
  assert.equal("shardSelector" in seen[0], false);
});
