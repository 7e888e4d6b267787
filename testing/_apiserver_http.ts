/**
 * The HTTP side of the fake API server: authentication, fault injection,
 * routing of /api and /apis paths to discovery, health and the per-verb
 * handlers (`_apiserver_handle_*.ts`), with the encoder content
 * negotiation picked. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { Status } from "../api/object.ts";
import { StatusError } from "../api/errors.ts";
import {
  methodNotAllowed,
  ok,
  type ResourceRoute,
  type ServerContext,
  statusResponse,
  textNotFound,
  unsupportedMediaType,
} from "./_apiserver_context.ts";
import {
  coreVersions,
  group as groupDocument,
  groupList,
  resourceList,
  VERSION_INFO,
} from "./_apiserver_discovery.ts";
import { negotiate } from "./_apiserver_encode.ts";
import { openapiDocuments } from "./_apiserver_openapi.ts";
import {
  failureResponse,
  splitBody,
  takeFailure,
} from "./fake_api_server_faults.ts";
import { deleteCollection, deleteObject } from "./_apiserver_handle_delete.ts";
import { parseDeleteOptions } from "./_apiserver_delete_options.ts";
import { list } from "./_apiserver_handle_list.ts";
import { watch } from "./_apiserver_handle_watch.ts";
import {
  create,
  getObject,
  patch,
  post,
  replace,
} from "./_apiserver_handle_write.ts";
import type { Table } from "./_apiserver_store.ts";
import {
  convertedTable,
  convertedVersions,
  serveConverted,
} from "./_apiserver_conversion.ts";
import { failure, noSuchResource } from "./_apiserver_status.ts";

export type { ServerContext } from "./_apiserver_context.ts";

const PUBLIC_PATHS = new Set(["/healthz", "/livez", "/readyz", "/version"]);

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
    ? resolve((res) => ctx.cluster.find(g ?? "", v ?? "", res), rest)
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
      return openapiDocuments(ctx.cluster.tables).then((docs) =>
        ok({
          paths: Object.fromEntries(
            [...docs].map(([p, d]) => [p, {
              serverRelativeURL: `/openapi/v3/${p}?hash=${d.hash}`,
            }]),
          ),
        })
      );
  }
  if (path.startsWith("/openapi/v3/")) {
    return openapiDocuments(ctx.cluster.tables).then((docs) => {
      const doc = docs.get(path.slice("/openapi/v3/".length));
      if (!doc) return textNotFound();
      return new Response(doc.json, {
        headers: {
          "content-type": "application/json",
          // A URL with the current hash never changes, as on a real server.
          "cache-control": url.searchParams.get("hash") === doc.hash
            ? "public, immutable"
            : "no-cache, private",
          etag: `"${doc.hash}"`,
        },
      });
    });
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
  let served = resourceList(ctx.cluster.tables, group, version);
  const converted = convertedVersions(ctx, group, version);
  if (converted.length > 0) {
    // Discovery of a version only converted to: its resources are listed too.
    const more = resourceList(converted, group, converted[0].type.version) as
      | { resources: unknown[] }
      | undefined;
    const doc = (served ?? {
      kind: "APIResourceList",
      apiVersion: "v1",
      groupVersion: `${group}/${version}`,
      resources: [],
    }) as { resources: unknown[] };
    doc.resources = [...doc.resources, ...(more?.resources ?? [])];
    served = doc;
  }
  if (served === undefined) {
    return group === ""
      ? statusResponse(noSuchResource().status)
      : textNotFound();
  }
  if (rest.length === 0) return ok(served);
  const r = resolve((res) => ctx.cluster.find(group, version, res), rest);
  if (r) return dispatch(ctx, req, url, r);
  // A custom resource's version served but not stored: converted.
  const c = resolve((res) => convertedTable(ctx, group, version, res), rest);
  if (!c) throw noSuchResource();
  return serveConverted(
    ctx,
    req,
    c,
    version,
    (inner) => dispatch(ctx, inner, url, c),
  );
}

function resolve(
  find: (resource: string) => Table | undefined,
  rest: string[],
): ResourceRoute | undefined {
  const nsTable = rest[0] === "namespaces" ? find("namespaces") : undefined;
  if (rest.length === 3 && nsTable?.strategy.subresources?.[rest[2]]) {
    // namespaces/{name}/finalize and /status: a namespace's subresource.
    return {
      table: nsTable,
      namespace: "",
      name: rest[1],
      subresource: rest[2],
    };
  }
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
        const enc = negotiate(
          req.headers.get("accept"),
          q,
          () => ctx.clock.now(),
        );
        return w === "true" || w === "1"
          ? watch(ctx, r, q, enc)
          : list(ctx, r, q, enc);
      }
      case "POST":
        return create(ctx, r, await req.text(), q);
      case "DELETE":
        return deleteCollection(
          ctx,
          r,
          parseDeleteOptions(await req.text(), q),
          q,
        );
      default:
        return methodNotAllowed();
    }
  }
  switch (req.method) {
    case "GET":
      return getObject(
        ctx,
        r,
        negotiate(req.headers.get("accept"), q, () => ctx.clock.now()),
        q,
      );
    case "POST":
      if (r.subresource !== undefined) return post(ctx, r, await req.text());
      return methodNotAllowed();
    case "PUT":
      return replace(ctx, r, await req.text(), q);
    case "PATCH":
      return patch(ctx, r, req, q);
    case "DELETE":
      if (r.subresource !== undefined) throw noSuchResource();
      return deleteObject(ctx, r, parseDeleteOptions(await req.text(), q));
    default:
      return methodNotAllowed();
  }
}
