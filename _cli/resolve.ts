/**
 * "Did you mean" for resource names the server does not have: the closest
 * plural, singular, short name or kind by edit distance, spelled back as
 * kubectl spells resources (`pods`, `deployments.apps`).
 *
 * @module
 */

import type { ResourceType } from "../api/resources.ts";

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
 * The served resource closest to a name nothing matched, if one is close
 * enough: within one edit for names of up to three letters, else within
 * two edits or a third of the name; a prefix counts as one edit. Core-group
 * types win ties.
 * @param name what the user typed, e.g. `podz` or `deploymnets.apps`
 * @param types the served resource types
 * @returns the suggestion, e.g. `"pods"`, or undefined
 */
export function suggestResource(
  name: string,
  types: readonly ResourceType[],
): string | undefined {
  const base = name.trim().toLowerCase().split(".")[0];
  if (base === "") return undefined;
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
  if (!best || best.distance > limit) return undefined;
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
