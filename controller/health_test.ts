import assert from "node:assert/strict";
import { ConfigMaps } from "../api/resources.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { EndpointServer } from "./health.ts";
import { Manager } from "./manager.ts";
import { TestCluster } from "./_test_util.ts";

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

Deno.test("Manager.addHealthzCheck / addReadyzCheck: sync and async checks listed under ?verbose; a failing one makes the endpoint 503 and names it", async () => {
  await using c = await TestCluster.start();
  await using manager = new Manager(c.client(), {
    clock: c.clock,
    health: { port: 0 },
  });
  manager.controller("cm", ConfigMaps).complete(() => {});
  let alive: boolean | string = true;
  let ready = false;
  manager.addHealthzCheck("alive", () => alive);
  manager.addReadyzCheck("warm", async () => {
    await Promise.resolve();
    return ready;
  });
  const run = c.run(manager);
  await c.until(() => manager.hasSynced(), "sync");
  const base = `http://127.0.0.1:${manager.addresses().health!.port}`;

  assert.deepEqual(await get(`${base}/healthz?verbose`), {
    status: 200,
    body: "[+]ping ok\n[+]alive ok\nhealthz check passed\n",
  });
  assert.deepEqual(await get(`${base}/readyz`), {
    status: 503,
    body:
      "[+]ping ok\n[+]informer-sync:configmaps ok\n[-]warm failed: reason withheld\nreadyz check failed\n",
  });
  ready = true;
  assert.deepEqual(await get(`${base}/readyz`), { status: 200, body: "ok" });
  assert.deepEqual(await get(`${base}/readyz?verbose`), {
    status: 200,
    body:
      "[+]ping ok\n[+]informer-sync:configmaps ok\n[+]warm ok\nreadyz check passed\n",
  });

  // A reason string fails the check; the aggregate withholds it, the
  // check's own path says it.
  alive = "disk full";
  assert.deepEqual(await get(`${base}/healthz`), {
    status: 503,
    body:
      "[+]ping ok\n[-]alive failed: reason withheld\nhealthz check failed\n",
  });
  assert.deepEqual(await get(`${base}/healthz/alive`), {
    status: 503,
    body: "internal server error: disk full\n",
  });
  assert.deepEqual(await get(`${base}/healthz/ping`), {
    status: 200,
    body: "ok",
  });
  assert.equal((await get(`${base}/healthz/nope`)).status, 404);
  // ?exclude skips it.
  assert.deepEqual(await get(`${base}/healthz?exclude=alive`), {
    status: 200,
    body: "ok",
  });
  // Added while running: served at once.
  manager.addReadyzCheck("late", () => {
    throw new Error("boom");
  });
  assert.match((await get(`${base}/readyz`)).body, /^\[-\]late failed/m);
  await run.stop();
});

Deno.test("EndpointServer: each check is bounded by checkTimeout (its signal aborts), run at once, and a throw, a rejection or a non-true answer fails it", async () => {
  const clock = new FakeClock();
  let signal: AbortSignal | undefined;
  const started: string[] = [];
  await using server = new EndpointServer({ port: 0 }, {
    clock,
    checkTimeout: 300,
    healthz: () => [
      { name: "fine", check: () => true },
      {
        name: "hangs",
        check: (s) => {
          started.push("hangs");
          signal = s;
          return new Promise<boolean>(() => {});
        },
      },
      {
        name: "hangs-too",
        check: () => {
          started.push("hangs-too");
          return new Promise<boolean>(() => {});
        },
      },
      { name: "rejects", check: () => Promise.reject(new Error("no")) },
      // A check that forgot its return: a failure, never a silent pass.
      {
        name: "undefined",
        check: (() => undefined) as unknown as () => boolean,
      },
    ],
  });
  const answer = get(`http://127.0.0.1:${server.addr.port}/healthz?verbose`);
  let settled = false;
  answer.finally(() => (settled = true));
  // Every check started at once (five timers: one each), so the answer
  // waits one timeout, not one per slow check.
  await clock.waitForWaiters(5);
  assert.deepEqual(started, ["hangs", "hangs-too"]);
  await clock.step(299);
  await Promise.resolve();
  assert.equal(settled, false);
  assert.equal(signal!.aborted, false);
  await clock.step(1);
  assert.deepEqual(await answer, {
    status: 503,
    body: [
      "[+]fine ok",
      "[-]hangs failed: reason withheld",
      "[-]hangs-too failed: reason withheld",
      "[-]rejects failed: reason withheld",
      "[-]undefined failed: reason withheld",
      "healthz check failed",
      "",
    ].join("\n"),
  });
  assert.equal(signal!.aborted, true);
  // No timer is left behind by a check that answered in time.
  assert.equal(clock.waiters(), 0);
});

Deno.test("Manager.addHealthzCheck / addReadyzCheck check their arguments: a name that is a path segment and an ?exclude value, unique, and a function", async () => {
  await using c = await TestCluster.start();
  await using manager = new Manager(c.client(), { clock: c.clock });
  const ok = () => true;
  for (
    const bad of ["", "a/b", "a,b", "a b", 3 as unknown as string, undefined]
  ) {
    assert.throws(
      () => manager.addHealthzCheck(bad as string, ok),
      TypeError,
      'Manager.addHealthzCheck: name must be a non-empty string without "/", "," or whitespace, got',
    );
  }
  assert.throws(
    () => manager.addReadyzCheck("x", "yes" as unknown as () => boolean),
    {
      name: "TypeError",
      message: /^Manager\.addReadyzCheck: check must be a function, got "yes"$/,
    },
  );
  manager.addReadyzCheck("x", ok);
  assert.throws(
    () => manager.addReadyzCheck("x", ok),
    { message: 'Manager.addReadyzCheck: a check named "x" exists already' },
  );
  // The Manager's own names are taken; the endpoints are separate.
  assert.throws(() => manager.addHealthzCheck("ping", ok), /exists already/);
  assert.throws(
    () => manager.addReadyzCheck("informer-sync:configmaps", ok),
    /exists already/,
  );
  manager.addHealthzCheck("x", ok);
});
