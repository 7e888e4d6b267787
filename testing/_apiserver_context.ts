/**
 * What every request handler of the fake API server shares: the server
 * context, the resolved resource route, and the response helpers (JSON,
 * Status, text 404, 405, 415). Internal to `FakeApiServer`.
 *
 * @module
 */

import type { Clock } from "../api/clock.ts";
import type { Status } from "../api/object.ts";
import type { FaultState } from "./fake_api_server_faults.ts";
import type { RequestRecord } from "./request_record.ts";
import type { Cluster } from "./_apiserver_registry.ts";
import { badRequest, failure } from "./_apiserver_status.ts";
import type { Table } from "./_apiserver_store.ts";
import type { Watch } from "./_apiserver_watch.ts";

/** Everything a request handler needs. */
export interface ServerContext {
  cluster: Cluster;
  faults: FaultState;
  clock: Clock;
  token: string | undefined;
  bookmarkInterval: number;
  watches: Set<Watch>;
  requests: RequestRecord[];
  /** Aborted when the server closes. */
  closing: AbortSignal;
  /** A short pause between split writes. */
  pause: () => Promise<void>;
  /** host:port, for /api's serverAddressByClientCIDRs. */
  host: string;
  /** How long the watch cache waits for a future resourceVersion, in ms. */
  tooLargeDelayMs: number;
  /** Whether the server knows watch-list (`sendInitialEvents`, 1.27+). */
  watchList: boolean;
  /** Whether the server applies `shardSelector` (KEP-5866, 1.36+ with the gate). */
  shardedListAndWatch: boolean;
  /** Base URL of a webhook's service (`https://host:port`), when the test gave one. */
  serviceResolver?: (
    service: { namespace: string; name: string; port: number },
  ) => string | undefined;
}

/** A request resolved to a table, namespace, name and subresource. */
export interface ResourceRoute {
  table: Table;
  namespace: string;
  name?: string;
  subresource?: string;
}

const JSON_HEADERS = { "content-type": "application/json" };

/** A JSON response. */
export function jsonResponse(
  status: number,
  body: string | ReadableStream<Uint8Array>,
): Response {
  return new Response(body, { status, headers: JSON_HEADERS });
}

/** A 200 JSON response of a document. */
export function ok(doc: unknown): Response {
  return jsonResponse(200, JSON.stringify(doc));
}

/** A Status response with its code as HTTP status (and Retry-After when the Status asks). */
export function statusResponse(s: Status): Response {
  const res = jsonResponse(s.code ?? 500, JSON.stringify(s));
  const retry = s.details?.retryAfterSeconds;
  if (retry !== undefined && retry > 0) {
    res.headers.set("retry-after", String(retry));
  }
  return res;
}

/** The text 404 of a path nothing serves (Go's http.NotFound). */
export function textNotFound(): Response {
  return new Response("404 page not found\n", {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

/** 415 for a body in a format the server does not read. */
export function unsupportedMediaType(): Response {
  return statusResponse(
    failure(415, "UnsupportedMediaType", "415: Unsupported Media Type", {}),
  );
}

/** 405 for a verb the path does not serve. */
export function methodNotAllowed(): Response {
  return statusResponse(
    failure(
      405,
      "MethodNotAllowed",
      "the server does not allow this method on the requested resource",
      {},
    ),
  );
}

/** A query integer as Go's strconv.ParseInt reads it. @throws {StatusError} 400 */
export function parseInt64(s: string | null): number | undefined {
  if (s === null || s === "") return undefined;
  if (!/^-?\d+$/.test(s)) {
    throw badRequest(`strconv.ParseInt: parsing "${s}": invalid syntax`);
  }
  return Number(s);
}
