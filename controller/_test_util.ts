// The controller tests' cluster: a FakeApiServer and TrackedClients on
// one FakeClock, and until(), testing's settle(): real HTTP settles (no
// request in flight for a few event-loop turns) before the fake clock
// moves, so no test sleeps on the wall clock. Test-only.

import { KubeConfig } from "../client/config.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { settle, TrackedClient } from "../testing/tracked_client.ts";

/** A server, a clock, clients on it, and a way to wait on both. */
export class TestCluster implements AsyncDisposable {
  readonly clients: TrackedClient[] = [];
  private constructor(
    readonly server: FakeApiServer,
    readonly clock: FakeClock,
  ) {}

  static async start(): Promise<TestCluster> {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const server = await FakeApiServer.start({ clock });
    return new TestCluster(server, clock);
  }

  /** A new client of the server (closed on dispose). */
  client(): TrackedClient {
    const c = new TrackedClient(
      KubeConfig.fromOptions({ server: this.server.url }),
    );
    this.clients.push(c);
    return c;
  }

  /** Let HTTP and microtasks settle: no request in flight for 3 turns. */
  settle(): Promise<void> {
    return settle(this.clients);
  }

  /** Settle and step the clock by `stepMs` until `cond` holds, for at most `maxMs` of fake time. */
  until(
    cond: () => boolean,
    what: string,
    opts: { maxMs?: number; stepMs?: number } = {},
  ): Promise<void> {
    return settle(this.clients, {
      clock: this.clock,
      until: cond,
      what,
      ...opts,
    });
  }

  /** Run `manager`; `stop()` aborts it and steps the clock until run() settles. */
  run(manager: { run(signal: AbortSignal): Promise<void> }): {
    done: Promise<void>;
    stop(): Promise<void>;
  } {
    const ctrl = new AbortController();
    const done = manager.run(ctrl.signal);
    done.catch(() => {}); // awaited by the test
    return {
      done,
      stop: async () => {
        ctrl.abort();
        let settled = false;
        const finished = done.finally(() => (settled = true));
        finished.catch(() => {});
        await this.until(() => settled, "run() to settle", { maxMs: 120_000 });
        await done;
      },
    };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const c of this.clients) c.close();
    await this.server.close();
  }
}
