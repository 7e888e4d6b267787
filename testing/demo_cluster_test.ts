import assert from "node:assert/strict";
import { startDemoCluster } from "./demo_cluster.ts";
import { Namespaces, Nodes, Pods } from "../api/resources.ts";

const HOUR = 3_600_000;

Deno.test("startDemoCluster() keeps the initial objects' creation times, so AGE reads like a cluster's", async () => {
  await using demo = await startDemoCluster({ intervalMs: 60_000 });
  const now = Date.now();
  const age = (o: { metadata: { creationTimestamp?: string } }) =>
    now - Date.parse(o.metadata.creationTimestamp ?? "");
  // The server's own namespaces are as old as the nodes.
  for (const ns of demo.server.list(Namespaces)) {
    assert.ok(age(ns) > 8 * 24 * HOUR, `namespace ${ns.metadata.name}`);
  }
  for (const node of demo.server.list(Nodes)) {
    assert.ok(age(node) > 8 * 24 * HOUR, `node ${node.metadata.name}`);
  }
  const pods = demo.server.list(Pods);
  assert.ok(pods.length > 10);
  for (const pod of pods) {
    assert.ok(age(pod) > HOUR / 2, `pod ${pod.metadata.name}`);
  }
  // Later writes are stamped now, as the apiserver stamps them.
  const fresh = demo.server.create(Namespaces, { metadata: { name: "fresh" } });
  assert.ok(age(fresh) < HOUR);
});
