import assert from "node:assert/strict";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import type { KubeObject, Status } from "../api/object.ts";
import type { WatchEvent } from "../api/listwatch.ts";
import { KubeConfig } from "./config.ts";
import {
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isExpired,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isServerError,
  isTimeout,
  isTooLargeResourceVersion,
  isTooManyRequests,
  isUnauthorized,
  StatusError,
} from "../api/errors.ts";
import { KubeClient } from "./rest.ts";
import { RequestTimeoutError } from "../api/errors.ts";
import { rejection } from "./_test_util.ts";
import { serverWithClient } from "../testing/client_test_util.ts";
import {
  ConfigMaps,
  Deployments,
  Namespaces,
  Pods,
  type ResourceType,
  resourceType,
} from "../api/resources.ts";
import { WatchDecodeError } from "./watch.ts";
import { listWatch } from "../api/resource_client.ts";

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const FIXTURES = new URL("../testing/fixtures/apiserver/", import.meta.url);

function fixture(name: string): {
  entries: {
    step: string;
    status?: number;
    headers?: Record<string, string>;
    body?: unknown;
    bodyText?: string;
    events?: { type: string; object: Status }[];
  }[];
} {
  return JSON.parse(Deno.readTextFileSync(new URL(name, FIXTURES)));
}

const CMs = ConfigMaps as ResourceType<ConfigMap>;

function cm(name: string, data: Record<string, string> = {}): ConfigMap {
  return { metadata: { name, namespace: "default" }, data };
}

const setup = serverWithClient;

// ---- StatusError and predicates ----

Deno.test("StatusError.fromResponse() keeps every error Status of the real apiserver transcripts", () => {
  const predicates: Record<string, (e: unknown) => boolean> = {
    NotFound: isNotFound,
    AlreadyExists: isAlreadyExists,
    Conflict: isConflict,
    Unauthorized: isUnauthorized,
    Forbidden: isForbidden,
    Invalid: isInvalid,
    BadRequest: isBadRequest,
    Expired: isExpired,
  };
  let seen = 0;
  for (
    const file of [
      "crud-configmap.json",
      "errors.json",
      "list-shapes.json",
      "watch-too-old.json",
      "watch-list-unsupported.json",
    ]
  ) {
    for (const e of fixture(file).entries) {
      if (e.status === undefined || e.status < 400) continue;
      const text = e.bodyText ?? JSON.stringify(e.body);
      const err = StatusError.fromResponse(e.status, text);
      assert.equal(err.code, e.status, e.step);
      if (e.body) {
        const status = e.body as Status;
        assert.equal(err.reason, status.reason, e.step);
        assert.equal(err.message, status.message, e.step);
        assert.deepEqual(err.details, status.details, e.step);
      } else {
        assert.equal(err.message, e.bodyText!.trim(), e.step);
      }
      const pred = predicates[err.reason];
      if (pred) assert.ok(pred(err), `${e.step}: ${err.reason}`);
      seen++;
    }
  }
  assert.ok(seen >= 25, `only ${seen} error entries`);
});

Deno.test("StatusError.fromResponse() derives the reason of a text/plain 404 from the code", () => {
  const err = StatusError.fromResponse(404, "404 page not found\n");
  assert.equal(err.reason, "NotFound");
  assert.equal(err.message, "404 page not found");
  assert.ok(isNotFound(err));
  assert.equal(err.details, undefined);
  const empty = StatusError.fromResponse(503, "");
  assert.equal(empty.reason, "ServiceUnavailable");
  assert.match(empty.message, /status 503 and an empty body/);
  assert.ok(isServerError(empty));
});

Deno.test("StatusError.fromStatus() of a watch ERROR event is expired", () => {
  const ev = fixture("watch-too-old.json").entries.flatMap((e) =>
    e.events ?? []
  )
    .find((e) => e.type === "ERROR")!;
  const err = StatusError.fromStatus(ev.object);
  assert.ok(isExpired(err) && isGone(err));
  assert.equal(err.code, 410);
  assert.ok(!isNotFound(err));
});

Deno.test("StatusError.retryAfterSeconds comes from Retry-After, else details", () => {
  const body = JSON.stringify({
    kind: "Status",
    code: 429,
    reason: "TooManyRequests",
    message: "slow down",
    details: { retryAfterSeconds: 7 },
  });
  assert.equal(StatusError.fromResponse(429, body).retryAfterSeconds, 7);
  assert.equal(
    StatusError.fromResponse(429, body, { retryAfter: "3" }).retryAfterSeconds,
    3,
  );
  const now = Date.parse("2026-01-01T00:00:00Z");
  const date = new Date(now + 12_000).toUTCString();
  assert.equal(
    StatusError.fromResponse(503, "busy", { retryAfter: date, now })
      .retryAfterSeconds,
    12,
  );
  assert.equal(StatusError.fromResponse(500, "x").retryAfterSeconds, undefined);
});

Deno.test("isTooLargeResourceVersion() matches the cause and the pre-1.18.6 message", () => {
  const cause = StatusError.fromStatus({
    code: 504,
    reason: "Timeout",
    message: "Timeout: Too large resource version: 9, current: 5",
    details: {
      causes: [{
        reason: "ResourceVersionTooLarge",
        message: "Too large resource version",
      }],
      retryAfterSeconds: 1,
    },
  });
  assert.ok(isTooLargeResourceVersion(cause));
  assert.ok(isTimeout(cause));
  assert.equal(cause.retryAfterSeconds, 1);
  const old = StatusError.fromStatus({
    code: 504,
    reason: "Timeout",
    message: "Too large resource version: 9",
  });
  assert.ok(isTooLargeResourceVersion(old));
  const plain = StatusError.fromStatus({
    code: 504,
    reason: "Timeout",
    message: "x",
  });
  assert.ok(!isTooLargeResourceVersion(plain));
  assert.ok(
    !isTooLargeResourceVersion(new Error("Too large resource version")),
  );
});

Deno.test("predicates use the code when the reason is unknown, and reject other errors", () => {
  const odd = StatusError.fromStatus({
    code: 404,
    reason: "Weird",
    message: "m",
  });
  assert.ok(isNotFound(odd));
  assert.ok(!isConflict(odd));
  assert.ok(isConflict(StatusError.fromStatus({ code: 409, message: "m" })));
  assert.ok(
    !isAlreadyExists(StatusError.fromStatus({ code: 409, message: "m" })),
  );
  assert.ok(
    isTooManyRequests(StatusError.fromStatus({ code: 429, message: "m" })),
  );
  for (const p of [isNotFound, isConflict, isExpired, isTooManyRequests]) {
    assert.equal(p(new Error("NotFound")), false);
    assert.equal(p(undefined), false);
  }
});

// ---- KubeClient against FakeApiServer ----

Deno.test("KubeClient create/get/list/update/patch/delete make one request each", async () => {
  await using env = await setup();
  const { server, client } = env;
  const before = server.requests.length;

  const created = await client.create(CMs, cm("a", { k: "1" }));
  assert.equal(created.kind, "ConfigMap");
  assert.ok(created.metadata.uid);
  const got = await client.get(CMs, "a", { namespace: "default" });
  assert.deepEqual(got.data, { k: "1" });
  const list = await client.list(CMs, { namespace: "default" });
  assert.deepEqual(list.items.map((o) => o.metadata.name), ["a"]);
  assert.ok(list.metadata.resourceVersion);

  const updated = await client.update(CMs, { ...got, data: { k: "2" } });
  assert.deepEqual(updated.data, { k: "2" });
  const conflict = await rejection(
    client.update(CMs, { ...got, data: { k: "3" } }),
  );
  assert.ok(isConflict(conflict), String(conflict));

  const merged = await client.patch(CMs, "a", { data: { m: "x" } }, {
    patchType: "merge",
  });
  assert.deepEqual(merged.data, { k: "2", m: "x" });
  const jsonPatched = await client.patch(CMs, "a", [{
    op: "replace",
    path: "/data/k",
    value: "j",
  }], { patchType: "json" });
  assert.equal(jsonPatched.data?.k, "j");
  const strategic = await client.patch(CMs, "a", { data: { s: "y" } }, {
    patchType: "strategic",
  });
  assert.equal(strategic.data?.s, "y");
  const applied = await client.patch(CMs, "a", {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "a" },
    data: { k: "applied" },
  }, { patchType: "apply", force: true });
  assert.equal(applied.data?.k, "applied");

  const exists = await rejection(client.create(CMs, cm("a")));
  assert.ok(isAlreadyExists(exists));
  const deleted = await client.delete(CMs, "a");
  assert.ok(deleted);
  const missing = await rejection(client.get(CMs, "a"));
  assert.ok(isNotFound(missing));
  assert.ok(missing instanceof StatusError);
  assert.equal(missing.code, 404);
  const again = await rejection(client.delete(CMs, "a"));
  assert.ok(isNotFound(again));

  const made = server.requests.slice(before);
  assert.deepEqual(made.map((r) => r.method), [
    "POST",
    "GET",
    "GET",
    "PUT",
    "PUT",
    "PATCH",
    "PATCH",
    "PATCH",
    "PATCH",
    "POST",
    "DELETE",
    "GET",
    "DELETE",
  ]);
  assert.equal(made[8].query.get("fieldManager"), "kubecache");
  assert.equal(made[8].query.get("force"), "true");
  assert.equal(made[1].path, "/api/v1/namespaces/default/configmaps/a");
});

Deno.test("KubeClient.delete() sends DeleteOptions and preconditions", async () => {
  await using env = await setup();
  const { client } = env;
  const created = await client.create(CMs, cm("p"));
  const stale = await rejection(
    client.delete(CMs, "p", { preconditions: { uid: "not-the-uid" } }),
  );
  assert.ok(isConflict(stale), String(stale));
  await client.delete(CMs, "p", {
    preconditions: { uid: created.metadata.uid },
    propagationPolicy: "Background",
  });
  assert.ok(isNotFound(await rejection(client.get(CMs, "p"))));
});

Deno.test("KubeClient addresses cluster-scoped, all-namespace and grouped resources", async () => {
  await using env = await setup();
  const { server, client } = env;
  server.create(ConfigMaps, cm("x"));
  server.create(ConfigMaps, {
    metadata: { name: "y", namespace: "kube-system" },
  });
  const all = await client.list(CMs);
  assert.deepEqual(all.items.map((o) => o.metadata.name).sort(), ["x", "y"]);
  const ns = await client.list(Namespaces);
  assert.ok(ns.items.some((o) => o.metadata.name === "kube-system"));
  const Widgets = resourceType({
    apiVersion: "example.com/v1",
    kind: "Widget",
    resource: "widgets",
    namespaced: true,
  });
  const missing = await rejection(
    client.list(Widgets, { namespace: "default" }),
  );
  assert.ok(isNotFound(missing), String(missing));
  const paths = server.requests.slice(-3).map((r) => r.path);
  assert.deepEqual(paths, [
    "/api/v1/configmaps",
    "/api/v1/namespaces",
    "/apis/example.com/v1/namespaces/default/widgets",
  ]);
});

Deno.test("KubeClient.list() pages with limit and continue, and selects by label", async () => {
  await using env = await setup();
  const { server, client } = env;
  for (let i = 0; i < 5; i++) {
    server.create(ConfigMaps, {
      metadata: {
        name: `c${i}`,
        namespace: "default",
        labels: { even: String(i % 2 === 0) },
      },
    });
  }
  const names: string[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const page = await client.list(CMs, {
      namespace: "default",
      limit: 2,
      continue: token,
    });
    names.push(...page.items.map((o) => o.metadata.name!));
    token = page.metadata.continue || undefined;
    pages++;
  } while (token);
  assert.equal(pages, 3);
  assert.deepEqual(names, ["c0", "c1", "c2", "c3", "c4"]);
  const even = await client.list(CMs, {
    namespace: "default",
    labelSelector: "even=true",
  });
  assert.deepEqual(even.items.map((o) => o.metadata.name), ["c0", "c2", "c4"]);
  assert.equal(server.requests.at(-1)!.query.get("labelSelector"), "even=true");
});

Deno.test("KubeClient.watch() streams events from a resourceVersion and ends with the server", async () => {
  await using env = await setup();
  const { server, client } = env;
  const rv = server.resourceVersion();
  const events = await client.watch(CMs, {
    namespace: "default",
    resourceVersion: rv,
    allowWatchBookmarks: true,
  });
  const q = server.requests.at(-1)!.query;
  assert.equal(q.get("watch"), "true");
  assert.equal(q.get("resourceVersion"), rv);
  assert.equal(q.get("allowWatchBookmarks"), "true");
  server.create(ConfigMaps, cm("w"));
  server.update(CMs, { ...cm("w", { a: "b" }) });
  server.delete(ConfigMaps, "default", "w");
  const seen: string[] = [];
  for await (const ev of events) {
    seen.push(`${ev.type}:${(ev.object as KubeObject).metadata.name}`);
    if (seen.length === 3) server.faults.closeWatches();
  }
  assert.deepEqual(seen, ["ADDED:w", "MODIFIED:w", "DELETED:w"]);
});

Deno.test("KubeClient.list() gives every item the kind and apiVersion of its type, as watch objects have", async () => {
  await using env = await setup();
  const { server, client } = env;
  server.create(ConfigMaps, cm("a"));
  server.create(Deployments, {
    metadata: { name: "d", namespace: "default" },
  });
  // The server sends list items without TypeMeta, as a real apiserver does.
  const raw = await (await fetch(`${server.url}/api/v1/configmaps`)).json();
  assert.equal(raw.items[0].kind, undefined);
  const cms = await client.list(CMs);
  assert.deepEqual(
    cms.items.map((o) => [o.kind, o.apiVersion, o.metadata.name]),
    [["ConfigMap", "v1", "a"]],
  );
  const deps = await client.list(Deployments, { namespace: "default" });
  assert.deepEqual(
    deps.items.map((o) => [o.kind, o.apiVersion]),
    [["Deployment", "apps/v1"]],
  );
  const events = await client.watch(Deployments, {
    namespace: "default",
    resourceVersion: "0",
  });
  for await (const ev of events) {
    assert.deepEqual(
      [ev.object.kind, ev.object.apiVersion],
      ["Deployment", "apps/v1"],
    );
    break;
  }
});

Deno.test("KubeClient rejects a config that is not a KubeConfig at the call", () => {
  for (
    const [config, shown] of [
      [undefined, "undefined"],
      [null, "null"],
      ["https://h", '"https://h"'],
      [{ server: "https://h" }, "an object without the fields of a KubeConfig"],
    ] as const
  ) {
    assert.throws(
      () => new KubeClient(config as unknown as KubeConfig),
      (e) => {
        assert.ok(e instanceof TypeError);
        assert.equal(
          e.message,
          `KubeClient: config must be a KubeConfig, got ${shown}`,
        );
        return true;
      },
    );
  }
});

Deno.test("KubeClient.watch() passes a 410 ERROR event through for an expired resourceVersion", async () => {
  await using env = await setup({ historyLimit: 2 });
  const { server, client } = env;
  const old = server.resourceVersion();
  for (let i = 0; i < 5; i++) server.create(ConfigMaps, cm(`e${i}`));
  server.compact();
  const events = await Array.fromAsync(
    await client.watch(CMs, { namespace: "default", resourceVersion: old }),
  );
  assert.equal(events.length, 1);
  assert.equal(events[0].type, "ERROR");
  const err = StatusError.fromStatus(events[0].object as Status);
  assert.ok(isExpired(err), err.message);
});

Deno.test("KubeClient.watch() decodes bodies the server cuts at random offsets", async () => {
  await using env = await setup();
  const { server, client } = env;
  const rv = server.resourceVersion();
  for (let i = 0; i < 20; i++) {
    server.create(ConfigMaps, cm(`u-${i}`, { emoji: "😀€é".repeat(i) }));
  }
  server.faults.splitWrites("random", 42);
  server.faults.closeWatchesAfter(20);
  const names: string[] = [];
  for await (
    const ev of await client.watch(CMs, {
      namespace: "default",
      resourceVersion: rv,
    })
  ) {
    const o = ev.object as ConfigMap;
    assert.equal(o.data?.emoji, "😀€é".repeat(names.length));
    names.push(o.metadata.name!);
  }
  assert.deepEqual(names, Array.from({ length: 20 }, (_, i) => `u-${i}`));
});

Deno.test("KubeClient.watch() closes the connection when the consumer stops or the signal aborts", async () => {
  await using env = await setup();
  const { server, client } = env;
  server.create(ConfigMaps, cm("s"));
  // Stop early: the loop leaves after the first event.
  for await (
    const ev of await client.watch(CMs, { namespace: "default" })
  ) {
    assert.equal(ev.type, "ADDED");
    break;
  }
  // Abort while the stream is silent.
  server.faults.stallWatches(true);
  const ctrl = new AbortController();
  const it = (await client.watch(CMs, {
    namespace: "default",
    resourceVersion: server.resourceVersion(),
    signal: ctrl.signal,
  }))[Symbol.asyncIterator]();
  const next = it.next();
  const reason = new Error("stop watching");
  ctrl.abort(reason);
  assert.equal(await rejection(next), reason);
  // The sanitizers fail this test if either connection were left open.
});

Deno.test("KubeClient.watch() throws a StatusError when the server refuses the watch", async () => {
  await using env = await setup();
  const { server, client } = env;
  server.faults.failNext(1, { status: 429, retryAfterSeconds: 4 });
  const err = await rejection(client.watch(Pods, { namespace: "default" }));
  assert.ok(isTooManyRequests(err));
  assert.equal((err as StatusError).retryAfterSeconds, 4);
  assert.equal(server.requests.length, 1);
});

Deno.test("KubeClient reports every injected failure as a StatusError, without retrying", async (t) => {
  await using env = await setup();
  const { server, client } = env;
  const cases: [number, string | undefined, (e: unknown) => boolean][] = [
    [500, undefined, isServerError],
    [503, undefined, isServerError],
    [504, undefined, isTooLargeResourceVersion],
    [410, undefined, isExpired],
    [429, undefined, isTooManyRequests],
    [404, "404 page not found\n", isNotFound],
    [403, undefined, isForbidden],
  ];
  for (const [status, body, pred] of cases) {
    await t.step(`${status}${body ? " text/plain" : ""}`, async () => {
      const before = server.requests.length;
      server.faults.failNext(1, { status, body });
      const err = await rejection(
        client.list(CMs, { namespace: "default" }),
      );
      assert.ok(err instanceof StatusError, String(err));
      assert.equal(err.code, status);
      assert.ok(pred(err), `${status}: ${err.reason} ${err.message}`);
      assert.equal(server.requests.length - before, 1);
    });
  }
});

Deno.test("KubeClient.list() reads a null or missing items as empty, and a 200 failure Status as an error", async () => {
  await using env = await setup();
  const { server, client } = env;
  // Go encodes a nil slice as null; some servers leave items out entirely.
  server.faults.failNext(1, {
    status: 200,
    body:
      '{"kind":"ConfigMapList","metadata":{"resourceVersion":"7"},"items":null}',
  });
  const nullItems = await client.list(CMs, { namespace: "default" });
  assert.deepEqual(nullItems.items, []);
  assert.equal(nullItems.metadata.resourceVersion, "7");
  server.faults.failNext(1, { status: 200, body: '{"kind":"ConfigMapList"}' });
  const bare = await client.list(CMs, { namespace: "default" });
  assert.deepEqual(bare, { kind: "ConfigMapList", metadata: {}, items: [] });
  server.faults.failNext(1, {
    status: 200,
    body: JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      reason: "Expired",
      message: "too old",
      code: 410,
    }),
  });
  const err = await rejection(client.list(CMs, { namespace: "default" }));
  assert.ok(err instanceof StatusError && isExpired(err), String(err));
  server.faults.failNext(1, { status: 200, body: '{"items":{"a":1}}' });
  const bad = await rejection(client.list(CMs, { namespace: "default" }));
  assert.ok(bad instanceof TypeError);
  assert.match(bad.message, /items is not an array/);
});

Deno.test("KubeClient sends the bearer token; a wrong one is Unauthorized", async () => {
  await using server = await FakeApiServer.start({ token: "s3cret-token" });
  await using good = new KubeClient(
    KubeConfig.fromOptions({ server: server.url, token: "s3cret-token" }),
  );
  await good.list(ConfigMaps);
  await using bad = new KubeClient(
    KubeConfig.fromOptions({ server: server.url, token: "wrong-token" }),
  );
  const err = await rejection(bad.list(ConfigMaps));
  assert.ok(isUnauthorized(err));
  assert.ok(!String((err as Error).message).includes("wrong-token"));
  await using none = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  assert.ok(isForbidden(await rejection(none.list(ConfigMaps))));
});

/**
 * A FakeApiServer on a clock of its own and a KubeClient timing its calls
 * out after 5 s idle on `clock`; disposing closes both.
 */
async function timedClient(clock: FakeClock) {
  const serverClock = new FakeClock(0);
  const server = await FakeApiServer.start({ clock: serverClock });
  const client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
    { clock, timeoutMs: 5_000 },
  );
  return {
    server,
    serverClock,
    client,
    async [Symbol.asyncDispose]() {
      await client[Symbol.asyncDispose]();
      await server.close();
    },
  };
}

Deno.test("KubeClient times out a slow request on its clock", async () => {
  const clock = new FakeClock(0);
  await using timed = await timedClient(clock);
  const { server, serverClock, client } = timed;
  server.faults.latency(60_000);
  const pending = rejection(client.list(CMs));
  await clock.waitForWaiters(1);
  await clock.step(4_999);
  assert.equal(clock.hasWaiters(), true);
  await clock.step(1);
  const err = await pending;
  assert.ok(err instanceof RequestTimeoutError, String(err));
  assert.equal(err.timeoutMs, 5_000);
  assert.match(
    err.message,
    /GET \/api\/v1\/configmaps timed out after 5000 ms/,
  );
  server.faults.clear();
  await serverClock.step(60_000);
});

/** A FakeClock whose timers can wake late, as real timers do while
 * synchronous work holds the event loop: `now()` runs `heldMs` ahead. */
class LateWakeClock extends FakeClock {
  heldMs = 0;
  override now(): number {
    return super.now() + this.heldMs;
  }
}

Deno.test("KubeClient does not time out a call when its timer wakes late: the loop was held, the answer may be waiting", async () => {
  const clock = new LateWakeClock(0);
  await using timed = await timedClient(clock);
  const { server, serverClock, client } = timed;
  server.faults.latency(1_000);
  let settled = false;
  const pending = client.list(CMs).finally(() => settled = true);
  await clock.waitForWaiters(1);
  await serverClock.waitForWaiters(1);
  // The timer fires 10 s late: a fresh 5 s window starts instead of a timeout.
  clock.heldMs = 10_000;
  await clock.step(5_000);
  await clock.waitForWaiters(1);
  assert.equal(settled, false);
  await serverClock.step(1_000);
  assert.deepEqual((await pending).items, []);
});

Deno.test("KubeClient times out after a late wake once a whole window passes silent", async () => {
  const clock = new LateWakeClock(0);
  await using timed = await timedClient(clock);
  const { server, serverClock, client } = timed;
  server.faults.latency(60_000);
  const pending = rejection(client.list(CMs));
  await clock.waitForWaiters(1);
  clock.heldMs = 10_000;
  await clock.step(5_000);
  await clock.waitForWaiters(1);
  await clock.step(4_999);
  assert.equal(clock.hasWaiters(), true);
  await clock.step(1);
  assert.ok(await pending instanceof RequestTimeoutError);
  server.faults.clear();
  await serverClock.step(60_000);
});

Deno.test("KubeClient rejects with the abort reason", async () => {
  const serverClock = new FakeClock(0);
  await using server = await FakeApiServer.start({ clock: serverClock });
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  server.faults.latency(1_000);
  const ctrl = new AbortController();
  const pending = rejection(
    client.get(CMs, "x", { signal: ctrl.signal }),
  );
  await serverClock.waitForWaiters(1);
  const reason = new Error("cancelled");
  ctrl.abort(reason);
  assert.equal(await pending, reason);
  const aborted = new AbortController();
  aborted.abort(new Error("before"));
  assert.deepEqual(
    (await rejection(
      client.get(CMs, "x", { signal: aborted.signal }),
    ) as Error)
      .message,
    "before",
  );
  await serverClock.step(1_000);
});

Deno.test("KubeClient throws after close()", async () => {
  await using env = await setup();
  env.client.close();
  await assert.rejects(env.client.list(CMs), /KubeClient is closed/);
});

Deno.test("KubeClient.watch() rejects after the complete events when the stream is cut mid-line", async () => {
  // A bare server that writes one event and half of the next, then ends.
  const ac = new AbortController();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    onListen: () => {},
  }, () =>
    new Response(
      '{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"7"}}}\n{"type":"MODI',
      { headers: { "content-type": "application/json" } },
    ));
  try {
    await using client = new KubeClient(
      KubeConfig.fromOptions({
        server: `http://127.0.0.1:${server.addr.port}`,
      }),
    );
    const events: WatchEvent<KubeObject>[] = [];
    let error: unknown;
    try {
      for await (const ev of await client.watch(CMs)) events.push(ev);
    } catch (err) {
      error = err;
    }
    assert.equal(events.length, 1);
    assert.ok(error instanceof WatchDecodeError);
    assert.equal(error.kind, "UnexpectedEnd");
  } finally {
    ac.abort();
    await server.finished;
  }
});

Deno.test("listWatch() over KubeClient lists and watches with its filters", async () => {
  await using env = await setup();
  const { server, client } = env;
  server.create(ConfigMaps, {
    metadata: { name: "l1", namespace: "default", labels: { app: "x" } },
  });
  server.create(ConfigMaps, { metadata: { name: "l2", namespace: "default" } });
  const lw = listWatch(client, ConfigMaps, {
    namespace: "default",
    labelSelector: "app=x",
  });
  const list = await lw.list({ limit: 10 });
  assert.deepEqual(list.items.map((o) => o.metadata.name), ["l1"]);
  const ctrl = new AbortController();
  const it = (await lw.watch(
    { resourceVersion: list.metadata.resourceVersion },
    ctrl.signal,
  ))[
    Symbol.asyncIterator
  ]();
  server.create(ConfigMaps, { metadata: { name: "l3", namespace: "default" } });
  server.create(ConfigMaps, {
    metadata: { name: "l4", namespace: "default", labels: { app: "x" } },
  });
  const first = await it.next();
  assert.equal(
    ((first.value as WatchEvent<KubeObject>).object as KubeObject).metadata
      .name,
    "l4",
  );
  await it.return?.();
  assert.equal(server.requests.at(-1)!.query.get("labelSelector"), "app=x");
});

Deno.test("listWatch() describes what it watches and the apiVersion/kind it expects", () => {
  const client = {
    list: () => Promise.reject(),
    watch: () => Promise.reject(),
  };
  const lw = listWatch(client, ConfigMaps, {
    namespace: "team-a",
    labelSelector: "app=web",
    fieldSelector: "metadata.name=x",
  });
  assert.equal(
    lw.description,
    "configmaps in team-a (app=web, metadata.name=x)",
  );
  assert.deepEqual(lw.expectedType, { apiVersion: "v1", kind: "ConfigMap" });
  const deployments = listWatch(
    client,
    resourceType({
      apiVersion: "apps/v1",
      kind: "Deployment",
      resource: "deployments",
      namespaced: true,
    }),
  );
  assert.equal(deployments.description, "deployments.apps");
  assert.deepEqual(deployments.expectedType, {
    apiVersion: "apps/v1",
    kind: "Deployment",
  });
});

Deno.test("KubeClient reads get and watch bodies split at chosen offsets, inside a character too", async () => {
  await using env = await setup();
  const { server, client } = env;
  const rv = server.resourceVersion();
  server.create(CMs, cm("split", { text: "€€€ 😀 é" }));
  const body = new TextEncoder().encode(
    JSON.stringify(server.list(CMs, "default")[0]),
  );
  // Offsets inside the first "€" (3 bytes) and inside "😀" (4 bytes).
  const euro = body.indexOf(0xe2);
  const emoji = body.indexOf(0xf0);
  assert.ok(euro > 0 && emoji > 0);
  server.faults.splitWrites([euro + 1, euro + 2, emoji + 3]);
  const got = await client.get(CMs, "split");
  assert.equal(got.data?.text, "€€€ 😀 é");
  server.faults.closeWatchesAfter(1);
  const events = await Array.fromAsync(
    await client.watch(CMs, { namespace: "default", resourceVersion: rv }),
  );
  assert.equal(events.length, 1);
  assert.equal((events[0].object as ConfigMap).data?.text, "€€€ 😀 é");
});

Deno.test("KubeClient.update() and get() reject a missing name before any request", async () => {
  await using env = await setup();
  const { server, client } = env;
  const before = server.requests.length;
  await assert.rejects(
    client.update(CMs, { metadata: { namespace: "default" } }),
    TypeError,
  );
  await assert.rejects(client.get(CMs, ""), TypeError);
  assert.equal(server.requests.length, before);
});

// ---- list bodies: streaming decode and idle timeout ----

Deno.test("KubeClient.list() decodes lists the server cuts at random offsets, small and past 8 MiB", async () => {
  await using env = await setup();
  const { server, client } = env;
  const text = (i: number) => `${i} é€😀 "\\ {[`.repeat(i + 1);
  for (let i = 0; i < 30; i++) {
    server.create(
      CMs,
      cm(`s-${String(i).padStart(2, "0")}`, { text: text(i) }),
    );
  }
  server.faults.splitWrites("random", 7);
  const small = await client.list(CMs, { namespace: "default" });
  assert.deepEqual(small.items.map((o) => o.data?.text), [
    ...Array.from({ length: 30 }, (_, i) => text(i)),
  ]);
  // Nine 1 MiB objects: a body far past the 256 KiB a list is read whole below.
  const big = "€".repeat(1024 * 1024 / 3);
  for (let i = 0; i < 9; i++) {
    server.create(CMs, {
      metadata: { name: `b-${i}`, namespace: "other" },
      data: { big: `${i}${big}` },
    });
  }
  const list = await client.list(CMs, { namespace: "other" });
  assert.equal(list.items.length, 9);
  list.items.forEach((o, i) => {
    assert.equal(o.metadata.name, `b-${i}`);
    assert.ok(o.data?.big === `${i}${big}`, `b-${i} differs`);
  });
  assert.ok(Number(list.metadata.resourceVersion) > 0);
});

/** A FakeClock that reports when the code under test next reads the time. */
class ReadClock extends FakeClock {
  #readers: (() => void)[] = [];
  override now(): number {
    const readers = this.#readers;
    this.#readers = [];
    for (const r of readers) r();
    return super.now();
  }
  /** Resolves at the next `now()` call (KubeClient reads it per body chunk). */
  nextRead(): Promise<void> {
    return new Promise((r) => this.#readers.push(r));
  }
}

/** A server answering once with a body the test writes piece by piece. */
function scriptedServer() {
  let body!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => void (body = c),
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response(stream, { headers: { "content-type": "application/json" } }),
  );
  const enc = new TextEncoder();
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    write: (text: string) => body.enqueue(enc.encode(text)),
    end: () => body.close(),
    async [Symbol.asyncDispose]() {
      try {
        body.close();
      } catch {
        // Closed by the test, or cancelled by the client.
      }
      await server.shutdown();
    },
  };
}

const LIST_PIECES = [
  '{"kind":"ConfigMapList","apiVersion":"v1",',
  '"metadata":{"resourceVersion":"9"},"items":[',
  '{"metadata":{"name":"a"}},',
  '{"metadata":{"name":"b"},"data":{"k":"€',
  '"}},{"metadata":{"name":"c"}}',
  "]}",
];

Deno.test("KubeClient.list() completes a transfer longer than timeoutMs while no silence is", async () => {
  await using server = scriptedServer();
  const clock = new ReadClock(0);
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
    { clock, timeoutMs: 5_000 },
  );
  const pending = client.list(CMs);
  for (const piece of LIST_PIECES) {
    await clock.waitForWaiters(1);
    const read = clock.nextRead();
    server.write(piece);
    await read;
    await clock.step(2_000);
  }
  server.end();
  const list = await pending;
  assert.equal(clock.now(), 12_000);
  assert.deepEqual(list.items.map((o) => o.metadata.name), ["a", "b", "c"]);
  assert.equal(list.items[1].data?.k, "€");
});

Deno.test("KubeClient.list() times out when the body stays silent for timeoutMs", async () => {
  await using server = scriptedServer();
  const clock = new ReadClock(0);
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
    { clock, timeoutMs: 5_000 },
  );
  let settled = false;
  const pending = rejection(client.list(CMs)).finally(() => (settled = true));
  await clock.waitForWaiters(1);
  let read = clock.nextRead();
  server.write(LIST_PIECES[0]);
  await read;
  await clock.step(3_000);
  read = clock.nextRead();
  server.write(LIST_PIECES[1]);
  await read;
  // 7999 ms after the request, 4999 ms after the last data: still waiting.
  await clock.step(4_999);
  assert.equal(settled, false);
  await clock.step(1);
  const err = await pending;
  assert.ok(err instanceof RequestTimeoutError, String(err));
  assert.match(
    err.message,
    /GET \/api\/v1\/configmaps timed out after 5000 ms/,
  );
});

Deno.test("KubeClient.list() rejects a truncated or malformed list with a SyntaxError", async (t) => {
  for (
    const [name, body] of [
      ["truncated", LIST_PIECES.slice(0, 4).join("")],
      ["malformed", '{"kind":"ConfigMapList","items":[{"a":1}}'],
    ]
  ) {
    await t.step(name, async () => {
      await using server = scriptedServer();
      await using client = new KubeClient(
        KubeConfig.fromOptions({ server: server.url }),
      );
      server.write(body);
      server.end();
      const err = await rejection(client.list(CMs));
      assert.ok(err instanceof SyntaxError, String(err));
      assert.match(
        err.message,
        /^Cannot decode the response to GET \/api\/v1\/configmaps: /,
      );
    });
  }
});

Deno.test("KubeClient describes a refused connection in one line, fetch's TypeError as the cause", async () => {
  const gone = await FakeApiServer.start();
  const url = gone.url;
  await gone.close();
  await using client = new KubeClient(KubeConfig.fromOptions({ server: url }));
  for (
    const call of [
      () => client.get(ConfigMaps, "a"),
      () => client.request("GET", "/api"),
      () => client.update(ConfigMaps, { metadata: { name: "a" } }),
      // Over the client's own socket, the same words.
      () => client.list(ConfigMaps),
      () => client.watch(ConfigMaps),
    ]
  ) {
    const err = await rejection(call());
    assert.ok(err instanceof TypeError);
    assert.equal(
      err.message,
      `Cannot reach the API server at ${url}: connection refused`,
    );
    // What fetch threw stays reachable.
    assert.ok(err.cause instanceof TypeError);
    assert.notEqual(err.cause.message, err.message);
  }
});
