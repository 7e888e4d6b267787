/**
 * The RFC 6902 JSON patch that turns one JSON document into another: what
 * a mutating webhook answers for a defaulter's changed object
 * (controller-runtime's `admission.PatchResponseFromRaw`, which uses
 * gomodules' `jsonpatch.CreatePatch`).
 *
 * @module
 */

import { show } from "../api/validate.ts";

/**
 * One operation of an RFC 6902 JSON patch. `path` (and `from`) are RFC 6901
 * JSON pointers: `/spec/containers/0/image`, `~1` for `/` and `~0` for `~`
 * inside a key.
 *
 * @example Set a field
 * ```ts
 * import type { JsonPatchOperation } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const op: JsonPatchOperation = { op: "add", path: "/spec/size", value: 3 };
 * assert.equal(op.path.split("/").length, 3);
 * ```
 */
export interface JsonPatchOperation {
  /** What the operation does. */
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  /** JSON pointer to the value the operation acts on. */
  path: string;
  /** The new value (`add`, `replace`, `test`). */
  value?: unknown;
  /** JSON pointer to the source (`move`, `copy`). */
  from?: string;
}

/**
 * The JSON patch (RFC 6902) that turns `from` into `to`: `add` for a member
 * only `to` has, `remove` for one only `from` has, `replace` for a value of
 * another type or a different scalar; objects are compared member by
 * member, arrays index by index (elements past the shorter one are added at
 * the end, or removed from the last one back, so every path is valid when
 * its operation runs). Both sides are taken as JSON: they are serialized
 * first, so an `undefined` member is absent and a `Date` is its string.
 * Equal documents give `[]`.
 *
 * @param from the original document (e.g. the object the API server sent)
 * @param to the changed document
 * @returns the operations, in the order they must be applied
 * @throws {TypeError} when either side cannot be serialized as JSON (a
 *   cycle, a BigInt)
 *
 * @example A default filled in
 * ```ts
 * import { jsonPatchOf } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const sent = { metadata: { name: "w" }, spec: { replicas: 2 } };
 * const defaulted = { metadata: { name: "w" }, spec: { replicas: 2, size: 1 } };
 * assert.deepEqual(jsonPatchOf(sent, defaulted), [{ op: "add", path: "/spec/size", value: 1 }]);
 * ```
 */
export function jsonPatchOf(from: unknown, to: unknown): JsonPatchOperation[] {
  const a = asJson("jsonPatchOf", "from", from);
  const b = asJson("jsonPatchOf", "to", to);
  const ops: JsonPatchOperation[] = [];
  diff(a, b, "", ops);
  return ops;
}

function asJson(call: string, name: string, value: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new TypeError(
      `${call}: ${name} must be a JSON value, got ${show(value)}: ${
        (err as Error).message
      }`,
    );
  }
  if (text === undefined) {
    throw new TypeError(
      `${call}: ${name} must be a JSON value, got ${show(value)}`,
    );
  }
  return JSON.parse(text);
}

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
function escape(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function diff(a: unknown, b: unknown, path: string, ops: JsonPatchOperation[]) {
  if (isObject(a) && isObject(b)) {
    for (const key of Object.keys(a)) {
      if (!Object.hasOwn(b, key)) {
        ops.push({ op: "remove", path: `${path}/${escape(key)}` });
      }
    }
    for (const [key, value] of Object.entries(b)) {
      const p = `${path}/${escape(key)}`;
      if (!Object.hasOwn(a, key)) ops.push({ op: "add", path: p, value });
      else diff(a[key], value, p, ops);
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const common = Math.min(a.length, b.length);
    for (let i = 0; i < common; i++) diff(a[i], b[i], `${path}/${i}`, ops);
    for (let i = common; i < b.length; i++) {
      ops.push({ op: "add", path: `${path}/${i}`, value: b[i] });
    }
    for (let i = a.length - 1; i >= common; i--) {
      ops.push({ op: "remove", path: `${path}/${i}` });
    }
    return;
  }
  if (!sameScalar(a, b)) ops.push({ op: "replace", path, value: b });
}

function sameScalar(a: unknown, b: unknown): boolean {
  // Objects and arrays reach here only against a value of another shape.
  if (typeof a === "object" && a !== null) return false;
  if (typeof b === "object" && b !== null) return false;
  return a === b;
}
