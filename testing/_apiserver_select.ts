/**
 * Label and field selectors of list and watch requests; the selectable
 * fields of a kind come from its strategy (pods: spec.nodeName,
 * status.phase, ...). Internal to `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import { parseSelector, SelectorParseError } from "../cache/labels.ts";
import { newShardMatcher, type ShardMatcher } from "../api/shard_selector.ts";
import {
  badRequest,
  statusError,
  unknownFailure,
} from "./_apiserver_status.ts";
import type { ResourceStrategy } from "./_apiserver_types.ts";

/** Matches an object; `undefined` stands for "everything". */
export type Matcher = ((obj: KubeObject) => boolean) | undefined;

/** The fields a kind can be selected by (`metadata.*` and its strategy's). */
export function selectableFields(strategy: ResourceStrategy): string[] {
  return strategy.fieldLabels
    ? [...strategy.fieldLabels]
    : ["metadata.name", "metadata.namespace", ...(strategy.fields ?? [])];
}

/**
 * Split a field selector into its terms at unescaped commas and undo the
 * `\,` `\=` `\\` escapes of values (apimachinery `fields.ParseSelector`).
 * @throws {StatusError} 400 for another escape or an unescaped rune in a value
 */
function fieldTerms(s: string): { field: string; op: string; value: string }[] {
  const terms: string[] = [];
  let cur = "";
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "\\" && i + 1 < s.length) {
      cur += s[i] + s[++i];
    } else if (s[i] === ",") {
      terms.push(cur);
      cur = "";
    } else cur += s[i];
  }
  terms.push(cur);
  const out: { field: string; op: string; value: string }[] = [];
  for (const part of terms) {
    if (part.trim() === "") continue;
    const m = /^\s*([^=!\s\\]+)\s*(==|=|!=)(.*)$/.exec(part);
    if (!m) {
      throw badRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    }
    let value = "";
    const raw = m[3];
    for (let i = 0; i < raw.length; i++) {
      const c = raw[i];
      if (c === "\\") {
        const next = raw[i + 1];
        if (next !== "\\" && next !== "," && next !== "=") {
          throw badRequest(
            `invalid field selector: invalid escape sequence: \\${next ?? ""}`,
          );
        }
        value += next;
        i++;
      } else if (c === "=") {
        throw badRequest(
          `invalid field selector: unescaped character in value: ${
            "=".charCodeAt(0)
          }`,
        );
      } else value += c;
    }
    out.push({ field: m[1], op: m[2], value: value.trim() });
  }
  return out;
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
  for (const { field, op, value } of fieldTerms(s)) {
    if (!allowed.includes(field) && strategy.fieldLabels) {
      throw badRequest(`field label not supported: ${field}`);
    }
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
  const computed = strategy.fieldValues ?? {};
  return (obj) =>
    reqs.every((r) => {
      const get = computed[r.path.join(".")];
      const v = get ? get(obj) : fieldValue(obj, r.path, defaults);
      return (v === r.value) === r.equal;
    });
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

/**
 * The shard selector of a list or watch, on a server with sharded list and
 * watch (undefined otherwise, or when the parameter is absent or empty).
 * kube-apiserver's registry parses it and returns the parser's error
 * wrapped as a plain error, which its handler answers as a reason-less 500.
 * @throws {StatusError} 500 `invalid shard selector: <parser message>`
 */
export function shardMatcher(
  enabled: boolean,
  s: string | null,
): ShardMatcher | undefined {
  if (!enabled || !s) return undefined;
  try {
    return newShardMatcher(s);
  } catch (err) {
    throw statusError(
      unknownFailure(500, `invalid shard selector: ${(err as Error).message}`),
    );
  }
}
