/**
 * The fake API server's OpenAPI v3 (`/openapi/v3` and one document per
 * group/version), as kube-apiserver serves it: the index lists each
 * document's `serverRelativeURL` with the SHA-512 of its bytes as `hash`;
 * a document holds the paths of the group/version's resources (each
 * operation naming its action and kind) and the schemas they use. Built-in
 * kinds have the schemas a real kube-apiserver v1.26 published (recorded in
 * `openapi/kube-v1.26.json`, loaded on the first request); an established
 * CustomResourceDefinition publishes every served version from its
 * schemas, as apiextensions-apiserver does. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { Condition } from "../api/types.ts";
import type { JsonSchema, OpenApiDocument } from "../gen/mod.ts";
import type { Table } from "./_apiserver_store.ts";
import { VERSION_INFO } from "./_apiserver_discovery.ts";

const META = "io.k8s.apimachinery.pkg.apis.meta.v1.";
/** Schemas of the operations every document of a real server holds. */
const OPERATION_SCHEMAS = [
  `${META}DeleteOptions`,
  `${META}Patch`,
  `${META}Status`,
  `${META}WatchEvent`,
];

/** A served document: its bytes and their hash. */
export interface ServedDocument {
  /** The JSON text. */
  json: string;
  /** Upper-case hex SHA-512 of the text, as kube-apiserver computes it. */
  hash: string;
}

let recorded: Promise<Record<string, JsonSchema>> | undefined;

function recordedSchemas(): Promise<Record<string, JsonSchema>> {
  recorded ??= import("./openapi/kube-v1.26.json", {
    with: { type: "json" },
  }).then((m) => m.default as Record<string, JsonSchema>);
  return recorded;
}

/** `group/version/Kind` → recorded schema name. */
let kindIndex: Map<string, string> | undefined;

function kindsOf(schemas: Record<string, JsonSchema>): Map<string, string> {
  if (kindIndex) return kindIndex;
  kindIndex = new Map();
  for (const [name, s] of Object.entries(schemas)) {
    if (name.startsWith("io.k8s.apimachinery.")) continue;
    for (const g of s["x-kubernetes-group-version-kind"] ?? []) {
      kindIndex.set(`${g.group}/${g.version}/${g.kind}`, name);
    }
  }
  return kindIndex;
}

// The documents of the last set of tables asked about, by its signature.
let cache: { signature: string; docs: Map<string, ServedDocument> } | undefined;

/**
 * The documents of what the tables serve, by path (`api/v1`,
 * `apis/apps/v1`), rebuilt only when the tables or CRDs change.
 */
export async function openapiDocuments(
  tables: readonly Table[],
): Promise<Map<string, ServedDocument>> {
  const crds = tables.find((t) =>
    t.type.group === "apiextensions.k8s.io" &&
    t.type.resource === "customresourcedefinitions"
  );
  const established = (crds?.sorted() ?? []).filter((e) =>
    ((e.obj as { status?: { conditions?: Condition[] } }).status
      ?.conditions ?? []).some((c) =>
        c.type === "Established" && c.status === "True"
      )
  );
  const signature = JSON.stringify([
    tables.map((t) => [
      t.type.group,
      t.type.version,
      t.type.resource,
      t.type.kind,
      t.type.namespaced,
      Object.keys(t.strategy.subresources ?? {}),
    ]),
    established.map((e) => [e.name, e.rv]),
  ]);
  if (cache?.signature === signature) return cache.docs;
  const schemas = await recordedSchemas();
  const docs = await build(tables, established.map((e) => e.obj), schemas);
  cache = { signature, docs };
  return docs;
}

async function build(
  tables: readonly Table[],
  crds: readonly unknown[],
  recordedSchemas: Record<string, JsonSchema>,
): Promise<Map<string, ServedDocument>> {
  // Loaded on the first /openapi/v3 request: a server (or the CLI's demo)
  // that is never asked does not load the generator.
  const { crdOpenApi, openApiPaths } = await import("../gen/mod.ts");
  const kinds = kindsOf(recordedSchemas);
  const documents = new Map<string, OpenApiDocument>();
  const covered = new Set<string>();
  const meta = closure(recordedSchemas, [
    `${META}ObjectMeta`,
    `${META}ListMeta`,
    ...OPERATION_SCHEMAS,
  ]);
  for (const crd of crds) {
    let out;
    try {
      out = crdOpenApi(crd, meta);
    } catch {
      continue; // not a CRD the generator reads: nothing published
    }
    for (const [path, doc] of Object.entries(out.documents)) {
      const had = documents.get(path);
      documents.set(path, had ? merge(had, doc) : doc);
    }
    for (const list of out.discovery) {
      for (const r of list.resources) {
        covered.add(`${list.groupVersion}/${r.name}`);
      }
    }
  }
  const builtin = new Map<
    string,
    {
      paths: OpenApiDocument["paths"];
      roots: string[];
      own: Record<string, JsonSchema>;
    }
  >();
  for (const t of tables) {
    const gv = t.type.group === ""
      ? t.type.version
      : `${t.type.group}/${t.type.version}`;
    if (covered.has(`${gv}/${t.type.resource}`)) continue;
    const path = t.type.group === "" ? `api/${gv}` : `apis/${gv}`;
    let entry = builtin.get(path);
    if (!entry) builtin.set(path, entry = { paths: {}, roots: [], own: {} });
    const key = `${t.type.group}/${t.type.version}/${t.type.kind}`;
    let schema = kinds.get(key);
    let listSchema = kinds.get(`${key}List`);
    if (!schema) {
      // A kind no recorded server had: any object.
      schema = `${t.type.group || "core"}.${t.type.version}.${t.type.kind}`;
      listSchema = undefined;
      entry.own[schema] = {
        type: "object",
        "x-kubernetes-group-version-kind": [{
          group: t.type.group,
          version: t.type.version,
          kind: t.type.kind,
        }],
        "x-kubernetes-preserve-unknown-fields": true,
      };
    }
    entry.roots.push(schema, ...(listSchema ? [listSchema] : []));
    Object.assign(
      entry.paths!,
      openApiPaths({
        group: t.type.group,
        version: t.type.version,
        resource: t.type.resource,
        kind: t.type.kind,
        namespaced: t.type.namespaced,
        schema,
        listSchema,
        subresources: Object.keys(t.strategy.subresources ?? {}).sort(),
      }),
    );
  }
  for (const [path, e] of builtin) {
    const doc: OpenApiDocument = {
      openapi: "3.0.0",
      info: { title: "Kubernetes", version: VERSION_INFO.gitVersion },
      paths: sortKeys(e.paths ?? {}),
      components: {
        schemas: sortKeys({
          ...closure(recordedSchemas, [...e.roots, ...OPERATION_SCHEMAS]),
          ...e.own,
        }),
      },
    };
    const had = documents.get(path);
    documents.set(path, had ? merge(doc, had) : doc);
  }
  const out = new Map<string, ServedDocument>();
  for (const path of [...documents.keys()].sort()) {
    const json = JSON.stringify(documents.get(path));
    out.set(path, { json, hash: await sha512(json) });
  }
  return out;
}

/** The named schemas `roots` reach through `$ref`s, themselves included. */
function closure(
  schemas: Record<string, JsonSchema>,
  roots: readonly string[],
): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const queue = [...roots];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (name in out || !(name in schemas)) continue;
    out[name] = schemas[name];
    const text = JSON.stringify(schemas[name]);
    for (
      const m of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)
    ) {
      queue.push(m[1]);
    }
  }
  return out;
}

function merge(a: OpenApiDocument, b: OpenApiDocument): OpenApiDocument {
  return {
    ...a,
    paths: sortKeys({ ...a.paths, ...b.paths }),
    components: {
      schemas: sortKeys({ ...a.components?.schemas, ...b.components?.schemas }),
    },
  };
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

async function sha512(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-512",
    new TextEncoder().encode(text),
  );
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0"))
    .join("").toUpperCase();
}
