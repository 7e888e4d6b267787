/**
 * CustomResourceDefinitions as OpenAPI: the documents kube-apiserver
 * publishes at `/openapi/v3/apis/<group>/<version>` for each served version
 * of a CRD (apiextensions-apiserver's `controller/openapi/builder`), so the
 * generator reads a CRD manifest the way it reads a cluster.
 *
 * @module
 */

import {
  type ApiResourceList,
  type GenerateOptions,
  generateTypes,
  type JsonSchema,
  type OpenApiDocument,
} from "./openapi.ts";
import { show } from "../api/validate.ts";

const META = "io.k8s.apimachinery.pkg.apis.meta.v1.";
const CONVENTIONS =
  "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md";

/** The fields every object schema gets, as the apiserver describes them. */
const API_VERSION: JsonSchema = {
  description:
    `APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: ${CONVENTIONS}#resources`,
  type: "string",
};
const KIND: JsonSchema = {
  description:
    `Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: ${CONVENTIONS}#types-kinds`,
  type: "string",
};

/**
 * What a resource's OpenAPI paths are made from: the resource, the schema
 * names of its kind and list kind, and its subresources.
 *
 * @example Widgets with a status subresource
 * ```ts
 * import type { OpenApiResource } from "@kubecache/core/gen";
 * import assert from "node:assert/strict";
 *
 * const r: OpenApiResource = {
 *   group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true,
 *   schema: "com.example.v1.Widget", listSchema: "com.example.v1.WidgetList", subresources: ["status"],
 * };
 * assert.equal(r.subresources?.length, 1);
 * ```
 */
export interface OpenApiResource {
  /** API group; `""` for the core group. */
  group: string;
  /** API version. */
  version: string;
  /** Plural resource name. */
  resource: string;
  /** Kind of the objects. */
  kind: string;
  /** Whether objects live in namespaces. */
  namespaced: boolean;
  /** Schema name of the kind, e.g. `"com.example.v1.Widget"`. */
  schema: string;
  /** Schema name of the list kind, when there is one. */
  listSchema?: string;
  /** Subresources served, e.g. `["status", "scale"]`. */
  subresources?: readonly string[];
}

/**
 * The `paths` of a resource as kube-apiserver publishes them in OpenAPI v3:
 * the collection (list, create, delete collection), the object (get,
 * replace, patch, delete), each subresource, and for a namespaced resource
 * the list across namespaces. Each operation names its action
 * (`x-kubernetes-action`) and kind (`x-kubernetes-group-version-kind`) and
 * writes take `fieldValidation` (kubectl looks for it).
 *
 * @param r the resource and its schema names
 * @returns the path items by path
 *
 * @example The paths of a cluster-scoped resource
 * ```ts
 * import { openApiPaths } from "@kubecache/core/gen";
 * import assert from "node:assert/strict";
 *
 * const paths = openApiPaths({
 *   group: "example.com", version: "v1", resource: "gadgets", kind: "Gadget",
 *   namespaced: false, schema: "com.example.v1.Gadget",
 * });
 * assert.deepEqual(Object.keys(paths), ["/apis/example.com/v1/gadgets", "/apis/example.com/v1/gadgets/{name}"]);
 * ```
 */
export function openApiPaths(
  r: OpenApiResource,
): Record<string, Record<string, unknown>> {
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const json = (schema: unknown) => ({
    "application/json": { schema },
    "application/yaml": { schema },
  });
  const fieldValidation = {
    name: "fieldValidation",
    in: "query",
    description:
      "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields.",
    schema: { type: "string", uniqueItems: true },
  };
  const op = (
    action: string,
    verb: string,
    schema: string | undefined,
    write: boolean,
  ) => {
    const o: Record<string, unknown> = {
      description: `${verb} ${r.kind}`,
      "x-kubernetes-action": action,
      "x-kubernetes-group-version-kind": gvk,
      responses: {
        "200": {
          description: "OK",
          ...(schema ? { content: json(ref(schema)) } : {}),
        },
        "401": { description: "Unauthorized" },
      },
    };
    if (write) {
      o.parameters = [fieldValidation];
      o.requestBody = { content: { "*/*": { schema: ref(r.schema) } } };
    }
    return o;
  };
  const root = r.group === ""
    ? `/api/${r.version}`
    : `/apis/${r.group}/${r.version}`;
  const scoped = `${root}${
    r.namespaced ? "/namespaces/{namespace}" : ""
  }/${r.resource}`;
  const paths: Record<string, Record<string, unknown>> = {};
  paths[scoped] = {
    get: op("list", "list or watch objects of kind", r.listSchema, false),
    post: op("post", "create a", r.schema, true),
    delete: op("deletecollection", "delete collection of", undefined, false),
  };
  paths[`${scoped}/{name}`] = {
    get: op("get", "read the specified", r.schema, false),
    put: op("put", "replace the specified", r.schema, true),
    patch: op("patch", "partially update the specified", r.schema, true),
    delete: op("delete", "delete a", undefined, false),
  };
  for (const sub of r.subresources ?? []) {
    paths[`${scoped}/{name}/${sub}`] = {
      get: op("get", `read ${sub} of the specified`, r.schema, false),
      put: op("put", `replace ${sub} of the specified`, r.schema, true),
      patch: op(
        "patch",
        `partially update ${sub} of the specified`,
        r.schema,
        true,
      ),
    };
  }
  if (r.namespaced) {
    paths[`${root}/${r.resource}`] = {
      get: op("list", "list or watch objects of kind", r.listSchema, false),
    };
  }
  return Object.fromEntries(
    Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

/**
 * The OpenAPI documents and discovery of a CustomResourceDefinition, as
 * kube-apiserver publishes them once it is established: one document per
 * served version, keyed `apis/<group>/<version>`, whose kind schema is the
 * version's `schema.openAPIV3Schema` with `apiVersion`, `kind` and
 * `metadata` (ObjectMeta) added, named by the reversed group
 * (`com.example.v1.Widget`), beside the list kind `<listKind>`; and the
 * resource's discovery entry (`spec.names`, `spec.scope`). Accepts
 * apiextensions.k8s.io/v1 and the older v1beta1 shape (`spec.validation`,
 * `spec.version`).
 *
 * @param crd a parsed CustomResourceDefinition manifest
 * @param metaSchemas schemas to add to each document (ObjectMeta, ListMeta
 * and what they use, as a real server's documents hold them); none by default
 * @returns the documents and the discovery lists
 * @throws {TypeError} when `crd` is not a CustomResourceDefinition with a
 * group, names and versions
 *
 * @example The documents of a one-version CRD
 * ```ts
 * import { crdOpenApi } from "@kubecache/core/gen";
 * import assert from "node:assert/strict";
 *
 * const { documents, discovery } = crdOpenApi({
 *   apiVersion: "apiextensions.k8s.io/v1",
 *   kind: "CustomResourceDefinition",
 *   metadata: { name: "widgets.example.com" },
 *   spec: {
 *     group: "example.com",
 *     scope: "Namespaced",
 *     names: { plural: "widgets", kind: "Widget", shortNames: ["wd"] },
 *     versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } }],
 *   },
 * });
 * assert.deepEqual(Object.keys(documents), ["apis/example.com/v1"]);
 * assert.ok(documents["apis/example.com/v1"].components?.schemas?.["com.example.v1.Widget"]);
 * assert.deepEqual(discovery[0].resources[0].shortNames, ["wd"]);
 * ```
 */
export function crdOpenApi(
  crd: unknown,
  metaSchemas: Readonly<Record<string, JsonSchema>> = {},
): {
  documents: Record<string, OpenApiDocument>;
  discovery: ApiResourceList[];
} {
  const c = checkCrd(crd);
  const { group, names } = c.spec;
  const namespaced = c.spec.scope !== "Cluster";
  const listKind = names.listKind ?? `${names.kind}List`;
  const reversed = group.split(".").reverse().join(".");
  const documents: Record<string, OpenApiDocument> = {};
  const discovery: ApiResourceList[] = [];
  for (const v of c.spec.versions) {
    if (v.served === false) continue;
    const schema = v.schema?.openAPIV3Schema ??
      c.spec.validation?.openAPIV3Schema ?? {};
    const kindName = `${reversed}.${v.name}.${names.kind}`;
    const listName = `${reversed}.${v.name}.${listKind}`;
    const gvk = (kind: string) => [{ group, version: v.name, kind }];
    const { properties: own = {}, ...rest } = schema as JsonSchema;
    const kindSchema: JsonSchema = {
      ...rest,
      type: "object",
      properties: {
        ...own,
        apiVersion: API_VERSION,
        kind: KIND,
        metadata: {
          allOf: [{ $ref: `#/components/schemas/${META}ObjectMeta` }],
          description:
            `Standard object's metadata. More info: ${CONVENTIONS}#metadata`,
        },
      },
      "x-kubernetes-group-version-kind": gvk(names.kind),
    };
    const listSchema: JsonSchema = {
      description: `${listKind} is a list of ${names.kind}`,
      properties: {
        apiVersion: API_VERSION,
        items: {
          description: `List of ${names.plural}. More info: ${CONVENTIONS}`,
          items: { $ref: `#/components/schemas/${kindName}` },
          type: "array",
        },
        kind: KIND,
        metadata: {
          allOf: [{ $ref: `#/components/schemas/${META}ListMeta` }],
          description:
            `Standard list metadata. More info: ${CONVENTIONS}#types-kinds`,
        },
      },
      required: ["items"],
      "x-kubernetes-group-version-kind": gvk(listKind),
    };
    const subresources = Object.keys(
      v.subresources ?? c.spec.subresources ?? {},
    ).filter((s) => s === "status" || s === "scale").sort();
    documents[`apis/${group}/${v.name}`] = {
      openapi: "3.0.0",
      info: { title: "Kubernetes CRD Swagger", version: "v0.1.0" },
      paths: openApiPaths({
        group,
        version: v.name,
        resource: names.plural,
        kind: names.kind,
        namespaced,
        schema: kindName,
        listSchema: listName,
        subresources,
      }),
      components: {
        schemas: sortKeys({
          ...metaSchemas,
          [kindName]: kindSchema,
          [listName]: listSchema,
        }),
      },
    };
    discovery.push({
      groupVersion: `${group}/${v.name}`,
      resources: [{
        name: names.plural,
        singularName: names.singular ?? names.kind.toLowerCase(),
        namespaced,
        kind: names.kind,
        ...(names.shortNames?.length
          ? { shortNames: [...names.shortNames] }
          : {}),
      }],
    });
  }
  return { documents, discovery };
}

/**
 * Generate TypeScript modules from CustomResourceDefinition manifests: one
 * module per served version of each CRD's group (`example.com/v1.ts`), as
 * {@link generateTypes} writes them from a cluster, with the descriptor's
 * resource, kind, scope and short names from `spec.names` and `spec.scope`.
 * Several CRDs of one group/version share a module.
 *
 * @param crds parsed CustomResourceDefinition manifests
 * @param options group and kind filters, import specifier (discovery comes
 * from the CRDs)
 * @returns module text by path relative to the output folder
 * @throws {TypeError} when `crds` is not an array or one is not a CRD
 *
 * @example Types of a CRD
 * ```ts
 * import { generateFromCrds } from "@kubecache/core/gen";
 * import assert from "node:assert/strict";
 *
 * const modules = generateFromCrds([{
 *   apiVersion: "apiextensions.k8s.io/v1",
 *   kind: "CustomResourceDefinition",
 *   metadata: { name: "gadgets.example.com" },
 *   spec: {
 *     group: "example.com",
 *     scope: "Cluster",
 *     names: { plural: "gadgets", kind: "Gadget" },
 *     versions: [{
 *       name: "v1", served: true, storage: true,
 *       schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { port: { "x-kubernetes-int-or-string": true } } } } } },
 *     }],
 *   },
 * }]);
 * const text = modules.get("example.com/v1.ts")!;
 * assert.match(text, /port\?: IntOrString;/); // number | string
 * assert.match(text, /namespaced: false,/);
 * ```
 */
export function generateFromCrds(
  crds: readonly unknown[],
  options: Omit<GenerateOptions, "discovery"> = {},
): Map<string, string> {
  if (!Array.isArray(crds)) {
    throw new TypeError(
      `generateFromCrds: crds must be an array of CustomResourceDefinition objects, got ${
        show(crds)
      }`,
    );
  }
  const documents: Record<string, OpenApiDocument> = {};
  const discovery: ApiResourceList[] = [];
  for (const crd of crds) {
    const out = crdOpenApi(crd);
    for (const [key, doc] of Object.entries(out.documents)) {
      // Two CRDs of one group/version: one document holding both.
      const merged = documents[key];
      documents[key] = merged
        ? {
          ...merged,
          paths: { ...merged.paths, ...doc.paths },
          components: {
            schemas: {
              ...merged.components?.schemas,
              ...doc.components?.schemas,
            },
          },
        }
        : doc;
    }
    discovery.push(...out.discovery);
  }
  return generateTypes(documents, { ...options, discovery });
}

interface Crd {
  spec: {
    group: string;
    scope?: string;
    names: {
      plural: string;
      singular?: string;
      kind: string;
      listKind?: string;
      shortNames?: string[];
    };
    versions: {
      name: string;
      served?: boolean;
      schema?: { openAPIV3Schema?: JsonSchema };
      subresources?: Record<string, unknown>;
    }[];
    validation?: { openAPIV3Schema?: JsonSchema };
    subresources?: Record<string, unknown>;
  };
}

function checkCrd(crd: unknown): Crd {
  const o = crd as Record<string, unknown> | null;
  const name = (o?.metadata as { name?: unknown } | undefined)?.name;
  const what = typeof name === "string" ? ` ${JSON.stringify(name)}` : "";
  if (
    typeof o !== "object" || o === null || o.kind !== "CustomResourceDefinition"
  ) {
    throw new TypeError(
      `crdOpenApi: crd must be a CustomResourceDefinition, got ${
        typeof o === "object" && o !== null && typeof o.kind === "string"
          ? `kind ${show(o.kind)}`
          : show(o)
      }`,
    );
  }
  const spec = o.spec as Record<string, unknown> | undefined;
  const names = spec?.names as Crd["spec"]["names"] | undefined;
  if (
    typeof spec?.group !== "string" || typeof names?.plural !== "string" ||
    typeof names?.kind !== "string"
  ) {
    throw new TypeError(
      `crdOpenApi: CustomResourceDefinition${what} needs spec.group, spec.names.plural and spec.names.kind`,
    );
  }
  let versions = spec.versions as Crd["spec"]["versions"] | undefined;
  if (!Array.isArray(versions) || versions.length === 0) {
    // apiextensions.k8s.io/v1beta1: one spec.version.
    if (typeof spec.version !== "string") {
      throw new TypeError(
        `crdOpenApi: CustomResourceDefinition${what} has no spec.versions`,
      );
    }
    versions = [{ name: spec.version, served: true }];
  }
  return { spec: { ...spec, names, versions } as Crd["spec"] };
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}
