import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { DelayingQueue } from "./delaying_queue.ts";

/** A DelayingQueue of strings on a fresh FakeClock. */
function delaying() {
  const clock = new FakeClock();
  return { clock, q: new DelayingQueue<string>({ clock }) };
}

Deno.test("DelayingQueue.addAfter() adds the item when its delay has passed on the clock, not before", async () => {
  const clock = new FakeClock(1_000);
  const q = new DelayingQueue<string>({ clock });
  q.addAfter("a", 50);
  await clock.step(49);
  assert.equal(q.len(), 0);
  await clock.step(1);
  assert.equal(q.len(), 1);
  assert.equal(await q.get(), "a");
  assert.equal(clock.hasWaiters(), false, "no timer left once nothing waits");
  q.shutDown();
});

Deno.test("DelayingQueue.addAfter() keeps the earliest time for an item already waiting", async (t) => {
  await t.step("an earlier time moves it forward", async () => {
    const { clock, q } = delaying();
    q.addAfter("a", 1_000);
    q.addAfter("a", 100);
    await clock.step(100);
    assert.equal(q.len(), 1);
    await clock.step(1_000);
    assert.equal(q.len(), 1, "added once");
    q.shutDown();
  });
  await t.step("a later time does not postpone it", async () => {
    const { clock, q } = delaying();
    q.addAfter("a", 100);
    q.addAfter("a", 1_000);
    await clock.step(100);
    assert.equal(q.len(), 1);
    q.shutDown();
  });
});

Deno.test("DelayingQueue adds items in the order of their ready times, ties in call order", async () => {
  const { clock, q } = delaying();
  q.addAfter("late", 300);
  q.addAfter("early", 100);
  q.addAfter("tie1", 200);
  q.addAfter("tie2", 200);
  q.addAfter("mid", 150);
  await clock.step(300);
  const got = [];
  while (q.len() > 0) got.push(await q.get());
  assert.deepEqual(got, ["early", "mid", "tie1", "tie2", "late"]);
  q.shutDown();
});

Deno.test("DelayingQueue.addAfter() with a delay of 0 or less adds at once", () => {
  const { clock, q } = delaying();
  q.addAfter("a", 0);
  q.addAfter("b", -5);
  assert.equal(q.len(), 2);
  assert.equal(clock.hasWaiters(), false);
  q.shutDown();
});

Deno.test("DelayingQueue: a delayed item that is already queued collapses into it", async () => {
  const { clock, q } = delaying();
  q.add("a");
  q.addAfter("a", 10);
  await clock.step(10);
  assert.equal(q.len(), 1);
  q.shutDown();
});

Deno.test("DelayingQueue.shutDown() drops waiting items and releases the timer", async () => {
  const { clock, q } = delaying();
  q.addAfter("a", 100);
  assert.equal(clock.hasWaiters(), true);
  q.shutDown();
  assert.equal(clock.hasWaiters(), false);
  await clock.step(100);
  assert.equal(q.len(), 0);
  q.addAfter("b", 10);
  assert.equal(clock.hasWaiters(), false, "ignored after shut down");
});

Deno.test("DelayingQueue.shutDownWithDrain() releases the timer too", async () => {
  const { clock, q } = delaying();
  q.addAfter("a", 100);
  await q.shutDownWithDrain();
  assert.equal(clock.hasWaiters(), false);
});

Deno.test("DelayingQueue on the real clock leaves no timer behind after shutDown (sanitizer)", () => {
  const q = new DelayingQueue<string>();
  q.addAfter("a", 60_000);
  q.shutDown();
});

Deno.test("DelayingQueue.addAfter() counts a retry in the metrics", () => {
  const { q } = delaying();
  q.addAfter("a", 10);
  q.addAfter("b", 0);
  assert.equal(q.metrics().retries, 2);
  q.shutDown();
});

Deno.test("DelayingQueue.addAfter() rejects a NaN or infinite delay with a RangeError", () => {
  const q = new DelayingQueue<string>({ clock: new FakeClock() });
  assert.throws(() => q.addAfter("a", NaN), /addAfter: delayMs .* NaN/);
  assert.throws(() => q.addAfter("a", Infinity), RangeError);
  q.shutDown();
});
