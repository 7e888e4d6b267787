import assert from "node:assert/strict";
import { FIFO, FIFOClosedError, type Queue, RequeueError } from "./fifo.ts";
import { KeyError } from "./keys.ts";
import {
  byName,
  checkLineJumpers,
  checkPopOrder,
  checkSyncedCases,
  obj,
  type TestFifoObject as Obj,
} from "./_test_util.ts";

const newFIFO = (): FIFO<Obj> => new FIFO<Obj>(byName);
const pop = (f: FIFO<Obj>): Promise<Obj> => f.pop(() => {});

Deno.test("FIFO works through the Queue interface alone", async () => {
  const q: Queue<Obj> = newFIFO();
  q.replace([obj("a", 1), obj("b", 2)], "1");
  q.update(obj("a", 3)); // replaces a in place, keeps its turn
  q.addIfNotPresent(obj("c", 4));
  q.addIfNotPresent(obj("a", 5)); // queued already: ignored
  assert.deepEqual(q.listKeys(), ["a", "b", "c"]);
  assert.deepEqual(q.getByKey("a"), obj("a", 3));
  assert.deepEqual(q.get(obj("b", 0)), obj("b", 2));
  q.delete(obj("b", 2));
  assert.deepEqual(q.list(), [obj("a", 3), obj("c", 4)]);
  assert.equal(q.hasSynced(), false); // nothing of the initial list popped
  assert.deepEqual(await q.pop(() => {}), obj("a", 3));
  assert.equal(q.hasSynced(), false); // b's turn has not come yet
  q.close();
  assert.equal(q.isClosed(), true);
  // The pop passes over deleted b (its turn counts, as in client-go) to c.
  assert.deepEqual(await q.pop(() => {}), obj("c", 4));
  assert.equal(q.hasSynced(), true);
});

Deno.test("FIFO.pop() hands out objects in the order their keys were queued", async () => {
  const f = newFIFO();
  await checkPopOrder(f, async (q) => (await pop(q)).val);
});

Deno.test("FIFO.update() keeps only the newest version, processed once", async () => {
  const f = newFIFO();
  f.add(obj("foo", 10));
  f.update(obj("foo", 15));
  assert.deepEqual(f.list(), [obj("foo", 15)]);
  assert.deepEqual(f.listKeys(), ["foo"]);

  assert.deepEqual(await pop(f), obj("foo", 15));
  assert.deepEqual(f.listKeys(), []);
  assert.equal(f.get(obj("foo", 0)), undefined);
  f.close();
  await assert.rejects(pop(f), FIFOClosedError); // nothing left behind
});

Deno.test("FIFO.replace() discards queued objects and queues the list", async () => {
  const f = newFIFO();
  f.add(obj("foo", 10));
  f.add(obj("gone", 1));
  f.replace([obj("foo", 15), obj("new", 2)], "15");
  assert.deepEqual(f.listKeys(), ["foo", "new"]);
  assert.deepEqual(await pop(f), obj("foo", 15));
  assert.deepEqual(await pop(f), obj("new", 2));
  assert.equal(f.getByKey("gone"), undefined);
});

Deno.test("FIFO keeps a key's first queue position (detectLineJumpers)", async () => {
  await checkLineJumpers(newFIFO(), async (q) => (await pop(q)).val);
});

Deno.test("FIFO.delete() removes the object so it is never processed", async () => {
  const f = newFIFO();
  f.add(obj("a", 1));
  f.add(obj("b", 2));
  f.delete(obj("a", 0));
  assert.deepEqual(f.listKeys(), ["b"]);
  assert.deepEqual(await pop(f), obj("b", 2));

  // Deleted then re-added: processed once, with the new version.
  f.add(obj("c", 1));
  f.delete(obj("c", 1));
  f.add(obj("c", 2));
  assert.deepEqual(await pop(f), obj("c", 2));
  f.close();
  await assert.rejects(pop(f), FIFOClosedError);
});

Deno.test("FIFO.addIfNotPresent() only queues absent keys", async () => {
  const f = newFIFO();
  f.add(obj("b", 3));
  const b3 = await pop(f);
  f.add(obj("c", 4));
  const c4 = await pop(f);

  f.add(obj("a", 1));
  f.add(obj("b", 2));
  f.addIfNotPresent(b3);
  f.addIfNotPresent(c4);
  assert.deepEqual(f.listKeys(), ["a", "b", "c"]);
  assert.equal((await pop(f)).val, 1);
  assert.equal((await pop(f)).val, 2);
  assert.equal((await pop(f)).val, 4);
});

Deno.test("FIFO.pop() requeues on RequeueError", async () => {
  const f = newFIFO();
  f.add(obj("foo", 10));

  const got = await f.pop(() => {
    throw new RequeueError();
  });
  assert.deepEqual(got, obj("foo", 10));
  assert.deepEqual(f.getByKey("foo"), obj("foo", 10));

  const cause = new Error("test error");
  await assert.rejects(
    f.pop(() => {
      throw new RequeueError(cause);
    }),
    (err) => err === cause,
  );
  assert.deepEqual(f.getByKey("foo"), obj("foo", 10));

  await pop(f);
  assert.equal(f.getByKey("foo"), undefined);
});

Deno.test("FIFO.pop() rejects with a non-requeue error and drops the object", async () => {
  const f = newFIFO();
  f.add(obj("foo", 1));
  const boom = new TypeError("boom");
  await assert.rejects(
    f.pop(async () => {
      await Promise.resolve();
      throw boom;
    }),
    (err) => err === boom,
  );
  assert.deepEqual(f.listKeys(), []);
});

Deno.test("FIFO.pop() waits for an add", async () => {
  const f = newFIFO();
  const p = pop(f);
  f.add(obj("late", 1));
  assert.deepEqual(await p, obj("late", 1));
});

Deno.test("FIFO.hasSynced() tracks the first replace", async (t) => {
  await checkSyncedCases(t, newFIFO, pop, [
    ["a delete came first", (f) => f.delete(obj("a", 1)), true],
    ["a replaced object deleted before its pop still counts", async (f) => {
      f.replace([obj("a", 1), obj("b", 2)], "0");
      f.delete(obj("a", 1));
      await pop(f);
    }, true],
  ]);
});

Deno.test("FIFO.pop() passes isInInitialList for the first replace only", async () => {
  const f = newFIFO();
  f.replace([obj("a", 1), obj("b", 2)], "0");
  f.add(obj("c", 3));
  const flags: boolean[] = [];
  for (let i = 0; i < 3; i++) {
    await f.pop((_, isInInitialList) => {
      flags.push(isInInitialList);
    });
  }
  assert.deepEqual(flags, [true, true, false]);
});

Deno.test("FIFO.resync() does not queue a queued key twice", async () => {
  const f = newFIFO();
  f.add(obj("a", 1));
  f.resync(); // already queued: no second entry
  assert.deepEqual(await pop(f), obj("a", 1));
  f.close();
  await assert.rejects(pop(f), FIFOClosedError);
});

Deno.test("FIFO wraps key function errors in KeyError", () => {
  const cause = new Error("bad object");
  const f = new FIFO<Obj>(() => {
    throw cause;
  });
  const ops = [
    () => f.add(obj("a", 1)),
    () => f.update(obj("a", 1)),
    () => f.delete(obj("a", 1)),
    () => f.get(obj("a", 1)),
    () => f.addIfNotPresent(obj("a", 1)),
    () => f.replace([obj("a", 1)], ""),
  ];
  for (const op of ops) {
    assert.throws(op, (err) => err instanceof KeyError && err.cause === cause);
  }
  assert.equal(f.hasSynced(), false);
});

Deno.test("FIFO keeps pop order across key ring growth and wrap-around", async () => {
  const f = newFIFO();
  const n = 20_000;
  for (let i = 0; i < n; i++) f.add(obj(`k${i}`, i));
  for (let i = 0; i < n / 2; i++) assert.equal((await pop(f)).val, i);
  for (let i = n; i < n + 5; i++) f.add(obj(`k${i}`, i));
  for (let i = n / 2; i < n + 5; i++) assert.equal((await pop(f)).val, i);
  assert.deepEqual(f.listKeys(), []);
});
