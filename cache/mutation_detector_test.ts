import assert from "node:assert/strict";
import { FakeClock } from "../testing/fake_clock.ts";
import { DeletedFinalStateUnknown } from "./keys.ts";
import {
  CacheMutationDetector,
  CacheMutationError,
  isCacheMutationDetectorEnabled,
  MUTATION_DETECTOR_ENV,
  newCacheMutationDetector,
} from "./mutation_detector.ts";

function pod(name: string) {
  return {
    metadata: { name, labels: { app: "web" } },
    spec: { containers: [{ name: "c", image: "nginx" }] },
  };
}

Deno.test("CacheMutationDetector.compareObjects() throws CacheMutationError on a mutated object", () => {
  const d = new CacheMutationDetector("pods");
  const a = pod("a");
  const b = pod("b");
  d.addObject(a);
  d.addObject(b);
  d.addObject(new DeletedFinalStateUnknown("x", pod("x"))); // ignored
  d.compareObjects(); // unchanged: fine
  b.spec.containers[0].image = "evil";
  assert.throws(() => d.compareObjects(), (e: unknown) => {
    assert.ok(e instanceof CacheMutationError);
    assert.equal(e.cacheName, "pods");
    assert.deepEqual(e.objects, [b]);
    return true;
  });
});

Deno.test("CacheMutationDetector.run() compares every period on the clock", async () => {
  const clock = new FakeClock(0);
  const errors: CacheMutationError[] = [];
  const d = new CacheMutationDetector("pods", {
    clock,
    periodMs: 1_000,
    onMutation: (e) => void errors.push(e),
  });
  const ac = new AbortController();
  const running = d.run(ac.signal);
  const a = pod("a");
  d.addObject(a);
  await clock.step(1_000);
  assert.equal(errors.length, 0);
  delete (a.metadata as { labels?: unknown }).labels;
  await clock.step(999);
  assert.equal(errors.length, 0);
  await clock.step(1);
  assert.equal(errors.length, 1);
  ac.abort();
  await running;
});

Deno.test("CacheMutationDetector.run() rejects without onMutation, and forgets copies after two retention periods", async () => {
  const clock = new FakeClock(0);
  const d = new CacheMutationDetector("pods", {
    clock,
    periodMs: 1_000,
    retainMs: 10_000,
  });
  const ac = new AbortController();
  const running = d.run(ac.signal);
  const old = pod("old");
  d.addObject(old);
  await clock.step(25_000); // two rotations: the copy of `old` is gone
  old.metadata.name = "changed";
  await clock.step(1_000);
  const young = pod("young");
  d.addObject(young);
  await clock.step(1_000);
  young.metadata.name = "changed";
  const rejected = assert.rejects(running, CacheMutationError);
  await clock.step(1_000);
  await rejected;
  ac.abort();
});

Deno.test("newCacheMutationDetector() is a no-op unless enabled", async () => {
  const d = newCacheMutationDetector("pods", { enabled: false });
  const a = pod("a");
  d.addObject(a);
  a.metadata.name = "changed";
  const ac = new AbortController();
  ac.abort();
  await d.run(ac.signal);
  assert.ok(!(d instanceof CacheMutationDetector));
  assert.ok(
    newCacheMutationDetector("pods", { enabled: true }) instanceof
      CacheMutationDetector,
  );
});

Deno.test("isCacheMutationDetectorEnabled() reads KUBECACHE_MUTATION_DETECTOR", () => {
  const before = Deno.env.get(MUTATION_DETECTOR_ENV);
  try {
    Deno.env.set(MUTATION_DETECTOR_ENV, "true");
    assert.equal(isCacheMutationDetectorEnabled(), true);
    assert.ok(newCacheMutationDetector("x") instanceof CacheMutationDetector);
    Deno.env.set(MUTATION_DETECTOR_ENV, "false");
    assert.equal(isCacheMutationDetectorEnabled(), false);
  } finally {
    if (before === undefined) Deno.env.delete(MUTATION_DETECTOR_ENV);
    else Deno.env.set(MUTATION_DETECTOR_ENV, before);
  }
});
