import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { KubeConfig } from "../client/config.ts";
import { KubeClient } from "../client/rest.ts";
import { Pods } from "../api/resources.ts";
import type { PartialObjectMetadata } from "../api/object.ts";
import { SharedInformerFactory } from "./factory.ts";
import { stripManagedFields } from "./transform.ts";
import { eventLog } from "./_test_util.ts";
import { nextTurn } from "../testing/turns.ts";

Deno.test("SharedInformerFactory.metadataInformerFor() over KubeClient and FakeApiServer caches PartialObjectMetadata and follows changes", async () => {
  const clock = new FakeClock();
  await using server = await FakeApiServer.start({ clock });
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  server.create(Pods, {
    metadata: { namespace: "default", name: "a", labels: { app: "web" } },
    spec: { containers: [{ name: "c", image: "nginx" }] },
  });
  const factory = new SharedInformerFactory(client, {
    clock,
    transform: stripManagedFields,
  });
  const { events, seen, until } = eventLog();
  const informer = factory.metadataInformerFor(Pods);
  informer.addEventHandler({
    onAdd: (m: PartialObjectMetadata) =>
      seen(`add ${m.kind} ${m.metadata.name}`),
    onUpdate: (_o, m) =>
      seen(`update ${m.metadata.name} ${m.metadata.labels?.app}`),
    onDelete: () => seen("delete"),
  });
  factory.start(new AbortController().signal);
  await until(1);
  assert.deepEqual(events, ["add PartialObjectMetadata a"]);
  const cached = informer.getStore().getByKey("default/a")!;
  assert.equal(cached.apiVersion, "meta.k8s.io/v1");
  assert.equal("spec" in cached, false, "metadata only");
  assert.deepEqual(cached.metadata.labels, { app: "web" });
  const a = server.list(Pods, "default")[0];
  server.update(Pods, {
    ...a,
    metadata: { ...a.metadata, labels: { app: "api" } },
  });
  await until(2);
  assert.equal(events[1], "update a api");
  const updated = informer.getStore().getByKey("default/a")!;
  assert.equal(updated.kind, "PartialObjectMetadata");
  assert.equal("spec" in updated, false);
  server.delete(Pods, "default", "a");
  // A pod's delete writes its deletion fields (MODIFIED), then removes it.
  await until(4);
  assert.equal(events[3], "delete");
  await factory.shutdown();
});

Deno.test("a metadata-only informer on a server that ignores as=PartialObjectMetadata converts the full objects it gets (list and watch) instead of skipping them", async () => {
  // An older server or an aggregated API: full Pods whatever the Accept.
  const pod = (name: string, rv: string) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "default", name, resourceVersion: rv },
    spec: { containers: [{ name: "c", image: "secret-image" }] },
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => {
      const url = new URL(req.url);
      if (url.searchParams.get("watch") !== "true") {
        return Response.json({
          kind: "PodList",
          apiVersion: "v1",
          metadata: { resourceVersion: "5" },
          // List items come without kind, as from an apiserver.
          items: [{ metadata: pod("a", "5").metadata, spec: {} }],
        });
      }
      if (url.searchParams.get("resourceVersion") !== "5") {
        return new Response(new ReadableStream({ start() {} }));
      }
      return new Response(
        [
          { type: "MODIFIED", object: pod("a", "6") },
          { type: "ADDED", object: pod("b", "7") },
        ].map((e) => JSON.stringify(e) + "\n").join(""),
      );
    },
  );
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: `http://127.0.0.1:${server.addr.port}` }),
  );
  const clock = new FakeClock();
  const factory = new SharedInformerFactory(client, { clock });
  const informer = factory.metadataInformerFor(Pods);
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  try {
    for (
      let i = 0;
      i < 5_000 && informer.getStore().listKeys().length < 2;
      i++
    ) {
      await nextTurn();
    }
    const objs = informer.getStore().list() as PartialObjectMetadata[];
    assert.deepEqual(
      objs.map((o) =>
        `${o.apiVersion} ${o.kind} ${o.metadata.name}@${o.metadata.resourceVersion}`
      ).sort(),
      [
        "meta.k8s.io/v1 PartialObjectMetadata a@6",
        "meta.k8s.io/v1 PartialObjectMetadata b@7",
      ],
    );
    assert.ok(objs.every((o) => !("spec" in o)), "only the metadata is kept");
    assert.equal(informer.health()?.skippedObjects, 0);
    assert.equal(informer.lastSyncResourceVersion(), "7");
  } finally {
    stop.abort();
    await running;
    await server.shutdown();
  }
});
