// Two replicas of examples/configmap_controller.ts against one FakeApiServer,
// on one FakeClock: exactly one reconciles; when it stops, the other takes
// over (within 2.2 × the 2 s retry period, since it releases the lease) and
// reconciles what changes next.

import assert from "node:assert/strict";
import { ConfigMaps, Events, KubeConfig, Leases } from "../mod.ts";
import {
  FakeApiServer,
  FakeClock,
  settle,
  TrackedClient,
} from "../testing/mod.ts";
import { ANNOTATION, LEASE_NAME, runReplica } from "./configmap_controller.ts";

interface Replica {
  id: string;
  lines: string[];
  stop: AbortController;
  ended: Promise<"stopped" | "lost">;
  client: TrackedClient;
}

Deno.test("examples/configmap_controller.ts: of two replicas exactly one reconciles, and the other takes over when it stops", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  await using server = await FakeApiServer.start({ clock });
  const config = KubeConfig.fromOptions({ server: server.url });
  const configMap = (name: string, data: Record<string, string>) =>
    server.create(ConfigMaps, {
      metadata: { name, namespace: "default" },
      data,
    });
  configMap("one", { a: "1" });

  const replicas: Replica[] = [];
  const start = (id: string): Replica => {
    const client = new TrackedClient(config);
    const lines: string[] = [];
    const stop = new AbortController();
    const ended = runReplica(
      { client, id, clock, log: (line) => lines.push(line) },
      stop.signal,
    );
    const r = { id, lines, stop, ended, client };
    replicas.push(r);
    return r;
  };
  // Let real HTTP settle, then move the fake clock a little; never sleep
  // on the wall clock.
  const until = (cond: () => boolean, what: string) =>
    settle(replicas.map((r) => r.client), {
      clock,
      until: cond,
      what,
      maxMs: 10_000,
    });
  const annotated = (r: Replica) =>
    r.lines.filter((l) => l.startsWith("annotated default/"));
  const annotation = (name: string) =>
    server.get(ConfigMaps, "default", name)?.metadata.annotations?.[ANNOTATION];
  const holder = () =>
    server.get(Leases, "default", LEASE_NAME)?.spec?.holderIdentity;

  const a = start("A");
  await until(() => annotated(a).length === 1, "A to annotate one");
  assert.equal(holder(), "A");
  assert.match(annotation("one")!, /^[0-9a-f]{16}$/);
  const [event] = server.list(Events, "default");
  assert.equal(event.reason, "Annotated");
  assert.equal(event.source?.component, "configmap-hash");
  const b = start("B");
  await until(() => b.lines.length === 1, "B to start");

  configMap("two", { b: "2" });
  const logged = (key: string) =>
    [a, b].some((r) => r.lines.some((l) => l.startsWith(`annotated ${key} `)));
  await until(() => logged("default/two"), "two annotated");
  await clock.step(3_000);
  assert.deepEqual(annotated(a).map((l) => l.split(" ")[1]), [
    "default/one",
    "default/two",
  ]);
  assert.deepEqual(annotated(b), [], "B reconciled while A leads");

  // A stops (SIGTERM): it releases the lease, B takes over.
  const stoppedAt = clock.now();
  a.stop.abort();
  await until(() => holder() === "", "A to release");
  assert.equal(await a.ended, "stopped");
  await until(() => holder() === "B", "B to take over");
  const lease = server.get(Leases, "default", LEASE_NAME)!;
  const tookOver = Date.parse(lease.spec!.acquireTime!) - stoppedAt;
  assert.ok(tookOver <= 2.2 * 2_000 + 100, `B took over after ${tookOver} ms`);

  configMap("three", { c: "3" });
  await until(() => logged("default/three"), "three annotated");
  assert.deepEqual(annotated(b).map((l) => l.split(" ")[1]), [
    "default/three",
  ], "B reconciles what changes next, and nothing A already did");
  assert.equal(annotated(a).length, 2, "A did nothing after it stopped");

  b.stop.abort();
  await until(() => holder() === "", "B to release");
  assert.equal(await b.ended, "stopped");
  a.client.close();
  b.client.close();
});

Deno.test("examples/configmap_controller.ts: opted-out ConfigMaps are neither cached nor annotated (a scoped cache), an oversized one is refused without retries (TerminalError), the leader logs its summary (a runnable)", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  await using server = await FakeApiServer.start({ clock });
  const config = KubeConfig.fromOptions({ server: server.url });
  server.create(ConfigMaps, {
    metadata: { name: "normal", namespace: "default" },
    data: { a: "1" },
  });
  server.create(ConfigMaps, {
    metadata: {
      name: "opted-out",
      namespace: "default",
      labels: { [ANNOTATION]: "off" },
    },
    data: { a: "1" },
  });
  server.create(ConfigMaps, {
    metadata: { name: "huge", namespace: "default" },
    data: { blob: "x".repeat(300 * 1024) },
  });
  const client = new TrackedClient(config);
  const lines: string[] = [];
  const stop = new AbortController();
  const errors: string[] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => errors.push(args.join(" "));
  try {
    const ended = runReplica(
      { client, id: "A", clock, log: (line) => lines.push(line) },
      stop.signal,
    );
    const until = (cond: () => boolean, what: string) =>
      settle([client], { clock, until: cond, what, maxMs: 10_000 });
    await until(
      () => lines.some((l) => l.startsWith("annotated default/normal")),
      "normal annotated",
    );
    await until(
      () => lines.some((l) => l.startsWith("leading: 2 ConfigMaps")),
      "the runnable's summary",
    );
    // Long enough for several retries, were the TerminalError retried.
    await clock.step(5_000);
    await until(() => true, "settle");
    const annotation = (name: string) =>
      server.get(ConfigMaps, "default", name)?.metadata.annotations
        ?.[ANNOTATION];
    assert.equal(annotation("opted-out"), undefined);
    assert.equal(annotation("huge"), undefined);
    const refusals = errors.filter((e) => e.includes("default/huge"));
    assert.equal(refusals.length, 1, refusals.join("\n"));
    assert.match(refusals[0], /terminal: not retried/);
    stop.abort();
    await until(() => true, "settle");
    assert.equal(await ended, "stopped");
  } finally {
    console.error = consoleError;
    client.close();
  }
});
