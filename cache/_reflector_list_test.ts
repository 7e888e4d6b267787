// The pager's page requested ahead (docs/behaviour.md, Reflector, paging): a ListerWatcher that
// tells a page's continue token early (onListMeta) gets the next request
// before the page resolves; one page ahead at most; an unused one is aborted.

import assert from "node:assert/strict";
import { listPages } from "./_reflector_list.ts";
import type {
  ListerWatcher,
  ListMeta,
  ListOptions,
  ObjectList,
} from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import { StatusError } from "../api/errors.ts";
import { status } from "./_reflector_test_util.ts";
import { nextTurn } from "../testing/turns.ts";

/** One list call: its options (but the hook), signal, hook, and the means to answer it. */
interface Call {
  opts: ListOptions;
  signal?: AbortSignal;
  onListMeta?: (meta: ListMeta) => void;
  answer: PromiseWithResolvers<ObjectList<KubeObject>>;
}

/** A ListerWatcher whose list calls the test answers by hand. */
class ManualLW implements ListerWatcher {
  calls: Call[] = [];
  list(
    opts: ListOptions,
    signal?: AbortSignal,
  ): Promise<ObjectList<KubeObject>> {
    const answer = Promise.withResolvers<ObjectList<KubeObject>>();
    const { onListMeta, ...rest } = opts;
    this.calls.push({ opts: rest, signal, onListMeta, answer });
    return answer.promise;
  }
  watch(): never {
    throw new Error("not watched");
  }
}

const pod = (name: string): KubeObject => ({
  metadata: { namespace: "ns", name },
});
const page = (names: string[], token = ""): ObjectList<KubeObject> => ({
  metadata: { resourceVersion: "7", continue: token },
  items: names.map(pod),
});

Deno.test("listPages requests the next page once the current page's head tells its continue token, before the page resolves", async () => {
  const lw = new ManualLW();
  const ctl = new AbortController();
  const done = listPages(
    lw,
    "0",
    { pageSize: 2, keepPaging: false },
    ctl.signal,
  );
  assert.equal(lw.calls.length, 1);
  // Page 1's head: the next page is requested at once.
  lw.calls[0].onListMeta!({ resourceVersion: "7", continue: "c1" });
  assert.deepEqual(lw.calls.map((c) => c.opts), [
    { resourceVersion: "0", limit: 2 },
    { continue: "c1", limit: 2 },
  ]);
  // Page 2's head arrives before page 1 is done: page 3 waits until page 2
  // is the page being read (one page ahead at most).
  lw.calls[1].onListMeta!({ resourceVersion: "7", continue: "c2" });
  assert.equal(lw.calls.length, 2);
  lw.calls[0].answer.resolve(page(["a", "b"], "c1"));
  await nextTurn();
  assert.deepEqual(lw.calls.map((c) => c.opts).slice(2), [
    { continue: "c2", limit: 2 },
  ]);
  lw.calls[1].answer.resolve(page(["c", "d"], "c2"));
  lw.calls[2].onListMeta!({ resourceVersion: "7", continue: "" });
  lw.calls[2].answer.resolve(page(["e"]));
  const list = await done;
  assert.equal(lw.calls.length, 3);
  assert.deepEqual(list.items.map((o) => o.metadata.name), [
    "a",
    "b",
    "c",
    "d",
    "e",
  ]);
  assert.equal(list.resourceVersion, "7");
  assert.equal(list.paginated, true);
});

Deno.test("listPages without onListMeta calls pages one at a time, in order", async () => {
  const lw = new ManualLW();
  const done = listPages(
    lw,
    "0",
    { pageSize: 0, keepPaging: false },
    new AbortController().signal,
  );
  lw.calls[0].answer.resolve(page(["a"], "c1"));
  await nextTurn();
  assert.equal(lw.calls.length, 2);
  lw.calls[1].answer.resolve(page(["b"]));
  assert.deepEqual((await done).items.map((o) => o.metadata.name), ["a", "b"]);
  assert.deepEqual(lw.calls.map((c) => c.opts), [
    { resourceVersion: "0", limit: 500 },
    { continue: "c1", limit: 500 },
  ]);
});

Deno.test("listPages aborts the page requested ahead when the current page fails", async () => {
  const lw = new ManualLW();
  const done = listPages(
    lw,
    "0",
    { pageSize: 0, keepPaging: false },
    new AbortController().signal,
  );
  lw.calls[0].onListMeta!({ resourceVersion: "7", continue: "c1" });
  assert.equal(lw.calls.length, 2);
  const ahead = lw.calls[1];
  assert.equal(ahead.signal!.aborted, false);
  const cut = new TypeError("body cut");
  lw.calls[0].answer.reject(cut);
  // The rejection of the abandoned request is not left unhandled.
  ahead.answer.reject(new DOMException("aborted", "AbortError"));
  await assert.rejects(done, (e) => e === cut);
  assert.equal(ahead.signal!.aborted, true);
  assert.equal(lw.calls.length, 2);
});

Deno.test("listPages falls back to one full list when the page requested ahead answers 410 Expired", async () => {
  const lw = new ManualLW();
  const done = listPages(
    lw,
    "5",
    { pageSize: 1, keepPaging: false },
    new AbortController().signal,
  );
  lw.calls[0].onListMeta!({ resourceVersion: "5", continue: "c1" });
  // The page requested ahead fails before it is awaited.
  lw.calls[1].answer.reject(new StatusError(status(410, "Expired")));
  await nextTurn();
  lw.calls[0].answer.resolve(page(["a"], "c1"));
  await nextTurn();
  assert.equal(lw.calls.length, 3);
  assert.deepEqual(lw.calls[2].opts, { resourceVersion: "5" });
  lw.calls[2].answer.resolve(page(["a", "b"]));
  const list = await done;
  assert.deepEqual(list.items.map((o) => o.metadata.name), ["a", "b"]);
  assert.equal(list.paginated, true);
});

Deno.test("listPages does not use a page requested ahead for another token", async () => {
  const lw = new ManualLW();
  const done = listPages(
    lw,
    "0",
    { pageSize: 0, keepPaging: false },
    new AbortController().signal,
  );
  // A head that disagrees with the page's final metadata (never from a
  // real server): the page's own token wins.
  lw.calls[0].onListMeta!({ continue: "early" });
  lw.calls[0].answer.resolve(page(["a"], "final"));
  await nextTurn();
  assert.deepEqual(lw.calls.map((c) => c.opts.continue), [
    undefined,
    "early",
    "final",
  ]);
  assert.equal(lw.calls[1].signal!.aborted, false);
  lw.calls[2].answer.resolve(page(["b"]));
  await done;
  assert.equal(lw.calls[1].signal!.aborted, true);
});

Deno.test("listPages through a wrapper that forwards (options, signal) still requests the next page early: the hook rides in the options", async () => {
  const lw = new ManualLW();
  const seen: ListOptions[] = [];
  // What a user's (or a benchmark's) wrapper does: pass the two documented
  // arguments on.
  const wrapped: ListerWatcher = {
    list: (opts, signal) => {
      seen.push(opts);
      return lw.list(opts, signal);
    },
    watch: () => lw.watch(),
  };
  const done = listPages(
    wrapped,
    "0",
    { pageSize: 0, keepPaging: false },
    new AbortController().signal,
  );
  assert.equal(typeof seen[0].onListMeta, "function");
  lw.calls[0].onListMeta!({ resourceVersion: "7", continue: "c1" });
  assert.equal(lw.calls.length, 2); // requested before page 1 resolved
  lw.calls[0].answer.resolve(page(["a"], "c1"));
  lw.calls[1].onListMeta!({ resourceVersion: "7", continue: "" });
  lw.calls[1].answer.resolve(page(["b"]));
  assert.deepEqual((await done).items.map((o) => o.metadata.name), ["a", "b"]);
});
