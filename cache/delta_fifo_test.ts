import assert from "node:assert/strict";
import {
  type Delta,
  DeltaFIFO,
  type DeltaFIFOOptions,
  type Deltas,
  type KeyListerGetter,
} from "./delta_fifo.ts";
import { FIFOClosedError, RequeueError } from "./fifo.ts";
import {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  KeyError,
} from "./keys.ts";
import { newIndexer } from "./store.ts";
import {
  byName,
  checkLineJumpers,
  checkPopOrder,
  checkSyncedCases,
  obj,
  type TestFifoObject as Obj,
} from "./_test_util.ts";
import { nextTurn } from "../testing/turns.ts";

const tomb = (key: string, o: Obj | undefined) =>
  new DeletedFinalStateUnknown(key, o);

/** A knownObjects that always lists the given objects. */
function known(...objs: Obj[]): KeyListerGetter<Obj> {
  return {
    listKeys: () => objs.map((o) => o.name),
    getByKey: (key) => objs.find((o) => o.name === key),
  };
}

function newFIFO(opts: DeltaFIFOOptions<Obj> = {}): DeltaFIFO<Obj> {
  return new DeltaFIFO<Obj>({ keyFunction: byName, ...opts });
}

/** Pop one item with a no-op process. */
function pop(f: DeltaFIFO<Obj>): Promise<Deltas<Obj>> {
  return f.pop(() => {});
}

/** Pop and return the newest object's value. */
async function popVal(f: DeltaFIFO<Obj>): Promise<number> {
  const deltas = await pop(f);
  return (deltas[deltas.length - 1].object as Obj).val;
}

const d = (
  type: Delta<Obj>["type"],
  object: Obj | DeletedFinalStateUnknown<Obj>,
): Delta<Obj> => ({ type, object });

Deno.test("DeltaFIFO.pop() hands out keys in the order they were first queued", async () => {
  const f = newFIFO();
  await checkPopOrder(f, popVal);
  assert.deepEqual(f.listKeys(), []);
});

Deno.test("DeltaFIFO accumulates add, update and delete deltas per key", async () => {
  const f = newFIFO();
  f.add(obj("foo", 10));
  f.update(obj("foo", 12));
  f.delete(obj("foo", 15));

  assert.deepEqual(f.list(), [obj("foo", 15)]);
  assert.deepEqual(f.listKeys(), ["foo"]);
  assert.deepEqual(await pop(f), [
    d("Added", obj("foo", 10)),
    d("Updated", obj("foo", 12)),
    d("Deleted", obj("foo", 15)),
  ]);
  assert.equal(f.get(obj("foo", 0)), undefined);
});

Deno.test("DeltaFIFO keeps a key's first queue position (detectLineJumpers)", async () => {
  await checkLineJumpers(newFIFO(), popVal);
});

Deno.test("DeltaFIFO.delete() without knownObjects ignores keys not queued", async () => {
  const f = newFIFO();
  f.add(obj("foo", 10));
  f.update(obj("bar", 15));
  f.add(obj("qux", 17));
  f.delete(obj("qux", 18));
  f.delete(obj("baz", 20)); // never queued: nothing to report

  assert.deepEqual(f.listKeys(), ["foo", "bar", "qux"]);
  assert.equal(await popVal(f), 10);
  assert.equal(await popVal(f), 15);
  assert.equal(await popVal(f), 18);
  assert.deepEqual(f.listKeys(), []);
});

Deno.test("DeltaFIFO.delete() queues a deletion for a key knownObjects has", async () => {
  const f = newFIFO({
    knownObjects: known(obj("foo", 5), obj("bar", 6), obj("baz", 7)),
  });
  f.add(obj("foo", 10));
  f.update(obj("bar", 15));
  f.delete(obj("baz", 20));
  f.delete(obj("nope", 1)); // neither queued nor known

  assert.deepEqual(f.listKeys(), ["foo", "bar", "baz"]);
  assert.equal(await popVal(f), 10);
  assert.equal(await popVal(f), 15);
  assert.deepEqual(await pop(f), [d("Deleted", obj("baz", 20))]);
  assert.deepEqual(f.listKeys(), []);
});

Deno.test("DeltaFIFO.delete() of a queued key unknown to knownObjects still queues", () => {
  const f = newFIFO({ knownObjects: known() });
  f.add(obj("foo", 5));
  f.delete(obj("foo", 6));
  assert.deepEqual(f.getByKey("foo"), [
    d("Added", obj("foo", 5)),
    d("Deleted", obj("foo", 6)),
  ]);
});

Deno.test("DeltaFIFO collapses two trailing deletions, keeping the more informative", async (t) => {
  // Each case adds foo 1 and then deletes it twice; foo 2 is the deletion kept.
  const cases: Array<[string, (f: DeltaFIFO<Obj>) => void]> = [
    ["a real object replaces a tombstone", (f) => {
      f.replace([], "1"); // tombstone for foo
      f.delete(obj("foo", 2));
    }],
    ["a tombstone does not replace a real object", (f) => {
      f.delete(obj("foo", 2));
      f.replace([], "1");
    }],
    ["two real deletions keep the first", (f) => {
      f.delete(obj("foo", 2));
      f.delete(obj("foo", 3));
    }],
  ];
  for (const [name, deleteTwice] of cases) {
    await t.step(name, () => {
      const f = newFIFO();
      f.add(obj("foo", 1));
      deleteTwice(f);
      assert.deepEqual(f.getByKey("foo"), [
        d("Added", obj("foo", 1)),
        d("Deleted", obj("foo", 2)),
      ]);
    });
  }
});

Deno.test("DeltaFIFO.replace() followed by pop returns the newest version", async () => {
  const f = newFIFO();
  f.add(obj("foo", 10));
  f.replace([obj("foo", 15)], "0");
  assert.deepEqual(await pop(f), [
    d("Added", obj("foo", 10)),
    d("Sync", obj("foo", 15)),
  ]);
  assert.deepEqual(f.listKeys(), []);
});

Deno.test("DeltaFIFO.replace() after a queued deletion still queues the listed object", async () => {
  // kubernetes/kubernetes#83810: the Sync after the Delete must not be lost.
  const f = newFIFO({ knownObjects: known(obj("foo", 1)) });
  f.delete(obj("foo", 1));
  f.replace([obj("foo", 2)], "");
  assert.deepEqual(await pop(f), [
    d("Deleted", obj("foo", 1)),
    d("Sync", obj("foo", 2)),
  ]);
});

Deno.test("DeltaFIFO.replace() emits tombstones for missing keys", async (t) => {
  const threeKnown = () => known(obj("foo", 5), obj("bar", 6), obj("baz", 7));
  // [name, knownObjects, what happens, the Deltas popped in order]
  const cases: Array<
    [
      string,
      KeyListerGetter<Obj> | undefined,
      (f: DeltaFIFO<Obj>) => void,
      Deltas<Obj>[],
    ]
  > = [
    ["after a queued delete", threeKnown(), (f) => {
      f.delete(obj("baz", 10));
      f.replace([obj("foo", 5)], "0");
    }, [
      [d("Deleted", obj("baz", 10))],
      [d("Sync", obj("foo", 5))],
      // bar was known, had nothing queued, and is not listed: a tombstone
      // carrying the known object.
      [d("Deleted", tomb("bar", obj("bar", 6)))],
    ]],
    ["after a queued add", threeKnown(), (f) => {
      f.add(obj("baz", 10));
      f.replace([obj("foo", 5)], "0");
    }, [
      [d("Added", obj("baz", 10)), d("Deleted", tomb("baz", obj("baz", 10)))],
      [d("Sync", obj("foo", 5))],
      [d("Deleted", tomb("bar", obj("bar", 6)))],
    ]],
    ["the tombstone carries the newest queued object", threeKnown(), (f) => {
      f.delete(obj("bar", 6));
      f.add(obj("bar", 100));
      f.replace([obj("foo", 5)], "0");
    }, [
      [
        d("Deleted", obj("bar", 6)),
        d("Added", obj("bar", 100)),
        d("Deleted", tomb("bar", obj("bar", 100))),
      ],
      [d("Sync", obj("foo", 5))],
      [d("Deleted", tomb("baz", obj("baz", 7)))],
    ]],
    ["a second relist deletes with the synced version", threeKnown(), (f) => {
      f.replace([obj("bar", 100), obj("foo", 5)], "0");
      f.replace([obj("foo", 5)], "0");
    }, [
      [d("Sync", obj("bar", 100)), d("Deleted", tomb("bar", obj("bar", 100)))],
      [d("Sync", obj("foo", 5)), d("Sync", obj("foo", 5))],
      [d("Deleted", tomb("baz", obj("baz", 7)))],
    ]],
    ["without knownObjects, only queued keys", undefined, (f) => {
      f.add(obj("baz", 10));
      f.replace([obj("foo", 5)], "0");
    }, [
      [d("Added", obj("baz", 10)), d("Deleted", tomb("baz", obj("baz", 10)))],
      [d("Sync", obj("foo", 5))],
    ]],
    [
      "a known key missing from knownObjects gets an empty tombstone",
      { listKeys: () => ["ghost"], getByKey: () => undefined },
      (f) => f.replace([], "0"),
      [[d("Deleted", tomb("ghost", undefined))]],
    ],
  ];
  for (const [name, knownObjects, act, popped] of cases) {
    await t.step(name, async () => {
      const f = newFIFO({ knownObjects });
      act(f);
      for (const deltas of popped) assert.deepEqual(await pop(f), deltas);
      assert.deepEqual(f.listKeys(), []);
    });
  }
});

Deno.test("DeltaFIFO.replace() emits Replaced when emitDeltaTypeReplaced is set", async () => {
  const f = newFIFO({
    knownObjects: known(obj("foo", 5), obj("bar", 6), obj("baz", 7)),
    emitDeltaTypeReplaced: true,
  });
  f.delete(obj("baz", 10));
  f.replace([obj("foo", 6)], "0");
  assert.deepEqual(await pop(f), [d("Deleted", obj("baz", 10))]);
  assert.deepEqual(await pop(f), [d("Replaced", obj("foo", 6))]);
  assert.deepEqual(await pop(f), [d("Deleted", tomb("bar", obj("bar", 6)))]);
});

Deno.test("DeltaFIFO.replace() tombstones objects only in the queue, once", async (t) => {
  const o = obj("foo", 2);
  const o2 = obj("foo", 3);
  const cases: Array<{
    name: string;
    ops: (f: DeltaFIFO<Obj>) => void;
    replaced?: boolean;
    want: Deltas<Obj>;
  }> = [
    {
      name: "an added object is deleted",
      ops: (f) => {
        f.add(o);
        f.replace([], "0");
      },
      want: [d("Added", o), d("Deleted", tomb("foo", o))],
    },
    {
      name: "a replaced object gets a single delete",
      replaced: true,
      ops: (f) => {
        f.add(o);
        f.replace([o], "0");
        f.replace([], "0");
      },
      want: [d("Added", o), d("Replaced", o), d("Deleted", tomb("foo", o))],
    },
    {
      name: "a deleted object keeps its single delete",
      ops: (f) => {
        f.add(o);
        f.delete(o);
        f.replace([], "0");
      },
      want: [d("Added", o), d("Deleted", o)],
    },
    {
      name: "synced objects get a single delete",
      ops: (f) => {
        f.add(o);
        f.replace([o], "0");
        f.replace([o], "0");
        f.replace([], "0");
      },
      want: [
        d("Added", o),
        d("Sync", o),
        d("Sync", o),
        d("Deleted", tomb("foo", o)),
      ],
    },
    {
      name: "several relists delete once",
      ops: (f) => {
        f.add(o);
        f.replace([], "0");
        f.replace([], "1");
      },
      want: [d("Added", o), d("Deleted", tomb("foo", o))],
    },
    {
      name: "added, deleted and added again is deleted with the new version",
      ops: (f) => {
        f.add(o);
        f.delete(o);
        f.add(o2);
        f.replace([], "0");
      },
      want: [
        d("Added", o),
        d("Deleted", o),
        d("Added", o2),
        d("Deleted", tomb("foo", o2)),
      ],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      for (const knownObjects of [known(), undefined]) {
        const f = newFIFO({ knownObjects, emitDeltaTypeReplaced: c.replaced });
        c.ops(f);
        assert.deepEqual(await pop(f), c.want);
        assert.deepEqual(f.listKeys(), []);
      }
    });
  }
});

Deno.test("DeltaFIFO.resync() queues Sync for known keys with nothing queued", async (t) => {
  await t.step("known object gets a Sync", () => {
    const f = newFIFO({ knownObjects: known(obj("foo", 5)) });
    f.resync();
    assert.deepEqual(f.getByKey("foo"), [d("Sync", obj("foo", 5))]);
  });
  await t.step("a queued deletion is not followed by a Sync", () => {
    const f = newFIFO({ knownObjects: known(obj("foo", 5)) });
    f.delete(obj("foo", 10));
    f.resync();
    assert.deepEqual(f.getByKey("foo"), [d("Deleted", obj("foo", 10))]);
  });
  await t.step("a queued update is not followed by a stale Sync", async () => {
    const f = newFIFO({ knownObjects: known(obj("foo", 5)) });
    f.update(obj("foo", 6));
    f.resync();
    assert.deepEqual(await pop(f), [d("Updated", obj("foo", 6))]);
  });
  await t.step("without knownObjects it does nothing", () => {
    const f = newFIFO();
    f.resync();
    assert.deepEqual(f.listKeys(), []);
  });
});

Deno.test("DeltaFIFO.pop() requeues on RequeueError", async () => {
  const f = newFIFO();
  f.add(obj("foo", 10));

  const names: string[] = [];
  const record = (deltas: Deltas<Obj>): void => {
    names.push((deltas[0].object as Obj).name);
  };

  // No cause: pop resolves with the item, and the item is back.
  const first = await f.pop((deltas) => {
    record(deltas);
    throw new RequeueError();
  });
  assert.deepEqual(first, [d("Added", obj("foo", 10))]);
  assert.deepEqual(f.getByKey("foo"), [d("Added", obj("foo", 10))]);

  // A cause: pop rejects with it, and the item is back.
  const cause = new Error("test error");
  await assert.rejects(
    f.pop((deltas) => {
      record(deltas);
      throw new RequeueError(cause);
    }),
    (err) => err === cause,
  );
  assert.ok(f.getByKey("foo"));

  // Success: the item is gone.
  await f.pop(record);
  assert.equal(f.getByKey("foo"), undefined);
  assert.deepEqual(names, ["foo", "foo", "foo"]);
});

Deno.test("DeltaFIFO.pop() rejects with other errors and drops the item", async () => {
  const f = newFIFO();
  f.add(obj("foo", 1));
  const boom = new Error("boom");
  await assert.rejects(
    f.pop(() => {
      throw boom;
    }),
    (err) => err === boom,
  );
  assert.deepEqual(f.listKeys(), []);
});

Deno.test("DeltaFIFO.pop() requeue does not overwrite deltas queued meanwhile", async () => {
  const f = newFIFO();
  f.add(obj("foo", 1));
  await f.pop(async () => {
    await Promise.resolve();
    f.update(obj("foo", 2)); // newer state arrives while processing
    throw new RequeueError();
  });
  assert.deepEqual(f.getByKey("foo"), [d("Updated", obj("foo", 2))]);
});

Deno.test("DeltaFIFO.pop() awaits an async process and runs one at a time", async () => {
  const f = newFIFO();
  f.add(obj("a", 1));
  f.add(obj("b", 2));
  const log: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  const p1 = f.pop(async (deltas) => {
    log.push(`start ${(deltas[0].object as Obj).name}`);
    await gate;
    log.push(`end ${(deltas[0].object as Obj).name}`);
  });
  const p2 = f.pop((deltas) => {
    log.push(`start ${(deltas[0].object as Obj).name}`);
  });
  let settled = false;
  p1.then(() => settled = true);
  // One macrotask turn runs every pending microtask (no timing involved):
  // the first process is still blocked and the second has not started.
  await nextTurn();
  assert.equal(settled, false);
  assert.deepEqual(log, ["start a"]);
  release();
  await Promise.all([p1, p2]);
  assert.deepEqual(log, ["start a", "end a", "start b"]);
});

Deno.test("DeltaFIFO.pop() waits for an item", async () => {
  const f = newFIFO();
  const popped = pop(f);
  f.add(obj("late", 7));
  assert.deepEqual(await popped, [d("Added", obj("late", 7))]);
});

Deno.test("DeltaFIFO.addIfNotPresent() queues popped deltas only for absent keys", async () => {
  const f = newFIFO();
  assert.throws(() => f.addIfNotPresent([]), KeyError);
  assert.throws(
    () => f.addIfNotPresent({} as unknown as Deltas<Obj>),
    TypeError,
  );

  f.add(obj("b", 3));
  const b3 = await pop(f);
  f.add(obj("c", 4));
  const c4 = await pop(f);
  assert.deepEqual(f.listKeys(), []);

  f.add(obj("a", 1));
  f.add(obj("b", 2));
  f.addIfNotPresent(b3); // b is queued: ignored
  f.addIfNotPresent(c4); // c is not: queued at the back
  assert.deepEqual(f.listKeys(), ["a", "b", "c"]);
  assert.equal(await popVal(f), 1);
  assert.equal(await popVal(f), 2);
  assert.equal(await popVal(f), 4);
});

Deno.test("DeltaFIFO.keyOf() keys objects, tombstones and deltas", () => {
  const f = newFIFO();
  assert.equal(f.keyOf(obj("A", 0)), "A");
  assert.equal(f.keyOf(tomb("B", undefined)), "B");
  assert.equal(f.keyOf([d("Added", obj("C", 0))]), "C");
  assert.equal(f.keyOf([d("Deleted", tomb("D", undefined))]), "D");
  // The newest delta decides.
  assert.equal(
    f.keyOf([d("Added", obj("E", 0)), d("Deleted", tomb("F", undefined))]),
    "F",
  );
  assert.throws(() => f.keyOf([]), KeyError);
});

Deno.test("DeltaFIFO wraps key function errors in KeyError", () => {
  const cause = new Error("no name");
  const f = new DeltaFIFO<Obj>({
    keyFunction: () => {
      throw cause;
    },
  });
  for (
    const op of [() => f.add(obj("x", 1)), () => f.replace([obj("x", 1)], "")]
  ) {
    assert.throws(op, (err) => err instanceof KeyError && err.cause === cause);
  }
  assert.deepEqual(f.listKeys(), []);
  assert.equal(f.hasSynced(), false); // the failed replace changed nothing
});

Deno.test("DeltaFIFO.replace() whose key function fails on a later object queues none of the list, first list or relist", () => {
  const f = new DeltaFIFO<Obj>({
    keyFunction: (o) => {
      const name = byName(o);
      if (name === "bad") throw new Error("no key");
      return name;
    },
  });
  // The first list, into an empty queue.
  assert.throws(() => f.replace([obj("a", 1), obj("bad", 2)], "1"), KeyError);
  assert.deepEqual(f.listKeys(), []);
  assert.equal(f.hasSynced(), false);
  // A relist, with a key queued.
  f.replace([obj("a", 1)], "1");
  assert.throws(() => f.replace([obj("b", 2), obj("bad", 3)], "2"), KeyError);
  assert.deepEqual(f.listKeys(), ["a"]);
  assert.deepEqual(f.getByKey("a")!.map((x) => x.type), ["Sync"]);
});

Deno.test("DeltaFIFO uses metaNamespaceKeyFunc by default", () => {
  const f = new DeltaFIFO();
  f.add({ metadata: { namespace: "ns", name: "a" } });
  f.add({ metadata: { name: "node" } });
  assert.deepEqual(f.listKeys(), ["ns/a", "node"]);
  assert.throws(() => f.add({} as never), KeyError);
});

Deno.test("DeltaFIFO.hasSynced() tracks the initial population", async (t) => {
  await checkSyncedCases(t, () => newFIFO(), pop, [
    ["a replace with a duplicate key counts it once", async (f) => {
      f.replace([obj("a", 1), obj("a", 2)], "0");
      await pop(f);
    }, true],
    ["a later replace does not reset it", (f) => {
      f.add(obj("z", 0));
      f.replace([obj("a", 1), obj("b", 2)], "0");
    }, true],
  ]);
});

Deno.test("DeltaFIFO.hasSynced() counts tombstones and passes isInInitialList", async () => {
  const f = newFIFO({
    knownObjects: known(obj("foo", 5), obj("bar", 6), obj("baz", 7)),
  });
  f.replace([obj("foo", 5)], "0");
  const expected = [
    [d("Sync", obj("foo", 5))],
    [d("Deleted", tomb("bar", obj("bar", 6)))],
    [d("Deleted", tomb("baz", obj("baz", 7)))],
  ];
  for (const want of expected) {
    assert.equal(f.hasSynced(), false);
    let initial: boolean | undefined;
    const got = await f.pop((_, isInInitialList) => {
      initial = isInInitialList;
    });
    assert.deepEqual(got, want);
    assert.equal(initial, true);
  }
  assert.equal(f.hasSynced(), true);

  f.add(obj("later", 1));
  let initial: boolean | undefined;
  await f.pop((_, isInInitialList) => {
    initial = isInInitialList;
  });
  assert.equal(initial, false);
});

Deno.test("DeltaFIFO.hasSynced() stays false until the last initial item is processed", async () => {
  const f = newFIFO();
  f.replace([obj("a", 1)], "0");
  let during: boolean | undefined;
  await f.pop(async () => {
    await Promise.resolve();
    during = f.hasSynced();
  });
  assert.equal(during, false);
  assert.equal(f.hasSynced(), true);
});

/** The name of the newest object of popped deltas. */
const nameOf = (deltas: Deltas<Obj>): string =>
  byName(deltas[deltas.length - 1].object);

Deno.test("DeltaFIFO.popEach() processes keys in queue order until closed and empty", async () => {
  const f = newFIFO();
  f.add(obj("a", 1));
  f.add(obj("b", 2));
  f.update(obj("a", 3));
  const seen: string[] = [];
  const loop = f.popEach((deltas) => {
    seen.push(`${nameOf(deltas)}:${deltas.map((x) => x.type).join(",")}`);
  });
  // It waits for keys queued later, and ends only once closed and empty.
  await Promise.resolve();
  f.add(obj("c", 4));
  f.close();
  await loop;
  assert.deepEqual(seen, ["a:Added,Updated", "b:Added", "c:Added"]);
  assert.deepEqual(f.listKeys(), []);
});

Deno.test("DeltaFIFO.popEach() stops before the next key once the signal aborts", async () => {
  const f = newFIFO();
  for (const name of ["a", "b", "c"]) f.add(obj(name, 1));
  const ac = new AbortController();
  const seen: string[] = [];
  await f.popEach((deltas) => {
    seen.push(nameOf(deltas));
    if (seen.length === 2) ac.abort();
  }, { signal: ac.signal });
  assert.deepEqual(seen, ["a", "b"]);
  assert.deepEqual(f.listKeys(), ["c"]);
});

Deno.test("DeltaFIFO.popEach() reports errors and goes on, or rejects without errorHandler", async (t) => {
  await t.step(
    "errorHandler hears each failure, the loop goes on",
    async () => {
      const f = newFIFO();
      for (const name of ["a", "b", "c", "d"]) f.add(obj(name, 1));
      const errors: unknown[] = [];
      const seen: string[] = [];
      await f.popEach((deltas) => {
        const name = nameOf(deltas);
        seen.push(name);
        if (name === "d") f.close();
        else if (name !== "b") throw new Error(`bad ${name}`);
      }, { errorHandler: (e) => errors.push((e as Error).message) });
      assert.deepEqual(seen, ["a", "b", "c", "d"]);
      assert.deepEqual(errors, ["bad a", "bad c"]);
    },
  );
  await t.step(
    "without errorHandler the loop rejects and keeps the rest queued",
    async () => {
      const f = newFIFO();
      for (const name of ["a", "b"]) f.add(obj(name, 1));
      const boom = new Error("boom");
      await assert.rejects(
        f.popEach(() => {
          throw boom;
        }),
        (err) => err === boom,
      );
      assert.deepEqual(f.listKeys(), ["b"]);
    },
  );
  await t.step("an error after close ends the loop silently", async () => {
    const f = newFIFO();
    for (const name of ["a", "b"]) f.add(obj(name, 1));
    const errors: unknown[] = [];
    await f.popEach(() => {
      f.close();
      throw new Error("late");
    }, { errorHandler: (e) => errors.push(e) });
    assert.deepEqual(errors, []);
    assert.deepEqual(f.listKeys(), ["b"]);
  });
});

Deno.test("DeltaFIFO.popEach() puts requeued keys at the back and yields before retrying", async () => {
  const f = newFIFO();
  f.add(obj("a", 1));
  f.add(obj("b", 2));
  const seen: string[] = [];
  let tries = 0;
  let otherTaskRan = false;
  const loop = f.popEach((deltas) => {
    seen.push(nameOf(deltas));
    if (nameOf(deltas) === "a" && ++tries < 3) {
      // A timer due now runs before "a" comes round again.
      setTimeout(() => otherTaskRan = true, 0);
      throw new RequeueError();
    }
    // Recorded, not asserted here: after close, the loop ends silently on
    // an error.
    if (nameOf(deltas) === "a") seen.push(`timer ran: ${otherTaskRan}`);
  });
  f.close();
  await loop;
  assert.deepEqual(seen, ["a", "b", "a", "a", "timer ran: true"]);
});

Deno.test("DeltaFIFO.popEach() awaits an async process, one key at a time, and counts down hasSynced", async () => {
  const f = newFIFO();
  f.replace([obj("a", 1), obj("b", 2)], "0");
  const log: string[] = [];
  const loop = f.popEach(async (deltas, isInInitialList) => {
    log.push(`start ${nameOf(deltas)} ${isInInitialList} ${f.hasSynced()}`);
    await Promise.resolve();
    log.push(`end ${nameOf(deltas)}`);
  });
  f.close();
  await loop;
  assert.deepEqual(log, [
    "start a true false",
    "end a",
    "start b true false",
    "end b",
  ]);
  assert.equal(f.hasSynced(), true);
});

Deno.test("DeltaFIFO.get() and getByKey() return copies", () => {
  const f = newFIFO();
  f.add(obj("a", 1));
  const copy = f.get(obj("a", 0))!;
  copy.push(d("Updated", obj("a", 2)));
  assert.deepEqual(f.getByKey("a"), [d("Added", obj("a", 1))]);
  assert.equal(f.getByKey("missing"), undefined);
});

Deno.test("DeltaFIFO.list() returns the newest object of each key, tombstones included", () => {
  const f = newFIFO();
  f.add(obj("a", 1));
  f.update(obj("a", 2));
  f.add(obj("b", 3));
  f.replace([obj("b", 4)], "0");
  assert.deepEqual(f.list(), [tomb("a", obj("a", 2)), obj("b", 4)]);
});

Deno.test("DeltaFIFO transformer runs once per object, not on tombstones or resync", async () => {
  interface Tracked extends Obj {
    transformed: number;
  }
  const mk = (name: string, val: number): Tracked => ({
    name,
    val,
    transformed: 0,
  });
  const seen: unknown[] = [];
  const f = new DeltaFIFO<Tracked>({
    keyFunction: byName,
    transformer: (o) => {
      seen.push(o);
      o.transformed++;
      return o;
    },
  });
  f.add(mk("foo", 10));
  f.add(mk("bar", 11));
  f.update(mk("foo", 12));
  f.delete(mk("foo", 15));
  f.replace([], "");
  f.add(mk("bar", 16));
  f.replace([mk("baz", 1)], "");

  assert.equal(seen.length, 6);
  assert.ok(seen.every((o) => !(o instanceof DeletedFinalStateUnknown)));
  assert.deepEqual(f.listKeys(), ["foo", "bar", "baz"]);

  const foo = await f.pop(() => {});
  const lastFoo = foo[foo.length - 1].object as Tracked;
  assert.equal(lastFoo.val, 15); // the real deletion beats the tombstone
  assert.equal(lastFoo.transformed, 1);

  const bar = await f.pop(() => {});
  const barTomb = bar[bar.length - 1].object;
  assert.ok(barTomb instanceof DeletedFinalStateUnknown);
  assert.equal(barTomb.obj?.val, 16);
  assert.equal(barTomb.obj?.transformed, 1);

  // Resync hands out known objects as they are.
  const knownObj = mk("k", 1);
  const g = new DeltaFIFO<Tracked>({
    keyFunction: byName,
    knownObjects: {
      listKeys: () => ["k"],
      getByKey: (k) => k === "k" ? knownObj : undefined,
    },
    transformer: (o) => ({ ...o, transformed: o.transformed + 1 }),
  });
  g.resync();
  assert.equal(g.getByKey("k")![0].object, knownObj);
  // ...while a replace transforms what it lists.
  g.replace([mk("k", 2)], "");
  assert.equal((g.getByKey("k")![1].object as Tracked).transformed, 1);
});

Deno.test("DeltaFIFO transformer replaces the queued object", () => {
  const f = newFIFO({ transformer: (o) => ({ ...o, val: o.val * 10 }) });
  f.add(obj("a", 1));
  assert.deepEqual(f.getByKey("a"), [d("Added", obj("a", 10))]);
});

Deno.test("DeltaFIFO keeps pop order across key ring growth and wrap-around", async () => {
  // Enough keys for the key ring to double many times, then pops and adds
  // that wrap its head around the grown capacity.
  const f = newFIFO();
  const n = 50_000;
  for (let i = 0; i < n; i++) f.add(obj(`k${i}`, i));
  for (let i = 0; i < n / 2; i++) assert.equal(await popVal(f), i);
  for (let i = n; i < n + 10; i++) f.add(obj(`k${i}`, i));
  const keys = f.listKeys();
  assert.equal(keys.length, n / 2 + 10);
  assert.equal(keys[0], `k${n / 2}`);
  assert.equal(keys[keys.length - 1], `k${n + 9}`);
  for (let i = n / 2; i < n + 10; i++) assert.equal(await popVal(f), i);
});

Deno.test("DeltaFIFO feeds an Indexer used as knownObjects, as an informer does", async () => {
  type Pod = {
    metadata: { namespace: string; name: string; resourceVersion: string };
  };
  const pod = (name: string, rv: string): Pod => ({
    metadata: { namespace: "ns", name, resourceVersion: rv },
  });
  const indexer = newIndexer<Pod>(deletionHandlingMetaNamespaceKeyFunc, {});
  const fifo = new DeltaFIFO<Pod>({
    knownObjects: indexer,
    emitDeltaTypeReplaced: true,
  });
  const events: string[] = [];
  // The informer's processDeltas, reduced to the store update.
  const process = (deltas: Deltas<Pod>): void => {
    for (const { type, object } of deltas) {
      if (type === "Deleted") {
        const last = object instanceof DeletedFinalStateUnknown
          ? object.obj
          : object;
        if (last) indexer.delete(last);
      } else {
        indexer.update(object as Pod);
      }
      events.push(`${type} ${fifo.keyOf(object)}`);
    }
  };

  fifo.replace([pod("a", "1"), pod("b", "1")], "1");
  while (!fifo.hasSynced()) await fifo.pop(process);
  assert.deepEqual(indexer.listKeys().sort(), ["ns/a", "ns/b"]);

  fifo.update(pod("a", "2"));
  fifo.resync(); // a has a queued update: only b gets a Sync
  await fifo.pop(process);
  await fifo.pop(process);

  fifo.replace([pod("a", "3")], "3"); // b was deleted while disconnected
  await fifo.pop(process);
  await fifo.pop(process);
  assert.deepEqual(indexer.listKeys(), ["ns/a"]);
  assert.equal(indexer.getByKey("ns/a")?.metadata.resourceVersion, "3");
  assert.deepEqual(events, [
    "Replaced ns/a",
    "Replaced ns/b",
    "Updated ns/a",
    "Sync ns/b",
    "Replaced ns/a",
    "Deleted ns/b",
  ]);
  fifo.close();
  await assert.rejects(fifo.pop(process), FIFOClosedError);
});

Deno.test("DeltaFIFO.popEach() gives an abort timer its turn while a key is requeued forever", async () => {
  const f = newFIFO();
  f.add(obj("a", 1));
  const ctrl = new AbortController();
  setTimeout(() => ctrl.abort(), 0);
  let tries = 0;
  await f.popEach(() => {
    // Without a real turn between tries the timer never fires; stop the
    // test instead of hanging.
    if (++tries > 1000) throw new Error("the abort timer never ran");
    throw new RequeueError();
  }, { signal: ctrl.signal });
  assert.ok(tries >= 1 && tries <= 1000);
  assert.deepEqual(f.listKeys(), ["a"]);
});

Deno.test("DeltaFIFO.popEach() ends when its signal aborts while the queue is empty", async () => {
  const f = newFIFO();
  const ctrl = new AbortController();
  const loop = f.popEach(() => {}, { signal: ctrl.signal });
  await Promise.resolve();
  ctrl.abort();
  await loop;
  // Another consumer can pop now.
  f.add(obj("a", 1));
  assert.equal(nameOf(await pop(f)), "a");
});

Deno.test("DeltaFIFO.pop() treats a process returning a non-promise value as synchronous", async () => {
  const f = newFIFO();
  f.add(obj("a", 1));
  const got: Deltas<Obj>[] = [];
  // deno-lint-ignore no-explicit-any
  const push = ((d: Deltas<Obj>) => got.push(d)) as any;
  await f.pop(push);
  assert.equal(got.length, 1);
});

Deno.test("DeltaFIFO.replace() during an async process tombstones the key it leaves out once process is done", async () => {
  // The store behind knownObjects is what process writes (as an informer's).
  const store = new Map<string, Obj>([["k", obj("k", 1)]]);
  const f = newFIFO({
    knownObjects: {
      listKeys: () => [...store.keys()],
      getByKey: (key) => store.get(key),
    },
  });
  f.delete(obj("k", 1));
  f.add(obj("k", 2));
  let midway!: () => void;
  const reachedMidway = new Promise<void>((r) => (midway = r));
  let resume!: () => void;
  const resumed = new Promise<void>((r) => (resume = r));
  const first = f.pop(async (deltas) => {
    for (const d of deltas) {
      if (d.type === "Deleted") store.delete("k");
      else store.set("k", d.object as Obj);
      if (d.type === "Deleted") {
        midway();
        await resumed;
      }
    }
  });
  await reachedMidway;
  // A relist that no longer has k, while k is half applied.
  f.replace([], "10");
  resume();
  await first;
  assert.deepEqual([...store.keys()], ["k"]);
  const tombstone = await f.pop((deltas) => {
    for (const d of deltas) if (d.type === "Deleted") store.delete("k");
  });
  assert.equal(tombstone.at(-1)?.type, "Deleted");
  assert.deepEqual([...store.keys()], []);
});

Deno.test("DeltaFIFO.popEach yields to timers and I/O during a long synchronous burst", async () => {
  const fifo = newFIFO();
  for (let i = 0; i < 1024; i++) fifo.add(obj(`o${i}`, i));
  let popped = 0;
  let poppedWhenTimerRan = -1;
  const timer = new Promise<void>((resolve) =>
    setTimeout(() => {
      poppedWhenTimerRan = popped;
      resolve();
    }, 0)
  );
  const loop = fifo.popEach(() => {
    popped++;
    // One slow key: the burst has now held the loop for longer than a slice.
    if (popped === 100) {
      const start = performance.now();
      while (performance.now() - start < 60) { /* busy */ }
    }
    if (popped === 1024) fifo.close();
  });
  await loop;
  await timer;
  assert.ok(
    poppedWhenTimerRan > 0 && poppedWhenTimerRan < 1024,
    `the timer ran after ${poppedWhenTimerRan} of 1024 pops`,
  );
});
