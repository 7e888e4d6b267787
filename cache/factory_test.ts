import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { FakeControllerSource } from "../testing/fake_controller_source.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { KubeConfig } from "../client/config.ts";
import { KubeClient } from "../client/rest.ts";
import type {
  ResourceClient,
  ResourceRequestOptions,
} from "../api/resource_client.ts";
import { ConfigMaps, Nodes, Pods } from "../api/resources.ts";
import type { ResourceType } from "../api/resources.ts";
import { SharedInformerFactory } from "./factory.ts";
import { CacheNotSyncedError } from "./cache_not_synced_error.ts";
import type { GenericLister } from "./listers.ts";
import type { InformerErrorContext } from "./event_handler.ts";
import { eventLog, eventually } from "./_test_util.ts";
import {
  CacheMutationError,
  MUTATION_DETECTOR_ENV,
} from "./mutation_detector.ts";
import { IndexFunctionError } from "./thread_safe_store.ts";
import { stripManagedFields } from "./transform.ts";
import { NAMESPACE_INDEX } from "./index.ts";
import type { ObjectList, WatchEvent } from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import type { DeepReadonly } from "../api/readonly.ts";

/** A ResourceClient serving one FakeControllerSource per resource, recording calls. */
class FakeClient implements ResourceClient {
  sources = new Map<string, FakeControllerSource>();
  calls: { op: string; resource: string; opts: ResourceRequestOptions }[] = [];

  source(type: ResourceType): FakeControllerSource {
    let s = this.sources.get(type.resource);
    if (!s) this.sources.set(type.resource, s = new FakeControllerSource());
    return s;
  }

  list<T extends KubeObject>(
    type: ResourceType<T>,
    opts: ResourceRequestOptions = {},
  ): Promise<ObjectList<T>> {
    this.calls.push({ op: "list", resource: type.resource, opts });
    const { signal, ...rest } = opts;
    return this.source(type).list(rest, signal) as Promise<ObjectList<T>>;
  }

  watch<T extends KubeObject>(
    type: ResourceType<T>,
    opts: ResourceRequestOptions = {},
  ): Promise<AsyncIterable<WatchEvent<T>>> {
    this.calls.push({ op: "watch", resource: type.resource, opts });
    const { signal, ...rest } = opts;
    return this.source(type).watch(rest, signal) as Promise<
      AsyncIterable<WatchEvent<T>>
    >;
  }
}

Deno.test("SharedInformerFactory.informerFor() shares one informer per type and options", () => {
  const factory = new SharedInformerFactory(new FakeClient());
  const pods = factory.informerFor(Pods);
  assert.equal(factory.informerFor(Pods), pods);
  assert.equal(factory.informerFor({ ...Pods }), pods); // same type, other object
  assert.notEqual(factory.informerFor(ConfigMaps), pods);
  const web = factory.informerFor(Pods, { labelSelector: "app=web" });
  assert.notEqual(web, pods);
  assert.equal(factory.informerFor(Pods, { labelSelector: "app=web" }), web);
  assert.notEqual(
    factory.informerFor(Pods, { namespace: "kube-system" }),
    pods,
  );
  // namespaced types are indexed by namespace; extra indexers are added
  assert.ok(NAMESPACE_INDEX in pods.getIndexer().getIndexers());
  assert.deepEqual(
    Object.keys(factory.informerFor(Nodes).getIndexer().getIndexers()),
    [],
  );
  factory.informerFor(Pods, { indexers: { byNode: () => [] } });
  assert.deepEqual(Object.keys(pods.getIndexer().getIndexers()).sort(), [
    "byNode",
    NAMESPACE_INDEX,
  ]);
});

Deno.test("SharedInformerFactory.start() starts informers not yet started; waitForCacheSync() reports each type", async () => {
  const client = new FakeClient();
  client.source(Pods).add({ metadata: { namespace: "default", name: "p1" } });
  client.source(Nodes).add({ metadata: { name: "n1" } });
  const clock = new FakeClock();
  await using factory = new SharedInformerFactory(client, { clock });
  const pods = factory.informerFor(Pods);
  const ac = new AbortController();
  factory.start(ac.signal); // synchronous
  const syncing = factory.waitForCacheSync(ac.signal);
  // the check is immediate, then every 100 ms on the factory clock
  while (!pods.hasSynced()) await clock.step(100);
  await clock.step(100);
  const synced = await syncing;
  assert.deepEqual([...synced.entries()], [[Pods, true]]);
  // Asked for after start: it starts at once (controller-runtime's cache
  // starts on first use), with no second start().
  const nodes = factory.informerFor(Nodes);
  const again = factory.waitForCacheSync(ac.signal);
  while (!nodes.hasSynced()) await clock.step(100);
  await clock.step(100);
  assert.deepEqual([...(await again).entries()], [[Pods, true], [Nodes, true]]);
  factory.start(ac.signal); // starts nothing twice
  assert.deepEqual(
    factory.lister(Pods).namespaced("default").list().map((p) =>
      p.metadata.name
    ),
    ["p1"],
  );
  assert.equal(client.calls.filter((c) => c.op === "list").length, 2);
});

Deno.test("SharedInformerFactory applies namespace, selectors and tweakListOptions to lists and watches", async () => {
  const client = new FakeClient();
  const clock = new FakeClock();
  const factory = new SharedInformerFactory(client, {
    clock,
    namespace: "team-a",
    tweakListOptions: (o) => {
      o.fieldSelector = "status.phase=Running";
    },
  });
  const informer = factory.informerFor(Pods, { labelSelector: "app=web" });
  factory.informerFor(Nodes);
  const ac = new AbortController();
  factory.start(ac.signal);
  while (client.calls.filter((c) => c.op === "watch").length < 2) {
    await clock.step(100);
  }
  const pods = client.calls.filter((c) => c.resource === "pods");
  for (const { opts } of pods) {
    assert.equal(opts.namespace, "team-a");
    assert.equal(opts.labelSelector, "app=web");
    assert.equal(opts.fieldSelector, "status.phase=Running");
  }
  const nodes = client.calls.filter((c) => c.resource === "nodes");
  assert.equal(nodes[0].opts.namespace, undefined); // cluster-scoped
  assert.equal(informer.hasSynced(), true);
  await factory.shutdown();
});

Deno.test("SharedInformerFactory.metadataInformerFor() shares one metadata informer per type and options, apart from informerFor", () => {
  const factory = new SharedInformerFactory(new FakeClient());
  const meta = factory.metadataInformerFor(Pods);
  assert.equal(factory.metadataInformerFor(Pods), meta);
  assert.equal(factory.metadataInformerFor({ ...Pods }), meta);
  assert.notEqual(factory.informerFor(Pods) as unknown, meta);
  assert.notEqual(factory.metadataInformerFor(ConfigMaps) as unknown, meta);
  const web = factory.metadataInformerFor(Pods, { labelSelector: "app=web" });
  assert.notEqual(web, meta);
  assert.equal(
    factory.metadataInformerFor(Pods, { labelSelector: "app=web" }),
    web,
  );
});

Deno.test("SharedInformerFactory.metadataInformerFor() lists and watches metadata-only, with the factory's filters and transform", async () => {
  const client = new FakeClient();
  const pm = (name: string) => ({
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata: { namespace: "team", name, managedFields: [{ manager: "m" }] },
  });
  client.source(Pods).add(pm("p1"));
  const clock = new FakeClock();
  await using factory = new SharedInformerFactory(client, {
    clock,
    namespace: "team",
    transform: stripManagedFields,
  });
  const meta = factory.metadataInformerFor(Pods, { labelSelector: "a=b" });
  const ac = new AbortController();
  factory.start(ac.signal);
  while (!meta.hasSynced()) await clock.step(100);
  const cached = meta.getStore().getByKey("team/p1");
  assert.equal(cached?.kind, "PartialObjectMetadata");
  assert.equal("managedFields" in cached!.metadata, false);
  const calls = client.calls.filter((c) => c.op === "list" || c.op === "watch");
  assert.ok(calls.length >= 2);
  for (const c of calls) {
    assert.match(c.opts.accept ?? "", /;as=PartialObjectMetadata(List)?;/);
    assert.equal(c.opts.namespace, "team");
    assert.equal(c.opts.labelSelector, "a=b");
  }
  assert.notEqual(
    factory.informerFor(Pods) as unknown,
    meta,
    "the full informer is another informer",
  );
  ac.abort();
});

Deno.test("SharedInformerFactory.shutdown() stops every informer, waits, and is idempotent", async () => {
  const client = new FakeClient();
  const factory = new SharedInformerFactory(client, { clock: new FakeClock() });
  const pods = factory.informerFor(Pods);
  const cms = factory.informerFor(ConfigMaps);
  factory.start(new AbortController().signal);
  const ac = new AbortController();
  ac.abort();
  assert.deepEqual([...(await factory.waitForCacheSync(ac.signal)).values()], [
    false,
    false,
  ]);
  await factory.shutdown();
  assert.equal(pods.isStopped(), true);
  assert.equal(cms.isStopped(), true);
  assert.equal(client.source(Pods).openWatches(), 0);
  await factory.shutdown();
  const later = factory.informerFor(Nodes);
  factory.start(new AbortController().signal); // no-op after shutdown
  assert.equal(later.isStopped(), false);
  assert.equal(later.hasSynced(), false);
  assert.throws(
    () => new SharedInformerFactory(client, { resyncPeriod: -1 }),
    RangeError,
  );
});

Deno.test("SharedInformerFactory over KubeClient and FakeApiServer follows creates, updates and deletes", async () => {
  const clock = new FakeClock();
  await using server = await FakeApiServer.start({ clock });
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  server.create(Pods, { metadata: { namespace: "default", name: "a" } });
  server.create(Pods, { metadata: { namespace: "kube-system", name: "b" } });
  const factory = new SharedInformerFactory(client, { clock });
  const { events, seen, until } = eventLog();
  const reg = factory.informerFor(Pods).addEventHandler({
    onAdd: (p, initial) =>
      seen(`add ${p.metadata.name}${initial ? " initial" : ""}`),
    onUpdate: (_o, p) => seen(`update ${p.metadata.name}`),
    onDelete: () => seen("delete"),
  });
  factory.start(new AbortController().signal);
  await until(2);
  assert.deepEqual(events.sort(), ["add a initial", "add b initial"]);
  assert.equal(reg.hasSynced(), true);
  const a = server.list(Pods, "default")[0];
  server.update(Pods, {
    ...a,
    metadata: { ...a.metadata, labels: { x: "1" } },
  });
  server.delete(Pods, "kube-system", "b");
  // A pod's DELETE first writes its deletion fields (MODIFIED), then
  // removes it, as kube-apiserver's graceful deletion does.
  await until(5);
  assert.deepEqual(events.slice(2), ["update a", "update b", "delete"]);
  assert.deepEqual(
    factory.lister(Pods).list().map((p) => p.metadata.labels),
    [{ x: "1" }],
  );
  await factory.shutdown();
});

// An index function that throws never makes an object vanish.
Deno.test("SharedInformerFactory: a throwing index function loses no object; errorHandler and health hear of it once per object", async () => {
  const clock = new FakeClock();
  const client = new FakeClient();
  const source = client.source(ConfigMaps);
  const cm = (name: string, labels?: Record<string, string>): KubeObject => ({
    metadata: { namespace: "ns", name, labels },
  });
  source.add(cm("a", { app: "web" }));
  source.add(cm("b", { app: "db" }));
  source.add(cm("c", { app: "web", boom: "yes" }));
  const errors: [unknown, InformerErrorContext][] = [];
  const factory = new SharedInformerFactory(client, {
    clock,
    resyncPeriod: 1_000,
    errorHandler: (error, context) => void errors.push([error, context]),
  });
  const informer = factory.informerFor(ConfigMaps, {
    indexers: {
      byApp: (obj) => {
        if (obj.metadata.labels?.boom) throw new Error("boom");
        return [obj.metadata.labels?.app ?? ""];
      },
    },
  });
  let resyncs = 0;
  informer.addEventHandler({
    onUpdate: (o, n) => {
      if (o.metadata.resourceVersion === n.metadata.resourceVersion) resyncs++;
    },
  });
  const ac = new AbortController();
  factory.start(ac.signal);
  assert.equal(
    (await factory.waitForCacheSync(ac.signal)).get(ConfigMaps),
    true,
  );
  const names = (objs: readonly DeepReadonly<KubeObject>[]) =>
    objs.map((o) => o.metadata.name).sort();
  assert.deepEqual(names(factory.lister(ConfigMaps).list()), ["a", "b", "c"]);
  assert.deepEqual(names(informer.getIndexer().byIndex("byApp", "web")), [
    "a",
  ]);
  const report = () =>
    errors.map(([e, c]) => [
      c.informer,
      c.source,
      e instanceof IndexFunctionError ? `${e.indexName} ${e.key}` : String(e),
    ]);
  assert.deepEqual(report(), [["configmaps", "index", "byApp ns/c"]]);
  assert.equal(informer.health()?.lastError, errors[0][0]);
  // Resyncs index the same objects again: no new report.
  await clock.step(1_000);
  await clock.step(1_000);
  await eventually(() => resyncs === 6, "two resyncs");
  assert.equal(errors.length, 1);
  // A new version of the failing object is reported again, once.
  source.modify(cm("c", { app: "db", boom: "still" }));
  await eventually(() => errors.length === 2, "the new version's report");
  assert.deepEqual(report()[1], ["configmaps", "index", "byApp ns/c"]);
  assert.equal(factory.lister(ConfigMaps).list().length, 3);
  await factory.shutdown();
});

// A stopped informer never serves a stale cache silently.
Deno.test("SharedInformerFactory: with KUBECACHE_MUTATION_DETECTOR=true a mutating handler stops its informer: hasSynced false, errorHandler and stopped() tell the program", async () => {
  const before = Deno.env.get(MUTATION_DETECTOR_ENV);
  Deno.env.set(MUTATION_DETECTOR_ENV, "true");
  try {
    const clock = new FakeClock();
    const client = new FakeClient();
    client.source(ConfigMaps).add({ metadata: { namespace: "ns", name: "a" } });
    client.source(Pods).add({ metadata: { namespace: "ns", name: "p" } });
    const errors: [unknown, InformerErrorContext][] = [];
    const factory = new SharedInformerFactory(client, {
      clock,
      errorHandler: (error, context) => void errors.push([error, context]),
    });
    const informer = factory.informerFor(ConfigMaps);
    informer.addEventHandler({
      onAdd: (obj) => {
        (obj as KubeObject).metadata.labels = { mutated: "yes" }; // forbidden
      },
    });
    const pods = factory.informerFor(Pods);
    const ac = new AbortController();
    factory.start(ac.signal);
    assert.deepEqual(
      [...(await factory.waitForCacheSync(ac.signal)).values()],
      [true, true],
    );
    const stopped = assert.rejects(factory.stopped(), CacheMutationError);
    await clock.step(1_000); // the detector compares
    await stopped;
    assert.equal(informer.isStopped(), true);
    assert.equal(informer.hasSynced(), false);
    assert.deepEqual(
      errors.map((
        [e, c],
      ) => [c.informer, c.source, e instanceof CacheMutationError]),
      [["configmaps", "fatal", true]],
    );
    assert.equal(informer.health()?.lastError, errors[0][0]);
    assert.equal(pods.hasSynced(), true); // the others keep running
    const after = await factory.waitForCacheSync(new AbortController().signal);
    assert.equal(after.get(ConfigMaps), false);
    assert.equal(after.get(Pods), true);
    ac.abort();
    await factory.shutdown();
  } finally {
    if (before === undefined) Deno.env.delete(MUTATION_DETECTOR_ENV);
    else Deno.env.set(MUTATION_DETECTOR_ENV, before);
  }
});

Deno.test("SharedInformerFactory names an informer after what it watches: resource, namespace, selector", async () => {
  const client = new FakeClient();
  client.source(ConfigMaps).add({
    metadata: { namespace: "team-a", name: "a", labels: { app: "web" } },
  });
  const errors: InformerErrorContext[] = [];
  const factory = new SharedInformerFactory(client, {
    errorHandler: (_error, context) => void errors.push(context),
  });
  const informer = factory.informerFor(ConfigMaps, {
    namespace: "team-a",
    labelSelector: "app=web",
  });
  informer.addEventHandler({
    onAdd: () => {
      throw new Error("handler broke");
    },
  });
  const ac = new AbortController();
  factory.start(ac.signal);
  await eventually(() => errors.length === 1, "the handler's error");
  assert.equal(errors[0].informer, "configmaps in team-a (app=web)");
  await factory.shutdown();
});

Deno.test("SharedInformerFactory: a lister first asked for after start starts its informer at once; its reads throw CacheNotSyncedError until it synced, never answer 'absent'", async () => {
  const client = new FakeClient();
  client.source(Pods).add({ metadata: { namespace: "default", name: "p1" } });
  client.source(Nodes).add({ metadata: { name: "n1" } });
  const clock = new FakeClock();
  await using factory = new SharedInformerFactory(client, { clock });
  factory.informerFor(Pods);
  const ac = new AbortController();
  factory.start(ac.signal);
  // First asked for inside a "reconcile", long after start.
  const nodes = factory.lister(Nodes);
  assert.throws(
    () => nodes.get("n1"),
    (err) =>
      err instanceof CacheNotSyncedError && err.cache === "nodes" &&
      /the cache of nodes has not synced: wait for it first/.test(err.message),
  );
  assert.throws(() => nodes.list(), CacheNotSyncedError);
  while (!factory.informerFor(Nodes).hasSynced()) await clock.step(100);
  assert.equal(nodes.get("n1")?.metadata.name, "n1");
  assert.ok(
    client.calls.some((c) => c.op === "list" && c.resource === "nodes"),
    "listed without a second start()",
  );
  ac.abort();
});

Deno.test("SharedInformerFactory.syncedLister() waits for a start and the first list; rejects with the signal's reason, or CacheNotSyncedError when the factory shuts down first", async () => {
  const client = new FakeClient();
  client.source(Pods).add({ metadata: { namespace: "default", name: "p1" } });
  const clock = new FakeClock();
  const factory = new SharedInformerFactory(client, { clock });
  let got: unknown;
  const waiting = factory.syncedLister(Pods).then((l) => (got = l));
  await clock.step(1_000);
  assert.equal(got, undefined, "not before start()");
  const ac = new AbortController();
  factory.start(ac.signal);
  while (got === undefined) await clock.step(100);
  await waiting;
  const pods = got as GenericLister<KubeObject>;
  assert.equal(pods.namespaced("default").get("p1")?.metadata.name, "p1");
  // An abort rejects with its reason.
  const other = new SharedInformerFactory(client, { clock });
  const stop = new AbortController();
  const aborted = other.syncedLister(Nodes, {}, stop.signal);
  stop.abort(new Error("gave up"));
  await assert.rejects(aborted, /gave up/);
  // A shutdown before the sync rejects saying so.
  const never = other.syncedLister(ConfigMaps);
  await other.shutdown();
  await assert.rejects(never, CacheNotSyncedError);
  ac.abort();
  await factory.shutdown();
  await assert.rejects(
    factory.syncedLister("pods" as never),
    /SharedInformerFactory.syncedLister: type must be a ResourceType/,
  );
});

Deno.test("SharedInformerFactory.informerFor: a transform is part of the identity and runs after the factory's", async () => {
  const client = new FakeClient();
  client.source(Pods).add({
    metadata: { namespace: "default", name: "p1", labels: { a: "1" } },
  });
  const clock = new FakeClock();
  await using factory = new SharedInformerFactory(client, {
    clock,
    transform: (o) => ({
      ...o,
      metadata: { ...o.metadata, labels: { b: "2" } },
    }),
  });
  const mark = (o: KubeObject) => ({
    ...o,
    metadata: {
      ...o.metadata,
      annotations: { seen: JSON.stringify(o.metadata.labels) },
    },
  });
  const marked = factory.informerFor(Pods, { transform: mark });
  assert.equal(factory.informerFor(Pods, { transform: mark }), marked);
  assert.notEqual(factory.informerFor(Pods, { transform: (o) => o }), marked);
  assert.notEqual(factory.informerFor(Pods), marked);
  const ac = new AbortController();
  factory.start(ac.signal);
  while (!marked.hasSynced()) await clock.step(100);
  const p = marked.getStore().getByKey("default/p1")!;
  assert.equal(
    p.metadata.annotations?.seen,
    '{"b":"2"}',
    "after the factory's",
  );
  assert.throws(
    () => factory.informerFor(Pods, { transform: "strip" as never }),
    /SharedInformerFactory.informerFor: opts.transform must be a function, got "strip"/,
  );
  ac.abort();
});
