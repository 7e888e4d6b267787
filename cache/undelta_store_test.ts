import assert from "node:assert/strict";
import { newUndeltaStore } from "./undelta_store.ts";
import { KeyError } from "./keys.ts";

interface TestObj {
  name: string;
  value: number;
}
const keyFunc = (obj: unknown): string => (obj as TestObj).name;
const a = { name: "a", value: 1 };
const b = { name: "b", value: 2 };

function recorder(): { pushes: TestObj[][]; push: (all: TestObj[]) => void } {
  const pushes: TestObj[][] = [];
  return { pushes, push: (all) => pushes.push(all) };
}

Deno.test("newUndeltaStore() pushes the full state after add", () => {
  // client-go TestUpdateCallsPush
  const r = recorder();
  const store = newUndeltaStore<TestObj>(r.push, keyFunc);
  store.add(a);
  assert.deepEqual(r.pushes, [[a]]);
  store.add(b);
  assert.deepEqual(r.pushes[1].sort((x, y) => x.value - y.value), [a, b]);
});

Deno.test("newUndeltaStore() pushes after update", () => {
  const r = recorder();
  const store = newUndeltaStore<TestObj>(r.push, keyFunc);
  store.add(a);
  store.update({ name: "a", value: 5 });
  assert.deepEqual(r.pushes, [[a], [{ name: "a", value: 5 }]]);
});

Deno.test("newUndeltaStore() pushes after delete, even of an absent object", () => {
  // client-go TestDeleteCallsPush
  const r = recorder();
  const store = newUndeltaStore<TestObj>(r.push, keyFunc);
  store.add(a);
  store.add(b);
  store.delete(a);
  assert.deepEqual(r.pushes.at(-1), [b]);
  store.delete(a);
  assert.equal(r.pushes.length, 4);
  assert.deepEqual(r.pushes.at(-1), [b]);
});

Deno.test("newUndeltaStore() pushes after replace", () => {
  // client-go TestReplaceCallsPush
  const r = recorder();
  const store = newUndeltaStore<TestObj>(r.push, keyFunc);
  store.add(a);
  store.replace([b], "3");
  assert.deepEqual(r.pushes, [[a], [b]]);
  store.replace([], "4");
  assert.deepEqual(r.pushes.at(-1), []);
});

Deno.test("newUndeltaStore() does not push on reads or resync", () => {
  // client-go TestReadsDoNotCallPush
  const r = recorder();
  const store = newUndeltaStore<TestObj>(r.push, keyFunc);
  store.add(a);
  r.pushes.length = 0;
  assert.deepEqual(store.list(), [a]);
  assert.deepEqual(store.listKeys(), ["a"]);
  assert.equal(store.get({ name: "a", value: 0 }), a);
  assert.equal(store.getByKey("a"), a);
  assert.equal(store.getByKey("zzz"), undefined);
  store.resync();
  assert.deepEqual(r.pushes, []);
});

Deno.test("newUndeltaStore() pushes a fresh array each time", () => {
  const r = recorder();
  const store = newUndeltaStore<TestObj>(r.push, keyFunc);
  store.add(a);
  r.pushes[0].length = 0;
  assert.deepEqual(store.list(), [a]);
});

Deno.test("newUndeltaStore() does not push when the key function throws", () => {
  const r = recorder();
  const cause = new Error("bad");
  const store = newUndeltaStore<TestObj>(r.push, (obj) => {
    if ((obj as TestObj).name === "") throw cause;
    return (obj as TestObj).name;
  });
  assert.throws(() => store.add({ name: "", value: 0 }), KeyError);
  assert.throws(() => store.replace([a, { name: "", value: 0 }], "1"), {
    cause,
  });
  assert.deepEqual(r.pushes, []);
  assert.deepEqual(store.list(), []);
});
