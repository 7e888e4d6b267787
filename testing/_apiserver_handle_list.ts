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
import { both, fieldMatcher, labelMatcher } from "./_apiserver_select.ts";
import {
  badRequest,
  continueTooOld,
  invalidListOptions,
  listTooOld,
  statusError,
  tooLargeResourceVersion,
} from "./_apiserver_status.ts";
import {
  type Entry,
  lowerBound,
  namespaceRange,
  type Table,
} from "./_apiserver_store.ts";

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

/** A resourceVersion parameter. @throws {StatusError} 400 */
export function parseRV(s: string): number {
  if (!/^\d+$/.test(s)) {
    throw badRequest(`invalid resource version "${s}"`);
  }
  return Number(s);
}

function validateListMatch(q: URLSearchParams): string {
  const match = q.get("resourceVersionMatch") ?? "";
  const rv = q.get("resourceVersion") ?? "";
  if (match === "") return match;
  const causes: { field: string; message: string; reason: string }[] = [];
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
  if (causes.length > 0) throw invalidListOptions(causes);
  return match;
}

/** Which objects a list reads: a sorted snapshot and the list's RV. */
function listSource(
  ctx: ServerContext,
  table: Table,
  q: URLSearchParams,
  limit: number | undefined,
): { arr: readonly Entry[]; rv: number; after?: string; paged: boolean } {
  const { cluster } = ctx;
  const current = cluster.rv;
  const token = q.get("continue");
  if (token) {
    const c = decodeContinue(token);
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
    if (c.rv > current) {
      throw statusError(tooLargeResourceVersion(c.rv, current));
    }
    return {
      arr: table.at(c.rv, cluster.history),
      rv: c.rv,
      after: c.start,
      paged: true,
    };
  }
  const match = validateListMatch(q);
  const rvParam = q.get("resourceVersion") ?? "";
  if (rvParam === "") {
    return { arr: table.snapshot(current), rv: current, paged: true };
  }
  const rv = parseRV(rvParam);
  if (rv > current) {
    throw statusError(tooLargeResourceVersion(rv, current));
  }
  if (rv === 0) return { arr: table.sorted(), rv: current, paged: false };
  const exact = match === "Exact" || (match === "" && limit !== undefined);
  // Not older than rv: the latest state, paged when asked (served by etcd).
  if (!exact) return { arr: table.snapshot(current), rv: current, paged: true };
  if (rv < cluster.history.compactedRV) throw listTooOld();
  return { arr: table.at(rv, cluster.history), rv, paged: true };
}

/** LIST: a page of a table's objects, encoded as the request negotiated. */
export function list(
  ctx: ServerContext,
  r: ResourceRoute,
  q: URLSearchParams,
  enc: Encoder,
): Response {
  const { table } = r;
  let limit = parseInt64(q.get("limit"));
  if (limit !== undefined && limit <= 0) limit = undefined;
  const match = both(
    labelMatcher(q.get("labelSelector")),
    fieldMatcher(table.strategy, q.get("fieldSelector")),
  );
  const src = listSource(ctx, table, q, limit);
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
  return enc.list(table, items, meta);
}
