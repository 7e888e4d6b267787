import assert from "node:assert/strict";
import { Cache } from "./_cache.ts";
import {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  KeyError,
} from "./keys.ts";
import { metaNamespaceIndexFunc, NAMESPACE_INDEX } from "./index.ts";
import type { KubeObject } from "../api/object.ts";

const pod = (namespace: string, name: string): KubeObject => ({
  metadata: { namespace, name },
});

Deno.test("Cache keyed methods keep the indexes as add, update and delete do", () => {
  const cache = new Cache<KubeObject>(deletionHandlingMetaNamespaceKeyFunc, {
    [NAMESPACE_INDEX]: metaNamespaceIndexFunc,
  });
  const a = pod("ns1", "a");
  const key = cache.keyOf(a);
  assert.equal(key, "ns1/a");
  cache.updateByKey(key, a);
  assert.equal(cache.getByKey(key), a);
  assert.deepEqual(cache.byIndex(NAMESPACE_INDEX, "ns1"), [a]);

  const moved = { metadata: { namespace: "ns1", name: "a", labels: {} } };
  cache.updateByKey(key, moved);
  assert.deepEqual(cache.byIndex(NAMESPACE_INDEX, "ns1"), [moved]);

  const tombstone = new DeletedFinalStateUnknown("ns1/a", moved);
  assert.equal(cache.keyOf(tombstone), key);
  cache.deleteByKey(key);
  assert.deepEqual(cache.listKeys(), []);
  assert.deepEqual(cache.listIndexFuncValues(NAMESPACE_INDEX), []);
  cache.deleteByKey("missing"); // no-op
});

Deno.test("Cache.keyOf() wraps key function errors in KeyError", () => {
  const cache = new Cache<KubeObject>(deletionHandlingMetaNamespaceKeyFunc, {});
  assert.throws(() => cache.keyOf(null), KeyError);
});
