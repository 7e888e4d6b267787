/**
 * Label selectors: parse the apiserver's `labelSelector` syntax and match it
 * against an object's labels. Mirrors apimachinery `pkg/labels`
 * (`selector.go`: `Parse`, `SelectorFromSet`, `Requirement`, the lexer).
 *
 * Grammar (apimachinery `labels.Parse`), requirements separated by `,` and
 * all of which must match:
 *
 * - `key` (exists), `!key` (does not exist)
 * - `key=value`, `key==value`, `key!=value` (a missing value means `""`)
 * - `key in (a,b)`, `key notin (a,b)`
 * - `key>5`, `key<5` (the label value and the bound are 64-bit integers)
 *
 * Keys are qualified names (`[prefix/]name`, name up to 63 characters, prefix
 * a DNS subdomain); values are empty or up to 63 alphanumerics, `-`, `_`,
 * `.`, starting and ending alphanumeric.
 *
 * @module
 */

/**
 * Labels of an object: key → value (apimachinery `labels.Set`).
 *
 * @example The labels a selector matches
 * ```ts
 * import { type Labels, parseSelector } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const labels: Labels = { app: "web", tier: "frontend" };
 * assert.equal(parseSelector("app=web,tier in (frontend,backend)").matches(labels), true);
 * ```
 */
export type Labels = Record<string, string>;

/**
 * A selector operator (apimachinery `selection.Operator`).
 *
 * @example The operators of a parsed selector
 * ```ts
 * import { type Operator, parseSelector } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const ops: Operator[] = parseSelector("a=1,b!=2,c in (x),d notin (y),e,!f").requirements().map((r) => r.operator);
 * assert.deepEqual(ops, ["=", "!=", "in", "notin", "exists", "!"]);
 * ```
 */
export type Operator =
  | "="
  | "=="
  | "!="
  | "in"
  | "notin"
  | "exists"
  | "!"
  | ">"
  | "<";

/**
 * One clause of a selector (apimachinery `labels.Requirement`): a key, an
 * operator and its values (sorted, without duplicates; empty for `exists`
 * and `!`).
 *
 * @example Read a selector clause by clause
 * ```ts
 * import { parseSelector, type Requirement } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const [req]: readonly Requirement[] = parseSelector("env in (prod,dev)").requirements();
 * assert.equal(req.key, "env");
 * assert.equal(req.operator, "in");
 * assert.deepEqual(req.values, ["dev", "prod"]); // sorted
 * ```
 */
export interface Requirement {
  /** The label key. */
  readonly key: string;
  /** The operator. */
  readonly operator: Operator;
  /** The values, sorted and unique. */
  readonly values: readonly string[];
}

/**
 * A parsed label selector (apimachinery `labels.Selector`). Immutable.
 *
 * @example Match labels
 * ```ts
 * import { parseSelector } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const sel = parseSelector("app=web,tier in (front,edge),!canary");
 * assert.ok(sel.matches({ app: "web", tier: "edge" }));
 * assert.ok(!sel.matches({ app: "web", tier: "edge", canary: "yes" }));
 * assert.equal(sel.toString(), "app=web,!canary,tier in (edge,front)");
 * ```
 */
export interface Selector {
  /**
   * Whether every requirement matches `labels`; `undefined` labels are
   * treated as no labels.
   */
  matches(labels: Labels | undefined): boolean;
  /** Whether the selector has no requirements (matches everything). */
  empty(): boolean;
  /**
   * The canonical text form: requirements sorted by key, values of `in` and
   * `notin` sorted, joined by `,`. Parsing it gives an equal selector.
   */
  toString(): string;
  /** The requirements, sorted by key. */
  requirements(): readonly Requirement[];
}

/**
 * The error thrown when a label selector cannot be parsed or is invalid
 * (apimachinery returns it from `labels.Parse`). `position` is the 0-based
 * offset in `selector` of the token at fault.
 *
 * @example Where a selector went wrong
 * ```ts
 * import { parseSelector, SelectorParseError } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * assert.throws(() => parseSelector("app in (web"), (err) => {
 *   assert.ok(err instanceof SelectorParseError);
 *   assert.equal(err.selector, "app in (web");
 *   assert.equal(err.position, 11); // the end of the string: ")" is missing
 *   return true;
 * });
 * ```
 */
export class SelectorParseError extends SyntaxError {
  /** The selector text that failed. */
  readonly selector: string;
  /** 0-based character offset of the offending token. */
  readonly position: number;

  /**
   * Create a selector parse error.
   * @param selector the selector text
   * @param position 0-based offset of the offending token
   * @param problem what is wrong at that position
   */
  constructor(selector: string, position: number, problem: string) {
    super(
      `Cannot parse label selector "${selector}" at position ${position}: ${problem}`,
    );
    this.name = "SelectorParseError";
    this.selector = selector;
    this.position = position;
  }
}

class InternalSelector implements Selector {
  readonly #reqs: readonly Requirement[];

  constructor(reqs: Requirement[]) {
    // Sorted by key (stable), as apimachinery does, for a deterministic form.
    this.#reqs = reqs.slice().sort((a, b) =>
      a.key < b.key ? -1 : a.key > b.key ? 1 : 0
    );
  }

  matches(labels: Labels | undefined): boolean {
    for (const r of this.#reqs) {
      if (!requirementMatches(r, labels)) return false;
    }
    return true;
  }

  empty(): boolean {
    return this.#reqs.length === 0;
  }

  toString(): string {
    return this.#reqs.map(requirementString).join(",");
  }

  requirements(): readonly Requirement[] {
    return this.#reqs;
  }
}

const EVERYTHING: Selector = new InternalSelector([]);

/**
 * A selector that matches every object (apimachinery `labels.Everything`).
 *
 * @returns the empty selector
 *
 * @example Match every object
 * ```ts
 * import { everything } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const all = everything();
 * assert.equal(all.empty(), true);
 * assert.equal(all.matches({ app: "web" }), true);
 * assert.equal(all.matches(undefined), true);
 * ```
 */
export function everything(): Selector {
  return EVERYTHING;
}

function has(labels: Labels | undefined, key: string): boolean {
  return labels !== undefined && Object.hasOwn(labels, key);
}

function requirementMatches(
  r: Requirement,
  labels: Labels | undefined,
): boolean {
  switch (r.operator) {
    case "=":
    case "==":
    case "in":
      return has(labels, r.key) && r.values.includes(labels![r.key]);
    case "!=":
    case "notin":
      return !has(labels, r.key) || !r.values.includes(labels![r.key]);
    case "exists":
      return has(labels, r.key);
    case "!":
      return !has(labels, r.key);
    case ">":
    case "<": {
      if (!has(labels, r.key)) return false;
      const actual = parseInt64(labels![r.key]);
      const bound = parseInt64(r.values[0]);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === ">" ? actual > bound : actual < bound;
    }
  }
}

function requirementString(r: Requirement): string {
  switch (r.operator) {
    case "exists":
      return r.key;
    case "!":
      return `!${r.key}`;
    case "in":
    case "notin":
      return `${r.key} ${r.operator} (${r.values.join(",")})`;
    default:
      return `${r.key}${r.operator}${r.values[0]}`;
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64): optional sign, decimal digits, in range. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

// ---- validation (apimachinery util/validation) ----

const NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN_RE =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** validation.IsQualifiedName: returns the problem, or undefined when valid. */
function keyProblem(key: string): string | undefined {
  const parts = key.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) return "prefix part must be non-empty";
    if (prefix.length > 253) {
      return "prefix part must be no more than 253 characters";
    }
    if (!DNS1123_SUBDOMAIN_RE.test(prefix)) {
      return "prefix part must be a lowercase DNS subdomain (e.g. example.com)";
    }
  } else {
    return "a qualified name must be a name with an optional DNS subdomain prefix and '/' (e.g. example.com/MyName)";
  }
  if (name.length === 0) return "name part must be non-empty";
  if (name.length > 63) return "name part must be no more than 63 characters";
  if (!NAME_RE.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** validation.IsValidLabelValue: returns the problem, or undefined when valid. */
function valueProblem(value: string): string | undefined {
  if (value.length > 63) return "must be no more than 63 characters";
  if (value !== "" && !NAME_RE.test(value)) {
    return "a valid label value must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

// ---- lexer ----

type TokenKind =
  | "error"
  | "end"
  | ")"
  | ","
  | "!"
  | "=="
  | "="
  | ">"
  | "ident"
  | "in"
  | "<"
  | "!="
  | "notin"
  | "(";

interface Token {
  kind: TokenKind;
  /** The literal text (for "error", the lexer's message). */
  lit: string;
  /** 0-based offset of the first character. */
  pos: number;
}

const SYMBOLS: Record<string, TokenKind> = {
  ")": ")",
  ",": ",",
  "!": "!",
  "==": "==",
  "=": "=",
  ">": ">",
  "<": "<",
  "!=": "!=",
  "(": "(",
};

function isWhitespace(ch: string): boolean {
  return ch === " " || ch === "\t" || ch === "\r" || ch === "\n";
}

function isSpecial(ch: string): boolean {
  return "=!(),><".includes(ch);
}

function lex(s: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && isWhitespace(s[i])) i++;
    if (i >= s.length) {
      tokens.push({ kind: "end", lit: "", pos: s.length });
      return tokens;
    }
    const start = i;
    if (isSpecial(s[i])) {
      // Longest run of special characters that is a known symbol.
      let best: TokenKind | undefined;
      let bestEnd = i;
      let j = i;
      while (j < s.length && isSpecial(s[j])) {
        j++;
        const kind = SYMBOLS[s.slice(i, j)];
        if (kind) {
          best = kind;
          bestEnd = j;
        } else if (best) break;
      }
      if (!best) {
        tokens.push({ kind: "error", lit: s.slice(i, j), pos: start });
        return tokens;
      }
      tokens.push({ kind: best, lit: s.slice(i, bestEnd), pos: start });
      i = bestEnd;
    } else {
      while (i < s.length && !isSpecial(s[i]) && !isWhitespace(s[i])) i++;
      const lit = s.slice(start, i);
      const kind = lit === "in" ? "in" : lit === "notin" ? "notin" : "ident";
      tokens.push({ kind, lit, pos: start });
    }
  }
}

// ---- parser ----

class Parser {
  readonly #s: string;
  readonly #tokens: Token[];
  #at = 0;

  constructor(s: string) {
    this.#s = s;
    this.#tokens = lex(s);
  }

  /**
   * The next token. Outside operator position "in"/"notin" are identifiers,
   * so `in in (in)` parses, as in apimachinery's Values context.
   */
  #peek(asOperator = false): Token {
    return this.#normal(this.#tokens[this.#at], asOperator);
  }

  #next(asOperator = false): Token {
    return this.#normal(this.#tokens[this.#at++], asOperator);
  }

  #normal(t: Token, asOperator: boolean): Token {
    if (!asOperator && (t.kind === "in" || t.kind === "notin")) {
      return { ...t, kind: "ident" };
    }
    return t;
  }

  #fail(t: Token, expected: string): never {
    if (t.kind === "error") {
      throw new SelectorParseError(
        this.#s,
        t.pos,
        `unknown operator "${t.lit}", expected ${expected}`,
      );
    }
    const found = t.kind === "end" ? "end of string" : `"${t.lit}"`;
    throw new SelectorParseError(
      this.#s,
      t.pos,
      `found ${found}, expected ${expected}`,
    );
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const t = this.#peek();
      if (t.kind === "end") return reqs;
      if (t.kind !== "ident" && t.kind !== "!") {
        this.#fail(t, `"!", identifier, or end of string`);
      }
      reqs.push(this.#requirement());
      const sep = this.#next();
      if (sep.kind === "end") return reqs;
      if (sep.kind !== ",") this.#fail(sep, `"," or end of string`);
      const after = this.#peek();
      if (after.kind !== "ident" && after.kind !== "!") {
        this.#fail(after, `identifier after ","`);
      }
    }
  }

  #requirement(): Requirement {
    let t = this.#next();
    const negated = t.kind === "!";
    if (negated) t = this.#next();
    if (t.kind !== "ident") this.#fail(t, "identifier");
    const key = t.lit;
    const keyErr = keyProblem(key);
    if (keyErr) {
      throw new SelectorParseError(
        this.#s,
        t.pos,
        `invalid label key "${key}": ${keyErr}`,
      );
    }
    const after = this.#peek();
    if (negated || after.kind === "end" || after.kind === ",") {
      // "!key" with a trailing operator is rejected by the caller's
      // separator check, as apimachinery does.
      return { key, operator: negated ? "!" : "exists", values: [] };
    }
    const op = this.#next(true);
    switch (op.kind) {
      case "in":
      case "notin":
        return { key, operator: op.kind, values: this.#setValues(key) };
      case "=":
      case "==":
      case "!=":
        return { key, operator: op.kind, values: [this.#exactValue(key)] };
      case ">":
      case "<": {
        const valueTok = this.#peek();
        const value = this.#exactValue(key);
        if (parseInt64(value) === undefined) {
          throw new SelectorParseError(
            this.#s,
            valueTok.pos,
            `for '>' and '<' the value must be a 64-bit integer, got "${value}"`,
          );
        }
        return { key, operator: op.kind, values: [value] };
      }
      default:
        return this.#fail(
          op,
          `one of "in", "notin", "=", "==", "!=", ">", "<"`,
        );
    }
  }

  #checkValue(key: string, t: Token): string {
    const problem = valueProblem(t.lit);
    if (problem) {
      throw new SelectorParseError(
        this.#s,
        t.pos,
        `invalid value "${t.lit}" for label "${key}": ${problem}`,
      );
    }
    return t.lit;
  }

  #exactValue(key: string): string {
    const t = this.#peek();
    if (t.kind === "end" || t.kind === ",") return "";
    this.#next();
    if (t.kind !== "ident") this.#fail(t, "identifier");
    return this.#checkValue(key, t);
  }

  /** `( v1, v2, ... )`; empty entries (`()`, `(a,,b)`) stand for "". */
  #setValues(key: string): string[] {
    const open = this.#next();
    if (open.kind !== "(") this.#fail(open, `"("`);
    const values = new Set<string>();
    let expectValue = true;
    for (;;) {
      const t = this.#next();
      if (t.kind === ")") {
        if (expectValue) values.add("");
        break;
      }
      if (t.kind === ",") {
        if (expectValue) values.add("");
        expectValue = true;
        continue;
      }
      if (t.kind === "ident" && expectValue) {
        values.add(this.#checkValue(key, t));
        expectValue = false;
        continue;
      }
      this.#fail(t, expectValue ? `",", ")" or identifier` : `"," or ")"`);
    }
    return [...values].sort();
  }
}

/**
 * Parse a label selector (apimachinery `labels.Parse`). The empty or blank
 * string gives the selector that matches everything.
 *
 * @example Set-based and integer requirements
 * ```ts
 * import { parseSelector } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const sel = parseSelector("env notin (prod), replicas>2");
 * assert.ok(sel.matches({ replicas: "3" }));
 * assert.ok(!sel.matches({ env: "prod", replicas: "3" }));
 * assert.ok(!sel.matches({ replicas: "two" }));
 * ```
 *
 * @param selector the selector text, e.g. `"app=web,tier!=db"`
 * @returns the parsed selector, requirements sorted by key
 * @throws {SelectorParseError} on a syntax error or an invalid key or value;
 *   `position` is the offset of the offending token
 */
export function parseSelector(selector: string): Selector {
  const reqs = new Parser(selector).parse();
  return reqs.length === 0 ? EVERYTHING : new InternalSelector(reqs);
}

/**
 * A selector that matches objects carrying every key/value pair of `set`
 * (apimachinery `labels.SelectorFromSet`). An empty set matches everything.
 * Like apimachinery, the keys and values are not validated.
 *
 * @example
 * ```ts
 * import { selectorFromSet } from "@kubecache/core";
 * import assert from "node:assert/strict";
 * const sel = selectorFromSet({ tier: "db", app: "shop" });
 * assert.equal(sel.toString(), "app=shop,tier=db");
 * assert.ok(sel.matches({ app: "shop", tier: "db", extra: "x" }));
 * assert.ok(!sel.matches({ app: "shop" }));
 * ```
 *
 * @param set the required labels
 * @returns a selector of `key=value` requirements
 */
export function selectorFromSet(set: Labels): Selector {
  const reqs: Requirement[] = Object.entries(set).map(([key, value]) => ({
    key,
    operator: "=",
    values: [value],
  }));
  return reqs.length === 0 ? EVERYTHING : new InternalSelector(reqs);
}
