import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { WorkQueue } from "./queue.ts";
import { eventually, nextTurn } from "../testing/turns.ts";

Deno.test("WorkQueue.get() hands items out in the order they were added", async () => {
  const q = new WorkQueue<string>();
  for (const k of ["c", "a", "b"]) q.add(k);
  const got = [await q.get(), await q.get(), await q.get()];
  assert.deepEqual(got, ["c", "a", "b"]);
  q.shutDown();
});

Deno.test("WorkQueue.add() collapses an item that is already waiting, keeping its place", async () => {
  const q = new WorkQueue<string>();
  q.add("a");
  q.add("b");
  q.add("a");
  assert.equal(q.len(), 2);
  assert.equal(await q.get(), "a");
  assert.equal(await q.get(), "b");
  assert.equal(q.len(), 0);
  q.shutDown();
});

Deno.test("WorkQueue never hands an item to a second worker before done(), and requeues it at done() when re-added", async () => {
  const q = new WorkQueue<string>();
  q.add("k");
  const first = await q.get();
  q.add("k");
  q.add("k"); // still one pending re-add
  assert.equal(q.len(), 0);
  let second: string | undefined;
  const waiting = q.get().then((k) => second = k);
  await nextTurn();
  assert.equal(second, undefined, "a second worker got the item in flight");
  q.done(first!);
  await waiting;
  assert.equal(second, "k");
  assert.equal(q.len(), 0, "queued once, not twice");
  q.done("k");
  assert.equal(q.len(), 0, "no re-add: done() leaves it out");
  q.shutDown();
});

Deno.test("WorkQueue.done() of an item not being processed changes nothing", async () => {
  const q = new WorkQueue<string>();
  q.add("k");
  const k = await q.get();
  q.add("k");
  q.done(k!); // queued again
  q.done(k!); // stray: must not queue it a second time
  assert.equal(q.len(), 1);
  q.done("never-seen");
  assert.equal(q.len(), 1);
  q.shutDown();
});

Deno.test("WorkQueue.get() waits for an add; waiting callers are served in call order", async () => {
  const q = new WorkQueue<string>();
  const order: string[] = [];
  const w1 = q.get().then((k) => order.push(`w1:${k}`));
  const w2 = q.get().then((k) => order.push(`w2:${k}`));
  q.add("a");
  q.add("b");
  await Promise.all([w1, w2]);
  assert.deepEqual(order, ["w1:a", "w2:b"]);
  q.shutDown();
});

Deno.test("WorkQueue.get() rejects with the signal's reason on abort and takes nothing", async () => {
  const q = new WorkQueue<string>();
  const ctl = new AbortController();
  const waiting = q.get({ signal: ctl.signal });
  ctl.abort(new Error("stop"));
  await assert.rejects(waiting, /stop/);
  q.add("a");
  assert.equal(q.len(), 1, "the aborted caller did not take the item");
  await assert.rejects(q.get({ signal: ctl.signal }), /stop/);
  assert.equal(q.len(), 1);
  q.shutDown();
});

Deno.test("WorkQueue.shutDown() ignores adds, still hands out what is queued, then resolves undefined", async () => {
  const q = new WorkQueue<string>();
  q.add("a");
  q.shutDown();
  q.add("b");
  assert.equal(q.shuttingDown(), true);
  assert.equal(q.len(), 1);
  assert.equal(await q.get(), "a");
  assert.equal(await q.get(), undefined);
});

Deno.test("WorkQueue.shutDown() wakes every waiting get() with undefined", async () => {
  const q = new WorkQueue<string>();
  const waiting = [q.get(), q.get()];
  q.shutDown();
  assert.deepEqual(await Promise.all(waiting), [undefined, undefined]);
});

Deno.test("WorkQueue.shutDownWithDrain() waits for the items in flight to be done", async () => {
  const q = new WorkQueue<string>();
  q.add("a");
  q.add("b");
  const a = await q.get();
  const b = await q.get();
  let drained = false;
  const draining = q.shutDownWithDrain().then(() => drained = true);
  q.done(a!);
  await nextTurn();
  assert.equal(drained, false, "b is still in flight");
  q.done(b!);
  await draining;
  assert.equal(drained, true);
  assert.equal(await q.get(), undefined);
});

Deno.test("WorkQueue.shutDownWithDrain() resolves at once when idle, and shutDown() ends a drain wait", async () => {
  // Each wait is watched with a flag: a drain that never ends fails the
  // test (eventually gives up) instead of hanging it.
  const idle = new WorkQueue<string>();
  let idleDrained = false;
  void idle.shutDownWithDrain().then(() => idleDrained = true);
  await eventually(() => idleDrained, "an idle queue's drain");
  const q = new WorkQueue<string>();
  q.add("a");
  await q.get(); // never done
  let drained = false;
  void q.shutDownWithDrain().then(() => drained = true);
  await nextTurn();
  assert.equal(drained, false, "a is in flight: the drain waits");
  q.shutDown();
  await eventually(() => drained, "shutDown() ending the drain wait");
  assert.equal(await q.get(), undefined);
});

Deno.test("WorkQueue async iterator yields until shut down and empty", async () => {
  const q = new WorkQueue<string>();
  const seen: string[] = [];
  const consumer = (async () => {
    for await (const k of q) {
      seen.push(k);
      q.done(k);
    }
  })();
  q.add("a");
  q.add("b");
  await nextTurn();
  q.add("c");
  q.shutDown();
  await consumer;
  assert.deepEqual(seen, ["a", "b", "c"]);
});

Deno.test("WorkQueue keeps FIFO order while its ring grows and wraps around", async () => {
  const q = new WorkQueue<number>();
  const got: number[] = [];
  let next = 0;
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 1_500; i++) q.add(next++);
    for (let i = 0; i < 1_000; i++) {
      const n = (await q.get())!;
      got.push(n);
      q.done(n);
    }
  }
  while (q.len() > 0) got.push((await q.get())!);
  assert.deepEqual(got, Array.from({ length: next }, (_, i) => i));
  q.shutDown();
});

Deno.test("WorkQueue.add(undefined) throws a TypeError", () => {
  const q = new WorkQueue<string | undefined>();
  assert.throws(() => q.add(undefined), TypeError);
});

Deno.test("WorkQueue.metrics() reports depth, adds, latency, work duration and the longest running item", async () => {
  const clock = new FakeClock();
  const q = new WorkQueue<string>({ name: "cms", clock });
  q.add("a");
  q.add("a"); // collapsed: not an add
  q.add("b");
  await clock.step(10);
  const a = (await q.get())!;
  await clock.step(5);
  const b = (await q.get())!;
  q.add("a"); // re-added while processing: an add
  await clock.step(7);
  let m = q.metrics();
  assert.equal(m.name, "cms");
  assert.equal(m.adds, 3);
  assert.equal(m.depth, 0);
  assert.equal(m.processing, 2);
  assert.deepEqual(m.queueLatency, { count: 2, totalMs: 25, maxMs: 15 });
  assert.equal(m.longestRunningProcessorMs, 12);
  assert.equal(m.unfinishedWorkMs, 12 + 7);
  q.done(a); // queued again, waited since its re-add 7 ms ago
  q.done(b);
  m = q.metrics();
  assert.equal(m.depth, 1);
  assert.deepEqual(m.workDuration, { count: 2, totalMs: 19, maxMs: 12 });
  assert.equal(m.longestRunningProcessorMs, 0);
  await q.get();
  assert.deepEqual(q.metrics().queueLatency, {
    count: 3,
    totalMs: 32,
    maxMs: 15,
  });
  q.shutDown();
});

Deno.test("WorkQueue with using is shut down at the end of the scope", async () => {
  let q: WorkQueue<string>;
  {
    using scoped = new WorkQueue<string>();
    q = scoped;
  }
  assert.equal(q.shuttingDown(), true);
  assert.equal(await q.get(), undefined);
});

Deno.test("WorkQueue onDuration is told each queue wait and each work duration as measured", async () => {
  const clock = new FakeClock();
  const seen: [string, number][] = [];
  const queue = new WorkQueue<string>({
    clock,
    onDuration: (which, ms) => seen.push([which, ms]),
  });
  queue.add("a");
  await clock.step(30);
  const item = await queue.get();
  await clock.step(70);
  queue.done(item!);
  assert.deepEqual(seen, [["queue", 30], ["work", 70]]);
  queue.shutDown();
});

Deno.test("WorkQueue with several items in flight: done in any order, re-adds queued at their own done, once each, in done order", async () => {
  const q = new WorkQueue<string>();
  for (const k of ["a", "b", "c"]) q.add(k);
  const a = (await q.get())!;
  const b = (await q.get())!;
  const c = (await q.get())!;
  q.add("a");
  q.add("a"); // collapsed with the first re-add
  q.add("c");
  assert.equal(q.len(), 0); // none handed to a second worker
  q.done(c); // the last handed out, re-added: queued now
  q.done(c); // no longer processing: ignored
  q.done(b); // not re-added: gone
  assert.equal(q.len(), 1);
  q.add("b"); // a fresh add after its done
  q.done(a); // handed out first, re-added: queued after b
  assert.equal(q.len(), 3);
  assert.equal(q.metrics().processing, 0);
  const drained = q.shutDownWithDrain();
  const order: string[] = [];
  for (let k = await q.get(); k !== undefined; k = await q.get()) {
    order.push(k);
    q.done(k);
  }
  await drained;
  assert.deepEqual(order, ["c", "b", "a"]);
});

Deno.test("an anonymous WorkQueue reads no clock per item and reports its durations as 0; a named one or one with onDuration measures them (client-go times only named queues)", async () => {
  let reads = 0;
  class CountingClock extends FakeClock {
    override now(): number {
      reads++;
      return super.now();
    }
  }
  const clock = new CountingClock();
  const counting = new FakeClock();
  const q = new WorkQueue<string>({ clock });
  q.add("a");
  q.add("b");
  const a = (await q.get())!;
  await q.get();
  q.add("a"); // re-added while processing
  q.done(a);
  assert.equal(reads, 0);
  const m = q.metrics();
  assert.equal(reads, 0);
  assert.equal(m.adds, 3);
  assert.equal(m.depth, 1);
  assert.equal(m.processing, 1);
  assert.deepEqual(m.queueLatency, { count: 0, totalMs: 0, maxMs: 0 });
  assert.deepEqual(m.workDuration, { count: 0, totalMs: 0, maxMs: 0 });
  assert.equal(m.unfinishedWorkMs, 0);
  assert.equal(m.longestRunningProcessorMs, 0);
  q.shutDown();
  for (const opts of [{ name: "n" }, { onDuration: () => {} }]) {
    const timed = new WorkQueue<string>({ clock: counting, ...opts });
    timed.add("a");
    await counting.step(5);
    timed.done((await timed.get())!);
    assert.deepEqual(timed.metrics().queueLatency, {
      count: 1,
      totalMs: 5,
      maxMs: 5,
    });
    timed.shutDown();
  }
});
