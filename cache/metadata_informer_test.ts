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
