/**
 * GET of one object and the writes of the fake API server: POST (create),
 * PUT (update), PATCH (merge, JSON, strategic merge, apply), and the
 * subresources a kind's strategy declares (status, scale, binding...).
 * Internal to `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import { checkDryRun } from "./_apiserver_delete_options.ts";
import { serverSideApply } from "./_apiserver_apply.ts";
import {
  jsonResponse,
  ok,
  type ResourceRoute,
  type ServerContext,
  statusResponse,
  unsupportedMediaType,
} from "./_apiserver_context.ts";
import { StatusError } from "../api/errors.ts";
import {
  checkNamespace,
  fieldValidationOf,
  parseBody,
  parseJson,
  parsePatch,
  PATCH_TYPES,
  patched,
  patchedObject,
  type Write,
} from "./_apiserver_decode.ts";
import type { Encoder } from "./_apiserver_encode.ts";
import { parseCacheRV, waitForFresh } from "./_apiserver_handle_list.ts";
import { keyOf, rfc3339 } from "./_apiserver_registry.ts";
import {
  failure,
  invalidOptions,
  noSuchResource,
  notFound,
  statusError,
  unknownFailure,
} from "./_apiserver_status.ts";
import { type SchemaProps, typedPatchError } from "./_apiserver_structural.ts";
import { entryJson } from "./_apiserver_store.ts";
import type { Entry, Subresource } from "./_apiserver_types.ts";
import { admitAndStore } from "./_apiserver_write_chain.ts";

/** The stored object a route names. @throws {StatusError} 404 */
export function stored(r: ResourceRoute): Entry {
  const ns = r.table.type.namespaced ? r.namespace : "";
  const e = r.table.get(keyOf(ns, r.name!));
  if (!e) throw notFound(r.table.type.resource, r.name!, r.table.type.group);
  return e;
}

/** The subresource a route names, if any. @throws {StatusError} 404 when the kind has none of that name */
export function subresourceOf(r: ResourceRoute): Subresource | undefined {
  if (r.subresource === undefined) return undefined;
  const sub = r.table.strategy.subresources?.[r.subresource];
  if (!sub) throw noSuchResource();
  return sub;
}

/**
 * GET of one object (or of its subresource's view). With a
 * resourceVersion it is read from the watch cache, which waits for a
 * future one and answers 504.
 */
export async function getObject(
  ctx: ServerContext,
  r: ResourceRoute,
  enc: Encoder,
  q: URLSearchParams,
): Promise<Response> {
  const rv = q.get("resourceVersion") ?? "";
  if (rv !== "") await waitForFresh(ctx, parseCacheRV(rv));
  const sub = subresourceOf(r);
  const e = stored(r);
  if (sub) {
    if (!sub.view) throw noSuchResource();
    return ok(sub.view(e));
  }
  return jsonResponse(200, enc.object(r.table, e));
}

/**
 * Run a write's stages after decoding and answer with the stored object
 * as JSON (or the subresource's view of it), or with the Status a stage
 * threw; either way with the write's warnings as `Warning` headers (code
 * 299, as kube-apiserver sends them with any answer).
 */
async function written(
  ctx: ServerContext,
  status: number,
  w: Write,
  sub?: Subresource,
): Promise<Response> {
  let res: Response;
  try {
    const e = await admitAndStore(ctx, w);
    res = sub?.view && !sub.statusOnly
      ? jsonResponse(status, JSON.stringify(sub.view(e)))
      : jsonResponse(status, entryJson(e));
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    res = statusResponse(err.status);
  }
  for (const warning of w.warnings) {
    res.headers.append("warning", `299 - ${JSON.stringify(warning)}`);
  }
  return res;
}

/** A write of a route, its stages after decoding still to run. */
function writeOf(
  r: ResourceRoute,
  fieldValidation: Write["fieldValidation"],
  operation: Write["operation"],
  object: KubeObject,
  old: Entry | undefined,
  dryRun = false,
): Write {
  return {
    operation,
    table: r.table,
    namespace: r.table.type.namespaced ? r.namespace : "",
    name: operation === "CREATE" && r.name === undefined
      ? object.metadata?.name
      : r.name,
    subresource: r.subresource,
    object,
    oldObject: old?.obj,
    dryRun,
    fieldValidation,
    warnings: [],
  };
}

/** POST to a collection: create. */
export async function create(
  ctx: ServerContext,
  r: ResourceRoute,
  text: string,
  q: URLSearchParams,
): Promise<Response> {
  const dryRun = checkDryRun("CreateOptions", q.getAll("dryRun"));
  const fv = fieldValidationOf(q, "CreateOptions");
  const obj = parseBody(r.table, text);
  checkNamespace(r, obj);
  if (r.table.type.namespaced && !ctx.cluster.namespaceExists(r.namespace)) {
    throw notFound("namespaces", r.namespace);
  }
  const w = writeOf(r, fv, "CREATE", obj, undefined, dryRun);
  return await written(ctx, 201, w);
}

/** POST to an object's subresource (`pods/binding`). */
export function post(
  ctx: ServerContext,
  r: ResourceRoute,
  text: string,
): Response {
  const sub = subresourceOf(r);
  if (!sub?.post) throw noSuchResource();
  const body = parseJson(text, r.subresource!);
  const res = sub.post(ctx.cluster, r.table, stored(r), body);
  return jsonResponse(res.status, JSON.stringify(res.body));
}

/** PUT of an object or of its subresource. */
export async function replace(
  ctx: ServerContext,
  r: ResourceRoute,
  text: string,
  q: URLSearchParams,
): Promise<Response> {
  const sub = subresourceOf(r);
  const fv = fieldValidationOf(q, "UpdateOptions");
  if (sub && !sub.statusOnly) {
    if (!sub.update) throw noSuchResource();
    const old = stored(r);
    const kind = sub.discovery.kind ?? r.table.type.kind;
    const obj = sub.update(old, parseJson(text, kind));
    const w = writeOf(r, fv, "UPDATE", obj, old);
    return await written(ctx, 200, w, sub);
  }
  const obj = parseBody(r.table, text);
  checkNamespace(r, obj);
  const old = r.table.get(
    keyOf(r.table.type.namespaced ? r.namespace : "", r.name!),
  );
  if (!old) throw notFound(r.table.type.resource, r.name!, r.table.type.group);
  const w = writeOf(r, fv, "UPDATE", obj, old);
  return await written(ctx, 200, w);
}

/** PATCH of an object or of its subresource. */
export async function patch(
  ctx: ServerContext,
  r: ResourceRoute,
  req: Request,
  q: URLSearchParams,
): Promise<Response> {
  const sub = subresourceOf(r);
  const contentType = (req.headers.get("content-type") ?? "").split(";")[0]
    .trim();
  if (!PATCH_TYPES.has(contentType)) return unsupportedMediaType();
  if (
    r.table.strategy.unstructured &&
    contentType === "application/strategic-merge-patch+json"
  ) {
    // Custom resources have no patch strategy to merge by.
    throw statusError(
      failure(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
      ),
    );
  }
  const apply = contentType === "application/apply-patch+yaml";
  const manager = q.get("fieldManager");
  if (apply && !manager) {
    throw invalidOptions("PatchOptions", "fieldManager", [
      "Required value: is required for apply patch",
    ]);
  }
  if (!apply && q.has("force")) {
    throw invalidOptions("PatchOptions", "force", [
      "Forbidden: may not be specified for non-apply patch",
    ]);
  }
  const fv = fieldValidationOf(q, "PatchOptions");
  const patchWrite = (
    operation: Write["operation"],
    obj: KubeObject,
    old: Entry | undefined,
  ): Write => ({
    ...writeOf(r, fv, operation, obj, old),
    patchType: contentType,
  });
  const body = parsePatch(contentType, await req.text());
  const { table } = r;
  const ns = table.type.namespaced ? r.namespace : "";
  const old = table.get(keyOf(ns, r.name!));
  if (apply && !sub) {
    const schema = table.strategy.openAPIV3Schema as SchemaProps | undefined;
    const typeError = schema && typedPatchError(body, schema);
    if (typeError) {
      // structured-merge-diff's error is no API status: a 500 without reason.
      const ns = (body as KubeObject).metadata?.namespace ?? "";
      throw statusError(
        unknownFailure(
          500,
          `failed to create typed patch object (${ns}/${r.name}; ${table.apiVersion}, Kind=${table.type.kind}): ${typeError}`,
        ),
      );
    }
    const obj = serverSideApply(old?.obj, body, {
      manager: manager!,
      force: q.get("force") === "true",
      apiVersion: table.apiVersion,
      name: r.name!,
      now: rfc3339(ctx.clock.now()),
    });
    if (old) {
      const w = patchWrite("UPDATE", obj, old);
      return written(ctx, 200, w);
    }
    checkNamespace(r, obj);
    if (table.type.namespaced && !ctx.cluster.namespaceExists(r.namespace)) {
      throw notFound("namespaces", r.namespace);
    }
    const w = patchWrite("CREATE", {
      ...obj,
      metadata: { ...obj.metadata, name: r.name },
    }, undefined);
    return written(ctx, 201, w);
  }
  if (!old) throw notFound(table.type.resource, r.name!, table.type.group);
  if (sub && !(sub.view && sub.update)) throw noSuchResource();
  const current = sub ? sub.view!(old) : JSON.parse(entryJson(old));
  const next = patched(contentType, current, body);
  if (sub && !sub.statusOnly) {
    const w = patchWrite("UPDATE", sub.update!(old, next), old);
    return written(ctx, 200, w, sub);
  }
  const w = patchWrite("UPDATE", patchedObject(r, next), old);
  return written(ctx, 200, w);
}
