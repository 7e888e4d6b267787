/**
 * Text helpers of the generator: TypeScript written as `deno fmt` writes
 * it (two-space indent, double quotes, wrapped at 80 columns the way the
 * formatter wraps), so the modules pass `deno fmt --check` as generated.
 *
 * @module
 */

/** `deno fmt`'s line width. */
export const LINE_WIDTH = 80;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as written in an interface: bare when it can be. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** A string literal as `deno fmt` writes it (double quotes). */
export function literal(value: unknown): string {
  return JSON.stringify(value);
}

/**
 * A JSDoc block of a description at an indent; empty text gives no block.
 * `*\/` cannot end the comment early and a line starting with `@` is not
 * read as a tag.
 */
export function jsDoc(text: string | undefined, indent: string): string[] {
  if (text === undefined) return [];
  const lines = text.replaceAll("\r\n", "\n").replaceAll("*/", "*\\/")
    .split("\n").map((l) => l.replace(/\s+$/, "").replace(/\t/g, "  "));
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length === 0) return [];
  const out = [`${indent}/**`];
  for (const l of lines) {
    const safe = l.trimStart().startsWith("@") ? l.replace("@", "\\@") : l;
    out.push(safe === "" ? `${indent} *` : `${indent} * ${safe}`);
  }
  out.push(`${indent} */`);
  return out;
}

/**
 * A union type member list as `deno fmt` lays it out after `head` (e.g.
 * `  size?: ` ... `;`): one line when it fits, else one `| member` a line.
 */
export function unionLines(
  head: string,
  members: readonly string[],
  tail: string,
  indent: string,
): string[] {
  const one = `${head}${members.join(" | ")}${tail}`;
  if (one.length <= LINE_WIDTH || members.length < 2) return [one];
  return [
    head.trimEnd(),
    ...members.map((m, i) =>
      `${indent}  | ${m}${i === members.length - 1 ? tail : ""}`
    ),
  ];
}

/**
 * A named import as `deno fmt` writes it: one line when it fits, else one
 * specifier a line with a trailing comma.
 */
export function importLines(
  specifiers: readonly string[],
  from: string,
  typeOnly: boolean,
): string[] {
  const kw = typeOnly ? "import type" : "import";
  const one = `${kw} { ${specifiers.join(", ")} } from ${literal(from)};`;
  if (one.length <= LINE_WIDTH) return [one];
  return [
    `${kw} {`,
    ...specifiers.map((s) => `  ${s},`),
    `} from ${literal(from)};`,
  ];
}

/**
 * An interface property as `deno fmt` lays it out: one line when it fits;
 * else a union one `| member` a line, a `Record<K, V>` with its arguments
 * on their own lines, or the type on the next line.
 */
export function propertyLines(
  head: string,
  members: readonly string[],
  indent: string,
): string[] {
  const one = `${head}${members.join(" | ")};`;
  if (one.length <= LINE_WIDTH) return [one];
  if (members.length > 1) return unionLines(head, members, ";", indent);
  const type = members[0];
  const record = /^Record<string, (.*)>$/.exec(type);
  if (record && !record[1].includes("<")) {
    const open = `${head}Record<`;
    if (open.length <= LINE_WIDTH) {
      const value = `${indent}  ${record[1]}`;
      const parts = record[1].split(" | ");
      return [
        open,
        `${indent}  string,`,
        ...(value.length <= LINE_WIDTH || parts.length < 2
          ? [value]
          : parts.map((m) => `${indent}  | ${m}`)),
        `${indent}>;`,
      ];
    }
  }
  const next = `${indent}  ${type};`;
  const array = /^\((.*)\)\[\]$/.exec(type);
  if (next.length > LINE_WIDTH && array) {
    // A long array of a union: one member a line inside the parentheses.
    return [
      `${head}(`,
      ...array[1].split(" | ").map((m) => `${indent}  | ${m}`),
      `${indent})[];`,
    ];
  }
  return [head.trimEnd(), next];
}

/**
 * The first line of an object type: an interface extending `base`
 * (`extends` on the next line when it does not fit), or without a base a
 * type alias, whose implicit index signature lets it stand where a type
 * with `[field: string]: unknown` is expected (kubecache's own types).
 */
export function interfaceHead(
  name: string,
  base: string | undefined,
): string[] {
  if (base === undefined) return [`export type ${name} = {`];
  const one = `export interface ${name} extends ${base} {`;
  if (one.length <= LINE_WIDTH) return [one];
  return [`export interface ${name}`, `  extends ${base} {`];
}

/**
 * The first lines of `export const Name: ResourceType<T> = resourceType<T>({`
 * as `deno fmt` breaks them, and the indent of the object's fields.
 */
export function descriptorHead(
  name: string,
  rt: string,
  fn: string,
  type: string,
): { lines: string[]; indent: string; close: string } {
  const one = `export const ${name}: ${rt}<${type}> = ${fn}<${type}>({`;
  if (one.length <= LINE_WIDTH) {
    return { lines: [one], indent: "  ", close: "});" };
  }
  const typeArgs = `export const ${name}: ${rt}<${type}> = ${fn}<`;
  if (typeArgs.length <= LINE_WIDTH) {
    return {
      lines: [typeArgs, `  ${type}`, ">({"],
      indent: "  ",
      close: "});",
    };
  }
  const assign = `export const ${name}: ${rt}<${type}> =`;
  if (assign.length <= LINE_WIDTH) {
    return {
      lines: [assign, `  ${fn}<${type}>({`],
      indent: "    ",
      close: "  });",
    };
  }
  return {
    lines: [
      `export const ${name}: ${rt}<`,
      `  ${type}`,
      `> = ${fn}<${type}>({`,
    ],
    indent: "  ",
    close: "});",
  };
}
