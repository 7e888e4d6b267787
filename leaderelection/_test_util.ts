// Helpers of the leader election tests: candidates on one FakeApiServer and
// one FakeClock, and a way to let real HTTP settle between clock steps
// without sleeping on the wall clock (wait for every client to have no
// request in flight, yielding to the event loop).

import assert from "node:assert/strict";
import { KubeConfig } from "../client/config.ts";
import { Leases } from "../api/resources.ts";
import type { Lease } from "../api/types.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { TrackedClient } from "../testing/tracked_client.ts";
export { TrackedClient };
import { LeaderElector, type LeaderElectorConfig } from "./leader_elector.ts";
import { LeaseLock } from "./lease_lock.ts";
import { nextTurn } from "../testing/turns.ts";

/** One candidate: its client, elector, and what its callbacks saw. */
export interface Candidate {
  id: string;
  client: TrackedClient;
  elector: LeaderElector;
  stop: AbortController;
  done: Promise<void>;
  /** "started", "stopped", "leader x", in order. */
  events: string[];
  /** The signal onStartedLeading got most recently. */
  leadSignal?: AbortSignal;
  /** Errors reported through onError. */
  errors: unknown[];
  /** Start (again) campaigning. */
  run(): void;
}

/** Lease namespace/name every candidate shares. */
export const NS = "default";
export const LEASE = "test-lock";

/** Candidates on one server and clock, checking "at most one leader" at every step. */
export class Election implements AsyncDisposable {
  readonly candidates: Candidate[] = [];
  /** Largest number of candidates seen leading at once. */
  maxLeaders = 0;
  /** The client class of candidates added from now on (a test may subclass it). */
  Client: typeof TrackedClient = TrackedClient;

  private constructor(
    readonly server: FakeApiServer,
    readonly clock: FakeClock,
  ) {}

  static async start(startMs = Date.UTC(2026, 0, 1)): Promise<Election> {
    const clock = new FakeClock(startMs);
    const server = await FakeApiServer.start({ clock });
    return new Election(server, clock);
  }

  /**
   * Add a candidate (not yet running unless `run` is true). Its leader's
   * work is `work(signal)`, by default "wait for the abort".
   */
  add(
    id: string,
    config: Partial<Omit<LeaderElectorConfig, "lock" | "callbacks">> = {},
    run = true,
    work: (signal: AbortSignal) => Promise<void> = (signal) =>
      new Promise<void>((resolve) =>
        signal.addEventListener("abort", () => resolve(), { once: true })
      ),
  ): Candidate {
    const client = new this.Client(
      KubeConfig.fromOptions({ server: this.server.url }),
      { clock: this.clock, userAgent: `candidate-${id}` },
    );
    const lock = new LeaseLock({
      client,
      namespace: NS,
      name: LEASE,
      identity: id,
    });
    const c: Candidate = {
      id,
      client,
      stop: new AbortController(),
      done: Promise.resolve(),
      events: [],
      errors: [],
      elector: undefined as unknown as LeaderElector,
      run: () => {
        c.stop = new AbortController();
        c.done = c.elector.run(c.stop.signal);
        c.done.catch(() => {}); // tests that expect a rejection await it
      },
    };
    c.elector = new LeaderElector({
      lock,
      clock: this.clock,
      onError: (e) => c.errors.push(e),
      ...config,
      callbacks: {
        onStartedLeading: (signal) => {
          c.leadSignal = signal;
          c.events.push("started");
          this.check(); // the new leader is the only one
          return work(signal);
        },
        onStoppedLeading: () => void c.events.push("stopped"),
        onNewLeader: (leader) => void c.events.push(`leader ${leader}`),
      },
    });
    this.candidates.push(c);
    if (run) c.run();
    return c;
  }

  /** Add a running candidate (default config) and step until it leads. */
  async addLeader(id: string): Promise<Candidate> {
    const c = this.add(id);
    await this.stepUntil(() => c.elector.isLeader(), `${id} leading`);
    return c;
  }

  /** The candidates that believe they lead. */
  leaders(): Candidate[] {
    return this.candidates.filter((c) => c.elector.isLeader());
  }

  /** Fail unless at most one candidate believes it leads. */
  check(): void {
    const leaders = this.leaders();
    this.maxLeaders = Math.max(this.maxLeaders, leaders.length);
    assert.ok(
      leaders.length <= 1,
      `two leaders at ${this.clock.now()}: ${leaders.map((c) => c.id)}`,
    );
  }

  /**
   * Set while the server's latency is on: requests then wait on the fake
   * clock, so `quiesce` settles for "nothing moves" instead of "nothing in
   * flight".
   */
  stalled = false;

  /** Yield until no candidate has a request in flight (real HTTP settles). */
  async quiesce(): Promise<void> {
    let idleTurns = 0;
    let sameTurns = 0;
    let last = "";
    for (let i = 0; i < 5_000; i++) {
      await nextTurn();
      const inFlight = this.candidates.map((c) => c.client.inFlight);
      idleTurns = inFlight.some((n) => n > 0) ? 0 : idleTurns + 1;
      if (idleTurns >= 3) return;
      const now =
        `${inFlight} ${this.server.requests.length} ${this.clock.waiters()}`;
      sameTurns = now === last ? sameTurns + 1 : 0;
      last = now;
      if (this.stalled && sameTurns >= 10) return;
    }
    assert.fail(
      `requests still in flight after 5000 event loop turns: ${
        this.candidates.map((c) => `${c.id}=${c.client.inFlight}`)
      } stalled=${this.stalled} at ${this.clock.now()}`,
    );
  }

  /**
   * Advance the clock by `ms` in `tick` steps, letting HTTP settle and
   * checking for two leaders after each step; `each` runs after each step.
   */
  async step(
    ms: number,
    each: () => void = () => {},
    tick = 100,
  ): Promise<void> {
    for (let t = 0; t < ms; t += tick) {
      await this.clock.step(Math.min(tick, ms - t));
      this.check();
      await this.quiesce();
      this.check();
      each();
    }
  }

  /** Step until `cond` holds (at most `maxMs`); returns the fake time it took. */
  async stepUntil(
    cond: () => boolean,
    what: string,
    maxMs = 120_000,
  ): Promise<number> {
    const start = this.clock.now();
    await this.quiesce();
    while (!cond()) {
      if (this.clock.now() - start > maxMs) {
        assert.fail(`no ${what} within ${maxMs} ms of fake time`);
      }
      await this.step(100);
    }
    return this.clock.now() - start;
  }

  /**
   * Store the Lease as another holder left it: `holder` for 15 s,
   * acquired and last renewed at `time` (a MicroTime), after `transitions`.
   */
  createLease(holder: string, time: string, transitions: number): Lease {
    return this.server.create(Leases, {
      metadata: { name: LEASE, namespace: NS },
      spec: {
        holderIdentity: holder,
        leaseDurationSeconds: 15,
        acquireTime: time,
        renewTime: time,
        leaseTransitions: transitions,
      },
    });
  }

  /** The Lease as stored. */
  lease(): Lease | undefined {
    return this.server.list(Leases, NS).find((l) => l.metadata.name === LEASE);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const c of this.candidates) c.stop.abort();
    // Release requests and the last attempts still need the server.
    const done = Promise.allSettled(this.candidates.map((c) => c.done));
    for (let i = 0; i < 100; i++) {
      const pending = await Promise.race([
        done.then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 0)),
      ]);
      if (!pending) break;
      await this.clock.step(1_000);
    }
    await done;
    for (const c of this.candidates) c.client.close();
    await this.server.close();
  }
}

/** Parse a MicroTime to epoch ms. */
export function microTimeMs(s: string | undefined): number {
  assert.ok(s, "a MicroTime");
  assert.match(s, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  return Date.parse(s);
}
