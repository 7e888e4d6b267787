import assert from "node:assert/strict";
import {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  ExplicitKey,
  KeyError,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
} from "./keys.ts";

Deno.test("metaNamespaceKeyFunc() keys namespaced objects as namespace/name", () => {
  assert.equal(
    metaNamespaceKeyFunc({ metadata: { namespace: "ns", name: "a" } }),
    "ns/a",
  );
});

Deno.test("metaNamespaceKeyFunc() keys cluster-scoped objects by name", () => {
  assert.equal(
    metaNamespaceKeyFunc({ metadata: { name: "node-1" } }),
    "node-1",
  );
  assert.equal(
    metaNamespaceKeyFunc({ metadata: { namespace: "", name: "node-1" } }),
    "node-1",
  );
});

Deno.test("metaNamespaceKeyFunc() passes an ExplicitKey through", () => {
  assert.equal(metaNamespaceKeyFunc(new ExplicitKey("any/thing")), "any/thing");
});

Deno.test('metaNamespaceKeyFunc() refuses a name or namespace that is not a non-empty string (never keys it as "ns/")', () => {
  for (
    const [meta, message] of [
      [{}, /metadata.name must be a non-empty string, got undefined/],
      [{ namespace: "ns" }, /metadata.name must be a non-empty string/],
      [{ namespace: "default", name: 42 }, /got 42/],
      [{ namespace: "default", name: "" }, /got ""/],
      [{ name: { a: 1 } }, /got an object/],
      [
        { namespace: 7, name: "a" },
        /metadata.namespace must be a string, got 7/,
      ],
      [{ namespace: ["x"], name: "a" }, /got an array/],
    ] as const
  ) {
    const obj = { metadata: meta };
    assert.throws(
      () => metaNamespaceKeyFunc(obj),
      (err) =>
        err instanceof KeyError && err.obj === obj && message.test(err.message),
      JSON.stringify(meta),
    );
  }
  // Absent namespace, as Go's omitempty leaves it: cluster-scoped.
  assert.equal(
    metaNamespaceKeyFunc({ metadata: { name: "n", namespace: "" } }),
    "n",
  );
  assert.equal(
    metaNamespaceKeyFunc({ metadata: { name: "n", namespace: null } }),
    "n",
  );
});

Deno.test("metaNamespaceKeyFunc() throws KeyError without metadata", async (t) => {
  for (
    const [label, obj, message] of [
      ["null", null, /got null/],
      ["a number", 42, /got number/],
      ["undefined", undefined, /got undefined/],
      ["no metadata", {}, /object has no metadata/],
      ["null metadata", { metadata: null }, /object has no metadata/],
    ] as const
  ) {
    await t.step(label, () => {
      assert.throws(() => metaNamespaceKeyFunc(obj), (err: unknown) => {
        assert.ok(err instanceof KeyError);
        assert.equal(err.name, "KeyError");
        assert.equal(err.obj, obj);
        assert.match(err.message, message);
        return true;
      });
    });
  }
});

Deno.test("deletionHandlingMetaNamespaceKeyFunc() keys a tombstone by its key", () => {
  const obj = { metadata: { namespace: "ns", name: "a" } };
  assert.equal(
    deletionHandlingMetaNamespaceKeyFunc(
      new DeletedFinalStateUnknown("ns/old", obj),
    ),
    "ns/old",
  );
  assert.equal(
    deletionHandlingMetaNamespaceKeyFunc(
      new DeletedFinalStateUnknown("k", undefined),
    ),
    "k",
  );
  assert.equal(deletionHandlingMetaNamespaceKeyFunc(obj), "ns/a");
  assert.throws(() => deletionHandlingMetaNamespaceKeyFunc({}), KeyError);
});

Deno.test("DeletedFinalStateUnknown keeps the key and the last known object", () => {
  const obj = { metadata: { name: "a" } };
  const tomb = new DeletedFinalStateUnknown("a", obj);
  assert.equal(tomb.key, "a");
  assert.equal(tomb.obj, obj);
});

Deno.test("splitMetaNamespaceKey() splits namespace/name and bare names", () => {
  // client-go TestSplitMetaNamespaceKey
  assert.deepEqual(splitMetaNamespaceKey("ns/name"), {
    namespace: "ns",
    name: "name",
  });
  assert.deepEqual(splitMetaNamespaceKey("name"), {
    namespace: "",
    name: "name",
  });
  assert.deepEqual(splitMetaNamespaceKey("/name"), {
    namespace: "",
    name: "name",
  });
  assert.deepEqual(splitMetaNamespaceKey(""), { namespace: "", name: "" });
});

Deno.test("splitMetaNamespaceKey() throws on more than one slash", () => {
  assert.throws(() => splitMetaNamespaceKey("a/b/c"), {
    name: "TypeError",
    message: /got "a\/b\/c"/,
  });
});

Deno.test("splitMetaNamespaceKey() inverts metaNamespaceKeyFunc()", () => {
  for (const meta of [{ namespace: "ns", name: "a" }, { name: "node" }]) {
    const { namespace, name } = splitMetaNamespaceKey(
      metaNamespaceKeyFunc({ metadata: meta }),
    );
    assert.equal(name, meta.name);
    assert.equal(namespace, meta.namespace ?? "");
  }
});
