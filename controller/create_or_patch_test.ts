import assert from "node:assert/strict";
import { ConfigMaps } from "../api/resources.ts";
import type { ConfigMap } from "../api/types.ts";
import { createOrPatch } from "./create_or_patch.ts";
import { TestCluster } from "./_test_util.ts";

/** Freeze `obj` and everything in it: a write to it throws. */
function deepFreeze<T>(obj: T): T {
  if (typeof obj === "object" && obj !== null) {
    for (const v of Object.values(obj)) deepFreeze(v);
    Object.freeze(obj);
  }
  return obj;
}

Deno.test("createOrPatch never changes the caller's object: a frozen (cached) object is created from, then patched from", async () => {
  await using c = await TestCluster.start();
  const client = c.client();
  const desired: ConfigMap = deepFreeze({
    metadata: { name: "gen", namespace: "default", labels: { a: "1" } },
    data: { k: "v" },
  });
  const snapshot = structuredClone(desired);
  let value = "1";
  const mutate = (cm: ConfigMap) => {
    cm.metadata.labels = { ...cm.metadata.labels, owner: "me" };
    cm.data = { ...cm.data, value };
  };
  assert.equal(
    await createOrPatch(client, ConfigMaps, desired, mutate),
    "created",
  );
  assert.deepEqual(desired, snapshot);
  assert.deepEqual(c.server.get(ConfigMaps, "default", "gen")!.data, {
    k: "v",
    value: "1",
  });
  value = "2";
  assert.equal(
    await createOrPatch(client, ConfigMaps, desired, mutate),
    "patched",
  );
  assert.deepEqual(desired, snapshot);
  assert.equal(c.server.get(ConfigMaps, "default", "gen")!.data!.value, "2");
});

Deno.test("createOrPatch takes { signal, fieldManager }: the field manager is sent with the write; an aborted signal sends nothing, and an abort during mutate writes nothing", async () => {
  await using c = await TestCluster.start();
  const client = c.client();
  const desired = (): ConfigMap => ({
    metadata: { name: "gen", namespace: "default" },
  });
  const mutate = (cm: ConfigMap) => {
    cm.data = { ...cm.data, at: String(Date.now()) };
  };
  assert.equal(
    await createOrPatch(client, ConfigMaps, desired(), mutate, {
      fieldManager: "secret-controller",
    }),
    "created",
  );
  assert.equal(
    await createOrPatch(client, ConfigMaps, desired(), (cm) => {
      cm.data = { other: "x" };
    }, { fieldManager: "secret-controller" }),
    "patched",
  );
  const writes = c.server.requests.filter((r) => r.method !== "GET");
  assert.deepEqual(
    writes.map((r) => [r.method, r.query.get("fieldManager")]),
    [["POST", "secret-controller"], ["PATCH", "secret-controller"]],
  );
  // Aborted before the call: no request at all.
  const before = c.server.requests.length;
  const aborted = new AbortController();
  aborted.abort(new Error("shutting down"));
  await assert.rejects(
    createOrPatch(client, ConfigMaps, desired(), mutate, {
      signal: aborted.signal,
    }),
    /shutting down/,
  );
  assert.equal(c.server.requests.length, before);

  // Aborted while mutate ran (after the GET): no write.
  const stop = new AbortController();
  await assert.rejects(
    createOrPatch(client, ConfigMaps, desired(), (cm) => {
      cm.data = { changed: "yes" };
      stop.abort(new Error("reconcile cancelled"));
    }, { signal: stop.signal }),
    /reconcile cancelled/,
  );
  assert.deepEqual(
    c.server.requests.slice(before).map((r) => r.method),
    ["GET"],
  );
  // On the create path too.
  const stop2 = new AbortController();
  await assert.rejects(
    createOrPatch(
      client,
      ConfigMaps,
      {
        metadata: { name: "new", namespace: "default" },
      },
      () => stop2.abort(new Error("cancelled")),
      { signal: stop2.signal },
    ),
    /cancelled/,
  );
  assert.equal(c.server.get(ConfigMaps, "default", "new"), undefined);
});

Deno.test("createOrPatch checks its options at the call", async () => {
  await using c = await TestCluster.start();
  const client = c.client();
  const obj: ConfigMap = { metadata: { name: "a", namespace: "default" } };
  // deno-lint-ignore no-explicit-any
  const f = createOrPatch as any;
  await assert.rejects(f(client, ConfigMaps, obj, () => {}, { signal: "x" }), {
    name: "TypeError",
    message: 'createOrPatch: opts.signal must be an AbortSignal, got "x"',
  });
  await assert.rejects(
    f(client, ConfigMaps, obj, () => {}, { fieldManager: 3 }),
    /^TypeError: createOrPatch: opts.fieldManager must be a string/,
  );
  await assert.rejects(f(client, ConfigMaps, obj, () => {}, 5), TypeError);
  assert.equal(c.server.requests.length, 0);
});
