import assert from "node:assert/strict";
import type { KubeClient } from "../client/rest.ts";
import { StatusError } from "../api/errors.ts";
import { Leases } from "../api/resources.ts";
import { serverWithClient } from "../testing/client_test_util.ts";
import {
  formatMicroTime,
  type LeaderElectionRecord,
  LeaseLock,
  rawRecord,
} from "./lease_lock.ts";

const T0 = "2026-01-01T00:00:00.000000Z";
const record: LeaderElectionRecord = {
  holderIdentity: "a",
  leaseDurationSeconds: 15,
  acquireTime: T0,
  renewTime: T0,
  leaderTransitions: 0,
};

/** A server and client, and `lock(identity)`: a LeaseLock on default/lock. */
async function setup() {
  const env = await serverWithClient();
  const lock = (identity: string) =>
    new LeaseLock({
      client: env.client,
      namespace: "default",
      name: "lock",
      identity,
    });
  return Object.assign(env, { lock });
}

Deno.test("formatMicroTime() writes UTC with exactly six fractional digits, as metav1.MicroTime", () => {
  assert.equal(formatMicroTime(Date.UTC(2026, 0, 1)), T0);
  assert.equal(
    formatMicroTime(Date.UTC(2026, 4, 6, 7, 8, 9, 10) + 0.5),
    "2026-05-06T07:08:09.010500Z",
  );
  assert.equal(formatMicroTime(0.001), "1970-01-01T00:00:00.000001Z");
  assert.throws(() => formatMicroTime(NaN), RangeError);
});

Deno.test("LeaseLock writes the Lease spec field for field as client-go does", async () => {
  await using s = await setup();
  const lock = new LeaseLock({
    client: s.client,
    namespace: "default",
    name: "lock",
    identity: "a",
    labels: { app: "demo" },
  });
  assert.equal(await lock.get(), undefined, "no lease yet");
  await lock.create(record);
  const [lease] = s.server.list(Leases, "default");
  assert.equal(lease.apiVersion, "coordination.k8s.io/v1");
  assert.equal(lease.kind, "Lease");
  assert.deepEqual(lease.metadata.labels, { app: "demo" });
  assert.deepEqual(lease.spec, {
    holderIdentity: "a",
    leaseDurationSeconds: 15,
    acquireTime: T0,
    renewTime: T0,
    leaseTransitions: 0,
  });
  const got = await lock.get();
  assert.deepEqual(got?.record, record);
  assert.equal(got?.raw, rawRecord(record));
});

Deno.test("LeaseLock.get() reads absent spec fields as client-go's zero values", async () => {
  await using s = await setup();
  s.server.create(Leases, {
    metadata: { name: "lock", namespace: "default" },
    spec: {},
  });
  const got = await s.lock("a").get();
  assert.deepEqual(got?.record, {
    holderIdentity: "",
    leaseDurationSeconds: 0,
    acquireTime: "",
    renewTime: "",
    leaderTransitions: 0,
  });
});

Deno.test("LeaseLock.update() is guarded by the resourceVersion last read: a stale write gets 409", async () => {
  await using s = await setup();
  const a = s.lock("a");
  const b = s.lock("b");
  await a.create(record);
  await b.get();
  await a.update({ ...record, renewTime: "2026-01-01T00:00:02.000000Z" });
  await assert.rejects(
    b.update({ ...record, holderIdentity: "b" }),
    (e) => e instanceof StatusError && e.code === 409,
  );
  assert.equal(s.server.list(Leases, "default")[0].spec!.holderIdentity, "a");
  await b.get(); // fresh read: now it can write
  await b.update({ ...record, holderIdentity: "b" });
  assert.equal(s.server.list(Leases, "default")[0].spec!.holderIdentity, "b");
});

Deno.test("LeaseLock.create() of an existing Lease fails with 409 AlreadyExists", async () => {
  await using s = await setup();
  await s.lock("a").create(record);
  await assert.rejects(
    s.lock("b").create({ ...record, holderIdentity: "b" }),
    (e) => e instanceof StatusError && e.code === 409,
  );
});

Deno.test("LeaseLock.update() before get or create throws", async () => {
  await using s = await setup();
  await assert.rejects(
    s.lock("a").update(record),
    /LeaseLock default\/lock: lease not initialized, call get or create first/,
  );
});

Deno.test("LeaseLock.get() passes on errors other than 404", async () => {
  await using s = await setup();
  s.server.faults.failNext(1, { status: 403 });
  await assert.rejects(
    s.lock("a").get(),
    (e) => e instanceof StatusError && e.code === 403,
  );
});

Deno.test("LeaseLock rejects an empty namespace, name or identity with a TypeError", () => {
  const never = () => Promise.reject(new Error("no request expected"));
  const client = {
    get: never,
    create: never,
    update: never,
  } as unknown as KubeClient;
  for (const field of ["namespace", "name", "identity"]) {
    const opts = { client, namespace: "ns", name: "n", identity: "i" };
    assert.throws(
      () => new LeaseLock({ ...opts, [field]: "" }),
      new RegExp(
        `^TypeError: new LeaseLock: opts.${field} must be a non-empty string, got ""$`,
      ),
    );
  }
  const lock = new LeaseLock({
    client,
    namespace: "ns",
    name: "n",
    identity: "i",
  });
  assert.equal(lock.identity(), "i");
  assert.equal(lock.describe(), "ns/n");
});

Deno.test("LeaseLock annotations are read at each write and written with the record; others on the Lease are kept", async () => {
  await using env = await serverWithClient();
  let n = 0;
  const lock = new LeaseLock({
    client: env.client,
    namespace: "default",
    name: "member",
    identity: "a",
    annotations: () => ({ "example.com/n": String(++n) }),
  });
  await lock.create(record);
  let lease = env.server.list(Leases, "default")[0];
  assert.deepEqual(lease.metadata.annotations, { "example.com/n": "1" });
  // Someone else annotates the Lease; the lock reads it before its update.
  env.server.update(Leases, {
    ...lease,
    metadata: {
      ...lease.metadata,
      annotations: { ...lease.metadata.annotations, "other/x": "y" },
    },
  });
  await lock.get();
  await lock.update({ ...record, renewTime: "2026-01-01T00:00:02.000000Z" });
  lease = env.server.list(Leases, "default")[0];
  assert.deepEqual(lease.metadata.annotations, {
    "example.com/n": "2",
    "other/x": "y",
  });
});
