import assert from "node:assert/strict";
import { isInvalid, StatusError } from "../api/errors.ts";
import { ConfigMaps } from "../api/resources.ts";
import type { ConfigMap } from "../api/types.ts";
import { deepCopy, type DeepReadonly } from "../api/readonly.ts";
import { finalizer } from "./finalizer.ts";
import { Manager } from "./manager.ts";
import { TestCluster } from "./_test_util.ts";

const OURS = "example.com/cleanup";
const THEIRS = "other.io/protect";

Deno.test("finalizer flow on a Manager: adds ours after another controller's, applies only once it is stored, cleans up on delete and removes only ours", async () => {
  await using c = await TestCluster.start();
  const client = c.client();
  c.server.create(ConfigMaps, {
    metadata: { name: "app", namespace: "default", finalizers: [THEIRS] },
  });
  await using manager = new Manager(client, { clock: c.clock });
  const lister = manager.factory.lister(ConfigMaps);
  const log: string[] = [];
  manager.controller("cm", ConfigMaps).complete((req, ctx) => {
    const cm = lister.namespaced(req.namespace!).get(req.name);
    if (!cm) return;
    return finalizer(ctx, ConfigMaps, cm, OURS, {
      apply: (obj) => {
        // Never before the finalizer is on the server.
        const stored = c.server.get(ConfigMaps, "default", "app")!;
        assert.ok(stored.metadata.finalizers?.includes(OURS));
        assert.ok(obj.metadata.finalizers?.includes(OURS));
        log.push("apply");
        return { requeueAfter: 60_000 };
      },
      cleanup: () => {
        log.push("cleanup");
      },
    });
  });
  const run = c.run(manager);
  await c.until(() => log.includes("apply"), "apply");
  assert.deepEqual(
    c.server.get(ConfigMaps, "default", "app")!.metadata.finalizers,
    [THEIRS, OURS],
  );
  await client.delete(ConfigMaps, "app", { namespace: "default" });
  await c.until(() => log.includes("cleanup"), "cleanup");
  await c.until(
    () =>
      c.server.get(ConfigMaps, "default", "app")?.metadata.finalizers
        ?.length === 1,
    "ours removed",
  );
  // Theirs stays, and keeps the object (being deleted) on the server.
  const left = c.server.get(ConfigMaps, "default", "app")!;
  assert.deepEqual(left.metadata.finalizers, [THEIRS]);
  assert.ok(left.metadata.deletionTimestamp);
  assert.deepEqual(log.filter((l) => l === "cleanup"), ["cleanup"]);
  await run.stop();
});

/** A fresh copy of the stored ConfigMap, as a cache would hold it. */
function read(c: TestCluster, name = "app"): DeepReadonly<ConfigMap> {
  return deepCopy(c.server.get(ConfigMaps, "default", name)!);
}

Deno.test("finalizer never races a concurrent writer: a finalizer added since the read fails our patch (422 in cause) and is kept; the retry adds ours after it", async () => {
  await using c = await TestCluster.start();
  const ctx = { client: c.client(), signal: new AbortController().signal };
  const handlers = { apply: () => {}, cleanup: () => {} };
  // No finalizers at all when read: the patch tests the field is absent.
  c.server.create(ConfigMaps, {
    metadata: { name: "app", namespace: "default" },
  });
  const stale = read(c);
  const fresh = deepCopy(c.server.get(ConfigMaps, "default", "app")!);
  fresh.metadata.finalizers = [THEIRS];
  c.server.update(ConfigMaps, fresh);
  await assert.rejects(
    finalizer(ctx, ConfigMaps, stale, OURS, handlers),
    (e: Error) => {
      assert.match(
        e.message,
        /^finalizer example.com\/cleanup: adding it to ConfigMap default\/app failed: /,
      );
      assert.ok(e.cause instanceof StatusError && isInvalid(e.cause));
      return true;
    },
  );
  assert.deepEqual(
    c.server.get(ConfigMaps, "default", "app")!.metadata.finalizers,
    [THEIRS],
  );
  // Read again (the retry): ours is appended after theirs.
  assert.equal(
    await finalizer(ctx, ConfigMaps, read(c), OURS, handlers),
    undefined,
  );
  assert.deepEqual(
    c.server.get(ConfigMaps, "default", "app")!.metadata.finalizers,
    [THEIRS, OURS],
  );
  // A list seen with one entry, changed since: fails too, never doubles ours.
  const seen = read(c);
  const other = deepCopy(c.server.get(ConfigMaps, "default", "app")!);
  other.metadata.finalizers = [THEIRS, "third.io/x", OURS];
  c.server.update(ConfigMaps, other);
  // `seen` has ours: apply runs, no write.
  let applied = 0;
  await finalizer(ctx, ConfigMaps, seen, OURS, {
    apply: () => void applied++,
    cleanup: () => {},
  });
  assert.equal(applied, 1);
});

Deno.test("finalizer removal tests our index: when the list moved since the read, nothing is removed and the call fails; a cleanup throw keeps the finalizer", async () => {
  await using c = await TestCluster.start();
  const ctx = { client: c.client(), signal: new AbortController().signal };
  c.server.create(ConfigMaps, {
    metadata: {
      name: "app",
      namespace: "default",
      finalizers: [OURS, THEIRS],
    },
  });
  await ctx.client.delete(ConfigMaps, "app", { namespace: "default" });
  const stale = read(c);
  assert.ok(stale.metadata.deletionTimestamp);
  // Cleanup fails: the finalizer stays, the error is cleanup's own.
  let cleanups = 0;
  await assert.rejects(
    finalizer(ctx, ConfigMaps, stale, OURS, {
      apply: () => assert.fail("apply on a deleting object"),
      cleanup: () => {
        cleanups++;
        throw new Error("bucket not empty");
      },
    }),
    /^Error: bucket not empty$/,
  );
  assert.deepEqual(
    c.server.get(ConfigMaps, "default", "app")!.metadata.finalizers,
    [OURS, THEIRS],
  );
  // The list changes under us (someone else's is now first): the remove at
  // the index we saw (0) would remove theirs; the test op refuses it.
  const moved = deepCopy(c.server.get(ConfigMaps, "default", "app")!);
  moved.metadata.finalizers = [THEIRS, OURS];
  c.server.update(ConfigMaps, moved);
  const handlers = {
    apply: () => {},
    cleanup: () => void cleanups++,
  };
  await assert.rejects(
    finalizer(ctx, ConfigMaps, stale, OURS, handlers),
    /removing it from ConfigMap default\/app failed/,
  );
  assert.deepEqual(
    c.server.get(ConfigMaps, "default", "app")!.metadata.finalizers,
    [THEIRS, OURS],
  );
  // Read again: removed, theirs kept.
  assert.equal(
    await finalizer(ctx, ConfigMaps, read(c), OURS, handlers),
    undefined,
  );
  assert.deepEqual(
    c.server.get(ConfigMaps, "default", "app")!.metadata.finalizers,
    [THEIRS],
  );
  assert.equal(cleanups, 3);
  // Being deleted without ours: nothing to do, no request.
  const before = c.server.requests.length;
  assert.equal(
    await finalizer(ctx, ConfigMaps, read(c), OURS, {
      apply: () => assert.fail("apply"),
      cleanup: () => assert.fail("cleanup"),
    }),
    undefined,
  );
  assert.equal(c.server.requests.length, before);
});

Deno.test("finalizer: the removal's 404 (the object went meanwhile) counts as done; a write meant for one object never lands on a new one of the same name", async () => {
  await using c = await TestCluster.start();
  const ctx = { client: c.client(), signal: new AbortController().signal };
  c.server.create(ConfigMaps, {
    metadata: { name: "app", namespace: "default", finalizers: [OURS] },
  });
  await ctx.client.delete(ConfigMaps, "app", { namespace: "default" });
  const deleting = read(c);
  // Someone removed it already: the object is gone.
  const bare = deepCopy(c.server.get(ConfigMaps, "default", "app")!);
  bare.metadata.finalizers = [];
  c.server.update(ConfigMaps, bare);
  assert.equal(c.server.get(ConfigMaps, "default", "app"), undefined);
  // cleanup's result, though there was nothing left to remove.
  assert.deepEqual(
    await finalizer(ctx, ConfigMaps, deleting, OURS, {
      apply: () => {},
      cleanup: () => ({ requeueAfter: 5 }),
    }),
    { requeueAfter: 5 },
  );

  // An object read, then deleted and made again under the same name.
  c.server.create(ConfigMaps, {
    metadata: { name: "re", namespace: "default" },
  });
  const old = read(c, "re");
  await ctx.client.delete(ConfigMaps, "re", { namespace: "default" });
  c.server.create(ConfigMaps, {
    metadata: { name: "re", namespace: "default" },
  });
  await assert.rejects(
    finalizer(ctx, ConfigMaps, old, OURS, {
      apply: () => {},
      cleanup: () => {},
    }),
    /adding it to ConfigMap default\/re failed/,
  );
  assert.equal(
    c.server.get(ConfigMaps, "default", "re")!.metadata.finalizers,
    undefined,
  );
  // Read again: the new object has no finalizers field at all, which the
  // patch tests as null (as kube-apiserver's json-patch does), then adds.
  await finalizer(ctx, ConfigMaps, read(c, "re"), OURS, {
    apply: () => {},
    cleanup: () => {},
  });
  assert.deepEqual(
    c.server.get(ConfigMaps, "default", "re")!.metadata.finalizers,
    [OURS],
  );
});

Deno.test("finalizer checks its arguments at the call", async () => {
  await using c = await TestCluster.start();
  const ctx = { client: c.client(), signal: new AbortController().signal };
  const obj = { metadata: { name: "a", namespace: "default" } };
  const h = { apply: () => {}, cleanup: () => {} };
  // deno-lint-ignore no-explicit-any
  const f = finalizer as any;
  await assert.rejects(f({}, ConfigMaps, obj, OURS, h), {
    name: "TypeError",
    message: "finalizer: ctx.client must be a KubeClient, got undefined",
  });
  await assert.rejects(f(ctx, ConfigMaps, obj, "", h), TypeError);
  await assert.rejects(f(ctx, ConfigMaps, obj, OURS, { apply: () => {} }), {
    name: "TypeError",
    message: "finalizer: handlers.cleanup must be a function, got undefined",
  });
  await assert.rejects(
    f(ctx, ConfigMaps, { metadata: {} }, OURS, h),
    /finalizer: obj.metadata.name must be set, got undefined/,
  );
});
