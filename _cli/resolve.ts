/**
 * Resource name resolution the way kubectl does it (`RESTMapper` over
 * discovery): plural, singular, short name or kind, optionally qualified as
 * `name.group` or `name.version.group`, with a "did you mean" suggestion.
 *
 * @module
 */

import type { ResourceType } from "../client/resources.ts";

/** A resource name that matches nothing the server serves. */
export class UnknownResourceError extends Error {
  /** The closest known name, when one is close enough. */
  readonly suggestion?: string;

  /**
   * Create the error.
   * @param name the name as typed
   * @param suggestion the closest known resource, if any
   */
  constructor(name: string, suggestion?: string) {
    super(
      `Unknown resource type "${name}" on the server` +
        (suggestion ? `: did you mean "${suggestion}"?` : ""),
    );
    this.name = "UnknownResourceError";
    this.suggestion = suggestion;
  }
}

function namesOf(t: ResourceType): string[] {
  return [
    t.resource,
    t.singular ?? t.kind.toLowerCase(),
    t.kind.toLowerCase(),
    ...(t.shortNames ?? []),
  ];
}

/** How a resource is spelled back to the user: `pods`, `deployments.apps`. */
export function qualifiedName(t: ResourceType): string {
  return t.group ? `${t.resource}.${t.group}` : t.resource;
}

/**
 * Find the resource type a name means among the served ones. Core-group
 * types win over same-named types of other groups, then the order of
 * `types` (discovery order, preferred versions first) decides, as kubectl's
 * priority RESTMapper does.
 * @param name what the user typed, e.g. `po`, `deploy.apps`, `deployments.v1.apps`
 * @param types the served resource types
 * @throws {UnknownResourceError} when nothing matches, naming the closest name
 */
export function resolveResource(
  name: string,
  types: readonly ResourceType[],
): ResourceType {
  const wanted = name.trim().toLowerCase();
  const candidates = interpretations(wanted).flatMap((
    { base, version, group },
  ) =>
    types.filter((t) =>
      namesOf(t).includes(base) &&
      (group === undefined || t.group === group) &&
      (version === undefined || t.version === version)
    )
  );
  if (candidates.length > 0) {
    return candidates.find((t) => t.group === "") ?? candidates[0];
  }
  throw new UnknownResourceError(name, suggest(wanted, types));
}

/** `a.b.c` may be resource.version.group or resource.group; `a` is just a name. */
function interpretations(
  wanted: string,
): { base: string; version?: string; group?: string }[] {
  const dot = wanted.indexOf(".");
  if (dot < 0) return [{ base: wanted }];
  const base = wanted.slice(0, dot);
  const rest = wanted.slice(dot + 1);
  const out: { base: string; version?: string; group?: string }[] = [];
  const second = rest.indexOf(".");
  if (second >= 0 && /^v\d+((alpha|beta)\d+)?$/.test(rest.slice(0, second))) {
    out.push({
      base,
      version: rest.slice(0, second),
      group: rest.slice(second + 1),
    });
  }
  // "pods.v1." style: core group with a version
  if (rest.endsWith(".") && /^v\d+/.test(rest)) {
    out.push({ base, version: rest.slice(0, -1), group: "" });
  }
  out.push({ base, group: rest });
  return out;
}

/** The closest known name by edit distance (at most 2, or a prefix). */
function suggest(
  wanted: string,
  types: readonly ResourceType[],
): string | undefined {
  const base = wanted.split(".")[0];
  let best: { type: ResourceType; distance: number } | undefined;
  for (const t of types) {
    for (const n of namesOf(t)) {
      const d = n.startsWith(base) || base.startsWith(n)
        ? Math.min(1, levenshtein(base, n))
        : levenshtein(base, n);
      const better = !best || d < best.distance ||
        (d === best.distance && best.type.group !== "" && t.group === "");
      if (better) best = { type: t, distance: d };
    }
  }
  const limit = base.length <= 3 ? 1 : Math.max(2, Math.floor(base.length / 3));
  if (!best || best.distance > limit) {
    return undefined;
  }
  return qualifiedName(best.type);
}

/** Edit distance between two short strings. */
export function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(
        prev[j] + 1,
        cur[j - 1] + 1,
        prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = cur;
  }
  return prev[b.length];
}
