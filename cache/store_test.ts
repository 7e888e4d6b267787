import assert from "node:assert/strict";
import { computeKey } from "./keys.ts";
import { newIndexer, newStore, type Store } from "./store.ts";
import { KeyError, metaNamespaceKeyFunc } from "./keys.ts";
import { metaNamespaceIndexFunc, NAMESPACE_INDEX } from "./index.ts";
import type { KubeObject } from "../api/object.ts";

interface TestObj {
  id: string;
  val: string;
}
const keyFunc = (obj: unknown): string => (obj as TestObj).id;
const mk = (id: string, val: string): TestObj => ({ id, val });
const vals = (s: Store<TestObj>) => s.list().map((o) => o.val).sort();

// client-go store_test.go doTestStore
function exerciseStore(store: Store<TestObj>): void {
  store.add(mk("foo", "bar"));
  assert.equal(store.get(mk("foo", ""))?.val, "bar");
  store.update(mk("foo", "baz"));
  assert.equal(store.get(mk("foo", ""))?.val, "baz");
  store.delete(mk("foo", ""));
  assert.equal(store.get(mk("foo", "")), undefined);

  store.add(mk("a", "b"));
  store.add(mk("c", "d"));
  store.add(mk("e", "e"));
  assert.deepEqual(vals(store), ["b", "d", "e"]);
  assert.deepEqual(store.listKeys().sort(), ["a", "c", "e"]);

  store.replace([mk("foo", "foo"), mk("bar", "bar")], "0");
  assert.deepEqual(vals(store), ["bar", "foo"]);
  assert.equal(store.getByKey("a"), undefined);
  assert.equal(store.getByKey("foo")?.val, "foo");
}

Deno.test("newStore() supports add, update, delete, list and replace", () => {
  exerciseStore(newStore<TestObj>(keyFunc));
});

Deno.test("newIndexer() behaves as a Store too", () => {
  exerciseStore(newIndexer<TestObj>(keyFunc, { by_val: (o) => [o.val] }));
});

Deno.test("Store.delete() of an absent object is a no-op", () => {
  const store = newStore<TestObj>(keyFunc);
  store.add(mk("a", "1"));
  store.delete(mk("zzz", ""));
  assert.deepEqual(store.listKeys(), ["a"]);
});

Deno.test("Store shares objects with callers instead of copying", () => {
  const store = newStore<KubeObject>(metaNamespaceKeyFunc);
  const pod = { metadata: { namespace: "ns", name: "p" } };
  store.add(pod);
  assert.equal(store.getByKey("ns/p"), pod);
  assert.equal(store.get({ metadata: { namespace: "ns", name: "p" } }), pod);
  assert.equal(store.list()[0], pod);
});

Deno.test("Store wraps a throwing key function's error in KeyError", async (t) => {
  const original = new TypeError("no id");
  const bad = { id: "bad", val: "" };
  const store = newIndexer<TestObj>((obj) => {
    if ((obj as TestObj).id === "bad") throw original;
    return (obj as TestObj).id;
  }, { by_val: (o) => [o.val] });
  store.add(mk("ok", "1"));
  const ops: [string, () => unknown][] = [
    ["add", () => store.add(bad)],
    ["update", () => store.update(bad)],
    ["delete", () => store.delete(bad)],
    ["get", () => store.get(bad)],
    ["replace", () => store.replace([mk("new", "2"), bad], "1")],
  ];
  for (const [name, op] of ops) {
    await t.step(name, () => {
      assert.throws(op, (err: unknown) => {
        assert.ok(err instanceof KeyError);
        assert.equal(err.cause, original);
        assert.equal(err.obj, bad);
        assert.match(err.message, /Cannot compute key of object: no id/);
        return true;
      });
    });
  }
  // Nothing changed, not even by the partly keyed replace.
  assert.deepEqual(store.listKeys(), ["ok"]);
  assert.deepEqual(store.listIndexFuncValues("by_val"), ["1"]);
});

Deno.test("Store wraps a KeyError from the key function in another KeyError", () => {
  const store = newStore<unknown>(metaNamespaceKeyFunc);
  assert.throws(() => store.add(42), (err: unknown) => {
    assert.ok(err instanceof KeyError);
    assert.ok(err.cause instanceof KeyError);
    return true;
  });
});

Deno.test("computeKey() returns the key or throws KeyError with the cause", () => {
  assert.equal(computeKey(keyFunc, mk("x", "")), "x");
  const cause = "a string";
  assert.throws(
    () =>
      computeKey(() => {
        throw cause;
      }, {}),
    (err: unknown) =>
      err instanceof KeyError && err.cause === cause &&
      /a string/.test(err.message),
  );
});

Deno.test("Indexer.index() finds objects with the same indexed value", () => {
  // client-go store_test.go doTestIndex
  const indexer = newIndexer<TestObj>(keyFunc, { by_val: (o) => [o.val] });
  indexer.add(mk("a", "b"));
  indexer.add(mk("c", "b"));
  indexer.add(mk("e", "f"));
  indexer.add(mk("g", "h"));
  const ids = (v: string) =>
    indexer.index("by_val", mk("", v)).map((o) => o.id).sort();
  assert.deepEqual(ids("b"), ["a", "c"]);
  assert.deepEqual(ids("f"), ["e"]);
  assert.deepEqual(ids("h"), ["g"]);
  assert.deepEqual(ids("zz"), []);
});

Deno.test("Indexer updates index entries on update and delete", () => {
  const indexer = newIndexer<TestObj>(keyFunc, { by_val: (o) => [o.val] });
  indexer.add(mk("a", "x"));
  indexer.add(mk("b", "x"));
  indexer.update(mk("a", "y"));
  assert.deepEqual(indexer.indexKeys("by_val", "x"), ["b"]);
  assert.deepEqual(indexer.indexKeys("by_val", "y"), ["a"]);
  indexer.delete(mk("b", "ignored"));
  assert.deepEqual(indexer.indexKeys("by_val", "x"), []);
  assert.deepEqual(indexer.listIndexFuncValues("by_val"), ["y"]);
});

Deno.test("Indexer.replace() rebuilds every index", () => {
  const indexer = newIndexer<KubeObject>(metaNamespaceKeyFunc, {
    [NAMESPACE_INDEX]: metaNamespaceIndexFunc,
  });
  indexer.add({ metadata: { namespace: "old", name: "a" } });
  indexer.replace([
    { metadata: { namespace: "n1", name: "a" } },
    { metadata: { namespace: "n2", name: "b" } },
    { metadata: { namespace: "n2", name: "c" } },
  ], "5");
  assert.deepEqual(indexer.byIndex(NAMESPACE_INDEX, "old"), []);
  assert.deepEqual(indexer.indexKeys(NAMESPACE_INDEX, "n2"), ["n2/b", "n2/c"]);
  assert.deepEqual(indexer.listIndexFuncValues(NAMESPACE_INDEX).sort(), [
    "n1",
    "n2",
  ]);
});

Deno.test("Indexer.addIndexers() after data exists indexes it; duplicates throw", () => {
  const indexer = newIndexer<TestObj>(keyFunc, {});
  indexer.add(mk("a", "1"));
  indexer.add(mk("b", "2"));
  indexer.addIndexers({ by_val: (o) => [o.val] });
  assert.deepEqual(indexer.byIndex("by_val", "2"), [mk("b", "2")]);
  assert.throws(() => indexer.addIndexers({ by_val: () => [] }), Error);
  assert.deepEqual(Object.keys(indexer.getIndexers()), ["by_val"]);
});

Deno.test("Indexer index lookups throw RangeError for an unknown index", () => {
  const indexer = newIndexer<TestObj>(keyFunc, {});
  assert.throws(() => indexer.index("x", mk("a", "b")), RangeError);
  assert.throws(() => indexer.byIndex("x", "b"), RangeError);
  assert.throws(() => indexer.indexKeys("x", "b"), RangeError);
  assert.deepEqual(indexer.listIndexFuncValues("x"), []);
});

Deno.test("Store.resync() keeps the content", () => {
  const store = newStore<TestObj>(keyFunc);
  store.add(mk("a", "1"));
  store.resync();
  assert.deepEqual(store.listKeys(), ["a"]);
});
