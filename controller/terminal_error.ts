/**
 * {@link TerminalError}: a reconcile failure that retrying cannot fix
 * (controller-runtime `reconcile.TerminalError`).
 *
 * @module
 */

/**
 * Throw it from a reconcile when trying again cannot help (an invalid
 * spec, say): the key is not retried (its backoff is forgotten), the error
 * reaches the manager's `onError` with `terminal: true`, and it is counted
 * in `controller_runtime_reconcile_errors_total` and
 * `controller_runtime_terminal_reconcile_errors_total{controller}`
 * (controller-runtime `reconcile.TerminalError`). The next event of the
 * object reconciles it again, as any event does.
 *
 * An error whose `cause` chain holds a TerminalError is terminal too (Go's
 * `errors.Is` through wrapping): `new Error("sync failed", { cause: new
 * TerminalError("bad spec") })` is not retried.
 *
 * @example Give up on a ConfigMap whose spec is invalid
 * ```ts
 * import { Manager, TerminalError } from "@kubecache/core/controller";
 * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * server.create(ConfigMaps, { metadata: { name: "bad", namespace: "default" }, data: { replicas: "-1" } });
 * const reported = Promise.withResolvers<boolean>();
 * await using manager = new Manager(client, {
 *   onError: (_err, where) => reported.resolve(where.terminal),
 * });
 * const configMaps = manager.factory.lister(ConfigMaps);
 * let calls = 0;
 * manager.controller("replicas", ConfigMaps).complete((req) => {
 *   calls++;
 *   const cm = configMaps.namespaced(req.namespace!).get(req.name);
 *   if (Number(cm?.data?.replicas) < 0) throw new TerminalError("replicas must be >= 0");
 * });
 * const stop = new AbortController();
 * const running = manager.run(stop.signal);
 * assert.equal(await reported.promise, true);
 * stop.abort();
 * await running;
 * assert.equal(calls, 1); // not retried
 * assert.match(manager.metrics.expose(), /controller_runtime_terminal_reconcile_errors_total\{controller="replicas"\} 1/);
 * ```
 */
export class TerminalError extends Error {
  /**
   * Make the error.
   * @param message what is wrong
   * @param options `cause`: the error this one wraps
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TerminalError";
  }
}

/**
 * Whether `err` is a {@link TerminalError} or wraps one in its `cause`
 * chain (followed 32 deep at most, so a cycle cannot spin).
 */
export function isTerminal(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 32 && e instanceof Error; depth++) {
    if (e instanceof TerminalError) return true;
    e = e.cause;
  }
  return false;
}
