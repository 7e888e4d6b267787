/**
 * Objects of one resource never reach a list or watch of another, whatever
 * the resourceVersion asked: the event history is global (one RV sequence
 * for every table), so replaying it must keep only the watched table's
 * events. Regression: the pods watch of the demo printed a Lease
 * (`ADDED kube-node-lease/demo-worker-1 0/0 Unknown`) after a reconnect.
 */

import assert from "node:assert/strict";
import {
  ConfigMaps,
  CustomResourceDefinitions,
  Leases,
  Pods,
  resourceType,
  Secrets,
} from "../api/resources.ts";
import type { ResourceType } from "../api/resources.ts";
import type { KubeObject } from "../api/object.ts";
import { FakeApiServer } from "./fake_api_server.ts";
import { getJson, WatchReader, widgetCrd } from "./_apiserver_test_util.ts";

const Widgets = resourceType({
  apiVersion: "example.test/v1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
});
const WIDGET_CRD = widgetCrd();

const KINDS: ResourceType[] = [Pods, ConfigMaps, Secrets, Leases, Widgets];

function path(t: ResourceType, ns: string): string {
  const base = t.group === "" ? "/api/v1" : `/apis/${t.group}/${t.version}`;
  return `${base}${ns === "" ? "" : `/namespaces/${ns}`}/${t.resource}`;
}

// Every kind gets the same names in the same namespace, interleaved, so
// that any event of the shared history sits next to other kinds' events.
// The kind of every object written, by uid (list items of built-in kinds
// carry no kind, as in kube-apiserver).
const kindOfUid = new Map<string, string>();

function writeAll(server: FakeApiServer, round: number): void {
  for (const name of ["same", `r${round}`]) {
    for (const t of KINDS) {
      const obj = { metadata: { name, namespace: "default" } } as KubeObject;
      if (t === Pods) {
        (obj as Record<string, unknown>).spec = {
          containers: [{ name: "c", image: "i" }],
        };
      }
      const existing = server.get(t, "default", name);
      if (existing) {
        server.update(t, {
          ...existing,
          metadata: { ...existing.metadata, labels: { round: `${round}` } },
        });
      } else {
        kindOfUid.set(server.create(t, obj).metadata.uid!, t.kind);
      }
    }
  }
  for (const t of KINDS) server.delete(t, "default", `r${round}`);
}

Deno.test("FakeApiServer lists and watches of one resource only ever carry that kind, from any resourceVersion", async () => {
  await using server = await FakeApiServer.start();
  server.create(CustomResourceDefinitions as ResourceType, WIDGET_CRD);
  const rvs = ["", "0", server.resourceVersion()];
  writeAll(server, 1);
  rvs.push(server.resourceVersion());
  writeAll(server, 2);
  rvs.push(server.resourceVersion());
  let seen = 0;
  for (const t of KINDS) {
    for (const ns of ["default", ""]) {
      for (const rv of rvs) {
        const list = await getJson(
          server,
          `${path(t, ns)}?resourceVersion=${rv}`,
        );
        assert.equal(list.status, 200, `list ${t.resource} rv=${rv}`);
        const items = list.body.items as KubeObject[];
        assert.ok(items.length > 0);
        for (const item of items) {
          assert.equal(
            kindOfUid.get(item.metadata.uid!),
            t.kind,
            `list ${t.resource} rv=${rv} has ${item.metadata.name}`,
          );
        }
        for (const watchList of [false, true]) {
          if (watchList && rv === "") continue;
          const q = watchList
            ? `&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`
            : "";
          const w = await WatchReader.open(
            server,
            `${path(t, ns)}?watch=true&resourceVersion=${rv}${q}`,
          );
          // Replayed and initial events are queued when the watch opens.
          server.faults.closeWatches();
          const events = await w.rest();
          seen += events.length;
          for (const e of events) {
            const uid = (e.object.metadata as { uid: string }).uid;
            const kind = e.type === "BOOKMARK" ? t.kind : kindOfUid.get(uid);
            assert.deepEqual(
              [e.object.kind, kind],
              [t.kind, t.kind],
              `watch ${t.resource} ns=${ns} rv=${rv} sent ${e.type} ${e.object.kind} ${e.object.metadata.name}`,
            );
          }
        }
      }
    }
  }
  assert.ok(seen > 100);
  // And live events: each watch sees only its kind's writes.
  const readers = await Promise.all(
    KINDS.map((t) =>
      WatchReader.open(
        server,
        `${
          path(t, "default")
        }?watch=true&resourceVersion=${server.resourceVersion()}`,
      )
    ),
  );
  writeAll(server, 3);
  server.faults.closeWatches();
  for (const [i, r] of readers.entries()) {
    const events = await r.rest();
    // Created, updated, deleted; a pod's delete is MODIFIED (its deletion
    // fields) then DELETED, as kube-apiserver's graceful deletion writes it.
    assert.equal(events.length, KINDS[i] === Pods ? 4 : 3);
    for (const e of events) assert.equal(e.object.kind, KINDS[i].kind);
  }
});
