/**
 * A KubeClient that counts its requests in flight, so a test on a
 * {@link FakeClock} can let real HTTP settle before the next clock step
 * without sleeping on the wall clock.
 *
 * @module
 */

import { KubeClient, type RawRequestOptions } from "../client/rest.ts";

/**
 * A {@link KubeClient} whose `inFlight` is the number of its JSON requests
 * (`request`, hence get, create, update, patch, delete; not list or watch)
 * not yet settled. Tests that drive a FakeClock yield to the event loop until every
 * client reads 0 before stepping the clock again. No client-go counterpart:
 * a test aid.
 *
 * @example
 * ```ts
 * import { FakeApiServer, TrackedClient } from "@kubecache/core/testing";
 * import { ConfigMaps, KubeConfig } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * const client = new TrackedClient(KubeConfig.fromOptions({ server: server.url }));
 * server.create(ConfigMaps, { metadata: { name: "a", namespace: "default" } });
 * const getting = client.get(ConfigMaps, "a", { namespace: "default" });
 * assert.equal(client.inFlight, 1);
 * assert.equal((await getting).metadata.name, "a");
 * assert.equal(client.inFlight, 0);
 * client.close();
 * ```
 */
export class TrackedClient extends KubeClient {
  /** Requests sent and not yet settled (resolved or rejected). */
  inFlight = 0;

  /**
   * {@link KubeClient.request}, counted in `inFlight` until it settles.
   * @throws whatever {@link KubeClient.request} throws (StatusError...)
   */
  override async request<R>(
    method: string,
    path: string,
    opts?: RawRequestOptions,
  ): Promise<R> {
    this.inFlight++;
    try {
      return await super.request<R>(method, path, opts);
    } finally {
      this.inFlight--;
    }
  }
}
