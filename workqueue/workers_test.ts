import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { RateLimitingQueue } from "./rate_limiting_queue.ts";
import { ItemExponentialFailureRateLimiter } from "./rate_limiter.ts";
import { runWorkers } from "./workers.ts";
import { nextTurn } from "../testing/turns.ts";

Deno.test("runWorkers() never reconciles one key in two workers at once, and reconciles a key changed meanwhile again", async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>(undefined, { clock });
  const stop = new AbortController();
  const running = new Set<string>();
  let overlaps = 0;
  const calls: string[] = [];
  const gates: (() => void)[] = [];
  const workers = runWorkers(q, 4, async (key) => {
    if (running.has(key)) overlaps++;
    running.add(key);
    calls.push(key);
    await new Promise<void>((resolve) => gates.push(resolve));
    running.delete(key);
  }, stop.signal);
  q.add("k");
  await nextTurn();
  q.add("k"); // changed while reconciling
  q.add("other");
  await nextTurn();
  assert.deepEqual(calls, ["k", "other"], "the re-added k waits");
  gates.shift()!(); // k done: queued again, taken by an idle worker
  await nextTurn();
  assert.deepEqual(calls, ["k", "other", "k"]);
  for (const g of gates.splice(0)) g();
  await nextTurn();
  stop.abort();
  await workers;
  assert.equal(overlaps, 0);
  assert.equal(q.metrics().processing, 0, "done() was called for each");
  q.shutDown();
});

Deno.test("runWorkers() retries a failing key with rate limiting and forgets it on success", async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>(
    new ItemExponentialFailureRateLimiter(100, 10_000),
    { clock },
  );
  const stop = new AbortController();
  const errors: string[] = [];
  let attempts = 0;
  const succeeded = Promise.withResolvers<void>();
  const workers = runWorkers(
    q,
    1,
    () => {
      attempts++;
      if (attempts <= 2) throw new Error(`fail ${attempts}`);
      succeeded.resolve();
    },
    stop.signal,
    { onError: (err, key) => errors.push(`${key}: ${(err as Error).message}`) },
  );
  q.add("a");
  await nextTurn();
  assert.equal(attempts, 1);
  assert.equal(q.numRequeues("a"), 1);
  await clock.step(99);
  assert.equal(attempts, 1, "backoff of 100 ms");
  await clock.step(1);
  assert.equal(attempts, 2);
  await clock.step(199);
  assert.equal(attempts, 2, "backoff doubled to 200 ms");
  await clock.step(1);
  await succeeded.promise;
  await nextTurn();
  assert.equal(q.numRequeues("a"), 0, "forgotten on success");
  assert.deepEqual(errors, ["a: fail 1", "a: fail 2"]);
  stop.abort();
  await workers;
  q.shutDown();
});

Deno.test("runWorkers() gives up on a key after maxRetries", async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>(undefined, { clock });
  const stop = new AbortController();
  let attempts = 0;
  const errors: unknown[] = [];
  const workers = runWorkers(
    q,
    1,
    () => {
      attempts++;
      throw new Error("permanent");
    },
    stop.signal,
    { maxRetries: 2, onError: (e) => errors.push(e) },
  );
  q.add("a");
  await clock.step(1_000);
  await clock.step(1_000);
  assert.equal(attempts, 3, "the first try and 2 retries");
  assert.equal(errors.length, 3);
  assert.equal(q.numRequeues("a"), 0);
  assert.equal(clock.hasWaiters(), false, "not re-added");
  stop.abort();
  await workers;
  q.shutDown();
});

Deno.test("runWorkers() stops taking items on abort, lets the reconcile in flight finish, and leaves the rest queued", async () => {
  const q = new RateLimitingQueue<string>(undefined, {
    clock: new FakeClock(),
  });
  const stop = new AbortController();
  const release = Promise.withResolvers<void>();
  const seen: string[] = [];
  let finished = false;
  q.add("a");
  q.add("b");
  const workers = runWorkers(q, 1, async (key, signal) => {
    seen.push(key);
    stop.abort();
    assert.equal(signal.aborted, true);
    await release.promise;
    finished = true;
  }, stop.signal);
  let resolved = false;
  workers.then(() => resolved = true);
  await nextTurn();
  assert.equal(resolved, false, "waits for the reconcile in flight");
  release.resolve();
  await workers;
  assert.equal(finished, true);
  assert.deepEqual(seen, ["a"]);
  assert.equal(q.len(), 1, "b stays queued");
  assert.equal(q.shuttingDown(), false);
  q.shutDown();
});

Deno.test("runWorkers() does not report a failure caused by the stop signal, but still re-adds the key", async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>(undefined, { clock });
  const stop = new AbortController();
  const errors: unknown[] = [];
  q.add("a");
  await runWorkers(
    q,
    1,
    (_key, signal) => {
      stop.abort();
      throw signal.reason;
    },
    stop.signal,
    { onError: (e) => errors.push(e) },
  );
  assert.deepEqual(errors, []);
  assert.equal(q.numRequeues("a"), 1);
  await clock.step(5);
  assert.equal(q.len(), 1, "retried when workers run again");
  q.shutDown();
});

Deno.test("runWorkers() ends when the queue is shut down and drained", async () => {
  const q = new RateLimitingQueue<string>(undefined, {
    clock: new FakeClock(),
  });
  const seen: string[] = [];
  q.add("a");
  q.add("b");
  q.shutDown();
  await runWorkers(
    q,
    3,
    (k) => void seen.push(k),
    new AbortController().signal,
  );
  assert.deepEqual(seen, ["a", "b"]);
});

Deno.test("runWorkers() with an aborted signal takes nothing", async () => {
  const q = new RateLimitingQueue<string>(undefined, {
    clock: new FakeClock(),
  });
  q.add("a");
  await runWorkers(q, 1, () => assert.fail("reconciled"), AbortSignal.abort());
  assert.equal(q.len(), 1);
  q.shutDown();
});

Deno.test("runWorkers() rejects a bad worker count or maxRetries with a RangeError", async () => {
  const q = new RateLimitingQueue<string>(undefined, {
    clock: new FakeClock(),
  });
  const signal = new AbortController().signal;
  await assert.rejects(
    runWorkers(q, 0, () => {}, signal),
    /runWorkers: workers must be an integer >= 1, got 0/,
  );
  await assert.rejects(
    runWorkers(q, 1, () => {}, signal, { maxRetries: -1 }),
    /maxRetries must be a number >= 0, got -1/,
  );
  q.shutDown();
});
