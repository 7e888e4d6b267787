/**
 * A small subset of CEL, enough for the `x-kubernetes-validations` rules
 * custom resources usually carry, evaluated as apiextensions-apiserver
 * evaluates them (`apiserver/schema/cel`): `self` and `oldSelf` typed by
 * the schema (integer → int, number → double), field selection (`no such
 * key` when absent), `has()`, indexing, literals and lists, `! - * / % +
 * < <= > >= == != in && || ?:`, `size`, `startsWith`, `endsWith`,
 * `contains`, `matches`, `lowerAscii`, `upperAscii`, `int`, `double`,
 * `string`, and the macros `all`, `exists`, `exists_one`, `map`, `filter`.
 * Anything else is {@link CelUnsupported}: the schema stage accepts the
 * object and warns that the rule was not checked. Internal to
 * `FakeApiServer`.
 *
 * @module
 */

import type { SchemaProps } from "./_apiserver_structural.ts";

/** A rule the subset cannot parse or evaluate. */
export class CelUnsupported extends Error {}

/** A CEL evaluation error (`no such key: x`, `no such overload`). */
export class CelError extends Error {}

/** A CEL value: int (bigint), double (number), string, bool, null, list, map. */
export type CelValue =
  | bigint
  | number
  | string
  | boolean
  | null
  | CelValue[]
  | CelMap;

/** A CEL map or object, with the schema of its fields when known. */
export interface CelMap {
  readonly kind: "map";
  readonly fields: Map<string, CelValue>;
}

type Node =
  | { t: "lit"; v: CelValue }
  | { t: "id"; name: string }
  | { t: "sel"; on: Node; field: string }
  | { t: "idx"; on: Node; at: Node }
  | { t: "call"; on?: Node; fn: string; args: Node[] }
  | { t: "list"; items: Node[] }
  | { t: "un"; op: string; x: Node }
  | { t: "bin"; op: string; a: Node; b: Node }
  | { t: "cond"; c: Node; a: Node; b: Node };

const TOKEN_RE =
  /\s*(?:(\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)|(0x[0-9a-fA-F]+|\d+)(u?)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|([A-Za-z_][A-Za-z0-9_]*)|(==|!=|<=|>=|&&|\|\||[-+*/%!<>?:.,()[\]{}]))/y;

function tokenize(src: string): string[] {
  const out: string[] = [];
  TOKEN_RE.lastIndex = 0;
  let pos = 0;
  while (pos < src.length) {
    if (/^\s*$/.test(src.slice(pos))) break;
    TOKEN_RE.lastIndex = pos;
    const m = TOKEN_RE.exec(src);
    if (!m) throw new CelUnsupported(`cannot read ${src.slice(pos, pos + 10)}`);
    out.push(m[0].trim());
    pos = TOKEN_RE.lastIndex;
  }
  return out;
}

const MACROS = new Set(["all", "exists", "exists_one", "map", "filter"]);

/** Parse a CEL expression of the subset. @throws {CelUnsupported} */
export function parseCel(src: string): Node {
  const toks = tokenize(src);
  let i = 0;
  const peek = () => toks[i];
  const eat = (t?: string) => {
    const tok = toks[i];
    if (t !== undefined && tok !== t) {
      throw new CelUnsupported(`expected ${t}, found ${tok ?? "end"}`);
    }
    i++;
    return tok;
  };
  const args = (close: string): Node[] => {
    const out: Node[] = [];
    if (peek() === close) {
      eat();
      return out;
    }
    for (;;) {
      out.push(expr());
      if (peek() === ",") eat();
      else break;
    }
    eat(close);
    return out;
  };
  const primary = (): Node => {
    const tok = eat();
    if (tok === undefined) throw new CelUnsupported("unexpected end");
    if (tok === "(") {
      const e = expr();
      eat(")");
      return e;
    }
    if (tok === "[") return { t: "list", items: args("]") };
    if (/^\d+\.\d|^\d+[eE]/.test(tok)) return { t: "lit", v: Number(tok) };
    if (/^(0x[0-9a-fA-F]+|\d+)u$/.test(tok)) {
      return { t: "lit", v: BigInt(tok.slice(0, -1)) };
    }
    if (/^(0x[0-9a-fA-F]+|\d+)$/.test(tok)) return { t: "lit", v: BigInt(tok) };
    if (tok[0] === '"' || tok[0] === "'") {
      return { t: "lit", v: unquote(tok.slice(1, -1)) };
    }
    if (tok === "true" || tok === "false") {
      return { t: "lit", v: tok === "true" };
    }
    if (tok === "null") return { t: "lit", v: null };
    if (/^[A-Za-z_]/.test(tok)) {
      if (peek() === "(") {
        eat("(");
        return { t: "call", fn: tok, args: args(")") };
      }
      return { t: "id", name: tok };
    }
    throw new CelUnsupported(`unexpected ${tok}`);
  };
  const member = (): Node => {
    let n = primary();
    for (;;) {
      if (peek() === ".") {
        eat();
        const name = eat();
        if (!name || !/^[A-Za-z_]/.test(name)) {
          throw new CelUnsupported("expected a field name");
        }
        if (peek() === "(") {
          eat("(");
          n = { t: "call", on: n, fn: name, args: args(")") };
        } else n = { t: "sel", on: n, field: name };
      } else if (peek() === "[") {
        eat();
        const at = expr();
        eat("]");
        n = { t: "idx", on: n, at };
      } else return n;
    }
  };
  const unary = (): Node => {
    if (peek() === "!" || peek() === "-") {
      const op = eat()!;
      return { t: "un", op, x: unary() };
    }
    return member();
  };
  const binary = (ops: string[], next: () => Node) => (): Node => {
    let a = next();
    while (ops.includes(peek())) {
      const op = eat()!;
      a = { t: "bin", op, a, b: next() };
    }
    return a;
  };
  const mul = binary(["*", "/", "%"], unary);
  const add = binary(["+", "-"], mul);
  const rel = binary(["<", "<=", ">", ">=", "==", "!=", "in"], add);
  const and = binary(["&&"], rel);
  const or = binary(["||"], and);
  function expr(): Node {
    const c = or();
    if (peek() !== "?") return c;
    eat("?");
    const a = expr();
    eat(":");
    return { t: "cond", c, a, b: expr() };
  }
  const e = expr();
  if (i < toks.length) throw new CelUnsupported(`unexpected ${toks[i]}`);
  return e;
}

function unquote(s: string): string {
  return s.replace(
    /\\(["'\\nrt])/g,
    (_, c) => c === "n" ? "\n" : c === "r" ? "\r" : c === "t" ? "\t" : c,
  );
}

/** Whether an expression reads `oldSelf` (a transition rule). */
export function usesOldSelf(n: Node): boolean {
  switch (n.t) {
    case "id":
      return n.name === "oldSelf";
    case "sel":
      return usesOldSelf(n.on);
    case "idx":
      return usesOldSelf(n.on) || usesOldSelf(n.at);
    case "call":
      return (n.on !== undefined && usesOldSelf(n.on)) ||
        n.args.some(usesOldSelf);
    case "list":
      return n.items.some(usesOldSelf);
    case "un":
      return usesOldSelf(n.x);
    case "bin":
      return usesOldSelf(n.a) || usesOldSelf(n.b);
    case "cond":
      return usesOldSelf(n.c) || usesOldSelf(n.a) || usesOldSelf(n.b);
    default:
      return false;
  }
}

/** A JSON value as CEL sees it under its schema (integer → int). */
export function celValueOf(v: unknown, s: SchemaProps | undefined): CelValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "number") {
    const intType = s?.type === "integer" || s?.["x-kubernetes-int-or-string"];
    if (s?.type === "number") return v;
    return intType || (!s?.type && Number.isInteger(v)) ? BigInt(v) : v;
  }
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map((x) => celValueOf(x, s?.items));
  const fields = new Map<string, CelValue>();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const p = s?.properties?.[k] ??
      (typeof s?.additionalProperties === "object"
        ? s.additionalProperties
        : undefined);
    fields.set(k, celValueOf(x, p));
  }
  return { kind: "map", fields };
}

function isMap(v: CelValue): v is CelMap {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function typeName(v: CelValue): string {
  if (v === null) return "null_type";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "list";
  return "map";
}

function noOverload(fn: string, ...vs: CelValue[]): CelError {
  return new CelError(
    `no such overload: ${fn}(${vs.map(typeName).join(", ")})`,
  );
}

/** CEL equality (numbers compare across int and double). */
function equal(a: CelValue, b: CelValue): boolean {
  if (typeof a === "bigint" || typeof a === "number") {
    return (typeof b === "bigint" || typeof b === "number") &&
      Number(a) === Number(b);
  }
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length &&
      a.every((x, i) => equal(x, b[i]));
  }
  if (isMap(a)) {
    if (!isMap(b) || a.fields.size !== b.fields.size) return false;
    for (const [k, x] of a.fields) {
      if (!b.fields.has(k) || !equal(x, b.fields.get(k)!)) return false;
    }
    return true;
  }
  return a === b;
}

function compare(op: string, a: CelValue, b: CelValue): boolean {
  const num = (x: CelValue) => typeof x === "bigint" || typeof x === "number";
  let c: number;
  if (num(a) && num(b)) {
    c = Number(a) < Number(b) ? -1 : Number(a) > Number(b) ? 1 : 0;
  } else if (typeof a === "string" && typeof b === "string") {
    c = a < b ? -1 : a > b ? 1 : 0;
  } else if (typeof a === "boolean" && typeof b === "boolean") {
    c = Number(a) - Number(b);
  } else throw noOverload(op, a, b);
  return op === "<"
    ? c < 0
    : op === "<="
    ? c <= 0
    : op === ">"
    ? c > 0
    : c >= 0;
}

function truthy(v: CelValue, what: string): boolean {
  if (typeof v !== "boolean") throw noOverload(what, v);
  return v;
}

/**
 * kube-apiserver's per-call cost limit of one rule (`celconfig.PerCallLimit`);
 * here one unit per node evaluated, so a rule nesting macros over a long
 * list ends in an error instead of holding the server.
 */
export const CEL_PER_CALL_LIMIT = 1_000_000;

/** The cost left to one evaluation. */
interface Cost {
  left: number;
}

/** Evaluate an expression with variables. @throws {CelError} @throws {CelUnsupported} */
export function evalCel(
  n: Node,
  vars: Map<string, CelValue>,
  cost: Cost = { left: CEL_PER_CALL_LIMIT },
): CelValue {
  if (--cost.left < 0) {
    throw new CelError("operation cancelled: actual cost limit exceeded");
  }
  const ev = (x: Node): CelValue => evalCel(x, vars, cost);
  switch (n.t) {
    case "lit":
      return n.v;
    case "id": {
      if (!vars.has(n.name)) {
        throw new CelUnsupported(`undeclared reference to '${n.name}'`);
      }
      return vars.get(n.name)!;
    }
    case "sel": {
      const on = ev(n.on);
      if (!isMap(on)) throw new CelError(`no such key: ${n.field}`);
      if (!on.fields.has(n.field)) {
        throw new CelError(`no such key: ${n.field}`);
      }
      return on.fields.get(n.field)!;
    }
    case "idx": {
      const on = ev(n.on);
      const at = ev(n.at);
      if (Array.isArray(on) && typeof at === "bigint") {
        if (at < 0n || at >= BigInt(on.length)) {
          throw new CelError(`index out of range: ${at}`);
        }
        return on[Number(at)];
      }
      if (isMap(on) && typeof at === "string") {
        if (!on.fields.has(at)) throw new CelError(`no such key: ${at}`);
        return on.fields.get(at)!;
      }
      throw noOverload("_[_]", on, at);
    }
    case "list":
      return n.items.map(ev);
    case "un": {
      const x = ev(n.x);
      if (n.op === "!") return !truthy(x, "!_");
      if (typeof x === "bigint") return -x;
      if (typeof x === "number") return -x;
      throw noOverload("-_", x);
    }
    case "cond":
      return truthy(ev(n.c), "_?_:_") ? ev(n.a) : ev(n.b);
    case "bin":
      return binary(n.op, n.a, n.b, ev);
    case "call":
      return call(n, vars, ev, cost);
  }
}

function binary(
  op: string,
  an: Node,
  bn: Node,
  ev: (n: Node) => CelValue,
): CelValue {
  if (op === "&&" || op === "||") {
    // CEL's commutative logic: an error on one side is absorbed when the
    // other side decides the result.
    let a: CelValue | Error;
    try {
      a = truthy(ev(an), op);
    } catch (err) {
      if (err instanceof CelUnsupported) throw err;
      a = err as Error;
    }
    if (a === (op === "||")) return a as boolean;
    const b = truthy(ev(bn), op);
    if (b === (op === "||")) return b;
    if (a instanceof Error) throw a;
    return b;
  }
  const a = ev(an);
  const b = ev(bn);
  switch (op) {
    case "==":
      return equal(a, b);
    case "!=":
      return !equal(a, b);
    case "<":
    case "<=":
    case ">":
    case ">=":
      return compare(op, a, b);
    case "in":
      if (Array.isArray(b)) return b.some((x) => equal(x, a));
      if (isMap(b) && typeof a === "string") return b.fields.has(a);
      throw noOverload("@in", a, b);
  }
  if (typeof a === "bigint" && typeof b === "bigint") {
    switch (op) {
      case "+":
        return a + b;
      case "-":
        return a - b;
      case "*":
        return a * b;
      case "/":
        if (b === 0n) throw new CelError("division by zero");
        return a / b;
      case "%":
        if (b === 0n) throw new CelError("modulus by zero");
        return a % b;
    }
  }
  if (typeof a === "number" && typeof b === "number" && op !== "%") {
    return op === "+" ? a + b : op === "-" ? a - b : op === "*" ? a * b : a / b;
  }
  if (op === "+" && typeof a === "string" && typeof b === "string") {
    return a + b;
  }
  if (op === "+" && Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  throw noOverload(`_${op}_`, a, b);
}

function call(
  n: Extract<Node, { t: "call" }>,
  vars: Map<string, CelValue>,
  ev: (n: Node) => CelValue,
  cost: Cost,
): CelValue {
  if (n.fn === "has" && !n.on) {
    const arg = n.args[0];
    if (n.args.length !== 1 || arg.t !== "sel") {
      throw new CelUnsupported("has() takes a field selection");
    }
    const on = ev(arg.on);
    if (!isMap(on)) throw noOverload("has", on);
    return on.fields.has(arg.field);
  }
  if (n.on && MACROS.has(n.fn)) {
    const target = ev(n.on);
    const v = n.args[0];
    if (v?.t !== "id" || n.args.length !== 2) {
      throw new CelUnsupported(`${n.fn}() takes a variable and an expression`);
    }
    const items: CelValue[] = Array.isArray(target)
      ? target
      : isMap(target)
      ? [...target.fields.keys()]
      : (() => {
        throw noOverload(n.fn, target);
      })();
    const body = n.args[1];
    const each = (x: CelValue) => {
      const scope = new Map(vars);
      scope.set(v.name, x);
      return evalCel(body, scope, cost);
    };
    switch (n.fn) {
      case "all":
        return items.every((x) => truthy(each(x), "all"));
      case "exists":
        return items.some((x) => truthy(each(x), "exists"));
      case "exists_one":
        return items.filter((x) => truthy(each(x), "exists_one")).length === 1;
      case "map":
        return items.map(each);
      default:
        return items.filter((x) => truthy(each(x), "filter"));
    }
  }
  const args = n.args.map(ev);
  const on = n.on ? ev(n.on) : undefined;
  const all = on === undefined ? args : [on, ...args];
  const [x, y] = all;
  switch (n.fn) {
    case "size":
      if (typeof x === "string") return BigInt([...x].length);
      if (Array.isArray(x)) return BigInt(x.length);
      if (x !== undefined && isMap(x)) return BigInt(x.fields.size);
      throw noOverload("size", ...all);
    case "startsWith":
    case "endsWith":
    case "contains":
    case "matches":
      if (typeof x !== "string" || typeof y !== "string" || all.length !== 2) {
        throw noOverload(n.fn, ...all);
      }
      if (n.fn === "startsWith") return x.startsWith(y);
      if (n.fn === "endsWith") return x.endsWith(y);
      if (n.fn === "contains") return x.includes(y);
      return new RegExp(y, "u").test(x);
    case "lowerAscii":
    case "upperAscii":
      if (typeof x !== "string") throw noOverload(n.fn, ...all);
      return x.replace(
        /[A-Za-z]/g,
        (c) => n.fn === "lowerAscii" ? c.toLowerCase() : c.toUpperCase(),
      );
    case "int":
      if (typeof x === "bigint") return x;
      if (typeof x === "number") return BigInt(Math.trunc(x));
      if (typeof x === "string" && /^-?\d+$/.test(x)) return BigInt(x);
      throw noOverload("int", ...all);
    case "double":
      if (typeof x === "bigint" || typeof x === "number") return Number(x);
      if (typeof x === "string" && !Number.isNaN(Number(x))) return Number(x);
      throw noOverload("double", ...all);
    case "string":
      if (typeof x === "string") return x;
      if (typeof x === "bigint" || typeof x === "boolean") return String(x);
      if (typeof x === "number") return String(x);
      throw noOverload("string", ...all);
  }
  throw new CelUnsupported(`function ${n.fn} is not in the subset`);
}
