/**
 * DELETE of one object and of a collection in the fake API server. The
 * options come from `parseDeleteOptions` (body and query, one place); what
 * a delete does is the generic store's, shaped by the kind's strategy
 * (graceful deletion, finalizers, whether the answer is the object).
 * Internal to `FakeApiServer`.
 *
 * @module
 */

import {
  jsonResponse,
  ok,
  type ResourceRoute,
  type ServerContext,
} from "./_apiserver_context.ts";
import type { DeleteOptions } from "./_apiserver_delete_options.ts";
import { listResponse } from "./_apiserver_encode.ts";
import { both, fieldMatcher, labelMatcher } from "./_apiserver_select.ts";
import { entryJson, namespaceRange } from "./_apiserver_store.ts";

/**
 * DELETE of one object with its parsed options: the object (pending or
 * per strategy) or a Success Status.
 */
export function deleteObject(
  ctx: ServerContext,
  r: ResourceRoute,
  options: DeleteOptions,
): Response {
  const { table } = r;
  const res = ctx.cluster.delete(table, r.namespace, r.name!, options);
  if (!res.removed || table.strategy.deleteReturnsObject) {
    return jsonResponse(200, entryJson(res.entry));
  }
  return ok({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: {
      name: r.name,
      group: table.type.group || undefined,
      kind: table.type.resource,
      uid: res.entry.obj.metadata.uid,
    },
  });
}

/**
 * DELETE of a collection: every object matching the selectors in `q`,
 * each deleted with `options`, answered as a list.
 */
export function deleteCollection(
  ctx: ServerContext,
  r: ResourceRoute,
  options: DeleteOptions,
  q: URLSearchParams,
): Response {
  const { table } = r;
  const match = both(
    labelMatcher(q.get("labelSelector")),
    fieldMatcher(table.strategy, q.get("fieldSelector")),
  );
  const [s, e] = namespaceRange(table.sorted(), r.namespace);
  const victims = table.sorted().slice(s, e).filter((x) =>
    !match || match(x.obj)
  );
  // The answer is the list taken before deleting: the objects as they
  // were (old resourceVersions) at that list's resourceVersion.
  const before = String(ctx.cluster.rv);
  for (const v of victims) {
    ctx.cluster.delete(table, v.namespace, v.name, options);
  }
  return listResponse(table, victims, { resourceVersion: before });
}
