// settle(): waits out requests in flight, steps the FakeClock until its
// condition holds, fails naming what it waited for, checks its arguments.

import assert from "node:assert/strict";
import { ConfigMaps } from "../api/resources.ts";
import { KubeConfig } from "../client/config.ts";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock } from "./fake_clock.ts";
import { settle, TrackedClient } from "./tracked_client.ts";

Deno.test("settle() returns once no request is in flight, and with until steps the clock until it holds", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  await using server = await FakeApiServer.start({ clock });
  await using client = new TrackedClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
  let got = false;
  client.get(ConfigMaps, "a", { namespace: "default" }).then(() => got = true);
  assert.equal(client.inFlight, 1);
  await settle(client);
  assert.equal(client.inFlight, 0);
  assert.equal(got, true);
  const started = clock.now();
  let woke = false;
  clock.sleep(1_000).then(() => woke = true);
  await settle([client], { clock, until: () => woke, stepMs: 100 });
  assert.equal(clock.now() - started, 1_000);
  await assert.rejects(
    settle(client, { clock, until: () => false, what: "never", maxMs: 200 }),
    Error,
    "settle: gave up waiting for never after 200 ms of fake time",
  );
});

Deno.test("settle() checks its arguments", async () => {
  await assert.rejects(
    settle({} as never),
    TypeError,
    "settle: clients must be a TrackedClient, got an object",
  );
  await assert.rejects(
    settle([], { until: () => true }),
    TypeError,
    "settle: opts.clock must be a FakeClock when opts.until is given, got undefined",
  );
  await assert.rejects(
    settle([], { clock: new FakeClock(), until: () => true, stepMs: 0 }),
    RangeError,
    "settle: opts.stepMs must be > 0, got 0",
  );
});
