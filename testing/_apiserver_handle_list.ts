/**
 * LIST of the fake API server: resourceVersion and resourceVersionMatch
 * rules (cache path, etcd path, Exact snapshots), limit/continue paging
 * with continue tokens, selectors. Internal to `FakeApiServer`.
 *
 * @module
 */

import {
  parseInt64,
  type ResourceRoute,
  type ServerContext,
} from "./_apiserver_context.ts";
import type { Encoder } from "./_apiserver_encode.ts";
import {
  both,
  fieldMatcher,
  labelMatcher,
  shardMatcher,
} from "./_apiserver_select.ts";
import {
  badRequest,
  continueTooOld,
  invalidListOptions,
  listTooOld,
  statusError,
  tooLargeResourceVersion,
  unknownFailure,
} from "./_apiserver_status.ts";
import { lowerBound, namespaceRange, type Table } from "./_apiserver_store.ts";
import type { Entry } from "./_apiserver_types.ts";

const encoder = new TextEncoder();

interface ContinueToken {
  rv: number;
  start: string;
}

/** The continue token of a page that ended at `lastKey`. */
export function encodeContinue(rv: number, lastKey: string): string {
  const json = JSON.stringify({
    v: "meta.k8s.io/v1",
    rv,
    start: lastKey + "\u0000",
  });
  let bin = "";
  for (const b of encoder.encode(json)) bin += String.fromCharCode(b);
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function decodeContinue(token: string): ContinueToken {
  let text: string;
  try {
    const b64 = token.replaceAll("-", "+").replaceAll("_", "/");
    const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
    text = new TextDecoder().decode(
      Uint8Array.from(bin, (c) => c.charCodeAt(0)),
    );
  } catch {
    throw badRequest(
      `invalid continue token: continue key is not valid: illegal base64 data`,
    );
  }
  let parsed: { v?: string; rv?: number; start?: string };
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw badRequest(
      `invalid continue token: continue key is not valid: ${
        (err as Error).message
      }`,
    );
  }
  if (
    parsed.v !== "meta.k8s.io/v1" || typeof parsed.rv !== "number" ||
    typeof parsed.start !== "string" || parsed.start === ""
  ) {
    throw badRequest(
      "invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    );
  }
  return {
    rv: parsed.rv,
    start: parsed.start.endsWith("\u0000")
      ? parsed.start.slice(0, -1)
      : parsed.start,
  };
}

/** A resourceVersion parameter as etcd's store parses it. @throws {StatusError} 400 */
export function parseRV(s: string): number {
  if (!/^\d+$/.test(s)) {
    throw badRequest(`invalid resource version: ${invalidRVMessage(s)}`);
  }
  return Number(s);
}

function validateListOptions(
  q: URLSearchParams,
  watchList: boolean,
): string {
  const match = q.get("resourceVersionMatch") ?? "";
  const rv = q.get("resourceVersion") ?? "";
  const causes: { field: string; message: string; reason: string }[] = [];
  if (match !== "") {
    if (rv === "") {
      causes.push({
        field: "resourceVersionMatch",
        message:
          "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
        reason: "FieldValueForbidden",
      });
    }
    if (q.get("continue")) {
      causes.push({
        field: "resourceVersionMatch",
        message:
          "Forbidden: resourceVersionMatch is forbidden when continue is provided",
        reason: "FieldValueForbidden",
      });
    }
    if (match !== "Exact" && match !== "NotOlderThan") {
      causes.push({
        field: "resourceVersionMatch",
        message:
          `Unsupported value: "${match}": supported values: "Exact", "NotOlderThan", ""`,
        reason: "FieldValueNotSupported",
      });
    } else if (match === "Exact" && rv === "0") {
      causes.push({
        field: "resourceVersionMatch",
        message:
          'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        reason: "FieldValueForbidden",
      });
    }
  }
  // A server without watch-list (1.24) does not know the parameter at all.
  if (watchList && q.get("sendInitialEvents") !== null) {
    causes.push({
      field: "sendInitialEvents",
      message: "Forbidden: sendInitialEvents is forbidden for list",
      reason: "FieldValueForbidden",
    });
  }
  if (causes.length > 0) throw invalidListOptions(causes);
  return match;
}

/** Where a list is read: a sorted snapshot, the list's RV, where to resume. */
interface ListSource {
  arr: readonly Entry[];
  rv: number;
  after?: string;
  /** Whether `limit` applies (the watch cache ignores it). */
  paged: boolean;
}

/**
 * Which objects a list reads, by kube-apiserver's routing: the watch
 * cache serves a list with a resourceVersion and no `limit` (or with
 * resourceVersion "0"), current state, unpaged; etcd serves the rest
 * (no resourceVersion, `limit`, `Exact`, `continue`), sorted and paged.
 */
async function listSource(
  ctx: ServerContext,
  table: Table,
  q: URLSearchParams,
  limit: number | undefined,
): Promise<ListSource> {
  const { cluster } = ctx;
  const match = validateListOptions(q, ctx.watchList);
  const rvParam = q.get("resourceVersion") ?? "";
  const token = q.get("continue");
  const delegated = rvParam === "" || !!token ||
    (limit !== undefined && rvParam !== "0") || match === "Exact";
  if (!delegated) {
    // The watch cache: the latest state, not older than the RV asked for.
    const rv = parseCacheRV(rvParam);
    await waitForFresh(ctx, rv);
    return { arr: table.sorted(), rv: cluster.rv, paged: false };
  }
  const current = cluster.rv;
  if (token) {
    const c = decodeContinue(token);
    if (rvParam !== "" && rvParam !== "0") {
      throw badRequest(
        "specifying resource version is not allowed when using continue",
      );
    }
    if (c.rv < 0) {
      return {
        arr: table.snapshot(current),
        rv: current,
        after: c.start,
        paged: true,
      };
    }
    if (c.rv < cluster.history.compactedRV) {
      throw continueTooOld(encodeContinue(-1, c.start));
    }
    return {
      arr: table.at(c.rv, cluster.history),
      rv: c.rv,
      after: c.start,
      paged: true,
    };
  }
  if (rvParam === "") {
    return { arr: table.snapshot(current), rv: current, paged: true };
  }
  const rv = parseRV(rvParam);
  if (match === "NotOlderThan") {
    // etcd reads its current revision, then checks it is fresh enough.
    if (rv > current) throw statusError(tooLargeResourceVersion(rv, current));
    return { arr: table.snapshot(current), rv: current, paged: true };
  }
  if (rv > current) {
    throw statusError(
      unknownFailure(
        500,
        "etcdserver: mvcc: required revision is a future revision",
      ),
    );
  }
  if (rv < cluster.history.compactedRV) throw listTooOld();
  return { arr: table.at(rv, cluster.history), rv, paged: true };
}

/**
 * A resourceVersion the watch cache parses: "0" and numbers. Anything else
 * is a storage error the apiserver answers with a reason-less 500.
 * @throws {StatusError} 500
 */
export function parseCacheRV(s: string): number {
  if (/^\d+$/.test(s)) return Number(s);
  throw statusError(unknownFailure(500, invalidRVMessage(s)));
}

function invalidRVMessage(s: string): string {
  return `resourceVersion: Invalid value: "${s}": strconv.ParseUint: parsing "${s}": invalid syntax`;
}

/**
 * The watch cache waits (up to the server's delay, 3 s by default, on its
 * clock) for a resourceVersion it has not seen, then answers 504 "Too
 * large resource version". The fake's cache is always current, so a
 * future RV always waits the full delay.
 * @throws {StatusError} 504
 */
export async function waitForFresh(
  ctx: ServerContext,
  rv: number,
): Promise<void> {
  if (rv <= ctx.cluster.rv) return;
  await ctx.clock.sleep(ctx.tooLargeDelayMs, ctx.closing);
  if (rv <= ctx.cluster.rv) return;
  throw statusError(tooLargeResourceVersion(rv, ctx.cluster.rv));
}

/** LIST: a page of a table's objects, encoded as the request negotiated. */
export async function list(
  ctx: ServerContext,
  r: ResourceRoute,
  q: URLSearchParams,
  enc: Encoder,
): Promise<Response> {
  const { table } = r;
  let limit = parseInt64(q.get("limit"));
  if (limit !== undefined && limit <= 0) limit = undefined;
  const shard = shardMatcher(ctx.shardedListAndWatch, q.get("shardSelector"));
  const match = both(
    both(
      labelMatcher(q.get("labelSelector")),
      fieldMatcher(table.strategy, q.get("fieldSelector")),
    ),
    shard && ((obj) => shard.matches(obj)),
  );
  const src = await listSource(ctx, table, q, limit);
  if (!src.paged) limit = undefined;
  const [rangeStart, end] = namespaceRange(src.arr, r.namespace);
  let i = rangeStart;
  if (src.after !== undefined) {
    i = Math.max(i, lowerBound(src.arr, src.after + "\u0000"));
  }
  const items: Entry[] = [];
  for (; i < end; i++) {
    if (limit !== undefined && items.length >= limit) break;
    const e = src.arr[i];
    if (match && !match(e.obj)) continue;
    items.push(e);
  }
  const meta: Record<string, unknown> = { resourceVersion: String(src.rv) };
  if (limit !== undefined && i < end && items.length > 0) {
    meta.continue = encodeContinue(src.rv, items[items.length - 1].key);
    if (!match) meta.remainingItemCount = end - i;
  }
  if (shard) meta.shardInfo = { selector: shard.canonical };
  return enc.list(table, items, meta);
}
