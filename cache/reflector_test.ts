import assert from "node:assert/strict";
import { Reflector } from "./reflector.ts";
import type { ListerWatcher } from "../api/listwatch.ts";
import { isExpired, StatusError } from "../api/errors.ts";
import { FakeControllerSource } from "../testing/fake_controller_source.ts";
import {
  eventually,
  harness,
  obj,
  RecordingStore,
  status,
} from "./_reflector_test_util.ts";

Deno.test("Reflector lists at RV 0, then watches from the list's RV with bookmarks and a 5-10 min timeout", async () => {
  await using h = harness();
  h.source.add(obj("a"));
  h.source.add(obj("b"));
  assert.equal(h.reflector.lastSyncResourceVersion(), "");
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  assert.deepEqual(h.source.listCalls, [{ resourceVersion: "0", limit: 500 }]);
  const w = h.source.watchCalls[0];
  assert.equal(w.resourceVersion, "2");
  assert.equal(w.allowWatchBookmarks, true);
  assert.ok(
    w.timeoutSeconds! >= 300 && w.timeoutSeconds! < 600,
    `timeout ${w.timeoutSeconds}`,
  );
  assert.equal(h.reflector.lastSyncResourceVersion(), "2");

  h.source.add(obj("c"));
  h.source.modify(obj("a"));
  h.source.delete(obj("b"));
  await eventually(() => h.store.ops.length === 4);
  assert.deepEqual(h.store.ops, [
    "replace a,b@2",
    "add c@3",
    "update a@4",
    "delete b@5",
  ]);
  assert.equal(h.reflector.lastSyncResourceVersion(), "5");
  assert.deepEqual(h.errors, []);
});

Deno.test("Reflector applies a BOOKMARK to the resourceVersion only", async () => {
  await using h = harness();
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  h.source.addDropWatch(obj("hidden"));
  h.source.bookmark();
  await eventually(() => h.reflector.lastSyncResourceVersion() === "2");
  assert.deepEqual(h.store.ops, ["replace @1"]);
  // The next watch starts from the bookmark's RV.
  h.source.resetWatch();
  await eventually(() => h.source.watchCalls.length === 2);
  assert.equal(h.source.watchCalls[1].resourceVersion, "2");
});

Deno.test("Reflector reopens a watch that ended after events at once at the last RV, without a list", async () => {
  await using h = harness();
  h.source.add(obj("seed"));
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  h.source.add(obj("a"));
  h.source.resetWatch();
  await eventually(() =>
    h.source.watchCalls.length === 2 && h.source.openWatches() === 1
  );
  assert.equal(h.source.watchCalls[1].resourceVersion, "2");
  assert.equal(h.source.listCalls.length, 1);
  assert.deepEqual(h.errors, []);
  assert.equal(h.reflector.health().watchRestarts, 1);
  assert.equal(h.reflector.health().relists, 0);
});

Deno.test("Reflector reopens a quiet watch ended at the server's timeout without a list", async () => {
  await using h = harness();
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  await h.clock.step(1_000);
  h.source.resetWatch();
  await eventually(() =>
    h.source.watchCalls.length === 2 && h.source.openWatches() === 1
  );
  assert.equal(h.source.listCalls.length, 1);
  assert.deepEqual(h.errors, []);
});

Deno.test("Reflector backs off after a very short watch, then relists at the last RV", async () => {
  await using h = harness();
  h.source.add(obj("a"));
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  h.source.resetWatch(); // no event, no time passed
  await eventually(() => h.errors.length === 1);
  assert.match(String(h.errors[0]), /very short watch/);
  assert.equal(await h.pendingDelay(), 800);
  await h.clock.step(799);
  assert.equal(h.source.listCalls.length, 1);
  await h.clock.step(1);
  await eventually(() => h.source.listCalls.length === 2);
  // An exact RV without pageSize is not paged: the watch cache can serve it.
  assert.deepEqual(h.source.listCalls[1], { resourceVersion: "1" });
  assert.equal(h.reflector.health().relists, 1);
});

Deno.test('Reflector relists at the last synced RV after a watch answered 410, never at RV ""', async (t) => {
  // docs/behaviour.md, Reflector: LIST rv=0 -> rv 1; WATCH rv=1 -> 410 -> LIST rv=1
  // (served from the watch cache), not a quorum read.
  await t.step("ERROR event 410 Expired", async () => {
    await using h = harness();
    h.source.add(obj("a"));
    h.start();
    await eventually(() => h.source.openWatches() === 1);
    h.source.sendEvent({ type: "ERROR", object: status(410, "Expired") });
    await eventually(() => h.errors.length === 1);
    assert.ok(h.errors[0] instanceof StatusError && isExpired(h.errors[0]));
    // The RV came straight from the list: back off before relisting, so a
    // server that keeps refusing what it just handed out is no tight loop.
    await h.clock.step(await h.pendingDelay());
    await eventually(() =>
      h.source.listCalls.length === 3 && h.source.openWatches() === 1
    );
    assert.deepEqual(h.source.listCalls[1], { resourceVersion: "1" });
    // That relist answered RV 1 again, the RV the watch refused: the
    // watch would refuse it again, so a quorum read follows, once.
    assert.deepEqual(h.source.listCalls[2], {
      resourceVersion: "",
      limit: 500,
    });
    // A later 500 relists at the last RV.
    h.source.sendEvent({ type: "ERROR", object: status(500, "InternalError") });
    await eventually(() => h.errors.length === 2);
    await h.clock.step(await h.pendingDelay());
    await eventually(() => h.source.listCalls.length === 4);
    assert.deepEqual(h.source.listCalls[3], { resourceVersion: "1" });
  });
  await t.step(
    "HTTP 410 on the watch request after events: at once",
    async () => {
      await using h = harness();
      h.source.add(obj("a"));
      h.start();
      await eventually(() => h.source.openWatches() === 1);
      h.source.add(obj("b"));
      await eventually(() => h.reflector.lastSyncResourceVersion() === "2");
      h.source.failNext("watch", new StatusError(status(410, "Gone")));
      h.source.resetWatch();
      await eventually(() =>
        h.source.listCalls.length === 2 && h.source.openWatches() === 1
      );
      assert.deepEqual(h.source.listCalls[1], { resourceVersion: "2" });
      assert.equal(h.clock.now(), 1_000_000, "no backoff after an answer");
      assert.equal(h.errors.length, 1);
    },
  );
  await t.step("ERROR 410 after events: at once, backoff reset", async () => {
    await using h = harness();
    h.source.add(obj("a"));
    h.source.failNext("list", new StatusError(status(500, "InternalError")));
    h.start();
    await eventually(() => h.errors.length === 1);
    assert.equal(await h.pendingDelay(), 800);
    await h.clock.step(800);
    await eventually(() => h.source.openWatches() === 1);
    h.source.add(obj("b"));
    h.source.sendEvent({ type: "ERROR", object: status(410, "Expired") });
    await eventually(() =>
      h.source.listCalls.length === 3 && h.source.openWatches() === 1
    );
    assert.deepEqual(h.source.listCalls[2], { resourceVersion: "2" });
    // The answered 410 and the list reset the backoff: the next failure waits 800 ms.
    h.source.sendEvent({ type: "ERROR", object: status(500, "InternalError") });
    await eventually(() => h.errors.length === 3);
    assert.equal(await h.pendingDelay(), 800);
  });
  await t.step("500 relists at the last RV", async () => {
    await using h = harness();
    h.source.add(obj("a"));
    h.start();
    await eventually(() => h.source.openWatches() === 1);
    h.source.sendEvent({ type: "ERROR", object: status(500, "InternalError") });
    await eventually(() => h.errors.length === 1);
    assert.equal((h.errors[0] as StatusError).code, 500);
    await h.clock.step(await h.pendingDelay());
    await eventually(() => h.source.listCalls.length === 2);
    assert.deepEqual(h.source.listCalls[1], { resourceVersion: "1" });
  });
});

Deno.test('Reflector retries a list at RV "" at once when its RV is expired or too large', async (t) => {
  const failures = {
    expired: new StatusError(status(410, "Expired")),
    "too large": new StatusError(
      status(504, "Timeout", {
        details: {
          causes: [{
            reason: "ResourceVersionTooLarge",
            message: "Too large resource version",
          }],
        },
      }),
    ),
  };
  for (const [name, error] of Object.entries(failures)) {
    await t.step(name, async () => {
      await using h = harness();
      h.source.add(obj("a"));
      h.source.failNext("list", error);
      h.start();
      await eventually(() => h.source.openWatches() === 1);
      assert.deepEqual(h.source.listCalls, [
        { resourceVersion: "0", limit: 500 },
        { resourceVersion: "", limit: 500 },
      ]);
      assert.deepEqual(h.errors, []);
      assert.deepEqual(h.store.ops, ["replace a@1"]);
    });
  }
  await t.step(
    'too large on watch open relists at the last RV; a list answering too large goes to RV ""',
    async () => {
      await using h = harness();
      h.source.add(obj("a"));
      h.source.failNext("watch", failures["too large"]);
      h.start();
      await eventually(() => h.errors.length === 1);
      h.source.failNext("list", failures["too large"]);
      await h.clock.step(await h.pendingDelay());
      await eventually(() => h.source.openWatches() === 1);
      assert.deepEqual(h.source.listCalls.slice(1), [
        { resourceVersion: "1" },
        { resourceVersion: "", limit: 500 },
      ]);
    },
  );
});

Deno.test("Reflector puts pageSize as limit on every page, continue pages without RV", async () => {
  await using h = harness({ pageSize: 2 });
  for (const n of ["a", "b", "c", "d", "e"]) h.source.add(obj(n));
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  assert.deepEqual(h.source.listCalls, [
    { resourceVersion: "0", limit: 2 },
    { limit: 2, continue: "c1" },
    { limit: 2, continue: "c2" },
  ]);
  assert.deepEqual(h.store.ops, ["replace a,b,c,d,e@5"]);
  assert.equal(h.source.watchCalls[0].resourceVersion, "5");
  // pageSize applies to relists at an exact RV too.
  h.source.resetWatch();
  await eventually(() => h.errors.length === 1);
  await h.clock.step(await h.pendingDelay());
  await eventually(() => h.source.listCalls.length === 6);
  assert.deepEqual(h.source.listCalls[3], { resourceVersion: "5", limit: 2 });
});

Deno.test("Reflector keeps paging relists when the first list at RV 0 came back paged", async () => {
  await using h = harness();
  for (let i = 0; i < 501; i++) h.source.addDropWatch(obj(`o${i}`));
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  assert.deepEqual(h.source.listCalls.map((c) => c.limit), [500, 500]);
  h.source.resetWatch();
  await eventually(() => h.errors.length === 1);
  await h.clock.step(await h.pendingDelay());
  await eventually(() => h.source.listCalls.length === 4);
  assert.deepEqual(h.source.listCalls[2], {
    resourceVersion: "501",
    limit: 500,
  });
});

Deno.test("Reflector falls back to one full list at the requested RV when a continue token expires", async () => {
  const source = new FakeControllerSource();
  for (const n of ["a", "b", "c", "d", "e"]) source.add(obj(n));
  // Compact between the pages, so the continue token is too old.
  const lw: ListerWatcher = {
    list: (opts, signal) => {
      if (opts.continue) source.compact();
      return source.list(opts, signal);
    },
    watch: (opts, signal) => source.watch(opts, signal),
  };
  await using h = harness({ pageSize: 2, source, lw });
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  assert.deepEqual(h.source.listCalls, [
    { resourceVersion: "0", limit: 2 },
    { limit: 2, continue: "c1" },
    { resourceVersion: "0" },
  ]);
  assert.deepEqual(h.store.ops, ["replace a,b,c,d,e@5"]);
  assert.deepEqual(h.errors, []);
});

Deno.test("Reflector backs off 800 ms doubling to 30 s between failures, back to 800 ms after 2 min of health", async () => {
  await using h = harness();
  const delays: number[] = [];
  h.source.failNext("list", new StatusError(status(500, "InternalError")), 8);
  h.start();
  for (let i = 1; i <= 8; i++) {
    await eventually(() => h.errors.length === i);
    const d = await h.pendingDelay();
    delays.push(d);
    await h.clock.step(d);
  }
  assert.deepEqual(delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  await eventually(() => h.source.openWatches() === 1);
  assert.equal(h.source.listCalls.length, 9);
  await h.clock.step(120_001);
  h.source.sendEvent({ type: "ERROR", object: status(500, "InternalError") });
  await eventually(() => h.errors.length === 9);
  assert.equal(await h.pendingDelay(), 800);
});

Deno.test("Reflector draws each default backoff delay from [d, 2d)", async () => {
  await using h = harness({ backoff: undefined });
  h.source.failNext("list", new StatusError(status(500, "InternalError")), 7);
  h.start();
  const bases = [800, 1600, 3200, 6400, 12800, 25600, 30000];
  for (const [i, base] of bases.entries()) {
    await eventually(() => h.errors.length === i + 1);
    const d = await h.pendingDelay();
    assert.ok(
      d >= base && d < 2 * base,
      `delay ${i}: ${d} not in [${base}, ${2 * base})`,
    );
    await h.clock.step(d);
  }
  await eventually(() => h.source.openWatches() === 1);
});

Deno.test("Reflector waits at least Retry-After after a 429 list", async () => {
  await using h = harness();
  h.source.failNext(
    "list",
    new StatusError(status(429, "TooManyRequests"), { retryAfterSeconds: 10 }),
  );
  h.start();
  await eventually(() => h.errors.length === 1);
  assert.equal(await h.pendingDelay(), 10_000);
  await h.clock.step(9_999);
  assert.equal(h.source.listCalls.length, 1);
  await h.clock.step(1);
  await eventually(() => h.source.openWatches() === 1);
  assert.equal(h.source.listCalls.length, 2);
});

Deno.test("Reflector retries a throttled watch at the same RV without relisting", async () => {
  await using h = harness();
  h.source.add(obj("a"));
  h.source.failNext(
    "watch",
    new StatusError(status(429, "TooManyRequests"), { retryAfterSeconds: 5 }),
  );
  h.start();
  await eventually(() => h.errors.length === 1);
  assert.equal(await h.pendingDelay(), 5_000);
  await h.clock.step(5_000);
  await eventually(() => h.source.openWatches() === 1);
  assert.equal(h.source.listCalls.length, 1);
  assert.deepEqual(h.source.watchCalls.map((c) => c.resourceVersion), [
    "1",
    "1",
  ]);
});

Deno.test("Reflector resumes a cut stream at the last RV without relisting", async () => {
  await using h = harness();
  h.source.addDropWatch(obj("seed"));
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  h.source.add(obj("a"));
  h.source.breakWatches(new TypeError("error reading a body from connection"));
  await eventually(() =>
    h.source.watchCalls.length === 2 && h.source.openWatches() === 1
  );
  assert.equal(h.source.watchCalls[1].resourceVersion, "2");
  assert.equal(h.source.listCalls.length, 1);
  assert.equal(h.errors.length, 1);
  assert.match(String(h.errors[0]), /error reading a body/);
  assert.deepEqual(h.store.ops, ["replace seed@1", "add a@2"]);
});

Deno.test("Reflector backs off after a stream cut before any event within 1 s, then relists at the last RV", async () => {
  // docs/behaviour.md, a very short watch: every WATCH rv=1 answers 200 and dies at once, no
  // bytes: a very short watch, like one that ends cleanly with nothing.
  await using h = harness();
  h.source.add(obj("a"));
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  h.source.breakWatches();
  await eventually(() => h.errors.length === 1);
  assert.equal(await h.pendingDelay(), 800);
  await h.clock.step(799);
  assert.equal(h.source.watchCalls.length, 1);
  assert.equal(h.source.listCalls.length, 1);
  await h.clock.step(1);
  await eventually(() =>
    h.source.watchCalls.length === 2 && h.source.openWatches() === 1
  );
  assert.deepEqual(h.source.listCalls[1], { resourceVersion: "1" });
  assert.equal(h.source.watchCalls[1].resourceVersion, "1");
  // A cut after a quiet second is no very short watch: resumed at once.
  await h.clock.step(1_000);
  h.source.breakWatches();
  await eventually(() => h.source.watchCalls.length === 3);
  assert.equal(h.source.listCalls.length, 2);
});

Deno.test("Reflector abandons a watch silent past its timeout plus a margin and reopens it without a list", async () => {
  await using h = harness();
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  const timeoutMs = h.source.watchCalls[0].timeoutSeconds! * 1000;
  // Never cut before timeoutSeconds, however silent.
  await h.clock.step(timeoutMs);
  assert.equal(h.source.watchCalls.length, 1);
  assert.equal(h.source.openWatches(), 1);
  assert.deepEqual(h.errors, []);
  // Silent for longer than the timeout plus at most 5 min: abandoned.
  await h.clock.step(5 * 60_000);
  await eventually(() =>
    h.source.watchCalls.length === 2 && h.source.openWatches() === 1
  );
  assert.equal(h.source.listCalls.length, 1);
  assert.equal(h.errors.length, 1);
  assert.match(String(h.errors[0]), /silent/);
});

Deno.test("Reflector's watchdog counts silence from the last event", async () => {
  await using h = harness();
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  const timeoutMs = h.source.watchCalls[0].timeoutSeconds! * 1000;
  await h.clock.step(timeoutMs);
  h.source.bookmark();
  await eventually(() => h.reflector.health().lastEventAt === h.clock.now());
  await h.clock.step(timeoutMs);
  assert.equal(h.source.watchCalls.length, 1);
  await h.clock.step(5 * 60_000);
  await eventually(() => h.source.watchCalls.length === 2);
});

Deno.test("Reflector calls the store's resync every resyncPeriod while shouldResync allows", async () => {
  let allow = true;
  await using h = harness({ resyncPeriod: 30_000, shouldResync: () => allow });
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  await h.clock.waitForWaiters(2); // watchdog + resync timer
  await h.clock.step(30_000);
  await eventually(() => h.store.ops.length === 2);
  assert.deepEqual(h.store.ops, ["replace @1", "resync"]);
  allow = false;
  await h.clock.step(30_000);
  allow = true;
  await h.clock.step(30_000);
  await eventually(() => h.store.ops.length === 3);
  assert.deepEqual(h.store.ops, ["replace @1", "resync", "resync"]);
  assert.equal(h.clock.now(), 1_090_000);
});

Deno.test("Reflector streams the initial state with a watch-list when useWatchList is set", async () => {
  await using h = harness({ useWatchList: true });
  h.source.add(obj("a"));
  h.source.add(obj("b"));
  h.start();
  await eventually(() => h.store.ops.length === 1);
  assert.deepEqual(h.source.listCalls, []);
  const w = h.source.watchCalls[0];
  assert.equal(w.sendInitialEvents, true);
  assert.equal(w.resourceVersionMatch, "NotOlderThan");
  assert.equal(w.resourceVersion, "");
  assert.equal(w.allowWatchBookmarks, true);
  assert.deepEqual(h.store.ops, ["replace a,b@2"]);
  assert.equal(h.reflector.lastSyncResourceVersion(), "2");
  // The same stream carries the later changes.
  h.source.add(obj("c"));
  await eventually(() => h.store.ops.length === 2);
  assert.deepEqual(h.store.ops, ["replace a,b@2", "add c@3"]);
  assert.equal(h.source.watchCalls.length, 1);
});

Deno.test('Reflector retries an expired watch-list at RV "" at once, then with backoff', async () => {
  await using h = harness({ useWatchList: true });
  h.source.add(obj("a"));
  h.source.failNext("watch", new StatusError(status(410, "Expired")), 2);
  h.start();
  await eventually(() => h.errors.length === 2);
  assert.equal(h.source.watchCalls.length, 2);
  assert.equal(await h.pendingDelay(), 800);
  await h.clock.step(800);
  await eventually(() => h.store.ops.length === 1);
  assert.deepEqual(h.source.watchCalls.map((c) => c.resourceVersion), [
    "",
    "",
    "",
  ]);
  assert.deepEqual(h.store.ops, ["replace a@1"]);
  assert.deepEqual(h.source.listCalls, []);
});

Deno.test("Reflector falls back to list+watch when the server rejects watch-list (422)", async () => {
  await using h = harness({
    useWatchList: true,
    source: new FakeControllerSource({ watchList: "rejected" }),
  });
  h.source.add(obj("a"));
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  assert.equal(h.source.watchCalls[0].sendInitialEvents, true);
  assert.deepEqual(h.source.listCalls, [{ resourceVersion: "0", limit: 500 }]);
  assert.equal(h.source.watchCalls[1].sendInitialEvents, undefined);
  assert.deepEqual(h.store.ops, ["replace a@1"]);
  // A relist does not ask for a watch-list again.
  h.source.resetWatch();
  await eventually(() => h.errors.length === 1);
  await h.clock.step(await h.pendingDelay());
  await eventually(() =>
    h.source.listCalls.length === 2 && h.source.openWatches() === 1
  );
  assert.equal(h.source.watchCalls.length, 3);
  assert.equal(h.source.watchCalls[2].sendInitialEvents, undefined);
});

Deno.test("Reflector falls back to list+watch when no end-of-initial-events bookmark comes in time", async () => {
  await using h = harness({
    useWatchList: true,
    source: new FakeControllerSource({ watchList: "ignored" }),
  });
  h.source.add(obj("a"));
  h.start();
  // Wait until the synthetic ADDED has been read, before time moves.
  await eventually(() => h.reflector.health().lastEventAt !== undefined);
  await h.clock.step(9_999);
  assert.deepEqual(h.source.listCalls, []);
  await h.clock.step(1);
  await eventually(() =>
    h.source.watchCalls.length === 2 && h.source.openWatches() === 1
  );
  assert.deepEqual(h.source.listCalls, [{ resourceVersion: "0", limit: 500 }]);
  // The ADDED events of the ignored watch-list never reached the store.
  assert.deepEqual(h.store.ops, ["replace a@1"]);
});

Deno.test("Reflector.run() called again while running returns the same loop", async () => {
  await using h = harness();
  const first = h.start();
  const second = h.reflector.run(h.ctl.signal);
  assert.equal(first, second);
  await eventually(() => h.source.openWatches() === 1);
  assert.equal(h.source.listCalls.length, 1);
  assert.equal(h.source.watchCalls.length, 1);
});

Deno.test("Reflector.run() settles after abort with its watch closed and no timer left", async (t) => {
  await t.step("while watching", async () => {
    const h = harness({ resyncPeriod: 1_000 });
    const done = h.start();
    await eventually(() => h.source.openWatches() === 1);
    h.ctl.abort();
    await done;
    assert.equal(h.source.openWatches(), 0);
    assert.equal(h.clock.waiters(), 0);
  });
  await t.step("while backing off", async () => {
    const h = harness();
    h.source.failNext("list", new StatusError(status(500, "InternalError")));
    const done = h.start();
    await eventually(() => h.errors.length === 1);
    await h.clock.waitForWaiters(1);
    h.ctl.abort();
    await done;
    assert.equal(h.clock.waiters(), 0);
    assert.equal(h.source.listCalls.length, 1);
  });
  await t.step("while a list hangs", async () => {
    const source = new FakeControllerSource();
    let listing = false;
    const lw: ListerWatcher = {
      list: (_opts, signal) => {
        listing = true;
        return new Promise((_, reject) =>
          signal!.addEventListener("abort", () => reject(signal!.reason), {
            once: true,
          })
        );
      },
      watch: (opts, signal) => source.watch(opts, signal),
    };
    const h = harness({ lw, source });
    const done = h.start();
    await eventually(() => listing);
    h.ctl.abort();
    await done;
    assert.deepEqual(h.errors, []);
  });
});

Deno.test("Reflector[Symbol.asyncDispose]() stops run()", async () => {
  const h = harness();
  const done = h.start();
  await eventually(() => h.source.openWatches() === 1);
  await h.reflector[Symbol.asyncDispose]();
  await done;
  assert.equal(h.source.openWatches(), 0);
  // A disposed Reflector does not start again.
  await h.reflector.run();
  assert.equal(h.source.listCalls.length, 1);
});

Deno.test("Reflector reports a store error and keeps watching", async () => {
  await using h = harness();
  h.source.addDropWatch(obj("seed"));
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  h.store.failNextAdd = new Error("store is full");
  h.source.add(obj("a"));
  h.source.add(obj("b"));
  await eventually(() => h.store.ops.length === 2);
  assert.deepEqual(h.store.ops, ["replace seed@1", "add b@3"]);
  assert.equal(h.errors.length, 1);
  assert.equal(h.reflector.lastSyncResourceVersion(), "3");
});

Deno.test("Reflector.health() reports last event time, restarts, relists and the last error", async () => {
  await using h = harness();
  assert.deepEqual(h.reflector.health(), {
    lastEventAt: undefined,
    watchRestarts: 0,
    relists: 0,
    lastError: undefined,
    lastErrorAt: undefined,
    lastSyncResourceVersion: "",
    skippedObjects: 0,
    skippingSince: undefined,
    failures: 0,
  });
  h.source.addDropWatch(obj("seed"));
  h.start();
  await eventually(() => h.source.openWatches() === 1);
  await h.clock.step(5_000);
  h.source.add(obj("a"));
  await eventually(() => h.store.ops.length === 2);
  h.source.resetWatch();
  await eventually(() =>
    h.source.watchCalls.length === 2 && h.source.openWatches() === 1
  );
  h.source.resetWatch(); // very short: relist after backoff
  await eventually(() => h.errors.length === 1);
  await h.clock.step(await h.pendingDelay());
  await eventually(() =>
    h.source.listCalls.length === 2 && h.source.openWatches() === 1
  );
  const health = h.reflector.health();
  assert.equal(health.lastEventAt, 1_005_000);
  assert.equal(health.watchRestarts, 2);
  assert.equal(health.relists, 1);
  assert.equal(health.lastError, h.errors[0]);
  assert.equal(health.lastErrorAt, 1_005_000);
  assert.equal(health.lastSyncResourceVersion, "2");
  assert.equal(health.failures, 0);
});

Deno.test("Reflector rejects a negative resyncPeriod or pageSize", () => {
  const source = new FakeControllerSource();
  const store = new RecordingStore();
  assert.throws(
    () => new Reflector(source, store, { resyncPeriod: -1 }),
    RangeError,
  );
  assert.throws(
    () => new Reflector(source, store, { pageSize: Number.NaN }),
    RangeError,
  );
});

Deno.test("Reflector.listAndWatch() runs one cycle and throws the failure that needs a backoff and a relist", async () => {
  const h = harness();
  h.source.add(obj("a"));
  const ctl = new AbortController();
  const cycle = h.reflector.listAndWatch(ctl.signal);
  await eventually(() => h.source.openWatches() === 1);
  h.source.sendEvent({ type: "ERROR", object: status(500, "InternalError") });
  await assert.rejects(
    cycle,
    (e) => e instanceof StatusError && e.code === 500,
  );
  assert.equal(h.clock.waiters(), 0, "no backoff timer left");
  assert.equal(h.source.openWatches(), 0);
  assert.deepEqual(h.store.ops, ["replace a@1"]);
  // The next cycle relists at the last RV.
  const next = h.reflector.listAndWatch(ctl.signal);
  await eventually(() => h.source.openWatches() === 1);
  assert.deepEqual(h.source.listCalls[1], { resourceVersion: "1" });
  ctl.abort();
  await next;
});
