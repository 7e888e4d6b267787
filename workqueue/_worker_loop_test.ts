import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { nextTurn } from "../testing/turns.ts";
import { RateLimitingQueue } from "./rate_limiting_queue.ts";
import { ItemExponentialFailureRateLimiter } from "./rate_limiter.ts";
import { type Next, workLoop } from "./_worker_loop.ts";

Deno.test("workLoop applies what handle returns: forget, rateLimited, { after } (forget, then added after the delay), and done() each time", async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>(
    new ItemExponentialFailureRateLimiter(1_000, 60_000),
    { clock },
  );
  const stop = new AbortController();
  const seen: string[] = [];
  const plan: Record<string, Next[]> = {
    f: ["rateLimited", "forget"],
    a: [{ after: 5_000 }, "forget"],
  };
  const loop = workLoop(q, 1, stop.signal, (key) => {
    seen.push(`${key}@${clock.now()}`);
    return Promise.resolve(plan[key].shift()!);
  });
  q.add("f");
  q.add("a");
  await nextTurn();
  assert.deepEqual(seen, ["f@0", "a@0"]);
  assert.equal(q.numRequeues("f"), 1, "rate limited");
  assert.equal(q.numRequeues("a"), 0, "forgotten before the delay");
  await clock.step(1_000);
  await nextTurn();
  assert.deepEqual(seen, ["f@0", "a@0", "f@1000"]);
  assert.equal(q.numRequeues("f"), 0, "forgotten");
  await clock.step(4_000);
  await nextTurn();
  assert.deepEqual(seen, ["f@0", "a@0", "f@1000", "a@5000"]);
  assert.equal(q.metrics().processing, 0, "done() after each");
  stop.abort();
  await loop;
  q.shutDown();
});

Deno.test("workLoop: a handle that throws anyway gets its item rate limited and done, and the loop rejects with the error", async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>(undefined, { clock });
  q.add("k");
  const loop = workLoop(q, 1, new AbortController().signal, () => {
    throw new Error("a bug in handle");
  });
  await assert.rejects(loop, /a bug in handle/);
  assert.equal(q.numRequeues("k"), 1);
  assert.equal(q.metrics().processing, 0);
  q.shutDown();
});
