/**
 * Label and field selectors of list and watch requests; the selectable
 * fields of a kind come from its strategy (pods: spec.nodeName,
 * status.phase, ...). Internal to `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import { parseSelector, SelectorParseError } from "../cache/labels.ts";
import type { ResourceStrategy } from "./_apiserver_strategy.ts";
import { badRequest } from "./_apiserver_status.ts";

/** Matches an object; `undefined` stands for "everything". */
export type Matcher = ((obj: KubeObject) => boolean) | undefined;

/** The fields a kind can be selected by (`metadata.*` and its strategy's). */
export function selectableFields(strategy: ResourceStrategy): string[] {
  return ["metadata.name", "metadata.namespace", ...(strategy.fields ?? [])];
}

/** Parse a label selector. @throws {StatusError} 400 BadRequest */
export function labelMatcher(s: string | null): Matcher {
  if (!s) return undefined;
  try {
    const sel = parseSelector(s);
    if (sel.empty()) return undefined;
    return (obj) => sel.matches(obj.metadata.labels);
  } catch (err) {
    if (err instanceof SelectorParseError) {
      throw badRequest(`unable to parse requirement: ${err.message}`);
    }
    throw err;
  }
}

/** Parse a field selector for a type. @throws {StatusError} 400 BadRequest */
export function fieldMatcher(
  strategy: ResourceStrategy,
  s: string | null,
): Matcher {
  if (!s) return undefined;
  const allowed = selectableFields(strategy);
  const reqs: { path: string[]; value: string; equal: boolean }[] = [];
  for (const part of s.split(",")) {
    if (part.trim() === "") continue;
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
    if (!m) {
      throw badRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    }
    const [, field, op, value] = m;
    if (!allowed.includes(field)) {
      throw badRequest(
        `"${field}" is not a known field selector: only ${
          allowed.map((f) => `"${f}"`).join(", ")
        }`,
      );
    }
    reqs.push({ path: field.split("."), value, equal: op !== "!=" });
  }
  if (reqs.length === 0) return undefined;
  const defaults = strategy.fieldDefaults ?? {};
  return (obj) =>
    reqs.every((r) =>
      (fieldValue(obj, r.path, defaults) === r.value) === r.equal
    );
}

function fieldValue(
  obj: KubeObject,
  path: string[],
  defaults: Readonly<Record<string, string>>,
): string {
  let v: unknown = obj;
  for (const p of path) {
    if (v === null || typeof v !== "object") return "";
    v = (v as Record<string, unknown>)[p];
  }
  // An unset boolean selects as "false" (spec.unschedulable, hostNetwork).
  if (v === undefined || v === null) return defaults[path.join(".")] ?? "";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** Both matchers at once. */
export function both(a: Matcher, b: Matcher): Matcher {
  if (!a) return b;
  if (!b) return a;
  return (obj) => a(obj) && b(obj);
}
