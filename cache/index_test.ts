import assert from "node:assert/strict";
import { metaNamespaceIndexFunc, NAMESPACE_INDEX } from "./index.ts";
import { newIndexer } from "./store.ts";
import { metaNamespaceKeyFunc } from "./keys.ts";
import type { KubeObject } from "../api/object.ts";

const pod = (
  name: string,
  extra: Partial<KubeObject["metadata"]> = {},
): KubeObject => ({ metadata: { name, ...extra } });

Deno.test("NAMESPACE_INDEX is client-go's index name", () => {
  assert.equal(NAMESPACE_INDEX, "namespace");
});

Deno.test("metaNamespaceIndexFunc() returns the namespace, or '' when cluster-scoped", () => {
  assert.deepEqual(metaNamespaceIndexFunc(pod("a", { namespace: "ns" })), [
    "ns",
  ]);
  assert.deepEqual(metaNamespaceIndexFunc(pod("a")), [""]);
});

Deno.test("metaNamespaceIndexFunc() throws TypeError without metadata", () => {
  assert.throws(() => metaNamespaceIndexFunc({}), {
    name: "TypeError",
    message: /object has no metadata, got object/,
  });
  assert.throws(() => metaNamespaceIndexFunc(null), /got null/);
  assert.throws(() => metaNamespaceIndexFunc("x"), /got string/);
});

Deno.test("listIndexFuncValues() lists distinct values of an index", () => {
  // client-go index_test.go TestGetIndexFuncValues
  const byFoo = (o: KubeObject) => [o.metadata.labels?.foo ?? ""];
  const index = newIndexer<KubeObject>(metaNamespaceKeyFunc, {
    testmodes: byFoo,
  });
  index.add(pod("one", { labels: { foo: "bar" } }));
  index.add(pod("two", { labels: { foo: "bar" } }));
  index.add(pod("tre", { labels: { foo: "biz" } }));
  assert.deepEqual(index.listIndexFuncValues("testmodes").sort(), [
    "bar",
    "biz",
  ]);
});

Deno.test("An index function may file an object under several values", () => {
  // client-go index_test.go TestMultiIndexKeys
  const byUser = (o: KubeObject) =>
    (o.metadata.annotations?.users ?? "").split(",");
  const index = newIndexer<KubeObject>(metaNamespaceKeyFunc, { byUser });
  const one = pod("one", { annotations: { users: "ernie,bert" } });
  const two = pod("two", { annotations: { users: "bert,oscar" } });
  const tre = pod("tre", { annotations: { users: "ernie,elmo" } });
  index.add(one);
  index.add(two);
  index.add(tre);
  assert.equal(index.byIndex("byUser", "ernie").length, 2);
  assert.equal(index.byIndex("byUser", "bert").length, 2);
  assert.equal(index.byIndex("byUser", "oscar").length, 1);
  assert.equal(index.index("byUser", one).length, 3);

  index.delete(tre);
  assert.equal(index.byIndex("byUser", "ernie").length, 1);
  assert.equal(index.byIndex("byUser", "elmo").length, 0);

  index.update(pod("two", { annotations: { users: "oscar" } }));
  assert.equal(index.byIndex("byUser", "bert").length, 1);
  assert.deepEqual(index.indexKeys("byUser", "oscar"), ["two"]);
});

Deno.test("An index function returning no values files the object nowhere", () => {
  const index = newIndexer<KubeObject>(metaNamespaceKeyFunc, {
    owner: (o) => o.metadata.ownerReferences?.map((r) => r.uid) ?? [],
  });
  index.add(pod("orphan"));
  index.add(pod("child", {
    ownerReferences: [{ apiVersion: "v1", kind: "X", name: "p", uid: "u1" }],
  }));
  assert.deepEqual(index.listIndexFuncValues("owner"), ["u1"]);
  assert.deepEqual(index.index("owner", pod("orphan")), []);
});
