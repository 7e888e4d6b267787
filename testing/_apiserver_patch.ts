/**
 * The patch formats of PATCH requests: JSON merge patch (RFC 7386), JSON
 * patch (RFC 6902) and a strategic merge patch reduced to what kubectl's
 * client-side apply sends (merge, lists of objects merged by `name`, the
 * `$patch`, `$retainKeys`, `$setElementOrder` and `$deleteFromPrimitiveList`
 * directives). Internal to `FakeApiServer`.
 *
 * @module
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v) as Json;
  }
  return out;
}

/** Thrown when a JSON patch cannot be applied (the server answers 422). */
export class PatchError extends Error {
  /** Create a patch error. */
  constructor(message: string) {
    super(message);
    this.name = "PatchError";
  }
}

function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) {
    throw new PatchError(`Cannot parse JSON pointer: "${path}"`);
  }
  return path.slice(1).split("/").map((s) =>
    s.replaceAll("~1", "/").replaceAll("~0", "~")
  );
}

function parentOf(doc: Json, parts: string[]): [Json, string] {
  let cur: Json = doc;
  for (const p of parts.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(p)];
    else if (isObject(cur)) cur = cur[p];
    else cur = undefined as unknown as Json;
    if (cur === undefined) {
      throw new PatchError(`Cannot apply JSON patch: missing path "${p}"`);
    }
  }
  return [cur, parts[parts.length - 1]];
}

function getAt(doc: Json, path: string): Json | undefined {
  let cur: Json | undefined = doc;
  for (const p of pointer(path)) {
    if (Array.isArray(cur)) cur = cur[Number(p)];
    else if (isObject(cur)) cur = cur[p];
    else return undefined;
  }
  return cur;
}

function removeAt(doc: Json, path: string): Json {
  const [parent, last] = parentOf(doc, pointer(path));
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!(i >= 0 && i < parent.length)) {
      throw new PatchError(`Cannot remove JSON patch path: "${path}"`);
    }
    return parent.splice(i, 1)[0];
  }
  if (!isObject(parent) || !(last in parent)) {
    throw new PatchError(`Cannot remove missing JSON patch path: "${path}"`);
  }
  const v = parent[last];
  delete parent[last];
  return v;
}

function addAt(doc: Json, path: string, value: Json, replace: boolean): Json {
  const parts = pointer(path);
  if (parts.length === 0) return value;
  const [parent, last] = parentOf(doc, parts);
  if (Array.isArray(parent)) {
    const i = last === "-" ? parent.length : Number(last);
    if (!(i >= 0 && i <= parent.length)) {
      throw new PatchError(`Cannot apply JSON patch at index "${path}"`);
    }
    if (replace) parent[i] = value;
    else parent.splice(i, 0, value);
  } else if (isObject(parent)) {
    // kube-apiserver's json-patch library lets `replace` add a missing
    // key of an object (recorded: 200), unlike RFC 6902.
    parent[last] = value;
  } else {
    throw new PatchError(`Cannot apply JSON patch: no parent for "${path}"`);
  }
  return doc;
}

/** RFC 6902 JSON patch. @throws {PatchError} */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) {
    throw new PatchError("Cannot apply JSON patch: the body is not an array");
  }
  let doc = structuredClone(target) as Json;
  for (const op of ops as JsonObject[]) {
    const path = String(op.path ?? "");
    switch (op.op) {
      case "add":
        doc = addAt(doc, path, structuredClone(op.value), false);
        break;
      case "replace":
        doc = addAt(doc, path, structuredClone(op.value), true);
        break;
      case "remove":
        removeAt(doc, path);
        break;
      case "move": {
        const v = removeAt(doc, String(op.from));
        doc = addAt(doc, path, v, false);
        break;
      }
      case "copy": {
        const v = getAt(doc, String(op.from));
        if (v === undefined) throw new PatchError(`Missing "from": ${op.from}`);
        doc = addAt(doc, path, structuredClone(v), false);
        break;
      }
      case "test": {
        // kube-apiserver's json-patch (evanphx v4) finds a missing member
        // of an existing object equal to null: `test` null is how a patch
        // says "this field is not set" (kube-rs adds a first finalizer so).
        const got = getAt(doc, path);
        const missingIsNull = got === undefined && op.value === null &&
          isObject(parentOf(doc, pointer(path))[0]);
        if (
          !missingIsNull && JSON.stringify(got) !== JSON.stringify(op.value)
        ) {
          throw new PatchError(`Test operation failed at "${path}"`);
        }
        break;
      }
      default:
        throw new PatchError(`Unknown JSON patch operation: "${op.op}"`);
    }
  }
  return doc;
}

/**
 * Strategic merge patch, reduced: objects merge as in a merge patch, lists
 * of objects with a `name` (or `containerPort`, `port`, `ip`...) merge by
 * that key, other lists are replaced; directives are honoured or dropped.
 */
export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  if (patch.$patch === "replace") {
    const { $patch: _, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (patch.$patch === "delete") return undefined;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  const retain = Array.isArray(patch.$retainKeys)
    ? new Set(patch.$retainKeys as string[])
    : undefined;
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith("$setElementOrder/") || k === "$retainKeys") continue;
    if (k.startsWith("$deleteFromPrimitiveList/")) {
      const field = k.slice("$deleteFromPrimitiveList/".length);
      const drop = new Set((v as Json[]).map((x) => JSON.stringify(x)));
      const cur = out[field];
      if (Array.isArray(cur)) {
        out[field] = cur.filter((x) => !drop.has(JSON.stringify(x)));
      }
      continue;
    }
    if (k.startsWith("$")) continue;
    if (v === null) {
      delete out[k];
      continue;
    }
    const cur = out[k];
    if (Array.isArray(v) && Array.isArray(cur)) {
      out[k] = mergeList(cur, v) as Json;
    } else if (isObject(v)) {
      const merged = strategicMergePatch(cur, v);
      if (merged === undefined) delete out[k];
      else out[k] = merged as Json;
    } else {
      out[k] = stripDirectives(v) as Json;
    }
  }
  if (retain) {
    for (const k of Object.keys(out)) if (!retain.has(k)) delete out[k];
  }
  return out;
}

const MERGE_KEYS = ["name", "containerPort", "port", "ip", "mountPath", "type"];

function mergeKeyOf(list: Json[]): string | undefined {
  const first = list.find(isObject) as JsonObject | undefined;
  if (!first) return undefined;
  return MERGE_KEYS.find((k) => k in first);
}

function mergeList(cur: Json[], patch: Json[]): Json[] {
  const key = mergeKeyOf(patch) ?? mergeKeyOf(cur);
  if (!key || !patch.every(isObject) || !cur.every(isObject)) {
    return stripDirectives(patch) as Json[];
  }
  const out = (cur as JsonObject[]).slice();
  for (const p of patch as JsonObject[]) {
    const i = out.findIndex((c) => c[key] === p[key]);
    if (p.$patch === "delete") {
      if (i !== -1) out.splice(i, 1);
    } else if (i === -1) {
      out.push(stripDirectives(p) as JsonObject);
    } else {
      out[i] = strategicMergePatch(out[i], p) as JsonObject;
    }
  }
  return out;
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    if (!k.startsWith("$")) out[k] = stripDirectives(x) as Json;
  }
  return out;
}
