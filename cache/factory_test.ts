import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { FakeControllerSource } from "../testing/fake_controller_source.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { KubeConfig } from "../client/config.ts";
import { KubeClient } from "../client/rest.ts";
import type {
  ResourceClient,
  ResourceRequestOptions,
} from "../api/listwatch.ts";
import { ConfigMaps, Nodes, Pods } from "../api/resources.ts";
import type { ResourceType } from "../api/resources.ts";
import { SharedInformerFactory } from "./factory.ts";
import { NAMESPACE_INDEX } from "./index.ts";
import type { ObjectList, WatchEvent } from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";

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
  const nodes = factory.informerFor(Nodes); // asked for after start: not running
  const syncing = factory.waitForCacheSync(ac.signal);
  // the check is immediate, then every 100 ms on the factory clock
  while (!pods.hasSynced()) await clock.step(100);
  await clock.step(100);
  const synced = await syncing;
  assert.deepEqual([...synced.entries()], [[Pods, true]]);
  assert.equal(nodes.hasSynced(), false);
  factory.start(ac.signal);
  const again = factory.waitForCacheSync(ac.signal);
  while (!nodes.hasSynced()) await clock.step(100);
  await clock.step(100);
  assert.deepEqual([...(await again).entries()], [[Pods, true], [Nodes, true]]);
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
  const events: string[] = [];
  const changed = { wake: () => {} };
  const seen = (e: string) => {
    events.push(e);
    changed.wake();
  };
  const until = async (n: number) => {
    while (events.length < n) {
      await new Promise<void>((resolve) => changed.wake = resolve);
    }
  };
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
  await until(4);
  assert.deepEqual(events.slice(2), ["update a", "delete"]);
  assert.deepEqual(
    factory.lister(Pods).list().map((p) => p.metadata.labels),
    [{ x: "1" }],
  );
  await factory.shutdown();
});
