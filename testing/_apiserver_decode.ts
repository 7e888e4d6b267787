/**
 * The first stage of the fake API server's write path (see
 * `_apiserver_write_chain.ts`): a request body decoded into the object the
 * write proposes, as kube-apiserver's handlers decode it — a POST or PUT
 * body read as an object of the route's kind, a PATCH body read per patch
 * type and applied to the stored object — and the {@link Write} that the
 * later stages (admission, schema, strategy, storage) receive. Internal to
 * `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import { parseYaml, YamlError } from "../client/_yaml.ts";
import type { ResourceRoute } from "./_apiserver_context.ts";
import {
  jsonPatch,
  mergePatch,
  PatchError,
  strategicMergePatch,
} from "./_apiserver_patch.ts";
import {
  badRequest,
  failure,
  invalid,
  invalidOptions,
  statusError,
} from "./_apiserver_status.ts";
import type { Table } from "./_apiserver_store.ts";

/**
 * One write as the stages after decoding see it (kube-apiserver's
 * `admission.Attributes`): what is written where, the proposed object and
 * the stored one. A stage may replace `object` (mutating admission,
 * pruning, defaulting) and add `warnings` (sent as `Warning` headers).
 */
export interface Write {
  /** CREATE for a POST (or an apply that creates), UPDATE for PUT and PATCH. */
  readonly operation: "CREATE" | "UPDATE";
  /** The table written. */
  readonly table: Table;
  /** The namespace of the URL ("" for cluster-scoped kinds). */
  readonly namespace: string;
  /** The name of the URL (undefined for a POST to a collection). */
  readonly name?: string;
  /** The subresource written (`status`, `scale`...), if any. */
  readonly subresource?: string;
  /** The proposed object, as the parent kind (a subresource write's parent). */
  object: KubeObject;
  /** The stored object an UPDATE replaces. */
  readonly oldObject?: KubeObject;
  /** A PATCH's Content-Type (undefined for POST and PUT). */
  readonly patchType?: string;
  /** `?dryRun=All`: checked, not stored. */
  readonly dryRun: boolean;
  /** `?fieldValidation=`: Ignore, Warn (the default) or Strict. */
  readonly fieldValidation: "Ignore" | "Warn" | "Strict";
  /** Warnings for the client, in the order they arose. */
  readonly warnings: string[];
}

/**
 * The `fieldValidation` query parameter of a write (`CreateOptions`,
 * `UpdateOptions` or `PatchOptions`). @throws {StatusError} 422 for
 * another value, as apimachinery's `ValidateFieldValidation` answers
 */
export function fieldValidationOf(
  q: URLSearchParams,
  options: "CreateOptions" | "UpdateOptions" | "PatchOptions",
): Write["fieldValidation"] {
  const v = q.get("fieldValidation") ?? "";
  if (v === "" || v === "Warn") return "Warn";
  if (v === "Ignore" || v === "Strict") return v;
  throw invalidOptions(options, "fieldValidation", [
    `Unsupported value: ${
      JSON.stringify(v)
    }: supported values: "", "Ignore", "Strict", "Warn"`,
  ]);
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

/** A subresource's body as JSON. @throws {StatusError} 400 */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`error decoding ${what}: ${(err as Error).message}`);
  }
}

/** The patch types the server reads (Content-Type of a PATCH). */
export const PATCH_TYPES: ReadonlySet<string> = new Set([
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
]);

/**
 * Decode a PATCH body as kube-apiserver does per patch type, with its
 * error answers. @throws {StatusError} 400, 422
 */
export function parsePatch(contentType: string, text: string): unknown {
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

/**
 * A merge, JSON or strategic merge patch applied to the current document
 * (the stored object, or a subresource's view of it).
 * @throws {StatusError} 422 when a JSON patch operation fails
 */
export function patched(
  contentType: string,
  current: unknown,
  body: unknown,
): unknown {
  try {
    switch (contentType) {
      case "application/merge-patch+json":
        return mergePatch(current, body);
      case "application/json-patch+json":
        return jsonPatch(current, body);
      default:
        return strategicMergePatch(current, body);
    }
  } catch (err) {
    if (!(err instanceof PatchError)) throw err;
    throw statusError(
      failure(
        422,
        "Invalid",
        "the server rejected our request due to an error in our request",
        {},
      ),
    );
  }
}

/** A patch's result as an object of the route's name. @throws {StatusError} 400 */
export function patchedObject(r: ResourceRoute, next: unknown): KubeObject {
  const obj = next as KubeObject;
  if (!obj || typeof obj !== "object" || !obj.metadata) {
    throw badRequest("the patch produced an object without metadata");
  }
  if (obj.metadata.name !== undefined && obj.metadata.name !== r.name) {
    throw badRequest(
      `the name of the object (${obj.metadata.name}) does not match the name on the URL (${r.name})`,
    );
  }
  return obj;
}
