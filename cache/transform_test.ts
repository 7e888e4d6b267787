import assert from "node:assert/strict";
import { stripManagedFields } from "./transform.ts";
import type { KubeObject } from "../api/object.ts";

interface Pod extends KubeObject {
  spec: { nodeName: string };
}

Deno.test("stripManagedFields() drops managedFields and keeps every other field", () => {
  // The expected output is the input without managedFields.
  const kept: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "a",
      namespace: "default",
      labels: { app: "web" },
      resourceVersion: "7",
    },
    spec: { nodeName: "n1" },
  };
  const pod: Pod = {
    ...kept,
    metadata: { ...kept.metadata, managedFields: [{ manager: "kubectl" }] },
  };
  const out = stripManagedFields(pod);
  assert.deepEqual(out, kept);
  // The key itself is gone, not set to undefined.
  assert.equal("managedFields" in out.metadata, false);
  // The same spec object: a shallow copy, no deep clone.
  assert.equal(out.spec, pod.spec);
});

Deno.test("stripManagedFields() leaves its input unmodified", () => {
  const pod: KubeObject = {
    metadata: { name: "a", managedFields: [{ manager: "m" }] },
  };
  stripManagedFields(pod);
  assert.deepEqual(pod.metadata.managedFields, [{ manager: "m" }]);
});

Deno.test("stripManagedFields() returns an object without managedFields as it is", () => {
  const pod: KubeObject = { metadata: { name: "a" } };
  assert.equal(stripManagedFields(pod), pod);
});
