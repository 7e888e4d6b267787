// Wire scripts of informer bugs reported against client libraries
// (the rules in docs/behaviour.md, Reflector), each as a scripted
// ListerWatcher on a FakeClock.

import assert from "node:assert/strict";
import {
  logReflectorStatus,
  Reflector,
  type ReflectorStatus,
} from "./reflector.ts";
import { statusLine } from "./reflector_status.ts";
import type {
  ListerWatcher,
  ListOptions,
  ObjectList,
  WatchEvent,
} from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import { Backoff } from "../api/backoff.ts";
import { StatusError } from "../api/errors.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { eventually, RecordingStore, status } from "./_reflector_test_util.ts";
import { nextTurn } from "../testing/turns.ts";

type Answer<R> = R | Error | (() => R | Error);
type WatchScript =
  | WatchEvent<KubeObject>[]
  | { events: WatchEvent<KubeObject>[]; thenThrow: Error }
  | "hang";

/**
 * A ListerWatcher answering from scripts: each list or watch takes the next
 * answer of its queue (the last one repeats). `calls` records `LIST rv=x` /
 * `WATCH rv=x`.
 */
class ScriptedLW implements ListerWatcher {
  calls: string[] = [];
  lists: Answer<ObjectList<KubeObject>>[] = [];
  watches: Answer<WatchScript>[] = [];
  description?: string;
  expectedType?: { apiVersion: string; kind: string };

  list(opts: ListOptions): Promise<ObjectList<KubeObject>> {
    this.calls.push(`LIST rv=${opts.resourceVersion}`);
    const a = take(this.lists);
    return a instanceof Error ? Promise.reject(a) : Promise.resolve(a);
  }

  watch(
    opts: ListOptions,
    signal?: AbortSignal,
  ): Promise<AsyncIterable<WatchEvent<KubeObject>>> {
    this.calls.push(`WATCH rv=${opts.resourceVersion}`);
    const a = take(this.watches);
    if (a instanceof Error) return Promise.reject(a);
    if (a === "hang") {
      // Open until the Reflector lets go of it.
      return Promise.resolve((async function* () {
        await new Promise((resolve) =>
          signal!.addEventListener("abort", resolve, { once: true })
        );
        yield* [];
      })());
    }
    const script = Array.isArray(a) ? { events: a, thenThrow: undefined } : a;
    return Promise.resolve((async function* () {
      for (const ev of script.events) yield ev;
      if (script.thenThrow) throw script.thenThrow;
    })());
  }
}

function take<R>(queue: Answer<R>[]): R | Error {
  const a = queue.length > 1 ? queue.shift()! : queue[0];
  return typeof a === "function" ? (a as () => R | Error)() : a;
}

const pod = (
  name: string,
  rv: string,
  extra: Partial<KubeObject> = {},
): KubeObject => ({
  ...extra,
  metadata: { namespace: "default", name, resourceVersion: rv },
});
const list = (rv: string, ...items: KubeObject[]): ObjectList<KubeObject> => ({
  metadata: { resourceVersion: rv },
  items,
});
const refused = () =>
  new TypeError("fetch failed", {
    cause: new Error(
      "error sending request for url (http://127.0.0.1:6443/api/v1/pods?watch=true): client error (Connect): tcp connect error: Connection refused (os error 111)",
    ),
  });

function reflectorOn(lw: ScriptedLW, opts: { name?: string } = {}) {
  const clock = new FakeClock(1_000_000);
  const store = new RecordingStore();
  const statuses: ReflectorStatus[] = [];
  const reflector = new Reflector(lw, store, {
    clock,
    backoff: new Backoff({ clock, random: () => 0 }),
    onStatus: (_r, s) => statuses.push(s),
    ...opts,
  });
  const ctl = new AbortController();
  const running = reflector.run(ctl.signal);
  return {
    clock,
    store,
    statuses,
    reflector,
    async [Symbol.asyncDispose]() {
      ctl.abort();
      await running;
      assert.equal(clock.waiters(), 0, "a timer was left pending");
    },
  };
}

Deno.test("Reflector never takes the RV of a watch's synthetic initial ADDEDs as its resume RV", async (t) => {
  // docs/behaviour.md, Watch: a watch from RV "" replays the state in any RV order.
  const replay: WatchEvent<KubeObject>[] = [
    { type: "ADDED", object: pod("web-new", "9000") },
    { type: "ADDED", object: pod("web-mid", "5000") },
    { type: "ADDED", object: pod("web-old", "50") },
  ];
  await t.step('the stream ends first: re-watch from RV ""', async () => {
    const lw = new ScriptedLW();
    lw.lists = [list("")];
    lw.watches = [replay, []];
    await using r = reflectorOn(lw);
    await eventually(() => lw.calls.length >= 3);
    assert.deepEqual(lw.calls.slice(0, 3), [
      "LIST rv=0",
      "WATCH rv=",
      "WATCH rv=",
    ]);
    assert.equal(r.reflector.lastSyncResourceVersion(), "");
  });
  await t.step(
    "the first other event moves it, and every event after",
    async () => {
      const lw = new ScriptedLW();
      lw.lists = [list("0")];
      lw.watches = [[
        ...replay,
        { type: "MODIFIED", object: pod("web-mid", "9600") },
        { type: "ADDED", object: pod("web-x", "9700") },
      ], new Error("stop here")];
      await using r = reflectorOn(lw);
      await eventually(() => lw.calls.length >= 3);
      assert.deepEqual(lw.calls.slice(0, 3), [
        "LIST rv=0",
        "WATCH rv=0",
        "WATCH rv=9700",
      ]);
      assert.equal(r.store.ops.length, 6);
    },
  );
});

Deno.test("Reflector relists at once when the server answers 410 after an outage (convergence within 0 ms of fake time)", async (t) => {
  // docs/behaviour.md, after a 410 on a watch: connections refused for 20 s, then the old RV
  // answers 410 (as an HTTP status or as an ERROR event). The backoff grown
  // by the refused reconnects must not delay the relist: the server has
  // answered.
  const answers = {
    "HTTP 410, the stream cut after an event": {
      first: {
        events: [{ type: "BOOKMARK", object: pod("", "100") }],
        thenThrow: new TypeError("error reading a body from connection"),
      } as WatchScript,
      expired: () => new StatusError(status(410, "Gone")),
    },
    "ERROR 410, the first watch after the list refused": {
      first: undefined,
      expired: (): WatchScript => [{
        type: "ERROR",
        object: status(410, "Expired"),
      }],
    },
  };
  for (const [name, { first, expired }] of Object.entries(answers)) {
    await t.step(name, async () => {
      const lw = new ScriptedLW();
      lw.lists = [
        list("100", pod("web-1", "100")),
        list("250", pod("web-1", "240")),
      ];
      let server: "down" | "up" | "answered" = "down";
      const reconnect = (): WatchScript | Error => {
        if (server === "down") return refused();
        if (server === "up") {
          server = "answered";
          return expired();
        }
        return "hang";
      };
      lw.watches = first ? [first, reconnect] : [reconnect];
      await using r = reflectorOn(lw);
      // From the first refused reconnect on, 20 s of refused connections.
      await eventually(() => r.statuses.some((s) => s.type === "Failed"));
      let waited = 0;
      while (waited < 20_000) {
        await r.clock.waitForWaiters(1);
        const d = r.clock.nextDue()! - r.clock.now();
        await r.clock.step(d);
        waited += d;
      }
      server = "up";
      await r.clock.waitForWaiters(1);
      const reconnectAt = r.clock.nextDue()!;
      await r.clock.step(reconnectAt - r.clock.now());
      await eventually(() => r.store.ops.at(-1) === "replace web-1@250");
      assert.equal(r.clock.now() - reconnectAt, 0, "relisted without waiting");
      assert.ok(lw.calls.includes("LIST rv=100"));
      assert.equal(lw.calls.filter((c) => c === "LIST rv=").length, 0);
      const recovered = r.statuses.find((s) => s.type === "Recovered");
      assert.ok(recovered?.type === "Recovered" && recovered.relisted);
    });
  }
});

Deno.test("Reflector does a quorum read when a relist answers again the RV the watch refused (watch cache restarted, paged exact list)", async () => {
  // After an apiserver restart the watch cache starts at 120, while etcd
  // still serves a paged list at RV 100 exactly: relisting at 100 forever
  // left the informer stale for good (found with FakeApiServer
  // resetWatchCache and pageSize 2).
  const lw = new ScriptedLW();
  const last = () => lw.calls.at(-1)!;
  lw.lists = [
    () =>
      last() === "LIST rv="
        ? list("120", pod("web-1", "120"))
        : list("100", pod("web-1", "90")),
  ];
  lw.watches = [
    (): WatchScript =>
      last() === "WATCH rv=120"
        ? "hang"
        : [{ type: "ERROR", object: status(410, "Expired") }],
  ];
  await using r = reflectorOn(lw);
  for (let i = 0; i < 10; i++) {
    if (r.store.ops.at(-1) === "replace web-1@120") break;
    await eventually(() =>
      r.clock.waiters() > 0 || r.store.ops.at(-1) === "replace web-1@120"
    );
    const due = r.clock.nextDue();
    if (due !== undefined) await r.clock.step(due - r.clock.now());
  }
  assert.equal(r.store.ops.at(-1), "replace web-1@120");
  assert.deepEqual(lw.calls.slice(0, 5), [
    "LIST rv=0",
    "WATCH rv=100",
    "LIST rv=100",
    "LIST rv=",
    "WATCH rv=120",
  ]);
});

Deno.test("Reflector keeps backing off for refused connections, 5xx and 429", async () => {
  const lw = new ScriptedLW();
  lw.lists = [
    list("1"),
    new StatusError(status(503, "ServiceUnavailable")),
    new StatusError(status(429, "TooManyRequests"), { retryAfterSeconds: 9 }),
    list("1"),
  ];
  lw.watches = [
    refused(),
    new StatusError(status(500, "InternalError")),
    "hang",
  ];
  await using r = reflectorOn(lw);
  const delays: number[] = [];
  for (let i = 0; i < 4; i++) {
    await r.clock.waitForWaiters(1);
    const d = r.clock.nextDue()! - r.clock.now();
    delays.push(d);
    await r.clock.step(d);
  }
  assert.deepEqual(delays, [800, 1_600, 3_200, 9_000]);
  assert.deepEqual(lw.calls.slice(0, 6), [
    "LIST rv=0",
    "WATCH rv=1",
    "WATCH rv=1",
    "LIST rv=1",
    "LIST rv=1",
    "LIST rv=1",
  ]);
});

Deno.test("Reflector status says what is watched, the root cause and what happens next, once per cause", async () => {
  const lw = new ScriptedLW();
  lw.description = "pods in team-a (app=web)";
  lw.lists = [list("1", pod("a", "1"))];
  lw.watches = [
    refused(),
    refused(),
    refused(),
    [{ type: "BOOKMARK", object: pod("", "2") }],
    "hang",
  ];
  const lines: string[] = [];
  const original = console.error;
  console.error = (line: string) => void lines.push(line);
  try {
    await using r = reflectorOn(lw);
    assert.equal(r.reflector.name, "pods in team-a (app=web)");
    for (let i = 0; i < 3; i++) {
      await r.clock.waitForWaiters(1);
      await r.clock.step(r.clock.nextDue()! - r.clock.now());
    }
    await eventually(() => r.statuses.some((s) => s.type === "Recovered"));
    for (const s of r.statuses) logReflectorStatus(r.reflector, s);
  } finally {
    console.error = original;
  }
  assert.deepEqual(lines, [
    "pods in team-a (app=web): cannot reach http://127.0.0.1:6443: connection refused; retrying in 0.8 s",
    "pods in team-a (app=web): watching again after 5.6 s (3 failed attempts)",
  ]);
});

Deno.test("Reflector's default log prints no line for a watch expiry ending in a relist", async () => {
  const lw = new ScriptedLW();
  lw.lists = [list("1"), list("5")];
  lw.watches = [
    [{ type: "BOOKMARK", object: pod("", "3") }, {
      type: "ERROR",
      object: status(410, "Expired", {
        message: "too old resource version: 3 (4)",
      }),
    }],
    "hang",
  ];
  const lines: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args);
  try {
    const clock = new FakeClock();
    const ctl = new AbortController();
    const reflector = new Reflector(lw, new RecordingStore(), { clock });
    assert.equal(reflector.name, "reflector");
    const running = reflector.run(ctl.signal);
    await eventually(() => lw.calls.includes("LIST rv=3"));
    ctl.abort();
    await running;
  } finally {
    console.error = original;
  }
  assert.deepEqual(lines, []);
});

Deno.test("Reflector skips a watched object of an unexpected apiVersion/kind without moving the RV", async () => {
  // docs/behaviour.md, wrong kinds: a Deployments watch sends an extensions/v1beta1 object.
  const lw = new ScriptedLW();
  lw.expectedType = { apiVersion: "apps/v1", kind: "Deployment" };
  const dep = (name: string, rv: string, apiVersion = "apps/v1") =>
    pod(name, rv, { apiVersion, kind: "Deployment" });
  lw.lists = [list("50", pod("d1", "50"))];
  lw.watches = [
    [
      { type: "ADDED", object: dep("d3", "52", "extensions/v1beta1") },
      { type: "ADDED", object: dep("d4", "53", "extensions/v1beta1") },
    ],
    [{ type: "ADDED", object: dep("d2", "54") }],
    "hang",
  ];
  await using r = reflectorOn(lw);
  await eventually(() => lw.calls.length === 4);
  assert.deepEqual(lw.calls, [
    "LIST rv=0",
    "WATCH rv=50",
    "WATCH rv=50",
    "WATCH rv=54",
  ]);
  await eventually(() => r.store.ops.length === 2);
  assert.deepEqual(r.store.ops, ["replace d1@50", "add d2@54"]);
  assert.equal(r.reflector.health().skippedObjects, 2);
  const skipped = r.statuses.filter((s) => s.type === "Skipped");
  assert.deepEqual(
    skipped.map((s) => s.type === "Skipped" && [s.cause, s.repeated]),
    [
      [
        "ADDED default/d3: extensions/v1beta1 Deployment, expected apps/v1 Deployment",
        false,
      ],
      [
        "ADDED default/d4: extensions/v1beta1 Deployment, expected apps/v1 Deployment",
        true,
      ],
    ],
  );
});

Deno.test("Reflector backs off on a watch stream that cannot be decoded (from its first line or after events) and resumes at the last RV, never relisting", async () => {
  // What KubeClient.watch throws for a line that is not a watch event.
  const garbage = () =>
    Object.assign(
      new Error('Cannot decode watch event on line 1: not JSON: "<html>"'),
      { name: "WatchDecodeError", kind: "Malformed", line: 1 },
    );
  const lw = new ScriptedLW();
  lw.lists = [list("5", pod("a", "5"))];
  const at: number[] = [];
  const box: { clock?: FakeClock } = {};
  lw.watches = [() => {
    at.push(box.clock!.now());
    // Bounded, so a reflector that retries without a timer cannot hang the test.
    if (at.length > 20) return "hang";
    // Odd watches fail on their first line, even ones after an event.
    const rv = String(4 + at.length);
    return {
      events: at.length % 2 ? [] : [{ type: "ADDED", object: pod("b", rv) }],
      thenThrow: garbage(),
    };
  }];
  await using r = reflectorOn(lw);
  box.clock = r.clock;
  const start = r.clock.now();
  for (let t = 0; t < 60_000; t += 100) {
    await r.clock.step(100);
    for (let i = 0; i < 3; i++) await nextTurn();
  }
  assert.ok(at[0] - start <= 100, `first watch at ${at[0] - start}`);
  assert.deepEqual(
    at.slice(1).map((t, i) => t - at[i]),
    [800, 1_600, 3_200, 6_400, 12_800, 25_600],
    "each retry after a doubled backoff",
  );
  assert.deepEqual(lw.calls, [
    "LIST rv=0",
    "WATCH rv=5",
    "WATCH rv=5",
    "WATCH rv=6",
    "WATCH rv=6",
    "WATCH rv=8",
    "WATCH rv=8",
    "WATCH rv=10",
  ]);
});

Deno.test("Reflector's skipped-kind log stays bounded whatever the number of kinds, keeps counting, and says when every object is being skipped", async () => {
  const lw = new ScriptedLW();
  lw.expectedType = { apiVersion: "apps/v1", kind: "Deployment" };
  lw.lists = [list("50")];
  // A server cycling through 1,000 kinds, then one good object.
  const events: WatchEvent<KubeObject>[] = [];
  for (let i = 0; i < 1_000; i++) {
    events.push({
      type: "ADDED",
      object: pod(`x${i}`, String(51 + i), {
        apiVersion: "example.com/v1",
        kind: `Kind${i}`,
      }),
    });
  }
  const good = pod("d", "2000", { apiVersion: "apps/v1", kind: "Deployment" });
  lw.watches = [
    {
      events,
      // Then garbage: a backoff before the next watch.
      thenThrow: Object.assign(new Error("not JSON"), {
        name: "WatchDecodeError",
        kind: "Malformed",
      }),
    },
    [{ type: "ADDED", object: good }],
    "hang",
  ];
  await using r = reflectorOn(lw);
  await eventually(() => r.reflector.health().skippedObjects === 1_000);
  const lines = r.statuses.map((s) => statusLine("deployments", s)).filter(
    (l) => l !== undefined,
  ).join("\n").split("\n").filter((l) =>
    l.includes("skipped") || l.includes("unhealthy")
  );
  const told = lines.filter((l) => l.startsWith("deployments: skipped"));
  assert.equal(told.length, 10, "10 new kinds a minute, not 1,000 lines");
  assert.deepEqual(
    lines.filter((l) => l.includes("unhealthy")),
    [10, 100, 1_000].map((n) =>
      `deployments: unhealthy: the last ${n} watched objects were all skipped (apiVersion/kind not expected); the cache is not being updated`
    ),
  );
  assert.equal(typeof r.reflector.health().skippingSince, "number");
  // A minute later, new kinds are told again; an applied object ends the streak.
  await r.clock.step(61_000);
  await eventually(() => r.store.ops.includes("add d@2000"));
  assert.equal(r.reflector.health().skippingSince, undefined);
  assert.equal(r.reflector.health().skippedObjects, 1_000);
});
