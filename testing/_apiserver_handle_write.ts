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
import { parseYaml, YamlError } from "../client/_yaml.ts";
import {
  jsonResponse,
  ok,
  type ResourceRoute,
  type ServerContext,
  statusResponse,
  unsupportedMediaType,
} from "./_apiserver_context.ts";
import type { Encoder } from "./_apiserver_encode.ts";
import { parseCacheRV, waitForFresh } from "./_apiserver_handle_list.ts";
import {
  jsonPatch,
  mergePatch,
  PatchError,
  strategicMergePatch,
} from "./_apiserver_patch.ts";
import { keyOf, rfc3339 } from "./_apiserver_registry.ts";
import {
  badRequest,
  failure,
  invalid,
  invalidOptions,
  noSuchResource,
  notFound,
  statusError,
} from "./_apiserver_status.ts";
import { entryJson, type Table } from "./_apiserver_store.ts";
import type { Entry, Subresource } from "./_apiserver_types.ts";
import { mainResourceStatus } from "./_apiserver_strategy.ts";

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

/** Parse a request body as an object of the table's kind. @throws {StatusError} 400 */
export function parseBody(table: Table, text: string): KubeObject {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (err) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${table.type.kind}): couldn't get version/kind; json parse error: ${
        (err as Error).message
      } (${text.slice(0, 30)})`,
    );
  }
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${table.type.kind}): couldn't get version/kind; json parse error: not an object`,
    );
  }
  const o = obj as KubeObject;
  const kind = o.kind ?? table.type.kind;
  const apiVersion = o.apiVersion ?? table.apiVersion;
  if (table.strategy.unstructured && kind !== table.type.kind) {
    // Custom resources: a validation error, not a decoding one.
    const message = `Invalid value: "${kind}": must be ${table.type.kind}`;
    throw invalid(
      kind,
      o.metadata?.name ?? "",
      [{ field: "kind", message }],
      table.type.group,
    );
  }
  if (kind !== table.type.kind || apiVersion !== table.apiVersion) {
    const v = apiVersion.includes("/") ? apiVersion.split("/")[1] : apiVersion;
    throw badRequest(
      `${kind} in version "${v}" cannot be handled as a ${table.type.kind}: converting (${v}.${kind}) to (${
        table.type.group || "core"
      }.${table.type.kind}): unknown conversion`,
    );
  }
  o.metadata ??= {};
  return o;
}

/** 400 when the body's namespace is not the URL's. */
export function checkNamespace(r: ResourceRoute, obj: KubeObject): void {
  if (!r.table.type.namespaced) return;
  const ns = obj.metadata.namespace;
  if (ns && ns !== r.namespace) {
    throw badRequest(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  }
}

/** POST to a collection: create. */
export function create(
  ctx: ServerContext,
  r: ResourceRoute,
  text: string,
  q: URLSearchParams,
): Response {
  const dryRun = checkDryRun("CreateOptions", q.getAll("dryRun"));
  const obj = parseBody(r.table, text);
  checkNamespace(r, obj);
  if (r.table.type.namespaced && !ctx.cluster.namespaceExists(r.namespace)) {
    throw notFound("namespaces", r.namespace);
  }
  const e = ctx.cluster.create(r.table, obj, r.namespace, {
    dryRun,
    dropStatus: mainResourceStatus(r.table.strategy).dropOnCreate,
  });
  return jsonResponse(201, entryJson(e));
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

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`error decoding ${what}: ${(err as Error).message}`);
  }
}

/** PUT of an object or of its subresource. */
export function replace(
  ctx: ServerContext,
  r: ResourceRoute,
  text: string,
): Response {
  const sub = subresourceOf(r);
  if (sub && !sub.statusOnly) {
    if (!sub.update) throw noSuchResource();
    const old = stored(r);
    const kind = sub.discovery.kind ?? r.table.type.kind;
    return updateThrough(ctx, r, sub, old, parseJson(text, kind));
  }
  const obj = parseBody(r.table, text);
  checkNamespace(r, obj);
  const e = ctx.cluster.update(r.table, obj, {
    namespace: r.namespace,
    name: r.name,
    statusOnly: sub?.statusOnly,
    keepStatus: !sub && mainResourceStatus(r.table.strategy).keepOnUpdate,
  });
  return jsonResponse(200, entryJson(e));
}

/** Write the parent through a subresource and answer with its view. */
function updateThrough(
  ctx: ServerContext,
  r: ResourceRoute,
  sub: Subresource,
  old: Entry,
  body: unknown,
): Response {
  const e = ctx.cluster.update(r.table, sub.update!(old, body), {
    namespace: r.namespace,
    name: r.name,
    statusOnly: sub.statusOnly,
  });
  return sub.view ? ok(sub.view(e)) : jsonResponse(200, entryJson(e));
}

const PATCH_TYPES = new Set([
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
]);

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
  const body = parsePatch(contentType, await req.text());
  const { table } = r;
  const ns = table.type.namespaced ? r.namespace : "";
  const old = table.get(keyOf(ns, r.name!));
  if (apply && !sub) {
    const obj = serverSideApply(old?.obj, body, {
      manager: manager!,
      force: q.get("force") === "true",
      apiVersion: table.apiVersion,
      name: r.name!,
      now: rfc3339(ctx.clock.now()),
    });
    const status = mainResourceStatus(table.strategy);
    if (old) {
      const e = ctx.cluster.update(table, obj, {
        namespace: r.namespace,
        name: r.name,
        keepStatus: status.keepOnUpdate,
      });
      return jsonResponse(200, entryJson(e));
    }
    checkNamespace(r, obj);
    if (table.type.namespaced && !ctx.cluster.namespaceExists(r.namespace)) {
      throw notFound("namespaces", r.namespace);
    }
    const e = ctx.cluster.create(
      table,
      {
        ...obj,
        metadata: { ...obj.metadata, name: r.name },
      },
      r.namespace,
      { dropStatus: status.dropOnCreate },
    );
    return jsonResponse(201, entryJson(e));
  }
  if (!old) throw notFound(table.type.resource, r.name!, table.type.group);
  if (sub && !(sub.view && sub.update)) throw noSuchResource();
  const current = sub ? sub.view!(old) : JSON.parse(entryJson(old));
  let next: unknown;
  try {
    switch (contentType) {
      case "application/merge-patch+json":
        next = mergePatch(current, body);
        break;
      case "application/json-patch+json":
        next = jsonPatch(current, body);
        break;
      default:
        next = strategicMergePatch(current, body);
    }
  } catch (err) {
    if (!(err instanceof PatchError)) throw err;
    return statusResponse(
      failure(
        422,
        "Invalid",
        "the server rejected our request due to an error in our request",
        {},
      ),
    );
  }
  if (sub && !sub.statusOnly) return updateThrough(ctx, r, sub, old, next);
  const obj = next as KubeObject;
  if (!obj || typeof obj !== "object" || !obj.metadata) {
    throw badRequest("the patch produced an object without metadata");
  }
  if (obj.metadata.name !== undefined && obj.metadata.name !== r.name) {
    throw badRequest(
      `the name of the object (${obj.metadata.name}) does not match the name on the URL (${r.name})`,
    );
  }
  const e = ctx.cluster.update(table, obj, {
    namespace: r.namespace,
    name: r.name,
    statusOnly: sub?.statusOnly,
    keepStatus: !sub && mainResourceStatus(table.strategy).keepOnUpdate,
  });
  return jsonResponse(200, entryJson(e));
}

/**
 * Decode a PATCH body as kube-apiserver does per patch type, with its
 * error answers. @throws {StatusError} 400, 422
 */
function parsePatch(contentType: string, text: string): unknown {
  if (contentType === "application/apply-patch+yaml") {
    // JSON (what kubectl sends) is read as JSON, as sigs.k8s.io/yaml does.
    const trimmed = text.trim();
    if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
      try {
        return JSON.parse(trimmed);
      } catch {
        // go-yaml reads it as a flow collection and stops at its end (the
        // recorded answer of a real apiserver).
        const open = trimmed.includes("[") ? "']'" : "'}'";
        throw badRequest(
          `error decoding YAML: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ${open}`,
        );
      }
    }
    try {
      return parseYaml(text);
    } catch (err) {
      if (!(err instanceof YamlError)) throw err;
      // go-yaml's shape: "yaml: line N: <what is wrong>".
      throw badRequest(
        `error decoding YAML: error converting YAML to JSON: yaml: line ${err.line}: ${err.reason}`,
      );
    }
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    if (contentType === "application/merge-patch+json") {
      throw badRequest("Invalid JSON Patch");
    }
    if (contentType === "application/json-patch+json") {
      throw badRequest("unexpected end of JSON input");
    }
    throw badRequest((err as Error).message);
  }
  if (contentType === "application/json-patch+json" && !Array.isArray(body)) {
    const what = body === null
      ? "null"
      : typeof body === "object"
      ? "object"
      : typeof body;
    throw badRequest(
      `json: cannot unmarshal ${what} into Go value of type jsonpatch.Patch`,
    );
  }
  if (contentType === "application/merge-patch+json" && Array.isArray(body)) {
    const message = `Invalid value: "${
      JSON.stringify(body)
    }": couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
    throw statusError(
      failure(422, "Invalid", ` "" is invalid: patch: ${message}`, {
        causes: [{ reason: "FieldValueInvalid", message, field: "patch" }],
      }),
    );
  }
  return body;
}
