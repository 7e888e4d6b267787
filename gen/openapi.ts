/**
 * The generator of typed resources from OpenAPI v3: the documents a
 * kube-apiserver serves at `/openapi/v3/<api|apis/group>/<version>` (or a
 * saved one) become one TypeScript module per group/version, with an
 * interface per kind and a `ResourceType` descriptor per resource, so
 * `factory.informerFor(Widgets)` and `client.create(Widgets, ...)` are
 * typed. The counterpart of client-go's code-generator (typed clients from
 * Go structs) and kube-rs's kopium (Rust structs from CRDs).
 *
 * @module
 */

import {
  descriptorHead,
  importLines,
  interfaceHead,
  jsDoc,
  LINE_WIDTH,
  literal,
  propertyKey,
  propertyLines,
} from "./_writer.ts";
import type { ResourceType } from "../api/resource_type.ts";
import { checkObject, checkOptions, show } from "../api/validate.ts";

/**
 * A JSON Schema of an OpenAPI v3 document as Kubernetes writes it: the
 * structural subset with the `x-kubernetes-*` extensions.
 *
 * @example A CRD's spec schema
 * ```ts
 * import type { JsonSchema } from "@kubecache/core/gen";
 * import assert from "node:assert/strict";
 *
 * const spec: JsonSchema = {
 *   type: "object",
 *   required: ["size"],
 *   properties: { size: { type: "string", enum: ["small", "large"] } },
 * };
 * assert.deepEqual(spec.required, ["size"]);
 * ```
 */
export interface JsonSchema {
  /** `object`, `array`, `string`, `integer`, `number` or `boolean`. */
  type?: string;
  /** Text of the field or type; becomes its JSDoc. */
  description?: string;
  /** Fields of an object. */
  properties?: Record<string, JsonSchema>;
  /** Names of the fields that must be present. */
  required?: string[];
  /** Schema of an array's items. */
  items?: JsonSchema;
  /** Schema of a map's values (`true`: any value). */
  additionalProperties?: JsonSchema | boolean;
  /** The values allowed. */
  enum?: unknown[];
  /** `date-time`, `int32`, `int-or-string`, `byte`, ... */
  format?: string;
  /** Whether `null` is allowed. */
  nullable?: boolean;
  /** A reference to a named schema: `#/components/schemas/<name>`. */
  $ref?: string;
  /** All of these (Kubernetes wraps a `$ref` with a description in one). */
  allOf?: JsonSchema[];
  /** Any of these. */
  anyOf?: JsonSchema[];
  /** One of these. */
  oneOf?: JsonSchema[];
  /** Kinds a named schema is the object of. */
  "x-kubernetes-group-version-kind"?: GroupVersionKind[];
  /** Other keywords and extensions. */
  [keyword: string]: unknown;
}

/**
 * A kind of a group/version (apimachinery `schema.GroupVersionKind`).
 *
 * @example The Deployment kind
 * ```ts
 * import type { GroupVersionKind } from "@kubecache/core/gen";
 * import assert from "node:assert/strict";
 *
 * const gvk: GroupVersionKind = { group: "apps", version: "v1", kind: "Deployment" };
 * assert.equal(`${gvk.group}/${gvk.version}`, "apps/v1");
 * ```
 */
export interface GroupVersionKind {
  /** API group; `""` for the core group. */
  group: string;
  /** API version, e.g. `"v1"`. */
  version: string;
  /** Kind, e.g. `"Deployment"`. */
  kind: string;
}

/**
 * An OpenAPI v3 document, as `GET /openapi/v3/apis/<group>/<version>`
 * answers: the operations under `paths` (each naming its kind and action)
 * and the named schemas under `components.schemas`.
 *
 * @example The smallest document with a kind
 * ```ts
 * import type { OpenApiDocument } from "@kubecache/core/gen";
 * import assert from "node:assert/strict";
 *
 * const doc: OpenApiDocument = {
 *   openapi: "3.0.0",
 *   paths: {},
 *   components: { schemas: { "com.example.v1.Widget": { type: "object" } } },
 * };
 * assert.equal(Object.keys(doc.components?.schemas ?? {}).length, 1);
 * ```
 */
export interface OpenApiDocument {
  /** The OpenAPI version, `"3.0.0"`. */
  openapi?: string;
  /** Title and version of the API. */
  info?: { title?: string; version?: string };
  /** Operations by path (`get`, `post`, ... each an object). */
  paths?: Record<string, Record<string, unknown>>;
  /** The named schemas. */
  components?: { schemas?: Record<string, JsonSchema> };
  /** Anything else the document holds. */
  [field: string]: unknown;
}

/**
 * One resource of a discovery document (apimachinery `metav1.APIResource`):
 * what `--from-cluster` adds to the OpenAPI paths (short names, singular).
 *
 * @example The pods entry of `/api/v1`
 * ```ts
 * import type { ApiResource } from "@kubecache/core/gen";
 * import assert from "node:assert/strict";
 *
 * const pods: ApiResource = { name: "pods", singularName: "pod", namespaced: true, kind: "Pod", shortNames: ["po"] };
 * assert.deepEqual(pods.shortNames, ["po"]);
 * ```
 */
export interface ApiResource {
  /** Plural resource name; `pods/status` for a subresource (skipped). */
  name: string;
  /** Singular name; empty or absent means the lower-cased kind. */
  singularName?: string;
  /** Whether objects live in namespaces. */
  namespaced: boolean;
  /** Kind of the objects. */
  kind: string;
  /** kubectl short names. */
  shortNames?: string[];
  /** Anything else the entry holds (verbs, categories, ...). */
  [field: string]: unknown;
}

/**
 * A discovery document of one group/version (apimachinery
 * `metav1.APIResourceList`, `GET /api/v1` or `/apis/<group>/<version>`).
 *
 * @example The apps/v1 list with one resource
 * ```ts
 * import type { ApiResourceList } from "@kubecache/core/gen";
 * import assert from "node:assert/strict";
 *
 * const apps: ApiResourceList = {
 *   groupVersion: "apps/v1",
 *   resources: [{ name: "deployments", namespaced: true, kind: "Deployment", shortNames: ["deploy"] }],
 * };
 * assert.equal(apps.resources[0].kind, "Deployment");
 * ```
 */
export interface ApiResourceList {
  /** `group/version`, or `v1` for the core group. */
  groupVersion: string;
  /** The resources served there. */
  resources: ApiResource[];
}

/**
 * Options of {@link generateTypes}.
 *
 * @example Only the apps group's Deployment
 * ```ts
 * import type { GenerateOptions } from "@kubecache/core/gen";
 * import assert from "node:assert/strict";
 *
 * const opts: GenerateOptions = { group: "apps", kind: "Deployment" };
 * assert.equal(opts.kind, "Deployment");
 * ```
 */
export interface GenerateOptions {
  /**
   * Discovery documents: short names, singular names and scope of the
   * resources (the OpenAPI paths alone give resource, kind and scope).
   */
  discovery?: readonly ApiResourceList[];
  /**
   * Only this API group (`""` or `"core"` for the core group). The modules
   * holding types its kinds use are written too.
   */
  group?: string;
  /** Only this kind (and its list kind), e.g. `"Widget"`; case-insensitive. */
  kind?: string;
  /** Where the modules import kubecache from. Default `"@kubecache/core"`. */
  importFrom?: string;
  /**
   * Where the example in each module's doc imports the module from: the
   * specifier of the output folder (`"@kubecache/core/api"` gives
   * `"@kubecache/core/api/apps/v1"`). Default: the module itself, relative
   * (`"./v1.ts"`).
   */
  examplesFrom?: string;
}

/** The apimachinery package of ObjectMeta, ListMeta, ... */
const META = "io.k8s.apimachinery.pkg.apis.meta.v1.";
const APIEXT = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.";

/**
 * Named schemas kubecache defines itself: imported, not generated. The
 * well-known shapes (`api/well_known.ts`) are among them, so every group's
 * types and every CRD's share one `LabelSelector`, `Condition`, `Time`, ...
 */
const SHARED: Record<string, string> = {
  [`${META}ObjectMeta`]: "ObjectMeta",
  [`${META}Time`]: "Time",
  "io.k8s.apimachinery.pkg.api.resource.Quantity": "Quantity",
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "IntOrString",
  "io.k8s.api.core.v1.ObjectReference": "ObjectReference",
  "io.k8s.api.core.v1.LocalObjectReference": "LocalObjectReference",
  [`${META}ListMeta`]: "ListMeta",
  [`${META}OwnerReference`]: "OwnerReference",
  [`${META}LabelSelector`]: "LabelSelector",
  [`${META}Condition`]: "Condition",
  [`${META}Status`]: "Status",
  [`${META}StatusDetails`]: "StatusDetails",
  [`${META}StatusCause`]: "StatusCause",
};

/** Named schemas written in place, as Kubernetes serializes them. */
const INLINE: Record<string, string> = {
  // RFC 3339 with microseconds: a string, but not a `Time` (seconds).
  [`${META}MicroTime`]: "string",
  [`${APIEXT}JSON`]: "unknown",
};

/** The JSONSchemaPropsOr* unions of apiextensions, by name. */
const APIEXT_UNIONS: Record<string, string[]> = {
  [`${APIEXT}JSONSchemaPropsOrArray`]: [
    "@JSONSchemaProps",
    "@JSONSchemaProps[]",
  ],
  [`${APIEXT}JSONSchemaPropsOrBool`]: ["@JSONSchemaProps", "boolean"],
  [`${APIEXT}JSONSchemaPropsOrStringArray`]: ["@JSONSchemaProps", "string[]"],
};

/** A resource to describe with `resourceType` (its fields, as kubecache's). */
type Resource =
  & Omit<ResourceType, "singular" | "shortNames" | "subresources">
  & {
    singular?: string;
    shortNames?: string[];
    subresources: Set<string>;
  };

/** One declaration of a module: an interface or a descriptor. */
interface Decl {
  name: string;
  lines: string[];
  /** The resource a descriptor describes. */
  resource?: Resource;
}

/** A module being written: its declarations and what it imports. */
interface ModuleText {
  path: string;
  group: string;
  version: string;
  decls: Decl[];
  values: Decl[];
  /** Local type names taken (interfaces). */
  names: Set<string>;
  /** Imports: module specifier → imported name → local name. */
  imports: Map<string, Map<string, string>>;
}

const OPS = ["get", "put", "post", "patch", "delete"];

/**
 * Generate TypeScript modules from OpenAPI v3 documents: one module per
 * group/version (`apps/v1.ts`, `core/v1.ts`, `example.com/v1.ts`) with an
 * interface per kind (JSDoc from `description`, `required` fields
 * non-optional, `enum` as literal unions, int-or-string as
 * `number | string`, preserve-unknown-fields as `Record<string, unknown>`,
 * quantities and times as the strings Kubernetes writes), the list kinds,
 * the types they use (`$ref`s become named interfaces, in the module of
 * their own group/version; ObjectMeta, ListMeta, LabelSelector, Condition
 * and Status are imported from kubecache), and a `ResourceType` descriptor
 * per resource named after its plural (`Deployments`, `Widgets`).
 *
 * Resources, kinds and scope come from the documents' paths (each operation
 * names its kind), short and singular names from `options.discovery`. The
 * output depends only on the input: same documents, same bytes, already as
 * `deno fmt` writes it.
 *
 * @param documents the documents by path (`"apis/apps/v1"`, any key works:
 * documents are read in key order and a schema defined twice is taken from
 * the first)
 * @param options discovery, group and kind filters, import specifier
 * @returns module text by path relative to the output folder, in path order
 * @throws {TypeError} when `documents` is not an object of documents, or an
 * option has the wrong type
 *
 * @example Types for a CRD's document
 * ```ts
 * import { generateTypes } from "@kubecache/core/gen";
 * import assert from "node:assert/strict";
 *
 * const gvk = { group: "example.com", version: "v1", kind: "Widget" };
 * const modules = generateTypes({
 *   "apis/example.com/v1": {
 *     paths: {
 *       "/apis/example.com/v1/namespaces/{namespace}/widgets": {
 *         get: { "x-kubernetes-action": "list", "x-kubernetes-group-version-kind": gvk },
 *       },
 *     },
 *     components: {
 *       schemas: {
 *         "com.example.v1.Widget": {
 *           type: "object",
 *           "x-kubernetes-group-version-kind": [gvk],
 *           properties: {
 *             metadata: { $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" },
 *             spec: { type: "object", required: ["size"], properties: { size: { type: "string", enum: ["small", "large"] } } },
 *           },
 *         },
 *       },
 *     },
 *   },
 * });
 * const text = modules.get("example.com/v1.ts")!;
 * assert.match(text, /export interface Widget extends KubeObject \{/);
 * assert.match(text, /size: "small" \| "large";/);
 * assert.match(text, /export const Widgets: ResourceType<Widget> = resourceType<Widget>\(\{/);
 * ```
 */
export function generateTypes(
  documents: Readonly<Record<string, OpenApiDocument>>,
  options: GenerateOptions = {},
): Map<string, string> {
  checkObject("generateTypes", "documents", documents);
  checkOptions("generateTypes", "options", options);
  for (const key of ["group", "kind", "importFrom"] as const) {
    const v = options[key];
    if (v !== undefined && typeof v !== "string") {
      throw new TypeError(
        `generateTypes: options.${key} must be a string, got ${show(v)}`,
      );
    }
  }
  if (options.discovery !== undefined && !Array.isArray(options.discovery)) {
    throw new TypeError(
      `generateTypes: options.discovery must be an array of APIResourceList documents, got ${
        show(options.discovery)
      }`,
    );
  }
  // The first pass learns every module's local names, so the second can
  // alias an import one of them takes while laying out each line.
  const first = new Generator(documents, options);
  first.run();
  return new Generator(documents, options, first.localNames()).run();
}

class Generator {
  readonly #schemas = new Map<string, JsonSchema>();
  readonly #resources: Resource[] = [];
  /** `group/version/resource` → its subresources. */
  readonly #subresources = new Map<string, Set<string>>();
  /** `group/version/Kind` → schema name. */
  readonly #kinds = new Map<string, string>();
  /** schema package → module path. */
  readonly #packageModule = new Map<string, string>();
  readonly #modules = new Map<string, ModuleText>();
  /** schema name → its interface, once named. */
  readonly #named = new Map<string, { module: ModuleText; name: string }>();
  readonly #queue: string[] = [];
  readonly #options: GenerateOptions;
  readonly #core: string;
  readonly #reserved: Map<string, Set<string>>;

  constructor(
    documents: Readonly<Record<string, OpenApiDocument>>,
    options: GenerateOptions,
    reserved: Map<string, Set<string>> = new Map(),
  ) {
    this.#options = options;
    this.#reserved = reserved;
    this.#core = options.importFrom ?? "@kubecache/core";
    const keys = Object.keys(documents).sort();
    for (const key of keys) {
      const schemas = documents[key]?.components?.schemas ?? {};
      for (const name of Object.keys(schemas).sort()) {
        if (!this.#schemas.has(name)) this.#schemas.set(name, schemas[name]);
      }
    }
    for (const key of keys) this.#readPaths(documents[key]?.paths ?? {});
    this.#readDiscovery(options.discovery ?? []);
    this.#indexKinds();
  }

  run(): Map<string, string> {
    const wanted = this.#selectedKinds();
    for (const name of wanted) this.#enqueue(name);
    while (this.#queue.length > 0) this.#declare(this.#queue.shift()!);
    const kinds = new Set(wanted.map((n) => this.#kindOf(n)));
    for (const r of this.#resources) {
      const schema = this.#kinds.get(`${r.group}/${r.version}/${r.kind}`);
      if (schema && kinds.has(`${r.group}/${r.version}/${r.kind}`)) {
        this.#describe(r, schema);
      }
    }
    const out = new Map<string, string>();
    for (const path of [...this.#modules.keys()].sort()) {
      out.set(path, this.#render(this.#modules.get(path)!));
    }
    return out;
  }

  #kindOf(schemaName: string): string {
    const gvk = this.#schemas.get(schemaName)
      ?.["x-kubernetes-group-version-kind"]?.[0];
    return gvk ? `${gvk.group}/${gvk.version}/${gvk.kind}` : "";
  }

  /** Resources, kinds and scope from the paths' operations. */
  #readPaths(paths: Record<string, Record<string, unknown>>): void {
    for (const path of Object.keys(paths).sort()) {
      const segs = path.split("/").filter((s) => s !== "");
      let group: string, version: string, rest: string[];
      if (segs[0] === "api" && segs.length >= 3) {
        [group, version, rest] = ["", segs[1], segs.slice(2)];
      } else if (segs[0] === "apis" && segs.length >= 4) {
        [group, version, rest] = [segs[1], segs[2], segs.slice(3)];
      } else continue;
      if (rest[0] === "watch") continue;
      let namespaced = false;
      if (
        rest[0] === "namespaces" && rest[1] === "{namespace}" &&
        rest.length >= 3
      ) {
        namespaced = true;
        rest = rest.slice(2);
      }
      if (rest.length === 3 && rest[1].startsWith("{")) {
        this.#addSubresource(group, version, rest[0], rest[2]);
        continue;
      }
      if (rest.length > 2 || (rest.length === 2 && !rest[1].startsWith("{"))) {
        continue; // deeper than a subresource (`nodes/{name}/proxy/{path}`)
      }
      const item = paths[path] ?? {};
      for (const op of OPS) {
        const o = item[op] as Record<string, unknown> | undefined;
        const gvk = o?.["x-kubernetes-group-version-kind"] as
          | GroupVersionKind
          | undefined;
        if (!gvk || gvk.group !== group || gvk.version !== version) continue;
        this.#addResource({
          group,
          version,
          resource: rest[0],
          kind: gvk.kind,
          namespaced,
          subresources: new Set(),
        });
      }
    }
  }

  #addResource(r: Resource, fromDiscovery = false): void {
    const found = this.#resources.find((x) =>
      x.group === r.group && x.version === r.version &&
      x.resource === r.resource
    );
    if (!found) {
      this.#resources.push(r);
      return;
    }
    if (fromDiscovery) {
      found.namespaced = r.namespaced;
      found.kind = r.kind;
      found.singular = r.singular;
      found.shortNames = r.shortNames;
    } else found.namespaced ||= r.namespaced;
  }

  /** A subresource of a resource, from a path or a discovery entry. */
  #addSubresource(
    group: string,
    version: string,
    resource: string,
    sub: string,
  ): void {
    const key = `${group}/${version}/${resource}`;
    if (!this.#subresources.has(key)) this.#subresources.set(key, new Set());
    this.#subresources.get(key)!.add(sub);
  }

  #readDiscovery(lists: readonly ApiResourceList[]): void {
    for (const list of lists) {
      const gv = String(list?.groupVersion ?? "");
      const slash = gv.indexOf("/");
      const [group, version] = slash < 0
        ? ["", gv]
        : [gv.slice(0, slash), gv.slice(slash + 1)];
      for (const e of list?.resources ?? []) {
        if (typeof e?.name !== "string") continue;
        const slash = e.name.indexOf("/");
        if (slash >= 0) {
          this.#addSubresource(
            group,
            version,
            e.name.slice(0, slash),
            e.name.slice(slash + 1),
          );
          continue;
        }
        this.#addResource({
          group,
          version,
          resource: e.name,
          kind: e.kind,
          namespaced: e.namespaced === true,
          singular: e.singularName || undefined,
          shortNames: e.shortNames?.length ? [...e.shortNames] : undefined,
          subresources: new Set(),
        }, true);
      }
    }
  }

  /** Kinds by group/version/kind, and the module of each schema package. */
  #indexKinds(): void {
    const gvsOf = new Map<string, Set<string>>();
    for (const [name, schema] of this.#schemas) {
      if (name.startsWith("io.k8s.apimachinery.")) continue;
      for (const gvk of schema["x-kubernetes-group-version-kind"] ?? []) {
        this.#kinds.set(`${gvk.group}/${gvk.version}/${gvk.kind}`, name);
        const pkg = packageOf(name);
        if (!gvsOf.has(pkg)) gvsOf.set(pkg, new Set());
        gvsOf.get(pkg)!.add(moduleOf(gvk.group, gvk.version));
      }
    }
    for (const [pkg, mods] of gvsOf) {
      if (mods.size === 1) this.#packageModule.set(pkg, [...mods][0]);
    }
  }

  /** The schema names of the kinds the options ask for, in order. */
  #selectedKinds(): string[] {
    const { group, kind } = this.#options;
    const g = group === "core" ? "" : group;
    const k = kind?.toLowerCase();
    const out: string[] = [];
    for (const [gvk, name] of [...this.#kinds].sort(byKey)) {
      const [kg, , kk] = gvk.split("/");
      if (g !== undefined && kg !== g) continue;
      const lk = kk.toLowerCase();
      if (k !== undefined && lk !== k && lk !== `${k}list`) continue;
      if (!out.includes(name)) out.push(name);
    }
    return out;
  }

  #module(path: string, group: string, version: string): ModuleText {
    let m = this.#modules.get(path);
    if (!m) {
      m = {
        path,
        group,
        version,
        decls: [],
        values: [],
        names: new Set(),
        imports: new Map(),
      };
      this.#modules.set(path, m);
    }
    return m;
  }

  #moduleOfSchema(name: string): ModuleText {
    const pkg = packageOf(name);
    const path = this.#packageModule.get(pkg) ??
      `${pkg.split(".").slice(-2).join("/")}.ts`;
    const [group, version] = path.slice(0, -3).split("/");
    return this.#module(path, group === "core" ? "" : group, version);
  }

  /** Give a named schema its interface name and queue it for writing. */
  #enqueue(name: string): { module: ModuleText; name: string } {
    let named = this.#named.get(name);
    if (named) return named;
    const module = this.#moduleOfSchema(name);
    named = { module, name: uniqueName(module, localName(name)) };
    this.#named.set(name, named);
    this.#queue.push(name);
    return named;
  }

  #declare(schemaName: string): void {
    const { module, name } = this.#named.get(schemaName)!;
    const schema = this.#schemas.get(schemaName) ?? {};
    this.#interface(
      module,
      name,
      schema,
      `The ${name} type of ${where(module)}.`,
    );
  }

  /**
   * Write an object schema as an interface (and its inline objects);
   * `fallback` is its JSDoc when the schema has no description (every
   * exported symbol gets one, as `deno doc --lint` asks).
   */
  #interface(
    module: ModuleText,
    name: string,
    schema: JsonSchema,
    fallback: string,
  ): void {
    const props = schema.properties ?? {};
    const required = new Set(schema.required ?? []);
    const gvks = schema["x-kubernetes-group-version-kind"] ?? [];
    // A kind with ObjectMeta is a KubeObject; a template's metadata is not.
    const isObject = isObjectMeta(props.metadata) && gvks.length > 0;
    const lines = jsDoc(schema.description ?? fallback, "");
    const base = isObject
      ? this.#import(module, this.#core, "KubeObject")
      : undefined;
    lines.push(...interfaceHead(name, base));
    // The declaration goes first, so inline types follow their parent.
    module.decls.push({ name, lines });
    for (const key of Object.keys(props).sort()) {
      const prop = props[key];
      const must = required.has(key) || (isObject && key === "metadata");
      const members = typeMeta(gvks, key) ??
        this.#type(module, prop, name, key).members;
      // Every field documented, as `deno doc --lint` asks of exported types.
      lines.push(
        ...jsDoc(descriptionOf(prop) ?? `The \`${key}\` field.`, "  "),
      );
      lines.push(
        ...propertyLines(
          `  ${propertyKey(key)}${must ? "" : "?"}: `,
          members,
          "  ",
        ),
      );
    }
    if (schema["x-kubernetes-preserve-unknown-fields"] === true && !isObject) {
      lines.push("  /** Any other field: the schema keeps unknown fields. */");
      lines.push("  [field: string]: unknown;");
    }
    lines.push(base === undefined ? "};" : "}");
  }

  /**
   * The TypeScript type of the schema of field `key` of type `parent`, as
   * union members; an inline object becomes a type named after its path
   * (`parent` + `Key`).
   */
  #type(
    module: ModuleText,
    schema: JsonSchema | undefined,
    parent: string,
    key: string,
  ): { members: string[] } {
    const members = this.#members(module, schema ?? {}, parent, key);
    const unique = [...new Set(members)];
    return { members: unique.length === 0 ? ["unknown"] : unique };
  }

  #members(
    module: ModuleText,
    s: JsonSchema,
    parent: string,
    key: string,
  ): string[] {
    const nullable = s.nullable === true ? ["null"] : [];
    if (typeof s.$ref === "string") {
      return [...this.#ref(module, s.$ref), ...nullable];
    }
    if (s.allOf?.length === 1 && !s.properties && !s.type) {
      return [...this.#members(module, s.allOf[0], parent, key), ...nullable];
    }
    if (
      s["x-kubernetes-int-or-string"] === true || s.format === "int-or-string"
    ) {
      return [this.#import(module, this.#core, "IntOrString"), ...nullable];
    }
    if (Array.isArray(s.enum) && s.enum.length > 0) {
      const lits = s.enum.filter((v) => v !== null && typeof v !== "object")
        .map(literal);
      if (lits.length > 0) {
        const hasNull = s.enum.includes(null);
        return [...lits, ...(hasNull ? ["null"] : nullable)];
      }
    }
    const alts = s.anyOf ?? s.oneOf;
    if (!s.type && Array.isArray(alts) && alts.length > 0) {
      return [
        ...alts.flatMap((a) => this.#members(module, a, parent, key)),
        ...nullable,
      ];
    }
    switch (s.type) {
      case "string":
        return s.format === "date-time"
          ? [this.#import(module, this.#core, "Time"), ...nullable]
          : ["string", ...nullable];
      case "integer":
      case "number":
        return ["number", ...nullable];
      case "boolean":
        return ["boolean", ...nullable];
      case "array": {
        const item = this.#type(module, s.items, parent, key).members;
        const t = item.length === 1 && !item[0].includes(" | ")
          ? `${item[0]}[]`
          : `(${item.join(" | ")})[]`;
        return [t, ...nullable];
      }
    }
    const props = s.properties ?? {};
    if (Object.keys(props).length > 0) {
      const shared = wellKnownShape(s);
      if (shared) {
        return [this.#import(module, this.#core, shared), ...nullable];
      }
      const name = pathName(module, parent, key);
      this.#interface(module, name, s, `The \`${key}\` field of ${parent}.`);
      return [name, ...nullable];
    }
    if (s["x-kubernetes-preserve-unknown-fields"] === true) {
      return ["Record<string, unknown>", ...nullable];
    }
    const ap = s.additionalProperties;
    if (ap !== undefined && ap !== false) {
      const v = ap === true
        ? ["unknown"]
        : this.#type(module, ap, parent, key).members;
      return [`Record<string, ${v.join(" | ")}>`, ...nullable];
    }
    if (s.type === "object") return ["Record<string, unknown>", ...nullable];
    return ["unknown"];
  }

  /** The type a `$ref` stands for, imported or queued as needed. */
  #ref(module: ModuleText, ref: string): string[] {
    const name = ref.replace(/^#\/components\/schemas\//, "")
      .replace(/^#\/definitions\//, "");
    const shared = SHARED[name];
    // Go writes a zero metav1.Time as null (`lastProbeTime: null`,
    // a template's `creationTimestamp: null`), whatever the schema says.
    if (shared === "Time") {
      return [this.#import(module, this.#core, shared), "null"];
    }
    if (shared) return [this.#import(module, this.#core, shared)];
    if (INLINE[name]) return [INLINE[name]];
    const union = APIEXT_UNIONS[name];
    if (union) {
      return union.map((m) =>
        m.startsWith("@")
          ? m.replace(
            /^@(\w+)/,
            (_, n) => this.#ref(module, `${APIEXT}${n}`)[0],
          )
          : m
      );
    }
    const schema = this.#schemas.get(name);
    if (!schema) return ["unknown"];
    if (Object.keys(schema.properties ?? {}).length === 0) {
      // A scalar or free-form type (Time, IntOrString, RawExtension): in place.
      const { description: _, ...rest } = schema;
      return this.#members(module, rest, localName(name), "");
    }
    const target = this.#enqueue(name);
    if (target.module === module) return [target.name];
    return [
      this.#import(
        module,
        relative(module.path, target.module.path),
        target.name,
      ),
    ];
  }

  /**
   * A name imported into a module, under an alias when a local name of the
   * module takes it (known from the first pass of {@link generateTypes}).
   */
  #import(module: ModuleText, from: string, name: string): string {
    if (!module.imports.has(from)) module.imports.set(from, new Map());
    const names = module.imports.get(from)!;
    const known = names.get(name);
    if (known) return known;
    const taken = this.#reserved.get(module.path) ?? new Set<string>();
    const used = new Set(
      [...module.imports.values()].flatMap((m) => [...m.values()]),
    );
    let local = name;
    if (taken.has(local) || used.has(local)) {
      const prefix = from.startsWith(".")
        ? pascal(from.replace(/\.ts$/, "").replace(/^[./]+/, ""))
        : "Kube";
      local = `${prefix}${name}`;
      while (taken.has(local) || used.has(local)) local += "_";
    }
    names.set(name, local);
    return local;
  }

  /** Every local name of each module: interfaces and descriptors. */
  localNames(): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    for (const [path, m] of this.#modules) {
      out.set(path, new Set([...m.names, ...m.values.map((v) => v.name)]));
    }
    return out;
  }

  /** A `ResourceType` descriptor of a resource. */
  #describe(r: Resource, schemaName: string): void {
    const named = this.#named.get(schemaName);
    if (!named) return;
    const { module, name: type } = named;
    const value = uniqueValue(module, descriptorName(r.kind, r.resource));
    const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
    const rt = this.#import(module, this.#core, "ResourceType");
    const fn = this.#import(module, this.#core, "resourceType");
    const scope = r.namespaced ? "namespaced" : "cluster-scoped";
    const lines = jsDoc(
      `The ${r.resource} resource (${r.kind}, ${scope}) of ${apiVersion}, for\n` +
        "KubeClient calls and informers.",
      "",
    );
    const head = descriptorHead(value, rt, fn, type);
    const i = head.indent;
    lines.push(
      ...head.lines,
      `${i}apiVersion: ${literal(apiVersion)},`,
      `${i}kind: ${literal(r.kind)},`,
      `${i}resource: ${literal(r.resource)},`,
      `${i}namespaced: ${r.namespaced},`,
    );
    if (r.singular && r.singular !== r.kind.toLowerCase()) {
      lines.push(`${i}singular: ${literal(r.singular)},`);
    }
    if (r.shortNames && r.shortNames.length > 0) {
      lines.push(`${i}shortNames: [${r.shortNames.map(literal).join(", ")}],`);
    }
    const subs = [
      ...this.#subresources.get(`${r.group}/${r.version}/${r.resource}`) ?? [],
    ].sort();
    if (subs.length > 0) {
      const one = `${i}subresources: [${subs.map(literal).join(", ")}],`;
      lines.push(
        ...(one.length <= LINE_WIDTH ? [one] : [
          `${i}subresources: [`,
          ...subs.map((x) => `${i}  ${literal(x)},`),
          `${i}],`,
        ]),
      );
    }
    lines.push(head.close);
    module.values.push({ name: value, lines, resource: r });
  }

  /**
   * The module's doc: where its types live and, when it has descriptors,
   * a runnable example of the first.
   */
  #moduleDoc(module: ModuleText): string[] {
    const lines = ["/**", ` * Types of ${where(module)}.`];
    const first = [...module.values].sort((a, b) => caseless(a.name, b.name))
      .find((v) => v.resource !== undefined);
    if (first?.resource) {
      const r = first.resource;
      const base = module.path.slice(0, -3);
      const from = this.#options.examplesFrom === undefined
        ? `./${base.slice(base.lastIndexOf("/") + 1)}.ts`
        : `${this.#options.examplesFrom}/${base}`;
      lines.push(
        " *",
        ` * @example The ${r.resource} resource`,
        " * ```ts",
        ` * import { ${first.name} } from ${literal(from)};`,
        ' * import assert from "node:assert/strict";',
        " *",
        ` * assert.equal(${first.name}.kind, ${literal(r.kind)});`,
        ` * assert.equal(${first.name}.resource, ${literal(r.resource)});`,
        ` * assert.equal(${first.name}.namespaced, ${r.namespaced});`,
        ` * assert.equal(${first.name}.group, ${literal(r.group)});`,
        ` * assert.equal(${first.name}.version, ${literal(r.version)});`,
        " * ```",
      );
    }
    lines.push(" *", " * @module", " */");
    return lines;
  }

  #render(module: ModuleText): string {
    const importBlocks: string[] = [];
    const specs = [...module.imports.keys()].sort((a, b) =>
      importOrder(a) - importOrder(b) || (a < b ? -1 : a > b ? 1 : 0)
    );
    for (const from of specs) {
      const names = [...module.imports.get(from)!].sort((a, b) =>
        caseless(a[0], b[0])
      );
      const items = names.map(([n, local]) => {
        const spec = local === n ? n : `${n} as ${local}`;
        return n === "resourceType" ? spec : `type ${spec}`;
      });
      const allTypes = items.every((i) => i.startsWith("type "));
      importBlocks.push(
        ...importLines(
          allTypes ? items.map((i) => i.slice(5)) : items,
          from,
          allTypes,
        ),
      );
    }
    const header = [
      "// Generated by kubecache gen. Do not edit: generate again instead.",
      "",
      ...this.#moduleDoc(module),
      "",
    ];
    const body: string[] = [];
    const decls = [...module.decls].sort((a, b) => caseless(a.name, b.name));
    const values = [...module.values].sort((a, b) => caseless(a.name, b.name));
    for (const d of [...decls, ...values]) body.push("", ...d.lines);
    const text = [...header, ...importBlocks, ...body, ""].join("\n");
    return text.replace(/\n\n\n+/g, "\n\n");
  }
}

function importOrder(from: string): number {
  return from.startsWith(".") ? 1 : 0;
}

function byKey(a: [string, string], b: [string, string]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

function caseless(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The module path of a group/version: `core/v1.ts`, `apps/v1.ts`. */
function moduleOf(group: string, version: string): string {
  return `${group === "" ? "core" : group}/${version}.ts`;
}

function packageOf(schemaName: string): string {
  const dot = schemaName.lastIndexOf(".");
  return dot < 0 ? "" : schemaName.slice(0, dot);
}

function localName(schemaName: string): string {
  const last = schemaName.slice(schemaName.lastIndexOf(".") + 1);
  const clean = pascal(last);
  return clean === "" ? "Type" : clean;
}

/** `pascal("readinessGates")` → `ReadinessGates`; other characters drop. */
function pascal(text: string): string {
  return text.split(/[^A-Za-z0-9]+/).filter((p) => p !== "")
    .map((p) => p[0].toUpperCase() + p.slice(1)).join("")
    .replace(/^[0-9]/, (d) => `_${d}`);
}

/** Where a module's types live, in words. */
function where(module: ModuleText): string {
  return module.group === ""
    ? `the core API group, version ${module.version}`
    : `the API group ${module.group}, version ${module.version}`;
}

/**
 * `apiVersion` and `kind` of a kind as literal types (`"apps/v1"`,
 * `"Deployment"`), so an object of one kind does not type-check as
 * another's; a schema of several kinds (`DeleteOptions`) keeps `string`.
 */
function typeMeta(
  gvks: readonly GroupVersionKind[],
  key: string,
): string[] | undefined {
  if (gvks.length !== 1) return undefined;
  const { group, version, kind } = gvks[0];
  if (key === "apiVersion") {
    return [literal(group === "" ? version : `${group}/${version}`)];
  }
  if (key === "kind") return [literal(kind)];
  return undefined;
}

/** The fields of the well-known shapes, as Go's types serialize them. */
const WELL_KNOWN: readonly {
  name: string;
  fields: readonly string[];
  optional?: readonly string[];
  atomic?: boolean;
}[] = [
  {
    name: "Condition",
    fields: ["lastTransitionTime", "message", "reason", "status", "type"],
    optional: ["observedGeneration"],
  },
  { name: "LabelSelector", fields: ["matchExpressions", "matchLabels"] },
  {
    name: "ObjectReference",
    fields: [
      "apiVersion",
      "fieldPath",
      "kind",
      "name",
      "namespace",
      "resourceVersion",
      "uid",
    ],
    atomic: true,
  },
  { name: "LocalObjectReference", fields: ["name"], atomic: true },
];

/**
 * The shared type an inline object schema is a copy of (controller-gen
 * writes `metav1.Condition`, `metav1.LabelSelector`, `corev1.ObjectReference`
 * and `corev1.LocalObjectReference` in place into a CRD), as kopium does by
 * default: the same fields, and for the references the `atomic` map type
 * their Go types declare (a struct of one `name` field is otherwise too
 * common to be taken for one).
 */
function wellKnownShape(s: JsonSchema): string | undefined {
  const keys = Object.keys(s.properties ?? {}).sort();
  for (const w of WELL_KNOWN) {
    if (w.atomic && s["x-kubernetes-map-type"] !== "atomic") continue;
    const all = [...w.fields, ...(w.optional ?? [])].sort();
    const same = (a: readonly string[]) =>
      a.length === keys.length && a.every((k, i) => k === keys[i]);
    if (same([...w.fields].sort()) || same(all)) return w.name;
  }
  return undefined;
}

/**
 * The name of an inline object type: its parent's name and the field's
 * (`WidgetSpec` + `parts` → `WidgetSpecParts`), a function of its path, so
 * adding a field never renames another type. A name another type already
 * holds (a kind `WidgetList` and field `list` of `Widget`) gets `_` where
 * the field joins its parent (`Widget_List`).
 */
function pathName(module: ModuleText, parent: string, key: string): string {
  const field = pascal(key) || "Field";
  let name = `${parent}${field}`;
  if (module.names.has(name)) name = `${parent}_${field}`;
  while (module.names.has(name)) name += "_";
  module.names.add(name);
  return name;
}

function uniqueName(module: ModuleText, wanted: string): string {
  let name = wanted;
  for (let i = 2; module.names.has(name); i++) name = `${wanted}${i}`;
  module.names.add(name);
  return name;
}

function uniqueValue(module: ModuleText, wanted: string): string {
  let name = wanted;
  for (let i = 2; module.values.some((v) => v.name === name); i++) {
    name = `${wanted}${i}`;
  }
  return name;
}

/**
 * A descriptor's name: the resource with the kind's capitals
 * (`networkpolicies` of NetworkPolicy → `NetworkPolicies`).
 */
function descriptorName(kind: string, resource: string): string {
  const lower = kind.toLowerCase();
  let i = 0;
  while (i < lower.length && i < resource.length && lower[i] === resource[i]) {
    i++;
  }
  return pascal(kind.slice(0, i) + resource.slice(i));
}

/** Whether a property is (a reference to) ObjectMeta. */
function isObjectMeta(prop: JsonSchema | undefined): boolean {
  const ref = prop?.$ref ?? prop?.allOf?.[0]?.$ref;
  return ref === `#/components/schemas/${META}ObjectMeta` ||
    ref === `#/definitions/${META}ObjectMeta`;
}

function descriptionOf(prop: JsonSchema | undefined): string | undefined {
  return prop?.description ?? prop?.allOf?.[0]?.description;
}

function relative(from: string, to: string): string {
  const up = from.split("/").length - 1;
  return `${"../".repeat(up)}${to}`;
}
