/**
 * The YAML an apply patch body may be written in, read as JSON: JSON itself
 * (what kubectl sends), or block YAML with nested mappings, `- ` sequences
 * and plain, single- or double-quoted scalars (what a hand-written manifest
 * uses). Anchors, tags, multi-line scalars and flow collections other than
 * JSON are not read. Internal to `FakeApiServer`.
 *
 * @module
 */

/** A body that is not YAML this reader understands. */
export class YamlError extends Error {}

/**
 * Parse an apply patch body.
 * @throws {YamlError} with a message like go-yaml's ("yaml: line N: ...")
 */
export function parseYaml(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(trimmed);
    } catch {
      const open = trimmed.includes("[") ? "']'" : "'}'";
      throw new YamlError(
        `yaml: line 1: did not find expected ',' or ${open}`,
      );
    }
  }
  const lines = text.split("\n").map((raw, i) => ({ raw, n: i + 1 }))
    .filter((l) =>
      l.raw.trim() !== "" && !l.raw.trim().startsWith("#") &&
      l.raw.trim() !== "---"
    );
  let pos = 0;
  const indentOf = (s: string) => s.length - s.trimStart().length;

  const block = (indent: number): unknown => {
    if (pos >= lines.length) return null;
    const first = lines[pos].raw;
    if (first.trimStart().startsWith("- ") || first.trim() === "-") {
      const out: unknown[] = [];
      while (
        pos < lines.length && indentOf(lines[pos].raw) === indent &&
        lines[pos].raw.trimStart().startsWith("-")
      ) {
        const line = lines[pos];
        const rest = line.raw.trimStart().slice(1).trimStart();
        if (rest === "") {
          pos++;
          out.push(block(pos < lines.length ? indentOf(lines[pos].raw) : 0));
        } else {
          // "- key: value" opens a mapping at the item's content column.
          const col = indent + line.raw.trimStart().length - rest.length;
          lines[pos] = { raw: " ".repeat(col) + rest, n: line.n };
          out.push(
            rest.match(/^[^"'].*?:(\s|$)/)
              ? block(col)
              : scalar(rest, line.n, pos++),
          );
        }
      }
      return out;
    }
    const out: Record<string, unknown> = {};
    while (pos < lines.length && indentOf(lines[pos].raw) === indent) {
      const line = lines[pos];
      const m = /^\s*("[^"]*"|'[^']*'|[^:]+?):(?:\s+(.*))?$/.exec(line.raw);
      if (!m) {
        throw new YamlError(
          `yaml: line ${line.n}: could not find expected ':'`,
        );
      }
      const key = unquote(m[1]);
      pos++;
      const value = m[2]?.trim() ?? "";
      if (value === "" || value.startsWith("#")) {
        const next = lines[pos];
        out[key] = next && indentOf(next.raw) > indent
          ? block(indentOf(next.raw))
          : next && indentOf(next.raw) === indent &&
              next.raw.trimStart().startsWith("-")
          ? block(indent)
          : null;
      } else out[key] = scalar(value, line.n);
    }
    if (pos < lines.length && indentOf(lines[pos].raw) > indent) {
      throw new YamlError(
        `yaml: line ${
          lines[pos].n
        }: mapping values are not allowed in this context`,
      );
    }
    return out;
  };
  const result = block(lines.length ? indentOf(lines[0].raw) : 0);
  return result;
}

function unquote(s: string): string {
  const t = s.trim();
  if (t.startsWith('"')) return JSON.parse(t);
  if (t.startsWith("'")) return t.slice(1, -1).replaceAll("''", "'");
  return t;
}

function scalar(text: string, n: number, _pos?: number): unknown {
  const t = text.replace(/\s+#.*$/, "").trim();
  if (t.startsWith('"') || t.startsWith("'")) {
    try {
      return unquote(t);
    } catch {
      throw new YamlError(`yaml: line ${n}: found unexpected end of stream`);
    }
  }
  if (t.startsWith("{") || t.startsWith("[")) {
    try {
      return JSON.parse(t);
    } catch {
      throw new YamlError(`yaml: line ${n}: did not find expected ',' or ']'`);
    }
  }
  if (t === "null" || t === "~") return null;
  if (t === "true") return true;
  if (t === "false") return false;
  if (/^-?\d+$/.test(t)) return Number(t);
  if (/^-?\d+\.\d+$/.test(t)) return Number(t);
  return t;
}
