/**
 * WATCH of the fake API server: the resourceVersion a watch starts from
 * (history replay, synthetic ADDED events, watch-list), too old (200 +
 * ERROR 410), selectors, timeout and bookmarks; the stream itself is
 * `_apiserver_watch.ts`. Internal to `FakeApiServer`.
 *
 * @module
 */

import {
  jsonResponse,
  parseInt64,
  type ResourceRoute,
  type ServerContext,
} from "./_apiserver_context.ts";
import type { Encoder } from "./_apiserver_encode.ts";
import { parseCacheRV } from "./_apiserver_handle_list.ts";
import type { Cluster } from "./_apiserver_registry.ts";
import {
  both,
  fieldMatcher,
  labelMatcher,
  shardMatcher,
} from "./_apiserver_select.ts";
import { invalidListOptions, watchTooOld } from "./_apiserver_status.ts";
import { errorEventBody, Watch } from "./_apiserver_watch.ts";

// A server without watch-list (1.24): sendInitialEvents is unknown and
// ignored, and any resourceVersionMatch is forbidden on a watch.
function validateOldWatchMatch(q: URLSearchParams): void {
  if ((q.get("resourceVersionMatch") ?? "") === "") return;
  const causes = [{
    field: "resourceVersionMatch",
    message: "Forbidden: resourceVersionMatch is forbidden for watch",
    reason: "FieldValueForbidden",
  }];
  if ((q.get("resourceVersion") ?? "") === "") {
    causes.push({
      field: "resourceVersionMatch",
      message:
        "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
      reason: "FieldValueForbidden",
    });
  }
  throw invalidListOptions(causes);
}

function validateWatchMatch(
  q: URLSearchParams,
  watchList: boolean,
): { sendInitialEvents: boolean | undefined } {
  if (!watchList) {
    validateOldWatchMatch(q);
    return { sendInitialEvents: undefined };
  }
  const match = q.get("resourceVersionMatch") ?? "";
  const sie = q.get("sendInitialEvents");
  const sendInitialEvents = sie === null ? undefined : sie === "true";
  const causes: { field: string; message: string; reason: string }[] = [];
  if (sendInitialEvents !== undefined && match !== "NotOlderThan") {
    causes.push({
      field: "resourceVersionMatch",
      message:
        "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
      reason: "FieldValueForbidden",
    });
  }
  if (match !== "") {
    if (sendInitialEvents === undefined) {
      causes.push({
        field: "resourceVersionMatch",
        message:
          "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
        reason: "FieldValueForbidden",
      });
    }
    if (match !== "NotOlderThan") {
      causes.push({
        field: "resourceVersionMatch",
        message:
          `Unsupported value: "${match}": supported values: "NotOlderThan"`,
        reason: "FieldValueNotSupported",
      });
    }
  }
  if (causes.length > 0) throw invalidListOptions(causes);
  return { sendInitialEvents };
}

/** WATCH: a stream of events from a resourceVersion, encoded as negotiated. */
export function watch(
  ctx: ServerContext,
  r: ResourceRoute,
  q: URLSearchParams,
  enc: Encoder,
): Response {
  const { cluster } = ctx;
  const timeoutSeconds = parseInt64(q.get("timeoutSeconds"));
  const bookmarksParam = q.get("allowWatchBookmarks");
  const bookmarks = bookmarksParam === "true" || bookmarksParam === "1";
  const { sendInitialEvents } = validateWatchMatch(q, ctx.watchList);
  const shard = shardMatcher(ctx.shardedListAndWatch, q.get("shardSelector"));
  const match = both(
    both(
      labelMatcher(q.get("labelSelector")),
      fieldMatcher(r.table.strategy, q.get("fieldSelector")),
    ),
    shard && ((obj) => shard.matches(obj)),
  );
  const rvParam = q.get("resourceVersion") ?? "";
  const current = cluster.rv;
  const rv = rvParam === "" ? 0 : parseCacheRV(rvParam);
  // From the future: the watch cache waits for that RV, silently, until
  // the watch's timeout, whatever is written meanwhile.
  const future = rv > current;
  let initial: boolean;
  let replay = [] as ReturnType<typeof cluster.history.since>;
  if (future) {
    initial = false;
  } else if (sendInitialEvents !== undefined) {
    initial = sendInitialEvents;
    if (!initial && rv !== 0) {
      if (rv < cluster.history.watchStartRV) return tooOldWatch(rv, cluster);
      replay = cluster.history.since(rv);
    }
  } else if (rv === 0) {
    initial = true;
  } else {
    if (rv < cluster.history.watchStartRV) return tooOldWatch(rv, cluster);
    initial = false;
    replay = cluster.history.since(rv);
  }
  const w = new Watch({
    table: r.table,
    namespace: r.namespace,
    match,
    initial,
    initialEventsEnd: sendInitialEvents === true && !future,
    silent: future,
    replay,
    startRV: rv === 0 ? current : rv,
    bookmarks,
    bookmarkInterval: ctx.bookmarkInterval,
    timeoutMs: timeoutSeconds !== undefined && timeoutSeconds > 0
      ? timeoutSeconds * 1000
      : undefined,
    currentRV: () => cluster.rv,
    clock: ctx.clock,
    stalled: ctx.faults.stalled,
    encode: enc.watchObject
      ? (e, first) => enc.watchObject!(r.table, e, first)
      : undefined,
    closeAfter: ctx.faults.closeAfter,
    onEnd: (x) => ctx.watches.delete(x),
  });
  if (!w.ended) ctx.watches.add(w);
  return new Response(w.body, {
    status: 200,
    headers: {
      "content-type": "application/json",
      "cache-control": "no-cache, private",
    },
  });
}

function tooOldWatch(rv: number, cluster: Cluster): Response {
  const status = watchTooOld(rv, cluster.history.watchStartRV);
  return jsonResponse(200, errorEventBody(status));
}
