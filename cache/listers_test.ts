import assert from "node:assert/strict";
import {
  listAll,
  listAllByNamespace,
  type Lister,
  newGenericLister,
} from "./listers.ts";
import { everything, parseSelector, SelectorParseError } from "./labels.ts";
import { type Indexer, newIndexer } from "./store.ts";
import { metaNamespaceKeyFunc } from "./keys.ts";
import { metaNamespaceIndexFunc, NAMESPACE_INDEX } from "./index.ts";
import type { KubeObject } from "../api/object.ts";
import type { DeepReadonly } from "../api/readonly.ts";

const obj = (
  namespace: string | undefined,
  name: string,
  labels?: Record<string, string>,
): KubeObject => ({ metadata: { namespace, name, labels } });

function fill(indexer: Indexer<KubeObject>): void {
  indexer.add(obj("a", "web-1", { app: "web" }));
  indexer.add(obj("a", "db-1", { app: "db" }));
  indexer.add(obj("b", "web-2", { app: "web", tier: "front" }));
  indexer.add(obj("b", "nolabels"));
  indexer.add(obj(undefined, "cluster-wide", { app: "web" }));
}

function withNamespaceIndex(): Indexer<KubeObject> {
  const indexer = newIndexer<KubeObject>(metaNamespaceKeyFunc, {
    [NAMESPACE_INDEX]: metaNamespaceIndexFunc,
  });
  fill(indexer);
  return indexer;
}

function withoutIndex(): Indexer<KubeObject> {
  const indexer = newIndexer<KubeObject>(metaNamespaceKeyFunc, {});
  fill(indexer);
  return indexer;
}

const names = (objs: readonly DeepReadonly<KubeObject>[]) =>
  objs.map((o) => o.metadata.name).sort();

function collect(
  fn: (append: (o: KubeObject) => void) => void,
): (string | undefined)[] {
  const out: KubeObject[] = [];
  fn((o) => out.push(o));
  return names(out);
}

Deno.test("listAll() appends every object matching the selector", () => {
  const indexer = withNamespaceIndex();
  assert.deepEqual(collect((f) => listAll(indexer, everything(), f)), [
    "cluster-wide",
    "db-1",
    "nolabels",
    "web-1",
    "web-2",
  ]);
  assert.deepEqual(
    collect((f) => listAll(indexer, parseSelector("app=web"), f)),
    ["cluster-wide", "web-1", "web-2"],
  );
  assert.deepEqual(
    collect((f) => listAll(indexer, parseSelector("!app"), f)),
    ["nolabels"],
  );
  assert.deepEqual(
    collect((f) => listAll(indexer, parseSelector("app notin (web)"), f)),
    ["db-1", "nolabels"],
  );
});

for (
  const [label, make] of [
    ["with the namespace index", withNamespaceIndex],
    ["without an index (scan)", withoutIndex],
  ] as const
) {
  Deno.test(`listAllByNamespace() filters by namespace and selector ${label}`, () => {
    const indexer = make();
    const list = (ns: string, sel: string) =>
      collect((f) => listAllByNamespace(indexer, ns, parseSelector(sel), f));
    assert.deepEqual(list("a", ""), ["db-1", "web-1"]);
    assert.deepEqual(list("a", "app=web"), ["web-1"]);
    assert.deepEqual(list("b", "app"), ["web-2"]);
    assert.deepEqual(list("b", "tier=front,app=web"), ["web-2"]);
    assert.deepEqual(list("missing", ""), []);
    assert.deepEqual(list("", "app=web"), ["cluster-wide", "web-1", "web-2"]);
    assert.equal(list("", "").length, 5);
  });
}

Deno.test("listAllByNamespace() reads the namespace index instead of scanning", () => {
  const indexer = withNamespaceIndex();
  let listed = 0;
  const spy: Indexer<KubeObject> = Object.create(indexer);
  spy.list = () => {
    listed++;
    return indexer.list();
  };
  spy.getIndexers = () => indexer.getIndexers();
  spy.byIndex = (n, v) => indexer.byIndex(n, v);
  const out: KubeObject[] = [];
  listAllByNamespace(spy, "a", everything(), (o) => out.push(o));
  assert.equal(out.length, 2);
  assert.equal(listed, 0);
});

Deno.test("newGenericLister() lists across namespaces with a selector or its text", () => {
  const lister: Lister<KubeObject> = newGenericLister(withNamespaceIndex());
  assert.equal(lister.list().length, 5);
  assert.deepEqual(names(lister.list("app=web")), [
    "cluster-wide",
    "web-1",
    "web-2",
  ]);
  assert.deepEqual(names(lister.list(parseSelector("app=db"))), ["db-1"]);
  assert.throws(() => lister.list("app in"), SelectorParseError);
});

Deno.test("newGenericLister().get() looks up the store key as given", () => {
  const indexer = withNamespaceIndex();
  const lister = newGenericLister(indexer);
  assert.equal(lister.get("cluster-wide"), indexer.getByKey("cluster-wide"));
  assert.equal(lister.get("a/web-1")?.metadata.name, "web-1");
  assert.equal(lister.get("web-1"), undefined);
  assert.equal(lister.get("nope"), undefined);
});

Deno.test("newGenericLister().namespaced() scopes list and get to one namespace", () => {
  const indexer = withNamespaceIndex();
  const lister = newGenericLister(indexer);
  const a = lister.namespaced("a");
  assert.deepEqual(names(a.list()), ["db-1", "web-1"]);
  assert.deepEqual(names(a.list("app=web")), ["web-1"]);
  assert.equal(a.get("web-1"), indexer.getByKey("a/web-1"));
  assert.equal(a.get("web-2"), undefined);
  const all = lister.namespaced("");
  assert.equal(all.list().length, 5);
  assert.equal(all.get("cluster-wide")?.metadata.name, "cluster-wide");
});

Deno.test("newGenericLister() sees later changes to the indexer", () => {
  const indexer = withNamespaceIndex();
  const lister = newGenericLister(indexer).namespaced("c");
  assert.deepEqual(lister.list(), []);
  indexer.add(obj("c", "new"));
  assert.deepEqual(names(lister.list()), ["new"]);
  indexer.delete(obj("c", "new"));
  assert.deepEqual(lister.list(), []);
});
