import assert from "node:assert/strict";
import {
  type ExpirationPolicy,
  newExpirationStore,
  newTTLStore,
  type TimestampedEntry,
  TTLPolicy,
} from "./expiration_cache.ts";
import { KeyError } from "./keys.ts";
import { FakeClock } from "../testing/fake_clock.ts";

interface TestObj {
  id: string;
  val: string;
}
const keyFunc = (obj: unknown): string => (obj as TestObj).id;

/** client-go FakeExpirationPolicy: everything expires except neverExpire. */
class FakePolicy implements ExpirationPolicy {
  neverExpire = new Set<string>();
  checked: string[] = [];
  isExpired(entry: TimestampedEntry): boolean {
    this.checked.push(entry.key);
    return !this.neverExpire.has(entry.key);
  }
}

Deno.test("TTLPolicy does not expire an entry exactly on its TTL", async () => {
  // client-go TestTTLPolicy
  const clock = new FakeClock(1_000_000);
  const ttl = 30_000;
  const policy = new TTLPolicy(ttl, { clock });
  const now = clock.now();
  const entry = { obj: {}, key: "k", timestamp: now - ttl };
  assert.equal(policy.isExpired(entry), false, "exactly on ttl");
  assert.equal(policy.isExpired({ ...entry, timestamp: now }), false);
  assert.equal(policy.isExpired({ ...entry, timestamp: now - ttl - 1 }), true);
  await clock.step(1);
  assert.equal(policy.isExpired(entry), true, "one ms past ttl");
});

Deno.test("TTLPolicy with ttl 0 never expires", () => {
  const clock = new FakeClock(1e12);
  const policy = new TTLPolicy(0, { clock });
  assert.equal(policy.isExpired({ obj: 1, key: "k", timestamp: 0 }), false);
  assert.equal(policy.ttl, 0);
});

Deno.test("TTLPolicy rejects a negative or NaN ttl", () => {
  assert.throws(() => new TTLPolicy(-1), {
    name: "RangeError",
    message: /got -1/,
  });
  assert.throws(() => new TTLPolicy(NaN), RangeError);
  assert.throws(() => newTTLStore(keyFunc, -5), RangeError);
});

Deno.test("newExpirationStore() drops an expired entry on get", () => {
  // client-go TestTTLExpirationBasic
  const policy = new FakePolicy();
  const store = newExpirationStore<TestObj>(keyFunc, policy, {
    clock: new FakeClock(),
  });
  const obj = { id: "foo", val: "bar" };
  store.add(obj);
  assert.equal(store.get(obj), undefined);
  assert.deepEqual(policy.checked, ["foo"]);
  // It was deleted, so the policy is not asked again.
  assert.equal(store.getByKey("foo"), undefined);
  assert.deepEqual(policy.checked, ["foo"]);
});

Deno.test("newExpirationStore() lets an expired key be added again", () => {
  // client-go TestReAddExpiredItem
  const policy = new FakePolicy();
  const store = newExpirationStore<TestObj>(keyFunc, policy, {
    clock: new FakeClock(),
  });
  store.add({ id: "foo", val: "bar" });
  assert.equal(store.getByKey("foo"), undefined);
  store.add({ id: "foo", val: "different_bar" });
  policy.neverExpire.add("foo");
  assert.equal(store.getByKey("foo")?.val, "different_bar");
});

Deno.test("newExpirationStore() list and listKeys skip and delete expired entries", () => {
  // client-go TestTTLList
  const policy = new FakePolicy();
  policy.neverExpire.add("foo1");
  const store = newExpirationStore<TestObj>(keyFunc, policy, {
    clock: new FakeClock(),
  });
  for (const id of ["foo", "foo1", "foo2"]) store.add({ id, val: `v-${id}` });
  assert.deepEqual(store.list(), [{ id: "foo1", val: "v-foo1" }]);
  assert.deepEqual(policy.checked.sort(), ["foo", "foo1", "foo2"]);
  policy.checked = [];
  assert.deepEqual(store.listKeys(), ["foo1"]);
  // The expired ones were deleted by list(): only foo1 is checked now.
  assert.deepEqual(policy.checked, ["foo1"]);
});

Deno.test("newTTLStore() expires entries after the TTL on the injected clock", async () => {
  const clock = new FakeClock(5_000);
  const store = newTTLStore<TestObj>(keyFunc, 1_000, { clock });
  store.add({ id: "a", val: "1" });
  await clock.step(600);
  store.add({ id: "b", val: "2" });
  await clock.step(400); // a is exactly 1000 ms old: still live
  assert.deepEqual(store.listKeys(), ["a", "b"]);
  await clock.step(1);
  assert.equal(store.getByKey("a"), undefined);
  assert.deepEqual(store.list(), [{ id: "b", val: "2" }]);
  await clock.step(600);
  assert.deepEqual(store.list(), []);
  assert.deepEqual(store.listKeys(), []);
});

Deno.test("newTTLStore() update refreshes the timestamp", async () => {
  const clock = new FakeClock();
  const store = newTTLStore<TestObj>(keyFunc, 100, { clock });
  store.add({ id: "a", val: "1" });
  await clock.step(80);
  store.update({ id: "a", val: "2" });
  await clock.step(80);
  assert.equal(store.getByKey("a")?.val, "2");
  await clock.step(21);
  assert.equal(store.get({ id: "a", val: "" }), undefined);
});

Deno.test("newTTLStore() with ttl 0 keeps entries forever", async () => {
  const clock = new FakeClock();
  const store = newTTLStore<TestObj>(keyFunc, 0, { clock });
  store.add({ id: "a", val: "1" });
  await clock.step(1e9);
  assert.equal(store.getByKey("a")?.val, "1");
});

Deno.test("newTTLStore() replace stamps every item now and drops the rest", async () => {
  const clock = new FakeClock();
  const store = newTTLStore<TestObj>(keyFunc, 100, { clock });
  store.add({ id: "old", val: "x" });
  await clock.step(90);
  store.replace([{ id: "a", val: "1" }, { id: "b", val: "2" }], "7");
  assert.equal(store.getByKey("old"), undefined);
  await clock.step(100);
  assert.deepEqual(store.listKeys(), ["a", "b"]);
  await clock.step(1);
  assert.deepEqual(store.listKeys(), []);
});

Deno.test("newTTLStore() delete removes and resync keeps entries", () => {
  const store = newTTLStore<TestObj>(keyFunc, 100, { clock: new FakeClock() });
  store.add({ id: "a", val: "1" });
  store.add({ id: "b", val: "2" });
  store.delete({ id: "a", val: "" });
  store.delete({ id: "zzz", val: "" });
  store.resync();
  assert.deepEqual(store.listKeys(), ["b"]);
});

Deno.test("newTTLStore() wraps key function errors in KeyError", () => {
  const cause = new Error("no key");
  const store = newTTLStore<TestObj>(
    () => {
      throw cause;
    },
    100,
    { clock: new FakeClock() },
  );
  const obj = { id: "a", val: "1" };
  for (
    const op of [
      () => store.add(obj),
      () => store.update(obj),
      () => store.delete(obj),
      () => store.get(obj),
      () => store.replace([obj], "1"),
    ]
  ) {
    assert.throws(op, (err: unknown) => {
      assert.ok(err instanceof KeyError);
      assert.equal(err.cause, cause);
      return true;
    });
  }
});

Deno.test("newTTLStore() hands back the stored object itself", () => {
  const store = newTTLStore<TestObj>(keyFunc, 100, { clock: new FakeClock() });
  const obj = { id: "a", val: "1" };
  store.add(obj);
  assert.equal(store.getByKey("a"), obj);
  assert.equal(store.list()[0], obj);
});
