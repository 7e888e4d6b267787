/**
 * Leader failover time, on the fake clock (so the figures are the
 * algorithm's, not this machine's): 3 candidates with client-go's defaults
 * (lease 15 s, renew deadline 10 s, retry 2 s, jitter 1.2) on a
 * FakeApiServer. The leader is stopped again and again:
 *
 * - `release`: stopped with `releaseOnCancel` (Ctrl-C, a rolling update);
 * - `crash`: it just stops renewing (SIGKILL, a partitioned node).
 *
 * Failover = the new holder's `acquireTime` (when its winning attempt
 * started) minus the moment the old leader stopped. Prints min, median,
 * p90 and max over the trials.
 *
 * Run: `deno run -A bench/leader_failover.ts [--trials 20]`
 *
 * @module
 */

import { KubeConfig } from "../client/config.ts";
import { Leases } from "../api/resources.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { TrackedClient } from "../testing/tracked_client.ts";
import { LeaderElector } from "../leaderelection/leader_elector.ts";
import { LeaseLock } from "../leaderelection/lease_lock.ts";

const i = Deno.args.indexOf("--trials");
const TRIALS = i >= 0 ? Number(Deno.args[i + 1]) : 20;

interface Candidate {
  elector: LeaderElector;
  client: TrackedClient;
  stop: AbortController;
  done: Promise<void>;
}

async function measure(release: boolean): Promise<number[]> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  await using server = await FakeApiServer.start({ clock });
  const config = KubeConfig.fromOptions({ server: server.url });
  const candidates: Candidate[] = ["a", "b", "c"].map((id) => {
    const client = new TrackedClient(config, { clock });
    const lock = new LeaseLock({
      client,
      namespace: "default",
      name: "failover",
      identity: id,
    });
    const elector = new LeaderElector({
      lock,
      clock,
      releaseOnCancel: release,
      onError: () => {},
      callbacks: {
        onStartedLeading: (signal) =>
          new Promise((resolve) =>
            signal.addEventListener("abort", () => resolve())
          ),
        onStoppedLeading: () => {},
      },
    });
    const stop = new AbortController();
    return { elector, client, stop, done: elector.run(stop.signal) };
  });
  const settle = async () => {
    for (let idle = 0; idle < 3;) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      idle = candidates.some((c) => c.client.inFlight > 0) ? 0 : idle + 1;
    }
  };
  const leader = () => candidates.find((c) => c.elector.isLeader());
  const stepUntilLeader = async () => {
    await settle();
    while (!leader()) {
      await clock.step(100);
      await settle();
    }
    return leader()!;
  };

  const times: number[] = [];
  let current = await stepUntilLeader();
  for (let t = 0; t < TRIALS; t++) {
    // Lead for a while (random phase against the renew ticks).
    for (let ms = 0; ms < 3_000 + Math.random() * 2_000; ms += 100) {
      await clock.step(100);
      await settle();
    }
    const stoppedAt = clock.now();
    current.stop.abort();
    await settle();
    await current.done;
    const next = await stepUntilLeader();
    const lease = server.list(Leases, "default")[0];
    times.push(Date.parse(lease.spec!.acquireTime!) - stoppedAt);
    // The stopped one campaigns again.
    current.stop = new AbortController();
    current.done = current.elector.run(current.stop.signal);
    current = next;
  }
  for (const c of candidates) c.stop.abort();
  await settle();
  while (clock.hasWaiters()) await clock.step(1_000);
  await Promise.all(candidates.map((c) => c.done));
  for (const c of candidates) c.client.close();
  return times;
}

function summary(name: string, times: number[]): string {
  const s = [...times].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  const f = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  return `${name.padEnd(8)} n=${s.length}  min ${f(s[0])}  median ${
    f(q(0.5))
  }  p90 ${f(q(0.9))}  max ${f(s.at(-1)!)}`;
}

console.log(
  "leader failover on the fake clock (lease 15 s, renew deadline 10 s, retry 2 s, jitter 1.2)",
);
console.log(summary("release", await measure(true)));
console.log(summary("crash", await measure(false)));
