/**
 * The embedded demo cluster: a `FakeApiServer` kept busy by a
 * `DemoWorkload`, as `cli.ts watch --demo` and the examples use it.
 *
 * @module
 */

import { type Clock, realClock } from "../api/clock.ts";
import { FakeApiServer } from "./fake_api_server.ts";
import {
  DemoWorkload,
  type DemoWorkloadOptions,
  type DemoWorkloadTarget,
} from "./demo_workload.ts";

const DAY = 86_400_000;

/**
 * A running demo cluster: see {@link startDemoCluster}.
 *
 * @example The embedded demo cluster
 * ```ts
 * import { Pods } from "@kubecache/core";
 * import { type DemoCluster, startDemoCluster } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using demo: DemoCluster = await startDemoCluster({ intervalMs: 60_000 });
 * assert.match(demo.url, /^http:\/\/127\.0\.0\.1:/);
 * assert.ok(demo.server.list(Pods).length > 0);
 * ```
 */
export interface DemoCluster extends AsyncDisposable {
  /** Base URL of the embedded API server, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The embedded API server (for direct state access and fault injection). */
  readonly server: FakeApiServer;
  /** Stop the workload, then the server. Idempotent. */
  close(): Promise<void>;
}

/**
 * Start the embedded demo cluster: a {@link FakeApiServer} on a loopback
 * port (a free one unless `opts.port` names one), populated and kept busy by a {@link DemoWorkload} on the
 * wall clock until closed. What `cli.ts watch --demo` watches; examples use
 * it to run without a real cluster. The objects of the initial cluster keep
 * the creation times the workload gives them (hours to days ago, so AGE
 * reads like a cluster's), where a plain `FakeApiServer`, like the
 * apiserver, stamps the time of the create call.
 *
 * @param opts seed and tick interval of the workload; `port` on 127.0.0.1
 * @returns the running cluster
 *
 * @example Watch pods of the demo cluster
 * ```ts
 * import { startDemoCluster } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 * await using demo = await startDemoCluster();
 * const pods = await (await fetch(`${demo.url}/api/v1/pods`)).json();
 * assert.ok(pods.items.length > 10);
 * ```
 */
export async function startDemoCluster(
  opts: Pick<DemoWorkloadOptions, "seed" | "intervalMs"> & {
    /** Port on 127.0.0.1; default 0, a free one. */
    port?: number;
  } = {},
): Promise<DemoCluster> {
  // The server's own namespaces (default, kube-system, ...) are as old as
  // the demo's nodes.
  const clock = new BackdatingClock(realClock.now() - 10 * DAY);
  const server = await FakeApiServer.start({ clock, port: opts.port });
  clock.release();
  const stop = new AbortController();
  const workload = new DemoWorkload(keepingCreationTimes(server, clock), opts);
  workload.populate();
  const running = workload.run(stop.signal);
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      stop.abort();
      await running;
      await server.close();
    })();
  return { url: server.url, server, close, [Symbol.asyncDispose]: close };
}

/**
 * The wall clock, which can be held at a past time for the duration of one
 * synchronous call: FakeApiServer stamps creationTimestamp from its clock.
 */
class BackdatingClock implements Clock {
  #at: number | undefined;

  /** @param heldAtMs a time `now()` reads until {@link release} */
  constructor(heldAtMs?: number) {
    this.#at = heldAtMs;
  }

  /** Let `now()` read the wall clock. */
  release(): void {
    this.#at = undefined;
  }

  now(): number {
    return this.#at ?? realClock.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return realClock.sleep(ms, signal);
  }

  /** Run `fn` with `now()` reading `atMs`. */
  at<T>(atMs: number, fn: () => T): T {
    this.#at = atMs;
    try {
      return fn();
    } finally {
      this.#at = undefined;
    }
  }
}

/**
 * The server as a workload target whose creates keep the object's own
 * creationTimestamp when it lies in the past (a restored backup, in effect).
 */
function keepingCreationTimes(
  server: FakeApiServer,
  clock: BackdatingClock,
): DemoWorkloadTarget {
  return {
    create(type, obj) {
      const at = Date.parse(obj.metadata.creationTimestamp ?? "");
      return at < clock.now()
        ? clock.at(at, () => server.create(type, obj))
        : server.create(type, obj);
    },
    update: (type, obj) => server.update(type, obj),
    delete: (type, namespace, name) => server.delete(type, namespace, name),
    list: (type, namespace) => server.list(type, namespace),
    get: (type, namespace, name) => server.get(type, namespace, name),
  };
}
