// The controller tests' cluster: a FakeApiServer and TrackedClients on
// one FakeClock, and until(), which lets real HTTP settle (no request in
// flight for a few event-loop turns) before moving the fake clock, so no
// test sleeps on the wall clock. Test-only.

import assert from "node:assert/strict";
import { KubeConfig } from "../client/config.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { TrackedClient } from "../testing/tracked_client.ts";

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
  async settle(): Promise<void> {
    for (let idle = 0, turns = 0; idle < 3 && turns < 2_000; turns++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      idle = this.clients.some((c) => c.inFlight > 0) ? 0 : idle + 1;
    }
  }

  /** Settle and step the clock by `stepMs` until `cond` holds, for at most `maxMs` of fake time. */
  async until(
    cond: () => boolean,
    what: string,
    opts: { maxMs?: number; stepMs?: number } = {},
  ): Promise<void> {
    const started = this.clock.now();
    for (;;) {
      await this.settle();
      if (cond()) return;
      if (this.clock.now() - started > (opts.maxMs ?? 30_000)) {
        assert.fail(
          `no ${what} within ${opts.maxMs ?? 30_000} ms of fake time`,
        );
      }
      await this.clock.step(opts.stepMs ?? 50);
    }
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
