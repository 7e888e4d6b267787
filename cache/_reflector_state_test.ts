// The Reflector's transition function, tested directly: no server, no clock.

import assert from "node:assert/strict";
import { StatusError } from "../api/errors.ts";
import {
  classify,
  type EmptyState,
  type FailureKind,
  initialState,
  type InitListedState,
  listRequest,
  type ReflectorInput,
  type ReflectorState,
  relistResourceVersion,
  step,
  type Transition,
  UNKNOWN_SERVER,
  watchListResourceVersion,
} from "./_reflector_state.ts";

const server = UNKNOWN_SERVER;

const err = new Error("x");
const empty = (
  rv: string,
  quorum = false,
  keepBackoff = false,
): EmptyState => ({
  type: "Empty",
  rv,
  server,
  quorum,
  listOnly: false,
  keepBackoff,
});
const listed = (rv: string, fromList = false): InitListedState => ({
  type: "InitListed",
  rv,
  server,
  fromList,
});
const watching = (
  rv: string,
  fromList = false,
  holdRV = false,
): ReflectorState => ({ type: "Watching", rv, server, fromList, holdRV });
const backoff = (
  rv: string,
  kind: FailureKind,
  then: EmptyState | InitListedState,
  error: unknown = err,
): Transition => ({
  state: { type: "Backoff", rv, server, error, kind, then },
  report: error,
});
const ended = (
  end: "clean" | "broken" | "stalled" | "error",
  events: number,
  lastedMs: number,
  kind?: FailureKind,
): ReflectorInput => ({
  type: "watchEnded",
  end,
  events,
  lastedMs,
  kind,
  error: end === "clean" ? undefined : err,
});

Deno.test('initialState() is Empty at RV ""; the first list goes to RV 0, a watch-list to RV ""', () => {
  const s = initialState() as EmptyState;
  assert.deepEqual(s, empty(""));
  assert.equal(relistResourceVersion(s), "0");
  assert.equal(watchListResourceVersion(s), "");
  assert.equal(relistResourceVersion(empty("101")), "101");
  assert.equal(relistResourceVersion(empty("101", true)), "");
  assert.equal(watchListResourceVersion(empty("101", true)), "");
});

Deno.test("step() from Empty: a list leads to InitListed and resets the backoff; 410 to a quorum read", async (t) => {
  await t.step(
    "a relist after a guarded 410 answering the refused RV again: a quorum read next",
    () => {
      assert.deepEqual(
        step(empty("101", false, true), { type: "listed", rv: "101" }),
        {
          state: empty("101", true, true),
          resetBackoff: false,
          recovered: "list",
        },
      );
      // One that moved on is a normal list (backoff kept).
      assert.deepEqual(
        step(empty("101", false, true), { type: "listed", rv: "105" }),
        { state: listed("105", true), resetBackoff: false, recovered: "list" },
      );
    },
  );
  await t.step("listed", () => {
    assert.deepEqual(step(empty(""), { type: "listed", rv: "101" }), {
      state: listed("101", true),
      resetBackoff: true,
      recovered: "list",
    });
  });
  await t.step("listed after a guarded 410 keeps the backoff", () => {
    assert.deepEqual(
      step(empty("101", false, true), { type: "listed", rv: "102" }),
      { state: listed("102", true), resetBackoff: false, recovered: "list" },
    );
  });
  await t.step("a watch-list keeps its stream: Watching", () => {
    assert.deepEqual(
      step(empty("", true), { type: "listed", rv: "7", watching: true }),
      { state: watching("7", true), resetBackoff: true, recovered: "list" },
    );
  });
  await t.step("410 / too large: quorum at once, unreported for a list", () => {
    assert.deepEqual(
      step(empty("101"), { type: "listFailed", kind: "expired", error: err }),
      { state: empty("101", true), report: undefined, resetBackoff: true },
    );
  });
  await t.step("410 on a watch-list is reported", () => {
    const t1 = step(empty(""), {
      type: "listFailed",
      kind: "expired",
      error: err,
      watchList: true,
    });
    assert.equal(t1.report, err);
    assert.deepEqual(t1.state, empty("", true));
  });
  await t.step("410 on a quorum read backs off, quorum kept", () => {
    assert.deepEqual(
      step(empty("101", true), {
        type: "listFailed",
        kind: "expired",
        error: err,
      }),
      backoff("101", "expired", empty("101", true)),
    );
  });
  for (const kind of ["status", "network", "throttled"] as const) {
    await t.step(`${kind}: Backoff, then the same list`, () => {
      assert.deepEqual(
        step(empty("101", true), { type: "listFailed", kind, error: err }),
        backoff("101", kind, empty("101", true)),
      );
    });
  }
  await t.step("fallBackToList: list this cycle", () => {
    assert.deepEqual(step(empty("5"), { type: "fallBackToList", error: err }), {
      state: { ...empty("5"), listOnly: true },
      report: err,
    });
  });
});

Deno.test("step() from InitListed: open → Watching; 410 → relist at the last RV; 429/no answer → retry the watch", async (t) => {
  await t.step("opened at an exact RV moves the RV per event", () => {
    assert.deepEqual(step(listed("101", true), { type: "watchOpened" }), {
      state: watching("101", true, false),
    });
  });
  await t.step('opened at "" or "0" holds the RV on initial ADDEDs', () => {
    for (const rv of ["", "0"]) {
      assert.deepEqual(
        step(listed(rv), { type: "watchOpened" }).state,
        watching(rv, false, true),
      );
    }
  });
  await t.step("410 after a resume: relist at the last RV at once", () => {
    assert.deepEqual(
      step(listed("101"), {
        type: "watchOpenFailed",
        kind: "expired",
        error: err,
      }),
      { state: empty("101"), report: err, resetBackoff: true },
    );
  });
  await t.step(
    "410 right after a list: back off, then relist at the last RV",
    () => {
      assert.deepEqual(
        step(listed("101", true), {
          type: "watchOpenFailed",
          kind: "expired",
          error: err,
        }),
        backoff("101", "expired", empty("101", false, true)),
      );
    },
  );
  for (const kind of ["throttled", "network", "undecodable"] as const) {
    await t.step(
      `${kind}: Backoff, then the watch again, no longer straight from a list`,
      () => {
        assert.deepEqual(
          step(listed("101", true), {
            type: "watchOpenFailed",
            kind,
            error: err,
          }),
          backoff("101", kind, listed("101", false)),
        );
      },
    );
  }
  await t.step("other answers: Backoff, then relist", () => {
    assert.deepEqual(
      step(listed("101"), {
        type: "watchOpenFailed",
        kind: "status",
        error: err,
      }),
      backoff("101", "status", empty("101")),
    );
  });
});

Deno.test("step() from Watching: where each ending goes", async (t) => {
  await t.step(
    "clean end after events or after 1 s: reopen at once, no report",
    () => {
      assert.deepEqual(step(watching("150"), ended("clean", 3, 10)), {
        state: listed("150"),
      });
      assert.deepEqual(step(watching("150", true), ended("clean", 0, 1_000)), {
        state: listed("150", false),
      });
    },
  );
  await t.step("very short clean watch: Backoff, then relist", () => {
    const t1 = step(watching("150"), ended("clean", 0, 999));
    assert.equal(t1.state.type, "Backoff");
    assert.deepEqual((t1.state as { then: unknown }).then, empty("150"));
    assert.match(
      String(t1.report),
      /very short watch: the watch lasted 999 ms/,
    );
  });
  await t.step(
    "broken with no event under 1 s: very short, Backoff, then relist",
    () => {
      assert.deepEqual(
        step(watching("900", true), ended("broken", 0, 5)),
        backoff("900", "network", empty("900")),
      );
    },
  );
  await t.step(
    "broken by a stream that cannot be decoded (very short or not): Backoff, then the watch again at the last RV, no relist",
    () => {
      for (const [events, lastedMs] of [[0, 5], [2, 5], [0, 1_000]]) {
        assert.deepEqual(
          step(
            watching("900", true),
            ended("broken", events, lastedMs, "undecodable"),
          ),
          backoff("900", "undecodable", listed("900")),
        );
      }
    },
  );
  await t.step(
    "broken after events or after a quiet second: resume at once",
    () => {
      assert.deepEqual(step(watching("900", true), ended("broken", 2, 5)), {
        state: listed("900"),
        report: err,
      });
      assert.deepEqual(step(watching("900"), ended("broken", 0, 1_000)), {
        state: listed("900"),
        report: err,
      });
    },
  );
  await t.step("stalled: reopen at once", () => {
    assert.deepEqual(step(watching("9"), ended("stalled", 0, 700_000)), {
      state: listed("9"),
      report: err,
    });
  });
  await t.step("ERROR 410 after events: relist at the last RV at once", () => {
    assert.deepEqual(
      step(watching("160", true), ended("error", 1, 5, "expired")),
      {
        state: empty("160"),
        report: err,
        resetBackoff: true,
      },
    );
  });
  await t.step(
    "ERROR 410 as the first event after a list: Backoff, then relist",
    () => {
      assert.deepEqual(
        step(watching("101", true), ended("error", 0, 5, "expired")),
        backoff("101", "expired", empty("101", false, true)),
      );
    },
  );
  await t.step("ERROR 429: Backoff, then the watch again", () => {
    assert.deepEqual(
      step(watching("5"), ended("error", 0, 5, "throttled")),
      backoff("5", "throttled", listed("5")),
    );
  });
  await t.step("ERROR 500: Backoff, then relist", () => {
    assert.deepEqual(
      step(watching("5"), ended("error", 4, 5, "status")),
      backoff("5", "status", empty("5")),
    );
  });
});

Deno.test("step() after an outage: refused reconnects, then a 410 answer relists at once", () => {
  // Synced at 104, the server dies before the first watch is answered.
  let t = step(empty(""), { type: "listed", rv: "104" });
  for (let i = 0; i < 5; i++) {
    t = step(t.state, { type: "watchOpenFailed", kind: "network", error: err });
    assert.equal(t.state.type, "Backoff");
    t = step(t.state, { type: "slept" });
  }
  t = step(t.state, { type: "watchOpened" });
  t = step(t.state, ended("error", 0, 5, "expired"));
  assert.deepEqual(t, { state: empty("104"), report: err, resetBackoff: true });
});

Deno.test("step() from Backoff goes to its target; cycleFailed relists after a backoff", () => {
  const b = backoff("5", "network", listed("5")).state;
  assert.deepEqual(step(b, { type: "slept" }), { state: listed("5") });
  assert.deepEqual(
    step(watching("5"), { type: "cycleFailed", error: err }),
    backoff("5", "status", empty("5")),
  );
});

Deno.test("step() rejects an input its state cannot take", () => {
  assert.throws(
    () => step(empty(""), { type: "watchOpened" }),
    new TypeError("Reflector state Empty cannot take input watchOpened"),
  );
  assert.throws(() => step(watching("1"), { type: "slept" }), TypeError);
  assert.throws(() => step(listed("1"), { type: "slept" }), TypeError);
});

Deno.test("step() keeps what it learns of the server in the state, and listRequest() asks by it", async (t) => {
  await t.step(
    "a paged answer to the first list at RV 0: every list pages",
    () => {
      const first = step(empty(""), { type: "listed", rv: "5", paged: true });
      assert.deepEqual(first.state.server, {
        paginatedResult: true,
        watchListUnsupported: false,
      });
      // Kept through a failure and its relist.
      let t = step(first.state, { type: "watchOpened" });
      t = step(t.state, ended("error", 0, 5_000, "status"));
      t = step(t.state, { type: "slept" });
      assert.equal(t.state.type, "Empty");
      assert.deepEqual(listRequest(t.state as EmptyState, false), {
        watchList: false,
        rv: "5",
        keepPaging: true,
      });
    },
  );
  await t.step(
    "a paged answer at another RV learns nothing (client-go)",
    () => {
      const t = step(empty("9"), { type: "listed", rv: "12", paged: true });
      assert.equal(t.state.server.paginatedResult, false);
    },
  );
  await t.step(
    "a server that rejects a watch-list is never asked again",
    () => {
      const once = step(empty("5"), { type: "fallBackToList", error: err });
      assert.deepEqual(listRequest(once.state as EmptyState, true), {
        watchList: false,
        rv: "5",
        keepPaging: false,
      });
      // A fallback for this cycle only: the next cycle tries again.
      assert.deepEqual(listRequest(empty("5"), true), {
        watchList: true,
        rv: "5",
      });
      const never = step(empty("5"), {
        type: "fallBackToList",
        unsupported: true,
      });
      assert.equal(never.state.server.watchListUnsupported, true);
      let t = step(never.state, { type: "listed", rv: "6" });
      t = step(t.state, { type: "watchOpened" });
      t = step(t.state, ended("error", 0, 5_000, "status"));
      t = step(t.state, { type: "slept" });
      assert.deepEqual(listRequest(t.state as EmptyState, true), {
        watchList: false,
        rv: "6",
        keepPaging: false,
      });
    },
  );
});

Deno.test("step(): aborted keeps the state; restart relists unless a list is due; watchHealthy ends an outage", () => {
  for (const s of [empty("3", true), listed("3"), watching("3")]) {
    assert.equal(step(s, { type: "aborted" }).state, s);
    assert.deepEqual(step(s, { type: "watchHealthy" }), {
      state: s,
      recovered: "watch",
    });
  }
  const b = backoff("3", "network", listed("3")).state;
  assert.equal(step(b, { type: "aborted" }).state, b);
  // A list due keeps its quorum rule; any other state relists at its RV.
  const due = empty("3", true);
  assert.equal(step(due, { type: "restart" }).state, due);
  assert.deepEqual(step(watching("7"), { type: "restart" }).state, empty("7"));
  assert.deepEqual(step(b, { type: "restart" }).state, empty("3"));
});

Deno.test("classify() sorts failures into the kinds the transitions know", () => {
  const status = (code: number, reason: string, message = "") =>
    StatusError.fromStatus({ code, reason, message });
  assert.equal(classify(status(410, "Expired")), "expired");
  assert.equal(
    classify(
      status(504, "Timeout", "Too large resource version: 9, current: 5"),
    ),
    "expired",
  );
  assert.equal(classify(status(429, "TooManyRequests")), "throttled");
  assert.equal(classify(status(500, "InternalError")), "status");
  assert.equal(classify(new TypeError("connection refused")), "network");
  // client/'s WatchDecodeError, by name (cache/ does not import client/).
  const decode = (kind: string) =>
    Object.assign(new Error("Cannot decode watch event"), {
      name: "WatchDecodeError",
      kind,
    });
  assert.equal(classify(decode("Malformed")), "undecodable");
  assert.equal(classify(decode("TooLong")), "undecodable");
  // A stream cut mid-line is a broken connection.
  assert.equal(classify(decode("UnexpectedEnd")), "network");
});
