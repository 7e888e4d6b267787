// examples/secret_generator.ts on a FakeApiServer (with its garbage
// collector) and a FakeClock: the owned Secret is created, kept, patched,
// re-created when deleted by hand, and deleted through the finalizer.

import assert from "node:assert/strict";
import { ConfigMaps, Events, KubeConfig, Secrets } from "../mod.ts";
import { Manager } from "../controller/mod.ts";
import {
  FakeApiServer,
  FakeClock,
  settle,
  TrackedClient,
} from "../testing/mod.ts";
import {
  addSecretGenerator,
  FINALIZER,
  LABEL,
  secretName,
} from "./secret_generator.ts";

Deno.test("examples/secret_generator.ts: a labelled ConfigMap owns a generated Secret, kept in step, deleted through the finalizer with Events", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  await using server = await FakeApiServer.start({ clock });
  await using client = new TrackedClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  const until = (cond: () => boolean, what: string) =>
    settle(client, { clock, until: cond, what });
  const secret = () => server.get(Secrets, "default", secretName("db"));
  const reasons = () =>
    server.list(Events, "default").map((e) => e.reason).sort();

  await using manager = new Manager(client, { clock });
  addSecretGenerator(manager);
  const stop = new AbortController();
  const done = manager.run(stop.signal);

  server.create(ConfigMaps, {
    metadata: { name: "db", namespace: "default", labels: { [LABEL]: "true" } },
    data: { keys: "username,password" },
  });
  await until(() => secret() !== undefined, "Secret created");
  const first = secret()!;
  assert.deepEqual(Object.keys(first.data!).sort(), ["password", "username"]);
  const cm = server.get(ConfigMaps, "default", "db")!;
  assert.deepEqual(cm.metadata.finalizers, [FINALIZER]);
  assert.deepEqual(first.metadata.ownerReferences, [{
    apiVersion: "v1",
    kind: "ConfigMap",
    name: "db",
    uid: cm.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  }]);
  await until(() => reasons().includes("SecretCreated"), "Event");

  // Fewer keys: the Secret is patched, the kept value unchanged.
  server.update(ConfigMaps, {
    ...cm,
    data: { keys: "password" },
  });
  await until(() => Object.keys(secret()!.data!).length === 1, "patched");
  assert.equal(secret()!.data!.password, first.data!.password);

  // Deleted by hand: the owns() watch brings it back.
  server.delete(Secrets, "default", secretName("db"));
  await until(() => secret() !== undefined, "Secret re-created");

  // Deleting the ConfigMap: the finalizer deletes the Secret, then the
  // ConfigMap goes.
  await client.delete(ConfigMaps, "db", {
    namespace: "default",
    propagationPolicy: "Orphan",
  });
  await until(
    () => server.get(ConfigMaps, "default", "db") === undefined,
    "ConfigMap gone",
  );
  assert.equal(secret(), undefined);
  await until(() => reasons().includes("SecretDeleted"), "cleanup Event");
  assert.deepEqual(reasons(), [
    "SecretCreated",
    "SecretCreated",
    "SecretDeleted",
    "SecretUpdated",
  ]);
  stop.abort();
  await until(() => true, "settle");
  await done;
});
