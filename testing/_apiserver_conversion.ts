/**
 * The versions of a custom resource other than the stored one, as
 * kube-apiserver serves them (`apiextensions-apiserver`
 * `pkg/apiserver/conversion`): a request in a served version that is not
 * the storage version reads and writes the same objects, converted on the
 * way out (GET, LIST, WATCH, the answer of a write) and on the way in (the
 * body of a POST or PUT). With `spec.conversion.strategy: None` only
 * `apiVersion` changes; with `Webhook` the CRD's conversion webhook is
 * called with a ConversionReview (`clientConfig.url`, or a service through
 * the server's `serviceResolver`; `caBundle` trusted; 30 s, as
 * kube-apiserver's conversion client), its answer checked as
 * `webhookConverter` does (uid, count, kind, name, namespace, uid; only
 * labels and annotations of the metadata kept). Internal to
 * `FakeApiServer`.
 *
 * @module
 */

import type { ConversionReview } from "../api/conversion_review.ts";
import { StatusError } from "../api/errors.ts";
import type { KubeObject } from "../api/object.ts";
import { errorMessage } from "../api/validate.ts";
import type { ResourceRoute, ServerContext } from "./_apiserver_context.ts";
import { failure } from "./_apiserver_status.ts";
import type { Table } from "./_apiserver_store.ts";

/** kube-apiserver's conversion webhook client timeout. */
const CONVERSION_TIMEOUT_MS = 30_000;

interface CrdConversion {
  strategy?: string;
  webhook?: {
    clientConfig?: {
      url?: string;
      service?: {
        namespace: string;
        name: string;
        path?: string;
        port?: number;
      };
      caBundle?: string;
    };
    conversionReviewVersions?: string[];
  };
}

interface CrdShape {
  spec?: {
    group?: string;
    names?: { plural?: string; kind?: string };
    versions?: { name: string; served?: boolean; storage?: boolean }[];
    conversion?: CrdConversion;
  };
}

function crdOf(ctx: ServerContext, table: Table): CrdShape | undefined {
  const crds = ctx.cluster.find(
    "apiextensions.k8s.io",
    "v1",
    "customresourcedefinitions",
  );
  return crds?.get(`${table.type.resource}.${table.type.group}`)?.obj as
    | CrdShape
    | undefined;
}

/**
 * The table of a custom resource served in `version` of `group` without
 * being stored in it: the CRD lists the version as served, another one is
 * the table's (storage) version.
 */
export function convertedTable(
  ctx: ServerContext,
  group: string,
  version: string,
  resource: string,
): Table | undefined {
  if (group === "") return undefined;
  const table = ctx.cluster.tables.find((t) =>
    t.type.group === group && t.type.resource === resource &&
    t.type.version !== version
  );
  if (!table || !table.strategy.unstructured) return undefined;
  const crd = crdOf(ctx, table);
  const v = crd?.spec?.versions?.find((x) => x.name === version);
  return v?.served ? table : undefined;
}

/** The group's versions a CRD serves besides the stored one, for discovery. */
export function convertedVersions(
  ctx: ServerContext,
  group: string,
  version: string,
): Table[] {
  return ctx.cluster.tables.filter((t) =>
    t.type.group === group && t.type.version !== version &&
    convertedTable(ctx, group, version, t.type.resource) === t
  );
}

function gvkText(apiVersion: string, kind: string): string {
  return `${apiVersion}, Kind=${kind}`;
}

/**
 * Convert objects of the table's kind to `toApiVersion`, in one call of
 * the webhook (objects already in it are left out, as kube-apiserver does).
 * @throws {StatusError} 500 InternalError when the webhook fails
 */
export async function convertObjects(
  ctx: ServerContext,
  table: Table,
  objs: KubeObject[],
  toApiVersion: string,
): Promise<KubeObject[]> {
  const todo = objs.map((o, i) => [o, i] as const).filter(([o]) =>
    o.apiVersion !== toApiVersion
  );
  if (todo.length === 0) return objs;
  const conversion = crdOf(ctx, table)?.spec?.conversion;
  const out = [...objs];
  if (conversion?.strategy !== "Webhook") {
    for (const [o, i] of todo) out[i] = { ...o, apiVersion: toApiVersion };
    return out;
  }
  const from = gvkText(
    todo[0][0].apiVersion ?? table.apiVersion,
    table.type.kind,
  );
  let converted: KubeObject[];
  try {
    converted = await callWebhook(
      ctx,
      conversion,
      todo.map(([o]) => o),
      toApiVersion,
      from,
    );
  } catch (err) {
    throw internal(errorMessage(err));
  }
  for (let n = 0; n < todo.length; n++) {
    const [original, i] = todo[n];
    const c = converted[n];
    const prefix =
      `conversion webhook for ${from} returned invalid object at index ${n}`;
    if (c === null || typeof c !== "object" || Array.isArray(c)) {
      throw internal(`${prefix}: not an object`);
    }
    if (c.apiVersion !== toApiVersion) {
      throw internal(
        `${prefix}: invalid groupVersion (expected ${toApiVersion}, received ${
          c.apiVersion ?? ""
        })`,
      );
    }
    for (
      const [what, a, b] of [
        ["kind", original.kind ?? table.type.kind, c.kind],
        ["name", original.metadata.name, c.metadata?.name],
        ["namespace", original.metadata.namespace, c.metadata?.namespace],
        ["UID", original.metadata.uid, c.metadata?.uid],
      ] as const
    ) {
      if ((a ?? "") !== (b ?? "")) {
        throw internal(
          `conversion webhook for ${from} returned invalid object: must have the same ${what}: ${
            a ?? ""
          } != ${b ?? ""}`,
        );
      }
    }
    // restoreObjectMeta: the original metadata, the webhook's labels and annotations.
    const metadata = structuredClone(original.metadata);
    for (const f of ["labels", "annotations"] as const) {
      const v = c.metadata?.[f];
      if (v === undefined || v === null) delete metadata[f];
      else metadata[f] = v;
    }
    out[i] = { ...c, metadata };
  }
  return out;
}

function internal(message: string): StatusError {
  return new StatusError(
    failure(500, "InternalError", `Internal error occurred: ${message}`, {
      causes: [{ message }],
    }),
  );
}

async function callWebhook(
  ctx: ServerContext,
  conversion: CrdConversion,
  objects: KubeObject[],
  desiredAPIVersion: string,
  from: string,
): Promise<KubeObject[]> {
  const versions = conversion.webhook?.conversionReviewVersions ?? [];
  if (!versions.includes("v1") && !versions.includes("v1beta1")) {
    throw new Error("no supported conversion review versions");
  }
  const apiVersion = versions.includes("v1")
    ? "apiextensions.k8s.io/v1"
    : "apiextensions.k8s.io/v1beta1";
  const cc = conversion.webhook?.clientConfig ?? {};
  let url: string | undefined = cc.url;
  if (!url && cc.service) {
    const base = ctx.serviceResolver?.({
      namespace: cc.service.namespace,
      name: cc.service.name,
      port: cc.service.port ?? 443,
    });
    if (base) url = base.replace(/\/$/, "") + (cc.service.path ?? "");
  }
  if (!url) {
    throw new Error(
      `conversion webhook for ${from} failed: the webhook's service cannot be resolved: the FakeApiServer has no serviceResolver for it`,
    );
  }
  const uid = crypto.randomUUID();
  const review = {
    apiVersion,
    kind: "ConversionReview",
    request: { uid, desiredAPIVersion, objects },
  };
  const abort = new AbortController();
  let timedOut = false;
  const timer = ctx.clock.sleep(CONVERSION_TIMEOUT_MS, abort.signal).then(
    () => {
      timedOut = true;
      abort.abort();
    },
    () => {},
  );
  const onClose = () => abort.abort();
  ctx.closing.addEventListener("abort", onClose);
  const client = cc.caBundle
    ? Deno.createHttpClient({ caCerts: [atob(cc.caBundle)] })
    : undefined;
  let answer: ConversionReview;
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
      },
      body: JSON.stringify(review),
      signal: abort.signal,
      client,
    });
    const text = await res.text();
    if (res.status < 200 || res.status > 299) {
      throw new Error(
        `the server responded with the status code ${res.status} but did not return more information`,
      );
    }
    answer = JSON.parse(text);
  } catch (err) {
    const why = timedOut ? "context deadline exceeded" : errorMessage(err);
    throw new Error(
      `conversion webhook for ${from} failed: Post "${url}": ${why}`,
    );
  } finally {
    abort.abort();
    await timer;
    ctx.closing.removeEventListener("abort", onClose);
    client?.close();
  }
  const failed = (why: string) =>
    new Error(`conversion webhook for ${from} failed: ${why}`);
  if (answer === null || typeof answer !== "object") {
    throw failed("the answer is not a ConversionReview");
  }
  if (
    apiVersion === "apiextensions.k8s.io/v1" &&
    (answer.apiVersion !== apiVersion || answer.kind !== "ConversionReview")
  ) {
    throw failed(
      `expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${
        answer.apiVersion ?? ""
      }, Kind=${answer.kind ?? ""}`,
    );
  }
  const res = answer.response;
  if (!res) throw failed("no response provided");
  if (apiVersion === "apiextensions.k8s.io/v1" && res.uid !== uid) {
    throw failed(`expected response.uid="${uid}", got "${res.uid ?? ""}"`);
  }
  if (res.result?.status !== "Success") {
    throw failed(
      res.result?.message ||
        `response.result.status was '${
          res.result?.status ?? ""
        }', not 'Success'`,
    );
  }
  const converted = Array.isArray(res.convertedObjects)
    ? res.convertedObjects
    : [];
  if (converted.length !== objects.length) {
    throw new Error(
      `conversion webhook for ${from} returned ${converted.length} objects, expected ${objects.length}`,
    );
  }
  return converted;
}

/**
 * Serve a request in a version the table does not store: the body of a
 * POST or PUT converted to the stored version, `handle` run as for the
 * stored version, its JSON answer (an object, a list, a watch stream)
 * converted to the requested version. PATCH is refused (415): a patch is
 * written against the requested version's shape, which the fake does not
 * convert back and forth.
 */
export async function serveConverted(
  ctx: ServerContext,
  req: Request,
  r: ResourceRoute,
  version: string,
  handle: (req: Request) => Promise<Response>,
): Promise<Response> {
  const table = r.table;
  const asked = `${table.type.group}/${version}`;
  const stored = table.apiVersion;
  if (req.method === "PATCH") {
    return new Response(
      JSON.stringify(
        failure(
          415,
          "UnsupportedMediaType",
          `FakeApiServer does not patch ${table.type.resource}.${table.type.group} in ${version}, a version it converts; patch ${stored}`,
        ),
      ),
      { status: 415, headers: { "content-type": "application/json" } },
    );
  }
  let inner = req;
  if (
    (req.method === "POST" || req.method === "PUT") &&
    r.subresource === undefined
  ) {
    const text = await req.text();
    let body: KubeObject | undefined;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined; // the handler answers the decoding error
    }
    let out = text;
    if (
      body && typeof body === "object" && body.apiVersion === asked &&
      body.kind === table.type.kind
    ) {
      const [converted] = await convertObjects(ctx, table, [body], stored);
      out = JSON.stringify(converted);
    }
    inner = new Request(req.url, {
      method: req.method,
      headers: req.headers,
      body: out,
    });
  }
  const res = await handle(inner);
  if (
    !(res.headers.get("content-type") ?? "").includes("application/json") ||
    !res.body
  ) {
    return res;
  }
  const watching = ["true", "1"].includes(
    new URL(req.url).searchParams.get("watch") ?? "",
  );
  if (watching) return convertWatch(ctx, table, res, asked);
  const doc = await res.json();
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  const reply = (v: unknown) =>
    new Response(JSON.stringify(v), { status: res.status, headers });
  if (doc?.kind === table.type.kind && doc.apiVersion === stored) {
    return reply((await convertObjects(ctx, table, [doc], asked))[0]);
  }
  if (doc?.kind === `${table.type.kind}List` && Array.isArray(doc.items)) {
    const items = (doc.items as KubeObject[]).map((o) => ({
      apiVersion: stored,
      kind: table.type.kind,
      ...o,
    }));
    doc.items = await convertObjects(ctx, table, items, asked);
    doc.apiVersion = asked;
    return reply(doc);
  }
  return reply(doc);
}

/** A watch stream with each event's object converted, in order. */
function convertWatch(
  ctx: ServerContext,
  table: Table,
  res: Response,
  asked: string,
): Response {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffered = "";
  const convertLine = async (line: string): Promise<string | null> => {
    if (line.trim() === "") return "";
    const ev = JSON.parse(line);
    const obj = ev.object as KubeObject | undefined;
    if (obj?.kind === table.type.kind && obj.apiVersion !== asked) {
      if (ev.type === "BOOKMARK") ev.object = { ...obj, apiVersion: asked };
      else {
        try {
          ev.object = (await convertObjects(ctx, table, [obj], asked))[0];
        } catch {
          return null; // kube-apiserver ends a watch whose object cannot be converted
        }
      }
    }
    return `${JSON.stringify(ev)}\n`;
  };
  const body = res.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        buffered += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffered.indexOf("\n")) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          const out = await convertLine(line);
          if (out === null) {
            controller.terminate();
            return;
          }
          if (out) controller.enqueue(encoder.encode(out));
        }
      },
    }),
  );
  return new Response(body, { status: res.status, headers: res.headers });
}
