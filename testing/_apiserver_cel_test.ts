/** The fake API server's CEL subset: values, operators, macros, errors. */

import assert from "node:assert/strict";
import {
  CEL_PER_CALL_LIMIT,
  CelError,
  CelUnsupported,
  celValueOf,
  evalCel,
  parseCel,
} from "./_apiserver_cel.ts";

const SCHEMA = {
  type: "object",
  properties: {
    n: { type: "integer" },
    r: { type: "number" },
    s: { type: "string" },
    l: { type: "array", items: { type: "integer" } },
    m: { type: "object", additionalProperties: { type: "string" } },
  },
};
const SELF = { n: 3, r: 0.5, s: "abc", l: [1, 2, 3], m: { k: "v" } };

function run(expr: string) {
  return evalCel(
    parseCel(expr),
    new Map([["self", celValueOf(SELF, SCHEMA)]]),
  );
}

Deno.test("the CEL subset evaluates rules as CEL does", () => {
  const cases: [string, unknown][] = [
    ["self.n + 2 == 5", true],
    ["self.n / 2", 1n],
    ["self.n % 2 == 1 && self.r < 1.0", true],
    ["self.r * 2.0", 1],
    ["self.s + 'd'", "abcd"],
    ["size(self.s) == 3 && self.l.size() == 3", true],
    ["self.s.startsWith('a') && self.s.endsWith('c')", true],
    ["self.s.contains('b') && self.s.matches('^[a-c]+$')", true],
    ["self.l.all(x, x > 0) && self.l.exists(x, x == 2)", true],
    ["self.l.exists_one(x, x > 2)", true],
    ["self.l.map(x, x * 2)", [2n, 4n, 6n]],
    ["self.l.filter(x, x != 2)", [1n, 3n]],
    ["2 in self.l && 'k' in self.m", true],
    ["self.m['k'] == 'v' && self.l[0] == 1", true],
    ["has(self.s) && !has(self.missing)", true],
    ["self.n > 2 ? 'big' : 'small'", "big"],
    ["-self.n < 0 && int('7') == 7 && double(self.n) == 3.0", true],
    ["string(self.n) == '3'", true],
    // An error on one side of || is absorbed when the other decides.
    ["self.missing == 1 || true", true],
  ];
  for (const [expr, want] of cases) assert.deepEqual(run(expr), want, expr);
});

Deno.test("the CEL subset reports CEL's runtime errors and what it cannot evaluate", () => {
  assert.throws(
    () => run("self.missing > 0"),
    new CelError("no such key: missing"),
  );
  assert.throws(
    () => run("self.s + 1"),
    new CelError("no such overload: _+_(string, int)"),
  );
  assert.throws(() => run("self.l[5]"), new CelError("index out of range: 5"));
  assert.throws(() => run("self.s.split(',')"), CelUnsupported);
  assert.throws(() => parseCel("self.a ="), CelUnsupported);
  assert.throws(() => run("other.x"), CelUnsupported);
});

Deno.test("a rule past the per-call cost limit is an error, not a hang", () => {
  const l = Array.from({ length: 400 }, (_, i) => i);
  const self = celValueOf({ l }, SCHEMA);
  // 400³ = 64 million evaluations of the innermost body without a limit.
  const expr = parseCel(
    "self.l.all(a, self.l.all(b, self.l.all(c, a + b + c >= 0)))",
  );
  assert.throws(
    () => evalCel(expr, new Map([["self", self]])),
    (e) =>
      e instanceof CelError &&
      e.message === "operation cancelled: actual cost limit exceeded",
  );
  // A cheap rule is far below the limit.
  assert.equal(
    evalCel(parseCel("self.l.all(a, a >= 0)"), new Map([["self", self]])),
    true,
  );
  assert.ok(CEL_PER_CALL_LIMIT >= 400 * 10);
});
