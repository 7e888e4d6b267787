/**
 * Work queue throughput: 1M distinct keys added, then taken and marked done
 * by one worker, against a plain array queue in the same run (same group,
 * so `deno bench` prints the ratio).
 *
 * - `array queue (sync)`: push, then read by index: the floor.
 * - `array queue + await per item`: the same with one `await` per item,
 *   the cost any async consumer pays.
 * - `array queue + Set dedupe`: plus a Set so a waiting key is queued once,
 *   what a hand-written dedupe queue costs (one lookup, one insert and one
 *   delete per key).
 * - `WorkQueue add+get+done`: an anonymous queue, the same three set
 *   operations per key (one set for the dirty and processing sets) and no
 *   clock reading.
 * - `WorkQueue add+get+done, named`: a named queue measures its queue
 *   latency and work duration, three clock readings per key.
 * - `WorkQueue add+get+done, interleaved`: the worker runs while keys keep
 *   coming (adds of 1k, then the worker drains), so `get` waits and wakes.
 * - `RateLimitingQueue add+get+forget+done`: what `runWorkers` does per key.
 *
 * Items/s = 1M / the average time per iteration.
 *
 * Each case builds 1M-entry sets or maps; their collection would otherwise
 * land in whichever case runs next. Run with `--expose-gc` and each
 * iteration starts after a full collection, outside its timing, so a case
 * pays for its own allocations only.
 *
 * Run: `deno bench --v8-flags=--expose-gc bench/workqueue_bench.ts`
 *
 * @module
 */

import { WorkQueue } from "../workqueue/queue.ts";
import { RateLimitingQueue } from "../workqueue/rate_limiting_queue.ts";

const N = 1_000_000;
const keys = Array.from({ length: N }, (_, i) => `ns-${i % 100}/cm-${i}`);
const group = "1M items, one worker";
const opts = { group, n: 6, warmup: 2 } as const;
const gc = (globalThis as { gc?: () => void }).gc;

/** Time `body` alone, after a full collection when `--expose-gc` allows one. */
function cleanly(body: () => void | Promise<void>) {
  return async (b: Deno.BenchContext) => {
    gc?.();
    b.start();
    await body();
    b.end();
  };
}

Deno.bench({
  name: "array queue (sync)",
  ...opts,
  baseline: true,
  fn: cleanly(() => {
    const q: string[] = [];
    for (const k of keys) q.push(k);
    let n = 0;
    for (let i = 0; i < q.length; i++) if (q[i]) n++;
    if (n !== N) throw new Error("lost items");
  }),
});

Deno.bench({
  name: "array queue + await per item",
  ...opts,
  fn: cleanly(async () => {
    const q: string[] = [];
    for (const k of keys) q.push(k);
    let n = 0;
    let head = 0;
    const get = (): Promise<string | undefined> =>
      Promise.resolve(head < q.length ? q[head++] : undefined);
    while (await get() !== undefined) n++;
    if (n !== N) throw new Error("lost items");
  }),
});

Deno.bench({
  name: "array queue + Set dedupe",
  ...opts,
  fn: cleanly(async () => {
    const q: string[] = [];
    const queued = new Set<string>();
    for (const k of keys) {
      if (queued.has(k)) continue;
      queued.add(k);
      q.push(k);
    }
    let n = 0;
    let head = 0;
    const get = (): Promise<string | undefined> => {
      if (head === q.length) return Promise.resolve(undefined);
      const k = q[head++];
      queued.delete(k);
      return Promise.resolve(k);
    };
    while (await get() !== undefined) n++;
    if (n !== N) throw new Error("lost items");
  }),
});

Deno.bench({
  name: "WorkQueue add+get+done",
  ...opts,
  fn: cleanly(async () => {
    const q = new WorkQueue<string>();
    for (const k of keys) q.add(k);
    q.shutDown();
    let n = 0;
    for (let k = await q.get(); k !== undefined; k = await q.get()) {
      q.done(k);
      n++;
    }
    if (n !== N) throw new Error("lost items");
  }),
});

Deno.bench({
  name: "WorkQueue add+get+done, named",
  ...opts,
  fn: cleanly(async () => {
    const q = new WorkQueue<string>({ name: "bench" });
    for (const k of keys) q.add(k);
    q.shutDown();
    let n = 0;
    for (let k = await q.get(); k !== undefined; k = await q.get()) {
      q.done(k);
      n++;
    }
    if (n !== N) throw new Error("lost items");
  }),
});

Deno.bench({
  name: "WorkQueue add+get+done, interleaved",
  ...opts,
  fn: cleanly(async () => {
    const q = new WorkQueue<string>();
    let n = 0;
    const worker = (async () => {
      for (let k = await q.get(); k !== undefined; k = await q.get()) {
        q.done(k);
        n++;
      }
    })();
    for (let i = 0; i < N; i += 1_000) {
      for (let j = i; j < i + 1_000; j++) q.add(keys[j]);
      await new Promise<void>((resolve) => queueMicrotask(resolve));
    }
    q.shutDown();
    await worker;
    if (n !== N) throw new Error("lost items");
  }),
});

Deno.bench({
  name: "RateLimitingQueue add+get+forget+done",
  ...opts,
  fn: cleanly(async () => {
    const q = new RateLimitingQueue<string>();
    for (const k of keys) q.add(k);
    q.shutDown();
    let n = 0;
    for (let k = await q.get(); k !== undefined; k = await q.get()) {
      q.forget(k);
      q.done(k);
      n++;
    }
    if (n !== N) throw new Error("lost items");
  }),
});
