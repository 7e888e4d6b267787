import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { RateLimitingQueue } from "./rate_limiting_queue.ts";
import { ItemExponentialFailureRateLimiter } from "./rate_limiter.ts";

Deno.test("RateLimitingQueue.addRateLimited() re-adds after the limiter's delay; forget() resets it", async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>(
    new ItemExponentialFailureRateLimiter(100, 10_000),
    { clock },
  );
  q.addRateLimited("a"); // 100 ms
  q.addRateLimited("a"); // 200 ms: the earlier time wins
  assert.equal(q.numRequeues("a"), 2);
  await clock.step(99);
  assert.equal(q.len(), 0);
  await clock.step(1);
  assert.equal(q.len(), 1);
  q.forget("a");
  assert.equal(q.numRequeues("a"), 0);
  assert.equal(q.len(), 1, "forget does not take it off the queue");
  assert.equal(q.metrics().retries, 2);
  q.shutDown();
});

Deno.test("RateLimitingQueue defaults to the controller rate limiter on its clock (5 ms first)", async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>(undefined, { clock });
  q.addRateLimited("a");
  await clock.step(4);
  assert.equal(q.len(), 0);
  await clock.step(1);
  assert.equal(q.len(), 1);
  q.shutDown();
});

Deno.test("RateLimitingQueue.addRateLimited() is ignored after shut down and counts no failure", () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>(undefined, { clock });
  q.shutDown();
  q.addRateLimited("a");
  assert.equal(q.numRequeues("a"), 0);
  assert.equal(clock.hasWaiters(), false);
});
