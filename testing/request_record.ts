/**
 * The request log of a `FakeApiServer` (`server.requests`): one
 * {@link RequestRecord} per request received, failed ones included.
 *
 * @module
 */

/**
 * One logged request.
 *
 * @example Count the requests a client made
 * ```ts
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import { ConfigMaps, KubeClient, KubeConfig } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * await client.list(ConfigMaps, { namespace: "default", limit: 10 });
 * const [req] = server.requests.filter((r) => r.path.endsWith("/configmaps"));
 * assert.equal(req.method, "GET");
 * assert.equal(req.path, "/api/v1/namespaces/default/configmaps");
 * assert.equal(req.query.get("limit"), "10");
 * assert.equal(typeof req.at, "number");
 * ```
 */
export interface RequestRecord {
  /** HTTP method. */
  method: string;
  /** URL path. */
  path: string;
  /** URL query. */
  query: URLSearchParams;
  /** Time received, epoch ms on the server's clock. */
  at: number;
}
