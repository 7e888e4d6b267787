// Shared by the Reflector's tests: a recording store, a harness around a
// FakeControllerSource and a FakeClock, and Status builders.

import assert from "node:assert/strict";
import { Reflector, type ReflectorOptions } from "./reflector.ts";
import type { ReflectorStore } from "./store.ts";
import type { ListerWatcher } from "../api/listwatch.ts";
import type { KubeObject, Status } from "../api/object.ts";
import { Backoff } from "../api/backoff.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { FakeControllerSource } from "../testing/fake_controller_source.ts";

export const obj = (name: string): KubeObject => ({
  metadata: { namespace: "ns", name },
});

/** Records every store call as a short string. */
export class RecordingStore implements ReflectorStore<KubeObject> {
  ops: string[] = [];
  failNextAdd?: Error;
  add(o: KubeObject): void {
    if (this.failNextAdd) {
      const err = this.failNextAdd;
      this.failNextAdd = undefined;
      throw err;
    }
    this.ops.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}`);
  }
  update(o: KubeObject): void {
    this.ops.push(`update ${o.metadata.name}@${o.metadata.resourceVersion}`);
  }
  delete(o: KubeObject): void {
    this.ops.push(`delete ${o.metadata.name}@${o.metadata.resourceVersion}`);
  }
  replace(list: KubeObject[], rv: string): void {
    this.ops.push(
      `replace ${list.map((o) => o.metadata.name).join(",")}@${rv}`,
    );
  }
  resync(): void {
    this.ops.push("resync");
  }
}

export { eventually } from "../testing/turns.ts";

export interface Harness extends AsyncDisposable {
  clock: FakeClock;
  source: FakeControllerSource;
  store: RecordingStore;
  errors: unknown[];
  reflector: Reflector;
  ctl: AbortController;
  start(): Promise<void>;
  /** Delay (ms) of the one pending sleeper, once it is registered. */
  pendingDelay(): Promise<number>;
}

export function harness(
  opts: ReflectorOptions & {
    source?: FakeControllerSource;
    lw?: ListerWatcher;
  } = {},
): Harness {
  const clock = (opts.clock as FakeClock | undefined) ??
    new FakeClock(1_000_000);
  const source = opts.source ?? new FakeControllerSource();
  const store = new RecordingStore();
  const errors: unknown[] = [];
  const reflector = new Reflector(opts.lw ?? source, store, {
    backoff: new Backoff({ clock, random: () => 0 }),
    watchErrorHandler: (_r, e) => errors.push(e),
    ...opts,
    clock,
  });
  const ctl = new AbortController();
  let running: Promise<void> | undefined;
  return {
    clock,
    source,
    store,
    errors,
    reflector,
    ctl,
    start() {
      running = reflector.run(ctl.signal);
      return running;
    },
    async pendingDelay() {
      await clock.waitForWaiters(1);
      return clock.nextDue()! - clock.now();
    },
    async [Symbol.asyncDispose]() {
      ctl.abort();
      await running;
      assert.equal(source.openWatches(), 0, "a watch was left open");
      assert.equal(clock.waiters(), 0, "a timer was left pending");
    },
  };
}

export function status(
  code: number,
  reason: string,
  extra: Partial<Status> = {},
): Status {
  return {
    kind: "Status",
    status: "Failure",
    code,
    reason,
    message: reason,
    ...extra,
  };
}
