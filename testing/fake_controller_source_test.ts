import assert from "node:assert/strict";
import { FakeControllerSource } from "./fake_controller_source.ts";
import type { WatchEvent } from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import { isExpired, isInvalid, StatusError } from "../api/errors.ts";
import { Reflector } from "../cache/reflector.ts";
import { FakeClock } from "./fake_clock.ts";
import { eventually } from "./turns.ts";

const obj = (name: string, uid = ""): KubeObject => ({
  metadata: { namespace: "ns", name, uid },
});

/** Read `n` events from a watch. */
async function take(
  events: AsyncIterable<WatchEvent<KubeObject>>,
  n: number,
): Promise<WatchEvent<KubeObject>[]> {
  const out: WatchEvent<KubeObject>[] = [];
  if (n === 0) return out;
  for await (const ev of events) {
    out.push(ev);
    if (out.length === n) break;
  }
  return out;
}

const meta = (e: WatchEvent<KubeObject>) => (e.object as KubeObject).metadata;

const summary = (evs: WatchEvent<KubeObject>[]) =>
  evs.map((e) => `${e.type} ${meta(e).name ?? ""}@${meta(e).resourceVersion}`);

Deno.test("FakeControllerSource gives each change the next resourceVersion", async () => {
  const source = new FakeControllerSource();
  assert.equal(source.resourceVersion(), "0");
  assert.equal(source.add(obj("a")).metadata.resourceVersion, "1");
  assert.equal(source.modify(obj("a")).metadata.resourceVersion, "2");
  source.add(obj("b"));
  source.delete(obj("a"));
  const list = await source.list({});
  assert.equal(list.metadata.resourceVersion, "4");
  assert.deepEqual(list.items.map((o) => o.metadata.name), ["b"]);
  assert.equal(source.listCalls.length, 1);
});

Deno.test("FakeControllerSource keys objects by uid, as client-go's does", () => {
  const source = new FakeControllerSource();
  source.add(obj("a", "u1"));
  source.add(obj("a", "u2"));
  assert.equal(source.items().length, 2);
  source.delete(obj("a", "u1"));
  assert.deepEqual(source.items().map((o) => o.metadata.uid), ["u2"]);
});

Deno.test("FakeControllerSource.watch() replays history after its resourceVersion, then broadcasts", async () => {
  const source = new FakeControllerSource();
  source.add(obj("a"));
  source.add(obj("b"));
  const ctl = new AbortController();
  const events = await source.watch({ resourceVersion: "1" }, ctl.signal);
  source.modify(obj("a"));
  assert.deepEqual(summary(await take(events, 2)), [
    "ADDED b@2",
    "MODIFIED a@3",
  ]);
  ctl.abort();
  assert.equal(source.openWatches(), 0);
});

Deno.test("FakeControllerSource.watch() at RV 0 starts with synthetic ADDED events", async () => {
  const source = new FakeControllerSource();
  source.add(obj("a"));
  source.modify(obj("a"));
  const ctl = new AbortController();
  const events = await source.watch({ resourceVersion: "0" }, ctl.signal);
  assert.deepEqual(summary(await take(events, 1)), ["ADDED a@2"]);
  ctl.abort();
});

Deno.test("FakeControllerSource.addDropWatch() is seen by a relist only", async () => {
  const source = new FakeControllerSource();
  const ctl = new AbortController();
  const events = await source.watch({ resourceVersion: "0" }, ctl.signal);
  source.addDropWatch(obj("hidden"));
  source.add(obj("seen"));
  assert.deepEqual(summary(await take(events, 1)), ["ADDED seen@2"]);
  const list = await source.list({});
  assert.deepEqual(list.items.map((o) => o.metadata.name), ["hidden", "seen"]);
  ctl.abort();
});

Deno.test("FakeControllerSource.resetWatch() ends watches cleanly after sent events", async () => {
  const source = new FakeControllerSource();
  const events = await source.watch({ resourceVersion: "0" });
  source.add(obj("a"));
  source.resetWatch();
  const seen = [];
  for await (const ev of events) seen.push(ev.type);
  assert.deepEqual(seen, ["ADDED"]);
  assert.equal(source.openWatches(), 0);
});

Deno.test("FakeControllerSource.breakWatches() rejects after the sent events", async () => {
  const source = new FakeControllerSource();
  const events = await source.watch({ resourceVersion: "0" });
  source.add(obj("a"));
  source.breakWatches(new TypeError("cut"));
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const ev of events) seen.push(ev.type);
  }, /cut/);
  assert.deepEqual(seen, ["ADDED"]);
});

Deno.test("FakeControllerSource.watch() ends when its signal aborts mid-wait", async () => {
  const source = new FakeControllerSource();
  const ctl = new AbortController();
  const events = await source.watch({ resourceVersion: "0" }, ctl.signal);
  const it = events[Symbol.asyncIterator]();
  const pending = it.next();
  ctl.abort();
  assert.deepEqual(await pending, { value: undefined, done: true });
  await assert.rejects(source.watch({}, ctl.signal));
});

Deno.test("FakeControllerSource.list() pages over a snapshot with limit and continue", async () => {
  const source = new FakeControllerSource();
  for (const n of ["a", "b", "c"]) source.add(obj(n));
  const p1 = await source.list({ limit: 2 });
  assert.deepEqual(p1.items.map((o) => o.metadata.name), ["a", "b"]);
  assert.equal(p1.metadata.remainingItemCount, 1);
  source.add(obj("d")); // not in the snapshot
  const p2 = await source.list({ limit: 2, continue: p1.metadata.continue });
  assert.deepEqual(p2.items.map((o) => o.metadata.name), ["c"]);
  assert.equal(p2.metadata.continue, undefined);
  assert.equal(p2.metadata.resourceVersion, "3");
});

Deno.test("FakeControllerSource.compact() expires continue tokens and old watches", async () => {
  const source = new FakeControllerSource();
  for (const n of ["a", "b", "c"]) source.add(obj(n));
  const p1 = await source.list({ limit: 2 });
  source.compact();
  await assert.rejects(
    source.list({ limit: 2, continue: p1.metadata.continue }),
    (e) => isExpired(e),
  );
  await assert.rejects(
    source.list({ resourceVersion: "1", limit: 2 }),
    (e) => isExpired(e),
  );
  // Unpaged lists at an old RV are still served (the watch cache does).
  assert.equal((await source.list({ resourceVersion: "1" })).items.length, 3);
  const events = await source.watch({ resourceVersion: "1" });
  const [ev] = await take(events, 1);
  assert.equal(ev.type, "ERROR");
  assert.equal((ev.object as { code?: number }).code, 410);
  // From the compaction point on, history replays again.
  source.add(obj("d"));
  const fresh = await source.watch({ resourceVersion: "3" });
  assert.deepEqual(summary(await take(fresh, 1)), ["ADDED d@4"]);
  source.resetWatch();
});

Deno.test("FakeControllerSource rejects a resourceVersion in the future with 'too large'", async () => {
  const source = new FakeControllerSource();
  await assert.rejects(
    source.list({ resourceVersion: "5" }),
    (e) => e instanceof StatusError && e.code === 504,
  );
  await assert.rejects(source.watch({ resourceVersion: "5" }));
});

Deno.test("FakeControllerSource.failNext() fails the next calls and still records them", async () => {
  const source = new FakeControllerSource();
  const boom = new StatusError({ code: 500, message: "boom" });
  source.failNext("list", boom, 2);
  await assert.rejects(source.list({}), /boom/);
  await assert.rejects(source.list({}), /boom/);
  await source.list({});
  assert.equal(source.listCalls.length, 3);
  source.failNext("watch", boom);
  await assert.rejects(source.watch({}), /boom/);
  assert.equal(source.watchCalls.length, 1);
});

Deno.test("FakeControllerSource streams a watch-list ending with the initial-events bookmark", async () => {
  const source = new FakeControllerSource();
  source.add(obj("a"));
  source.add(obj("b"));
  const ctl = new AbortController();
  const events = await source.watch({
    sendInitialEvents: true,
    resourceVersionMatch: "NotOlderThan",
  }, ctl.signal);
  const evs = await take(events, 3);
  assert.deepEqual(summary(evs), ["ADDED a@1", "ADDED b@2", "BOOKMARK @2"]);
  assert.equal(
    meta(evs[2]).annotations?.["k8s.io/initial-events-end"],
    "true",
  );
  ctl.abort();
});

Deno.test("FakeControllerSource in 'rejected' mode answers a watch-list with 422", async () => {
  const source = new FakeControllerSource({ watchList: "rejected" });
  await assert.rejects(
    source.watch({ sendInitialEvents: true }),
    (e) => isInvalid(e),
  );
});

Deno.test("FakeControllerSource in 'ignored' mode sends no end bookmark", async () => {
  const source = new FakeControllerSource({ watchList: "ignored" });
  source.add(obj("a"));
  const events = await source.watch({ sendInitialEvents: true });
  source.bookmark();
  const evs = await take(events, 2);
  assert.deepEqual(summary(evs), ["ADDED a@1", "BOOKMARK @1"]);
  assert.equal(meta(evs[1]).annotations, undefined);
  source.resetWatch();
});

Deno.test("FakeControllerSource.shutdown() ends watches and refuses later calls", async () => {
  const source = new FakeControllerSource();
  const events = await source.watch({ resourceVersion: "0" });
  source.shutdown();
  for await (const _ of events) assert.fail("no event expected");
  await assert.rejects(source.list({}), /shut down/);
  await assert.rejects(source.watch({}), /shut down/);
  assert.throws(() => source.add(obj("a")), /shut down/);
});

Deno.test("FakeControllerSource lists a never-changed source at RV 1, not 0, as etcd starts at revision 1", async () => {
  // A real apiserver never lists at RV "0" (etcd starts at revision 1). A
  // list at "0" made the Reflector watch from "0": it holds its RV on ADDED
  // events there (they may be the synthetic initial ones), so a reopened
  // watch started from "0" again and missed a deletion made meanwhile.
  const source = new FakeControllerSource();
  const list = await source.list({});
  assert.equal(list.metadata.resourceVersion, "1");
  assert.equal(source.resourceVersion(), "1");
  assert.equal(source.add(obj("a")).metadata.resourceVersion, "2");
});

Deno.test("FakeControllerSource: a Reflector that listed it empty sees a deletion made while its watch was reopened", async () => {
  const fresh = new FakeControllerSource();
  const ops: string[] = [];
  const store = {
    add: (o: KubeObject) => ops.push(`add ${o.metadata.name}`),
    update: (o: KubeObject) => ops.push(`update ${o.metadata.name}`),
    delete: (o: KubeObject) => ops.push(`delete ${o.metadata.name}`),
    replace: (l: KubeObject[], rv: string) =>
      ops.push(`replace ${l.length}@${rv}`),
    resync: () => {},
  };
  const clock = new FakeClock(0);
  const reflector = new Reflector(fresh, store, { clock });
  const ctl = new AbortController();
  const running = reflector.run(ctl.signal);
  await eventually(() => fresh.openWatches() === 1);
  fresh.add(obj("a"));
  await eventually(() => ops.length === 2);
  fresh.deleteDropWatch(obj("a")); // made while the watch is being reopened
  fresh.resetWatch();
  await eventually(() => ops.length === 3);
  assert.deepEqual(ops, ["replace 0@1", "add a", "delete a"]);
  assert.deepEqual(fresh.watchCalls.map((w) => w.resourceVersion), ["1", "2"]);
  ctl.abort();
  await running;
});
