import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
} from "./rate_limiter.ts";

Deno.test("ItemExponentialFailureRateLimiter doubles per failure of each item, capped, and forget() starts over", () => {
  // client-go default_rate_limiters_test.go TestItemExponentialFailureRateLimiter
  const l = new ItemExponentialFailureRateLimiter<string>(1, 1_000);
  const delays = Array.from({ length: 12 }, () => l.when("one"));
  assert.deepEqual(delays, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 1000]);
  assert.equal(l.numRequeues("one"), 12);
  assert.equal(l.when("two"), 1, "items back off independently");
  assert.equal(l.when("two"), 2);
  l.forget("one");
  assert.equal(l.numRequeues("one"), 0);
  assert.equal(l.when("one"), 1);
});

Deno.test("ItemExponentialFailureRateLimiter stays at the cap after very many failures", () => {
  const l = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
  let last = 0;
  for (let i = 0; i < 2_000; i++) last = l.when("a");
  assert.equal(last, 1_000_000);
});

Deno.test("ItemFastSlowRateLimiter waits fast for maxFastAttempts failures, then slow", () => {
  // client-go TestItemFastSlowRateLimiter
  const l = new ItemFastSlowRateLimiter<string>(5, 10_000, 3);
  assert.deepEqual([1, 2, 3, 4, 5].map(() => l.when("one")), [
    5,
    5,
    5,
    10_000,
    10_000,
  ]);
  assert.equal(l.when("two"), 5);
  assert.equal(l.numRequeues("one"), 5);
  l.forget("one");
  assert.equal(l.numRequeues("one"), 0);
  assert.equal(l.when("one"), 5);
});

Deno.test("BucketRateLimiter allows a burst, then spaces items by 1/qps, and refills on the clock up to burst", async () => {
  const clock = new FakeClock();
  const l = new BucketRateLimiter<string>(10, 100, { clock });
  for (let i = 0; i < 100; i++) assert.equal(l.when(`k${i}`), 0);
  assert.equal(l.when("x"), 100);
  assert.equal(l.when("x"), 200, "reservations queue up");
  assert.equal(l.numRequeues("x"), 0);
  await clock.step(200); // pays back the two reservations
  assert.equal(l.when("y"), 100);
  await clock.step(3_600_000); // an hour idle refills to burst, not beyond
  for (let i = 0; i < 100; i++) assert.equal(l.when(`k${i}`), 0);
  assert.equal(l.when("z"), 100);
});

Deno.test("MaxOfRateLimiter returns the largest delay and counts, and forgets in all", () => {
  // client-go TestMaxOfRateLimiter
  const l = new MaxOfRateLimiter<string>(
    new ItemFastSlowRateLimiter(5, 3_000, 3),
    new ItemExponentialFailureRateLimiter(1, 1_000),
  );
  assert.deepEqual([1, 2, 3, 4].map(() => l.when("one")), [5, 5, 5, 3_000]);
  assert.equal(l.numRequeues("one"), 4);
  l.forget("one");
  assert.equal(l.numRequeues("one"), 0);
  assert.equal(l.when("one"), 5);
});

Deno.test("defaultControllerRateLimiter() is max(exponential 5 ms..1000 s, bucket 10 qps burst 100)", () => {
  const clock = new FakeClock();
  const l = defaultControllerRateLimiter<string>({ clock });
  assert.equal(l.when("a"), 5);
  assert.equal(l.when("a"), 10);
  for (let i = 0; i < 98; i++) l.when(`k${i}`); // bucket now empty
  assert.equal(l.when("fresh"), 100, "the bucket dominates a first failure");
  for (let i = 0; i < 40; i++) l.when("b");
  assert.equal(l.when("b"), 1_000_000, "per-item cap of 1000 s");
});

Deno.test("rate limiters reject bad arguments with a RangeError naming them", () => {
  assert.throws(
    () => new ItemExponentialFailureRateLimiter(-1, 10),
    /ItemExponentialFailureRateLimiter: baseDelayMs .* -1/,
  );
  assert.throws(
    () => new ItemExponentialFailureRateLimiter(1, NaN),
    /maxDelayMs .* NaN/,
  );
  assert.throws(
    () => new ItemFastSlowRateLimiter(1, 2, 1.5),
    /maxFastAttempts .* 1\.5/,
  );
  assert.throws(
    () => new BucketRateLimiter(0, 1),
    /qps must be a number > 0, got 0/,
  );
  assert.throws(() => new BucketRateLimiter(1, 0), /burst .* got 0/);
  assert.throws(() => new MaxOfRateLimiter(), RangeError);
});
