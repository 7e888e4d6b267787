import assert from "node:assert/strict";
import { IndexFunctionError, newThreadSafeStore } from "./thread_safe_store.ts";

const split = (s: string): string[] => s.split(",");

Deno.test("ThreadSafeStore.add() and get() return the same object, not a copy", () => {
  const store = newThreadSafeStore<{ v: number }>();
  const obj = { v: 1 };
  store.add("k", obj);
  assert.equal(store.get("k"), obj);
  assert.equal(store.list()[0], obj);
  assert.equal(store.get("missing"), undefined);
});

Deno.test("ThreadSafeStore.update() replaces and delete() removes; missing delete is a no-op", () => {
  const store = newThreadSafeStore<string>();
  store.add("a", "1");
  store.update("a", "2");
  store.update("b", "3");
  assert.deepEqual(store.listKeys(), ["a", "b"]);
  assert.deepEqual(store.list(), ["2", "3"]);
  store.delete("a");
  store.delete("nope");
  assert.deepEqual(store.listKeys(), ["b"]);
});

Deno.test("ThreadSafeStore.delete() removes empty key sets from the index", () => {
  // client-go TestThreadSafeStoreDeleteRemovesEmptySetsFromIndex
  const store = newThreadSafeStore<string>({ idx: (s) => [s] });
  store.add("k", "v");
  assert.deepEqual(store.listIndexFuncValues("idx"), ["v"]);
  store.delete("k");
  assert.deepEqual(store.listIndexFuncValues("idx"), []);
  assert.deepEqual(store.indexKeys("idx", "v"), []);
});

Deno.test("ThreadSafeStore.delete() keeps non-empty key sets", () => {
  // client-go TestThreadSafeStoreAddKeepsNonEmptySetPostDeleteFromIndex
  const store = newThreadSafeStore<string>({ idx: () => ["same"] });
  store.add("retain", "retain");
  store.add("delete", "delete");
  assert.deepEqual(store.indexKeys("idx", "same"), ["retain", "delete"]);
  store.delete("delete");
  assert.deepEqual(store.indexKeys("idx", "same"), ["retain"]);
});

Deno.test("ThreadSafeStore keeps multi-value indexes right through updates and deletes", () => {
  // client-go TestThreadSafeStoreIndexingFunctionsWithMultipleValues
  const store = newThreadSafeStore<string>({ idx: split });
  const keys = (v: string) => store.indexKeys("idx", v).sort();
  store.add("key1", "foo");
  store.add("key2", "bar");
  assert.deepEqual(keys("foo"), ["key1"]);
  assert.deepEqual(keys("bar"), ["key2"]);
  store.update("key2", "foo,bar");
  assert.deepEqual(keys("foo"), ["key1", "key2"]);
  assert.deepEqual(keys("bar"), ["key2"]);
  store.update("key1", "foo,bar");
  assert.deepEqual(keys("bar"), ["key1", "key2"]);
  store.add("key3", "foo,bar,baz");
  assert.deepEqual(keys("foo"), ["key1", "key2", "key3"]);
  assert.deepEqual(keys("baz"), ["key3"]);
  store.update("key1", "foo");
  assert.deepEqual(keys("foo"), ["key1", "key2", "key3"]);
  assert.deepEqual(keys("bar"), ["key2", "key3"]);
  store.update("key2", "bar");
  assert.deepEqual(keys("foo"), ["key1", "key3"]);
  assert.deepEqual(keys("bar"), ["key2", "key3"]);
  store.delete("key1");
  assert.deepEqual(keys("foo"), ["key3"]);
  store.delete("key3");
  assert.deepEqual(keys("foo"), []);
  assert.deepEqual(keys("bar"), ["key2"]);
  assert.deepEqual(keys("baz"), []);
  assert.deepEqual(store.listIndexFuncValues("idx"), ["bar"]);
});

Deno.test("ThreadSafeStore.update() with unchanged index values leaves the index as is", () => {
  let calls = 0;
  const store = newThreadSafeStore<{ node: string; rv: number }>({
    node: (o) => {
      calls++;
      return [o.node];
    },
  });
  store.add("p", { node: "n1", rv: 1 });
  const replacement = { node: "n1", rv: 2 };
  store.update("p", replacement);
  // One call for the new object at add, then one each for old and new.
  assert.equal(calls, 3);
  assert.deepEqual(store.byIndex("node", "n1"), [replacement]);
  store.update("p", { node: "n2", rv: 3 });
  assert.deepEqual(store.listIndexFuncValues("node"), ["n2"]);
});

Deno.test("ThreadSafeStore update and delete never call index functions on other objects", () => {
  const seen: string[] = [];
  const store = newThreadSafeStore<string>({
    idx: (s) => {
      seen.push(s);
      return [s];
    },
  });
  for (let i = 0; i < 100; i++) store.add(`k${i}`, `v${i}`);
  seen.length = 0;
  store.update("k5", "changed");
  store.delete("k7");
  assert.deepEqual(seen, ["changed", "v5", "v7"]);
});

Deno.test("ThreadSafeStore.index() returns objects sharing any indexed value, once each", () => {
  const store = newThreadSafeStore<string>({ idx: split });
  store.add("a", "x,y");
  store.add("b", "y,z");
  store.add("c", "z");
  store.add("d", "w");
  assert.deepEqual(store.index("idx", "x,y").sort(), ["x,y", "y,z"]);
  assert.deepEqual(store.index("idx", "y,z").sort(), ["x,y", "y,z", "z"]);
  assert.deepEqual(store.index("idx", "q"), []);
  assert.deepEqual(store.byIndex("idx", "z").sort(), ["y,z", "z"]);
  assert.deepEqual(store.byIndex("idx", "none"), []);
});

Deno.test("ThreadSafeStore index lookups throw RangeError for an unknown index", () => {
  const store = newThreadSafeStore<string>({ idx: split });
  store.add("a", "x");
  assert.throws(() => store.index("nope", "x"), {
    name: "RangeError",
    message: /index with name "nope" does not exist/,
  });
  assert.throws(() => store.indexKeys("nope", "x"), RangeError);
  assert.throws(() => store.byIndex("nope", "x"), RangeError);
  // client-go returns an empty list here rather than an error.
  assert.deepEqual(store.listIndexFuncValues("nope"), []);
});

Deno.test("ThreadSafeStore.replace() swaps content and rebuilds indexes", () => {
  const store = newThreadSafeStore<string>({ idx: split });
  store.add("a", "x");
  store.add("b", "y");
  store.replace({ c: "y,z", d: "z" }, "10");
  assert.deepEqual(store.listKeys(), ["c", "d"]);
  assert.equal(store.get("a"), undefined);
  assert.deepEqual(store.indexKeys("idx", "x"), []);
  assert.deepEqual(store.indexKeys("idx", "y"), ["c"]);
  assert.deepEqual(store.indexKeys("idx", "z"), ["c", "d"]);
  store.replace(new Map([["e", "q"]]), "11");
  assert.deepEqual(store.listIndexFuncValues("idx"), ["q"]);
  store.replace({}, "12");
  assert.deepEqual(store.list(), []);
  assert.deepEqual(store.listIndexFuncValues("idx"), []);
});

Deno.test("ThreadSafeStore.addIndexers() indexes existing data and rejects duplicate names", () => {
  const store = newThreadSafeStore<string>({ first: (s) => [s[0]] });
  store.add("a", "apple");
  store.add("b", "banana");
  store.addIndexers({ last: (s) => [s.at(-1)!] });
  assert.deepEqual(store.indexKeys("last", "a"), ["b"]);
  assert.deepEqual(store.indexKeys("last", "e"), ["a"]);
  assert.deepEqual(Object.keys(store.getIndexers()).sort(), ["first", "last"]);
  // Later changes maintain the new index too.
  store.update("a", "avocado");
  assert.deepEqual(store.indexKeys("last", "o"), ["a"]);
  assert.deepEqual(store.indexKeys("last", "e"), []);
  assert.throws(
    () => store.addIndexers({ first: () => [], other: () => [] }),
    { message: /already in use: first/ },
  );
  assert.deepEqual(Object.keys(store.getIndexers()).sort(), ["first", "last"]);
});

Deno.test("ThreadSafeStore.getIndexers() returns a copy", () => {
  const store = newThreadSafeStore<string>({ idx: split });
  const indexers = store.getIndexers();
  delete indexers.idx;
  assert.deepEqual(Object.keys(store.getIndexers()), ["idx"]);
});

// docs/behaviour.md, Informers: an index function that throws never makes an object vanish.
Deno.test("ThreadSafeStore stores the object when an index function throws, absent from that index only", async (t) => {
  const boom = new Error("boom");
  const indexers = {
    ok: (s: string) => [s],
    bad: (s: string) => {
      if (s.startsWith("bad")) throw boom;
      return [s];
    },
  };
  await t.step("without errorHandler the write is done, then throws", () => {
    const store = newThreadSafeStore<string>(indexers);
    store.add("k", "good");
    assert.throws(() => store.update("k", "bad"), (err: unknown) => {
      assert.ok(err instanceof IndexFunctionError);
      assert.equal(err.cause, boom);
      assert.equal(err.indexName, "bad");
      assert.equal(err.key, "k");
      assert.match(err.message, /Cannot compute index "bad" for key "k": boom/);
      return true;
    });
    assert.equal(store.get("k"), "bad");
    assert.deepEqual(store.indexKeys("ok", "bad"), ["k"]);
    assert.deepEqual(store.listIndexFuncValues("ok"), ["bad"]);
    assert.deepEqual(store.listIndexFuncValues("bad"), []); // "good" is gone too
    assert.throws(
      () => store.replace({ x: "bad-x", y: "fine" }, "1"),
      IndexFunctionError,
    );
    assert.deepEqual(store.listKeys(), ["x", "y"]);
    assert.deepEqual(store.listIndexFuncValues("ok").sort(), ["bad-x", "fine"]);
    assert.deepEqual(store.listIndexFuncValues("bad"), ["fine"]);
    assert.throws(
      () => store.addIndexers({ worse: (s) => s === "fine" ? [s] : boomIt() }),
      IndexFunctionError,
    );
    assert.deepEqual(Object.keys(store.getIndexers()).sort(), [
      "bad",
      "ok",
      "worse",
    ]);
    assert.deepEqual(store.byIndex("worse", "fine"), ["fine"]);
    store.delete("x"); // never throws
    assert.deepEqual(store.listKeys(), ["y"]);
    assert.deepEqual(store.listIndexFuncValues("ok"), ["fine"]);
  });
  await t.step(
    "with errorHandler each failure is reported, nothing thrown",
    () => {
      const errors: IndexFunctionError[] = [];
      const store = newThreadSafeStore<string>(indexers, {
        errorHandler: (e) => void errors.push(e),
      });
      store.add("a", "bad-a");
      store.add("b", "fine");
      store.replace({ a: "bad-a", b: "fine", c: "bad-c" }, "2");
      assert.deepEqual(errors.map((e) => `${e.indexName} ${e.key}`), [
        "bad a",
        "bad a",
        "bad c",
      ]);
      assert.deepEqual(store.listKeys(), ["a", "b", "c"]);
      assert.deepEqual(store.listIndexFuncValues("bad"), ["fine"]);
      assert.deepEqual(store.byIndex("ok", "bad-c"), ["bad-c"]);
    },
  );
});

Deno.test("ThreadSafeStore drops a key from an index whose function throws only on the old object", () => {
  let broken = false;
  const store = newThreadSafeStore<string>({
    flaky: (s) => {
      if (broken) throw new Error("flaky");
      return [s];
    },
  }, { errorHandler: () => {} });
  store.add("a", "v1");
  store.add("b", "v1");
  broken = true;
  store.update("a", "v2"); // neither v1 nor v2 can be computed now
  assert.deepEqual(store.indexKeys("flaky", "v1"), ["b"]);
  store.delete("b");
  assert.deepEqual(store.listIndexFuncValues("flaky"), []);
  broken = false;
  store.update("a", "v3");
  assert.deepEqual(store.byIndex("flaky", "v3"), ["v3"]);
});

function boomIt(): never {
  throw new Error("boom");
}

Deno.test("ThreadSafeStore.resync() changes nothing", () => {
  const store = newThreadSafeStore<string>({ idx: split });
  store.add("a", "x");
  store.resync();
  assert.deepEqual(store.list(), ["x"]);
});
