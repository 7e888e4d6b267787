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
import { keyOf } from "./_apiserver_registry.ts";
import {
  runMutatingWebhooks,
  runValidatingWebhooks,
} from "./_apiserver_admission.ts";

/**
 * The admission of a DELETE (kube-apiserver's chain for deletes: mutating
 * webhooks, which may not change anything, then validating ones), with
 * the stored object as `oldObject`. A missing object is left to the store
 * (404 before any webhook, as kube-apiserver reads it first).
 */
async function admitDelete(
  ctx: ServerContext,
  r: ResourceRoute,
  name: string,
  options: DeleteOptions,
): Promise<void> {
  const ns = r.table.type.namespaced ? r.namespace : "";
  const stored = r.table.get(keyOf(ns, name));
  if (!stored) return;
  const attrs = {
    operation: "DELETE" as const,
    table: r.table,
    namespace: ns,
    name,
    oldObject: stored.obj,
    dryRun: (options.dryRun ?? []).includes("All"),
    options: { kind: "DeleteOptions", apiVersion: "meta.k8s.io/v1" },
  };
  const warnings: string[] = [];
  await runMutatingWebhooks(ctx, attrs, warnings);
  await runValidatingWebhooks(ctx, attrs, warnings);
}

/**
 * DELETE of one object with its parsed options: the object (pending or
 * per strategy) or a Success Status.
 */
export async function deleteObject(
  ctx: ServerContext,
  r: ResourceRoute,
  options: DeleteOptions,
): Promise<Response> {
  const { table } = r;
  await admitDelete(ctx, r, r.name!, options);
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
export async function deleteCollection(
  ctx: ServerContext,
  r: ResourceRoute,
  options: DeleteOptions,
  q: URLSearchParams,
): Promise<Response> {
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
    await admitDelete(ctx, { ...r, namespace: v.namespace }, v.name, options);
    ctx.cluster.delete(table, v.namespace, v.name, options);
  }
  return listResponse(table, victims, { resourceVersion: before });
}
