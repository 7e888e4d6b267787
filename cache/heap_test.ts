import assert from "node:assert/strict";
import { Heap } from "./heap.ts";
import { FIFOClosedError } from "./fifo.ts";
import { KeyError } from "./keys.ts";
import { byName, obj, type TestFifoObject as Obj } from "./_test_util.ts";

const newHeap = (): Heap<Obj> => new Heap<Obj>(byName, (a, b) => a.val < b.val);

async function popVals(h: Heap<Obj>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await h.pop()).val);
  return out;
}

/** A deterministic shuffle (LCG), so failures reproduce. */
function shuffled(n: number, seed = 42): number[] {
  const a = Array.from({ length: n }, (_, i) => i);
  let s = seed;
  for (let i = n - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

Deno.test("Heap.pop() returns items in lessFunc order", async () => {
  const h = newHeap();
  for (let i = 500; i > 0; i--) h.add(obj(`a${i}`, i));
  for (let i = 0; i < 500; i++) h.add(obj(`b${i}`, i + 1));
  const vals = await popVals(h, 1000);
  assert.deepEqual(vals, [...vals].sort((x, y) => x - y));
  assert.equal(vals[0], 1);
  assert.equal(vals[999], 500);
  assert.deepEqual(h.listKeys(), []);
});

Deno.test("Heap.add() updates an existing key and keeps heap order", async () => {
  const h = newHeap();
  h.add(obj("foo", 10));
  h.add(obj("bar", 1));
  h.add(obj("baz", 11));
  h.add(obj("zab", 30));
  h.add(obj("foo", 13)); // update

  assert.equal((await h.pop()).val, 1);
  assert.equal((await h.pop()).val, 11);
  assert.throws(() => h.delete(obj("baz", 11)), RangeError); // popped already
  h.add(obj("foo", 14));
  assert.equal((await h.pop()).val, 14);
  assert.equal((await h.pop()).val, 30);
});

Deno.test("Heap.bulkAdd() adds all items before a waiting pop sees them", async () => {
  const h = newHeap();
  const first = h.pop();
  const list: Obj[] = [];
  for (let i = 500; i > 0; i--) list.push(obj(`a${i}`, i));
  h.bulkAdd(list);
  assert.equal((await first).val, 1); // the least of the whole batch
  assert.deepEqual(
    await popVals(h, 499),
    list.map((o) => o.val).reverse().slice(1),
  );
});

Deno.test("Heap.bulkAdd() updates existing keys and is atomic on key errors", () => {
  const h = newHeap();
  h.add(obj("a", 5));
  h.bulkAdd([obj("a", 1), obj("b", 2)]);
  assert.deepEqual(h.getByKey("a"), obj("a", 1));
  assert.throws(
    () => h.bulkAdd([obj("c", 3), null as unknown as Obj]),
    KeyError,
  );
  assert.equal(h.getByKey("c"), undefined);
});

Deno.test("Heap.addIfNotPresent() leaves stored items unchanged", async () => {
  const h = newHeap();
  h.addIfNotPresent(obj("foo", 10));
  h.addIfNotPresent(obj("bar", 1));
  h.addIfNotPresent(obj("baz", 11));
  h.addIfNotPresent(obj("zab", 30));
  h.addIfNotPresent(obj("foo", 13)); // not added

  assert.equal(h.list().length, 4);
  assert.deepEqual(h.getByKey("foo"), obj("foo", 10));
  assert.equal((await h.pop()).val, 1);
  assert.equal((await h.pop()).val, 10);
  h.addIfNotPresent(obj("bar", 14)); // bar was popped: added
  assert.deepEqual(await popVals(h, 3), [11, 14, 30]);
});

Deno.test("Heap.delete() removes by key anywhere in the heap", async () => {
  const h = newHeap();
  h.add(obj("foo", 10));
  h.add(obj("bar", 1));
  h.add(obj("bal", 31));
  h.add(obj("baz", 11));

  h.delete(obj("bar", 200)); // the head; only the key matters
  assert.equal((await h.pop()).val, 10);
  h.add(obj("zab", 30));
  h.add(obj("faz", 30));
  assert.throws(
    () => h.delete(obj("non-existent", 10)),
    (err) => err instanceof RangeError && /non-existent/.test(err.message),
  );
  assert.equal(h.listKeys().length, 4);
  h.delete(obj("bal", 31)); // the tail
  h.delete(obj("zab", 30));
  assert.equal((await h.pop()).val, 11);
  assert.deepEqual(await h.pop(), obj("faz", 30));
  assert.deepEqual(h.list(), []);
});

Deno.test("Heap.update() moves an item up or down", async () => {
  const h = newHeap();
  h.add(obj("foo", 10));
  h.add(obj("bar", 1));
  h.add(obj("bal", 31));
  h.add(obj("baz", 11));

  h.update(obj("baz", 0));
  assert.deepEqual(await h.pop(), obj("baz", 0));
  h.update(obj("bar", 100));
  assert.deepEqual(await popVals(h, 3), [10, 31, 100]);
});

Deno.test("Heap stays ordered through random updates and deletes", async () => {
  const h = newHeap();
  const model = new Map<string, number>();
  const order = shuffled(2000);
  for (const i of order) {
    h.add(obj(`k${i}`, i));
    model.set(`k${i}`, i);
  }
  for (const i of shuffled(2000, 7).slice(0, 700)) {
    const key = `k${i}`;
    if (i % 2 === 0) {
      h.delete(obj(key, 0));
      model.delete(key);
    } else {
      const val = (i * 7919) % 5000;
      h.update(obj(key, val));
      model.set(key, val);
    }
  }
  assert.equal(h.listKeys().length, model.size);
  const vals = await popVals(h, model.size);
  assert.deepEqual(vals, [...model.values()].sort((a, b) => a - b));
});

Deno.test("Heap.get() and getByKey() find items by key", () => {
  const h = newHeap();
  h.add(obj("foo", 10));
  h.add(obj("bar", 1));
  h.add(obj("baz", 11));
  assert.deepEqual(h.get(obj("baz", 0)), obj("baz", 11));
  assert.equal(h.get(obj("non-existing", 0)), undefined);
  assert.deepEqual(h.getByKey("baz"), obj("baz", 11));
  assert.equal(h.getByKey("non-existing"), undefined);
});

Deno.test("Heap.list() and listKeys() return every stored item", () => {
  const h = newHeap();
  assert.deepEqual(h.list(), []);
  assert.deepEqual(h.listKeys(), []);
  const items: Record<string, number> = {
    foo: 10,
    bar: 1,
    bal: 30,
    baz: 11,
    faz: 30,
  };
  for (const [k, v] of Object.entries(items)) h.add(obj(k, v));
  assert.deepEqual(
    h.list().sort((a, b) => a.name.localeCompare(b.name)),
    Object.entries(items).map(([k, v]) => obj(k, v)).sort((a, b) =>
      a.name.localeCompare(b.name)
    ),
  );
  assert.deepEqual(h.listKeys().sort(), Object.keys(items).sort());
});

Deno.test("Heap.pop() waits for an item", async () => {
  const h = newHeap();
  const waiting = [h.pop(), h.pop()];
  h.add(obj("a", 2));
  h.add(obj("b", 1));
  const got = await Promise.all(waiting);
  assert.deepEqual(got.map((o) => o.name).sort(), ["a", "b"]);
});

Deno.test("Heap add, addIfNotPresent and bulkAdd throw after close", () => {
  const h = newHeap();
  h.add(obj("kept", 1));
  h.close();
  assert.throws(() => h.add(obj("test", 1)), FIFOClosedError);
  assert.throws(() => h.update(obj("test", 1)), FIFOClosedError);
  assert.throws(() => h.addIfNotPresent(obj("test", 1)), FIFOClosedError);
  assert.throws(() => h.bulkAdd([obj("test", 1)]), FIFOClosedError);
  assert.deepEqual(h.listKeys(), ["kept"]);
  h.delete(obj("kept", 1)); // deleting still works
  assert.deepEqual(h.listKeys(), []);
});

Deno.test("Heap wraps key function errors in KeyError", () => {
  const cause = new Error("no key");
  const h = new Heap<Obj>(() => {
    throw cause;
  }, (a, b) => a.val < b.val);
  const ops = [
    () => h.add(obj("a", 1)),
    () => h.addIfNotPresent(obj("a", 1)),
    () => h.delete(obj("a", 1)),
    () => h.get(obj("a", 1)),
  ];
  for (const op of ops) {
    assert.throws(op, (err) => err instanceof KeyError && err.cause === cause);
  }
});
