/**
 * The HTTP side of the fake API server: routing of /api and /apis paths,
 * discovery, health, authentication, and the list, watch, get, create,
 * update, patch and delete handlers with kube-apiserver's status codes and
 * Status bodies. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { Clock } from "../cache/clock.ts";
import type { KubeObject, Status } from "../cache/object.ts";
import { StatusError } from "../client/rest.ts";
import {
  coreVersions,
  group as groupDocument,
  groupList,
  openapiDocument,
  openapiRoot,
  resourceList,
  VERSION_INFO,
} from "./_apiserver_discovery.ts";
import {
  failureResponse,
  type FaultState,
  splitBody,
  takeFailure,
} from "./_apiserver_faults.ts";
import {
  jsonPatch,
  mergePatch,
  PatchError,
  strategicMergePatch,
} from "./_apiserver_patch.ts";
import { both, fieldMatcher, labelMatcher } from "./_apiserver_select.ts";
import type { Cluster } from "./_apiserver_state.ts";
import { keyOf } from "./_apiserver_state.ts";
import {
  badRequest,
  continueTooOld,
  failure,
  invalidListOptions,
  listTooOld,
  noSuchResource,
  notFound,
  statusError,
  tooLargeResourceVersion,
  watchTooOld,
} from "./_apiserver_status.ts";
import {
  type Entry,
  entryJson,
  lowerBound,
  namespaceRange,
  type Table,
} from "./_apiserver_store.ts";
import { isScalable, scaleOf, withScale } from "./_apiserver_scale.ts";
import { tableDoc } from "./_apiserver_table.ts";
import { errorEventBody, Watch } from "./_apiserver_watch.ts";

/** One logged request. */
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
}

const JSON_HEADERS = { "content-type": "application/json" };
const PUBLIC_PATHS = new Set(["/healthz", "/livez", "/readyz", "/version"]);
const STREAM_THRESHOLD = 1000;
const STREAM_BATCH = 1000;
const encoder = new TextEncoder();

/** Handle one request (the `Deno.serve` handler). */
export async function handle(
  ctx: ServerContext,
  req: Request,
): Promise<Response> {
  const url = new URL(req.url);
  ctx.requests.push({
    method: req.method,
    path: url.pathname,
    query: url.searchParams,
    at: ctx.clock.now(),
  });
  if (ctx.faults.latencyMs > 0) {
    try {
      await ctx.clock.sleep(ctx.faults.latencyMs, ctx.closing);
    } catch {
      return new Response("server closing", { status: 503 });
    }
  }
  const res = await respond(ctx, req, url);
  const split = ctx.faults.split;
  if (!split || !res.body) return res;
  return new Response(splitBody(res.body, split, ctx.pause), {
    status: res.status,
    headers: res.headers,
  });
}

async function respond(
  ctx: ServerContext,
  req: Request,
  url: URL,
): Promise<Response> {
  const denied = authenticate(ctx, req, url);
  if (denied) return denied;
  const fault = takeFailure(ctx.faults, req);
  if (fault) return failureResponse(fault);
  try {
    return await route(ctx, req, url);
  } catch (err) {
    if (err instanceof StatusError) return statusResponse(err.status);
    const message = err instanceof Error ? err.message : String(err);
    return statusResponse(failure(500, "InternalError", message));
  }
}

function authenticate(
  ctx: ServerContext,
  req: Request,
  url: URL,
): Response | undefined {
  if (ctx.token === undefined) return undefined;
  const auth = req.headers.get("authorization");
  if (auth === null) {
    if (PUBLIC_PATHS.has(url.pathname)) return undefined;
    return statusResponse(forbidAnonymous(ctx, req, url));
  }
  if (auth === `Bearer ${ctx.token}`) return undefined;
  return statusResponse(failure(401, "Unauthorized", "Unauthorized"));
}

/** The 403 an anonymous request gets, worded as RBAC words it. */
function forbidAnonymous(ctx: ServerContext, req: Request, url: URL): Status {
  const user = 'User "system:anonymous"';
  const segs = url.pathname.split("/").slice(1).map(decodeURIComponent);
  const [g, v, rest] = segs[0] === "api"
    ? ["", segs[1], segs.slice(2)]
    : [segs[1], segs[2], segs.slice(3)];
  const r = segs[0] === "api" || segs[0] === "apis"
    ? resolve(ctx.cluster, g ?? "", v ?? "", rest)
    : undefined;
  if (!r) {
    const verb = req.method.toLowerCase();
    return failure(
      403,
      "Forbidden",
      `forbidden: ${user} cannot ${verb} path "${url.pathname}"`,
      {},
    );
  }
  const resource = r.table.type.resource;
  const w = url.searchParams.get("watch");
  const verb = ({
    GET: r.name ? "get" : w === "true" || w === "1" ? "watch" : "list",
    POST: "create",
    PUT: "update",
    PATCH: "patch",
    DELETE: r.name ? "delete" : "deletecollection",
  } as Record<string, string>)[req.method] ?? req.method.toLowerCase();
  const scope = r.namespace
    ? `in the namespace "${r.namespace}"`
    : "at the cluster scope";
  const subject = r.name ? `${resource} "${r.name}"` : resource;
  const details: Record<string, string> = {};
  if (r.name) details.name = r.name;
  if (r.table.type.group) details.group = r.table.type.group;
  details.kind = resource;
  return failure(
    403,
    "Forbidden",
    `${subject} is forbidden: ${user} cannot ${verb} resource "${resource}" in API group "${r.table.type.group}" ${scope}`,
    details,
  );
}

/** A JSON response. */
function jsonResponse(
  status: number,
  body: string | ReadableStream<Uint8Array>,
): Response {
  return new Response(body, { status, headers: JSON_HEADERS });
}

/** A Status response with its code as HTTP status. */
export function statusResponse(s: Status): Response {
  return jsonResponse(s.code ?? 500, JSON.stringify(s));
}

function textNotFound(): Response {
  return new Response("404 page not found\n", {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

function ok(doc: unknown): Response {
  return jsonResponse(200, JSON.stringify(doc));
}

interface ResourceRoute {
  table: Table;
  namespace: string;
  name?: string;
  subresource?: string;
}

function route(
  ctx: ServerContext,
  req: Request,
  url: URL,
): Promise<Response> | Response {
  const path = url.pathname.replace(/\/+$/, "") || "/";
  const types = ctx.cluster.tables.map((t) => t.type);
  switch (path) {
    case "/healthz":
    case "/livez":
    case "/readyz":
      return new Response("ok", {
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    case "/version":
      return ok(VERSION_INFO);
    case "/api":
      return ok(coreVersions(ctx.host));
    case "/apis":
      return ok(groupList(types));
    case "/openapi/v3":
      return ok(openapiRoot(types));
  }
  if (path.startsWith("/openapi/v3/")) {
    const doc = openapiDocument(types, path.slice("/openapi/v3/".length));
    return doc ? ok(doc) : textNotFound();
  }
  const segs = path.split("/").slice(1).map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === "api" && segs.length >= 2) {
    [group, version, rest] = ["", segs[1], segs.slice(2)];
  } else if (segs[0] === "apis" && segs.length === 2) {
    const doc = groupDocument(types, segs[1]);
    return doc ? ok(doc) : textNotFound();
  } else if (segs[0] === "apis" && segs.length >= 3) {
    [group, version, rest] = [segs[1], segs[2], segs.slice(3)];
  } else {
    return textNotFound();
  }
  const served = resourceList(types, group, version);
  if (served === undefined) {
    return group === ""
      ? statusResponse(noSuchResource().status)
      : textNotFound();
  }
  if (rest.length === 0) return ok(served);
  const r = resolve(ctx.cluster, group, version, rest);
  if (!r) throw noSuchResource();
  return dispatch(ctx, req, url, r);
}

function resolve(
  cluster: Cluster,
  g: string,
  v: string,
  rest: string[],
): ResourceRoute | undefined {
  const find = (r: string) => cluster.find(g, v, r);
  if (rest[0] === "namespaces" && rest.length >= 3) {
    const table = find(rest[2]);
    if (!table || !table.type.namespaced || rest.length > 5) return undefined;
    return {
      table,
      namespace: rest[1],
      name: rest[3],
      subresource: rest[4],
    };
  }
  if (rest.length > 3) return undefined;
  const table = find(rest[0]);
  if (!table) return undefined;
  return { table, namespace: "", name: rest[1], subresource: rest[2] };
}

async function dispatch(
  ctx: ServerContext,
  req: Request,
  url: URL,
  r: ResourceRoute,
): Promise<Response> {
  const q = url.searchParams;
  if (
    r.subresource !== undefined && r.subresource !== "status" &&
    !(r.subresource === "scale" && isScalable(r.table.type))
  ) throw noSuchResource();
  if (
    (req.method === "POST" || req.method === "PUT") &&
    (req.headers.get("content-type") ?? "").includes("protobuf")
  ) {
    // Only JSON is spoken; client-go falls back to JSON on a 415.
    return unsupportedMediaType();
  }
  if (r.name === undefined) {
    switch (req.method) {
      case "GET": {
        const w = q.get("watch");
        return w === "true" || w === "1"
          ? watch(ctx, r, q, req)
          : list(ctx, r, q, req);
      }
      case "POST":
        return create(ctx, r, await req.text());
      case "DELETE":
        return deleteCollection(ctx, r, q);
      default:
        return methodNotAllowed();
    }
  }
  switch (req.method) {
    case "GET":
      return getObject(r);
    case "PUT":
      return replace(ctx, r, await req.text());
    case "PATCH":
      return patch(ctx, r, req, q);
    case "DELETE":
      return deleteObject(ctx, r, await req.text());
    default:
      return methodNotAllowed();
  }
}

function unsupportedMediaType(): Response {
  return statusResponse(
    failure(415, "UnsupportedMediaType", "415: Unsupported Media Type", {}),
  );
}

function methodNotAllowed(): Response {
  return statusResponse(
    failure(
      405,
      "MethodNotAllowed",
      "the server does not allow this method on the requested resource",
      {},
    ),
  );
}

// ---- list ------------------------------------------------------------------

interface ContinueToken {
  rv: number;
  start: string;
}

function encodeContinue(rv: number, lastKey: string): string {
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

function parseRV(s: string): number {
  if (!/^\d+$/.test(s)) {
    throw badRequest(`invalid resource version "${s}"`);
  }
  return Number(s);
}

function parseInt64(s: string | null): number | undefined {
  if (s === null || s === "") return undefined;
  if (!/^-?\d+$/.test(s)) {
    throw badRequest(`strconv.ParseInt: parsing "${s}": invalid syntax`);
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

function list(
  ctx: ServerContext,
  r: ResourceRoute,
  q: URLSearchParams,
  req: Request,
): Response {
  const { table } = r;
  let limit = parseInt64(q.get("limit"));
  if (limit !== undefined && limit <= 0) limit = undefined;
  const match = both(
    labelMatcher(q.get("labelSelector")),
    fieldMatcher(table.type, q.get("fieldSelector")),
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
  if (wantsTable(req)) return tableResponse(items, meta);
  return listResponse(table, items, meta);
}

function itemPrefixLength(table: Table): number {
  return JSON.stringify({ kind: table.type.kind, apiVersion: table.apiVersion })
    .length;
}

/** JSON of a list item: the object without kind and apiVersion. */
function itemJson(e: Entry, prefix: number): string {
  return "{" + entryJson(e).slice(prefix);
}

function listResponse(
  table: Table,
  items: Entry[],
  meta: Record<string, unknown>,
): Response {
  const head = `{"kind":${
    JSON.stringify(table.type.kind + "List")
  },"apiVersion":${JSON.stringify(table.apiVersion)},"metadata":${
    JSON.stringify(meta)
  },"items":[`;
  const prefix = itemPrefixLength(table);
  if (items.length <= STREAM_THRESHOLD) {
    const parts = items.map((e) => itemJson(e, prefix));
    return jsonResponse(200, head + parts.join(",") + "]}");
  }
  // Big lists are streamed in batches so the first bytes leave early and
  // the whole body never sits in memory twice.
  let i = 0;
  let first = true;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (first) {
        first = false;
        controller.enqueue(encoder.encode(head));
      }
      if (i >= items.length) {
        controller.enqueue(encoder.encode("]}"));
        controller.close();
        return;
      }
      const end = Math.min(items.length, i + STREAM_BATCH);
      const parts: string[] = [];
      for (let j = i; j < end; j++) parts.push(itemJson(items[j], prefix));
      controller.enqueue(
        encoder.encode((i === 0 ? "" : ",") + parts.join(",")),
      );
      i = end;
    },
  });
  return jsonResponse(200, body);
}

// ---- kubectl tables --------------------------------------------------------

function wantsTable(req: Request): boolean {
  return (req.headers.get("accept") ?? "").includes("as=Table");
}

function tableResponse(
  items: Entry[],
  meta: Record<string, unknown>,
): Response {
  return ok(tableDoc(items, meta));
}

// ---- watch -----------------------------------------------------------------

function validateWatchMatch(q: URLSearchParams): {
  sendInitialEvents: boolean | undefined;
} {
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

function watch(
  ctx: ServerContext,
  r: ResourceRoute,
  q: URLSearchParams,
  req: Request,
): Response {
  const { cluster } = ctx;
  const timeoutSeconds = parseInt64(q.get("timeoutSeconds"));
  const bookmarksParam = q.get("allowWatchBookmarks");
  const bookmarks = bookmarksParam === "true" || bookmarksParam === "1";
  const { sendInitialEvents } = validateWatchMatch(q);
  const match = both(
    labelMatcher(q.get("labelSelector")),
    fieldMatcher(r.table.type, q.get("fieldSelector")),
  );
  const rvParam = q.get("resourceVersion") ?? "";
  const current = cluster.rv;
  const rv = rvParam === "" ? 0 : parseRV(rvParam);
  if (rv > current) {
    throw statusError(tooLargeResourceVersion(rv, current));
  }
  let initial: boolean;
  let replay = [] as ReturnType<typeof cluster.history.since>;
  if (sendInitialEvents !== undefined) {
    initial = sendInitialEvents;
    if (!initial && rv !== 0) {
      if (rv < cluster.history.compactedRV) return tooOldWatch(rv, cluster);
      replay = cluster.history.since(rv);
    }
  } else if (rv === 0) {
    initial = true;
  } else {
    if (rv < cluster.history.compactedRV) return tooOldWatch(rv, cluster);
    initial = false;
    replay = cluster.history.since(rv);
  }
  const w = new Watch({
    table: r.table,
    namespace: r.namespace,
    match,
    initial,
    initialEventsEnd: sendInitialEvents === true,
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
    asTable: wantsTable(req),
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
  const status = watchTooOld(rv, cluster.history.compactedRV);
  return jsonResponse(200, errorEventBody(status));
}

// ---- object handlers -------------------------------------------------------

function getObject(r: ResourceRoute): Response {
  const e = r.table.get(
    keyOf(r.table.type.namespaced ? r.namespace : "", r.name!),
  );
  if (!e) throw notFound(r.table.type.resource, r.name!);
  if (r.subresource === "scale") return ok(scaleOf(e));
  return jsonResponse(200, entryJson(e));
}

function parseBody(table: Table, text: string): KubeObject {
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

function checkNamespace(r: ResourceRoute, obj: KubeObject): void {
  if (!r.table.type.namespaced) return;
  const ns = obj.metadata.namespace;
  if (ns && ns !== r.namespace) {
    throw badRequest(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  }
}

function create(ctx: ServerContext, r: ResourceRoute, text: string): Response {
  const obj = parseBody(r.table, text);
  checkNamespace(r, obj);
  if (r.table.type.namespaced && !ctx.cluster.namespaceExists(r.namespace)) {
    throw notFound("namespaces", r.namespace);
  }
  const e = ctx.cluster.create(r.table, obj, r.namespace);
  return jsonResponse(201, entryJson(e));
}

function replace(ctx: ServerContext, r: ResourceRoute, text: string): Response {
  if (r.subresource === "scale") {
    const old = r.table.get(
      keyOf(r.table.type.namespaced ? r.namespace : "", r.name!),
    );
    if (!old) throw notFound(r.table.type.resource, r.name!);
    let scale: unknown;
    try {
      scale = JSON.parse(text);
    } catch (err) {
      throw badRequest(`error decoding Scale: ${(err as Error).message}`);
    }
    return updateScale(ctx, r, old, scale);
  }
  const obj = parseBody(r.table, text);
  checkNamespace(r, obj);
  const e = ctx.cluster.update(r.table, obj, {
    namespace: r.namespace,
    name: r.name,
    statusOnly: r.subresource === "status",
  });
  return jsonResponse(200, entryJson(e));
}

const PATCH_TYPES = new Set([
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
]);

async function patch(
  ctx: ServerContext,
  r: ResourceRoute,
  req: Request,
  q: URLSearchParams,
): Promise<Response> {
  const contentType = (req.headers.get("content-type") ?? "").split(";")[0]
    .trim();
  if (!PATCH_TYPES.has(contentType)) return unsupportedMediaType();
  const text = await req.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw badRequest(`error decoding patch: ${(err as Error).message}`);
  }
  const { table } = r;
  const ns = table.type.namespaced ? r.namespace : "";
  const old = table.get(keyOf(ns, r.name!));
  if (contentType === "application/apply-patch+yaml") {
    if (!q.get("fieldManager")) {
      throw statusError(
        failure(
          400,
          "BadRequest",
          "PATCH apply requires fieldManager",
        ),
      );
    }
    if (!old) {
      const obj = body as KubeObject;
      checkNamespace(r, obj);
      if (table.type.namespaced && !ctx.cluster.namespaceExists(r.namespace)) {
        throw notFound("namespaces", r.namespace);
      }
      const e = ctx.cluster.create(table, {
        ...obj,
        metadata: { ...obj.metadata, name: r.name },
      }, r.namespace);
      return jsonResponse(201, entryJson(e));
    }
  }
  if (!old) throw notFound(table.type.resource, r.name!);
  const current = r.subresource === "scale"
    ? scaleOf(old)
    : JSON.parse(entryJson(old));
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
  if (r.subresource === "scale") return updateScale(ctx, r, old, next);
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
    statusOnly: r.subresource === "status",
  });
  return jsonResponse(200, entryJson(e));
}

function updateScale(
  ctx: ServerContext,
  r: ResourceRoute,
  old: Entry,
  scale: unknown,
): Response {
  const e = ctx.cluster.update(r.table, withScale(old, scale), {
    namespace: r.namespace,
    name: r.name,
  });
  return ok(scaleOf(e));
}

function deleteObject(
  ctx: ServerContext,
  r: ResourceRoute,
  text: string,
): Response {
  let pre: { resourceVersion?: string; uid?: string } = {};
  if (text.trim() !== "") {
    try {
      pre = JSON.parse(text)?.preconditions ?? {};
    } catch (err) {
      throw badRequest(
        `error decoding DeleteOptions: ${(err as Error).message}`,
      );
    }
  }
  const { table } = r;
  const res = ctx.cluster.delete(table, r.namespace, r.name!, pre);
  const returnsObject = !res.removed ||
    (table.type.group === "" &&
      (table.type.resource === "pods" || table.type.resource === "namespaces"));
  if (returnsObject) return jsonResponse(200, entryJson(res.entry));
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

function deleteCollection(
  ctx: ServerContext,
  r: ResourceRoute,
  q: URLSearchParams,
): Response {
  const { table } = r;
  const match = both(
    labelMatcher(q.get("labelSelector")),
    fieldMatcher(table.type, q.get("fieldSelector")),
  );
  const [s, e] = namespaceRange(table.sorted(), r.namespace);
  const victims = table.sorted().slice(s, e).filter((x) =>
    !match || match(x.obj)
  );
  const deleted: Entry[] = [];
  for (const v of victims) {
    deleted.push(ctx.cluster.delete(table, v.namespace, v.name).entry);
  }
  return listResponse(table, deleted, {
    resourceVersion: String(ctx.cluster.rv),
  });
}
