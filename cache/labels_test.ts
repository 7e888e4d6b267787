import assert from "node:assert/strict";
import {
  everything,
  type Labels,
  parseSelector,
  selectorFromSet,
  SelectorParseError,
} from "./labels.ts";

Deno.test("parseSelector() round-trips good selectors through toString()", () => {
  // apimachinery TestSelectorParse: spaces vanish in the canonical form.
  for (
    const s of [
      "x=a,y=b,z=c",
      "",
      "x!=a,y=b",
      "x=",
      "x= ",
      "x=,z= ",
      "x= ,z= ",
      "!x",
      "x>1",
      "x>1,z<5",
    ]
  ) {
    assert.equal(parseSelector(s).toString(), s.replaceAll(" ", ""), s);
  }
});

Deno.test("parseSelector() sorts requirements by key deterministically", () => {
  assert.equal(
    parseSelector("x=a,a=x").toString(),
    parseSelector("a=x,x=a").toString(),
  );
  assert.equal(
    parseSelector("x notin (abc,def),bar,z in (),w").toString(),
    "bar,w,x notin (abc,def),z in ()",
  );
});

Deno.test("parseSelector() parses the set-based syntax table", () => {
  const cases: [string, string][] = [
    ["\rx", "x"],
    [
      "this-is-a-dns.domain.com/key-with-dash",
      "this-is-a-dns.domain.com/key-with-dash",
    ],
    [
      "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
      "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)",
    ],
    ["foo  in\t (abc)", "foo in (abc)"],
    ["x notin\n (abc)", "x notin (abc)"],
    ["x in (def,abc,abc)", "x in (abc,def)"],
    ["x in (abc,)", "x in (,abc)"],
    ["x in ()", "x in ()"],
    ["x notin ( )", "x notin ()"],
    ["x notin (, a)", "x notin (,a)"],
    ["x in (a,,b)", "x in (,a,b)"],
    ["a ", "a"],
    ["a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"],
    ["notin=in", "notin=in"],
    ["in in (in)", "in in (in)"],
    ["x==a,y!=b", "x==a,y!=b"],
    ["x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"],
    ["x,y", "x,y"],
  ];
  for (const [input, canonical] of cases) {
    const sel = parseSelector(input);
    assert.equal(sel.toString(), canonical, input);
    assert.equal(parseSelector(sel.toString()).toString(), canonical, input);
  }
});

Deno.test("parseSelector() rejects bad selectors, naming the position", () => {
  const cases: [string, number, RegExp][] = [
    ["x=a||y=b", 2, /invalid value "a\|\|y"/],
    ["x==a==b", 4, /found "=="/],
    ["x=a=", 3, /found "="/],
    ["!x=a", 2, /found "="/],
    ["x<a", 2, /integer/],
    ["x>1.5", 2, /integer/],
    ["x>", 2, /integer/],
    ["x>99999999999999999999", 2, /integer/],
    ["x,,y", 2, /identifier after ","/],
    [",x,y", 0, /found ","/],
    ["x nott in (y)", 2, /found "nott"/],
    ["a in (xyz),", 11, /found end of string, expected identifier after/],
    ["a in (xyz)b notin ()", 10, /found "b"/],
    ["a in (xyz abc)", 10, /found "abc", expected "," or "\)"/],
    ["a notin(", 8, /found end of string/],
    ["a (", 2, /found "\("/],
    ["(", 0, /found "\("/],
    ["x in a", 5, /expected "\("/],
    ["x=a b", 4, /found "b", expected "," or end of string/],
    ["=a", 0, /found "="/],
    ["x=(a)", 2, /found "\("/],
    ["-x=a", 0, /invalid label key "-x"/],
    ["x=-a", 2, /invalid value "-a"/],
    ["x in (a,-b)", 8, /invalid value "-b"/],
    ["a/b/c", 0, /qualified name/],
    ["/x", 0, /prefix part must be non-empty/],
    ["Example.com/x", 0, /DNS subdomain/],
    ["example.com/", 0, /name part must be non-empty/],
    [`${"a".repeat(64)}`, 0, /63 characters/],
    [`x=${"v".repeat(64)}`, 2, /63 characters/],
    [`${"a".repeat(254)}/x`, 0, /253 characters/],
  ];
  for (const [input, position, message] of cases) {
    assert.throws(
      () => parseSelector(input),
      (err: unknown) => {
        assert.ok(err instanceof SelectorParseError, input);
        assert.ok(err instanceof SyntaxError);
        assert.equal(err.position, position, `${input}: ${err.message}`);
        assert.equal(err.selector, input);
        assert.match(err.message, message, input);
        assert.match(err.message, new RegExp(`at position ${position}:`));
        return true;
      },
      input,
    );
  }
});

Deno.test("parseSelector() accepts keys and values at the length limits", () => {
  const name = "a".repeat(63);
  const prefix = `${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.${
    "e".repeat(61)
  }`;
  assert.equal(prefix.length, 253);
  const sel = parseSelector(`${prefix}/${name}=${"v".repeat(63)}`);
  assert.ok(sel.matches({ [`${prefix}/${name}`]: "v".repeat(63) }));
});

Deno.test("Selector.matches() follows apimachinery TestSelectorMatches", () => {
  const yes: [string, Labels][] = [
    ["", { x: "y" }],
    ["x=y", { x: "y" }],
    ["x==y", { x: "y" }],
    ["x=y,z=w", { x: "y", z: "w" }],
    ["x!=y,z!=w", { x: "z", z: "a" }],
    ["notin=in", { notin: "in" }],
    ["x", { x: "z" }],
    ["x", { x: "" }],
    ["!x", { y: "z" }],
    ["x>1", { x: "2" }],
    ["x<1", { x: "0" }],
    ["x<1", { x: "-5" }],
    ["x>9223372036854775806", { x: "9223372036854775807" }],
    ["x!=y", {}],
    ["x notin (a)", {}],
    ["x notin ()", { x: "a" }],
    ["x in (a,b)", { x: "b" }],
    ["x in (,a)", { x: "" }],
    ["x=", { x: "" }],
    ["foo=bar,baz=blah", { foo: "bar", baz: "blah" }],
  ];
  const no: [string, Labels | undefined][] = [
    ["x=z", {}],
    ["x=z", undefined],
    ["x=y", { x: "z" }],
    ["x=y,z=w", { x: "w", z: "w" }],
    ["x!=y,z!=w", { x: "z", z: "w" }],
    ["x", { y: "z" }],
    ["x", undefined],
    ["!x", { x: "z" }],
    ["x>1", { x: "0" }],
    ["x>1", { x: "1" }],
    ["x<1", { x: "2" }],
    ["x>1", { x: "v2" }],
    ["x>1", {}],
    ["x<1", { x: "99999999999999999999" }],
    ["x in ()", { y: "baz" }],
    ["x notin ()", { x: "" }],
    ["x=", { x: "a" }],
    ["foo=bar,foobar=bar,baz=blah", { foo: "bar", baz: "blah" }],
  ];
  for (const [s, labels] of yes) {
    assert.ok(parseSelector(s).matches(labels), `${s} should match`);
  }
  for (const [s, labels] of no) {
    assert.ok(!parseSelector(s).matches(labels), `${s} should not match`);
  }
});

Deno.test("Selector.matches() ignores inherited properties", () => {
  const labels = Object.create({ x: "y" }) as Labels;
  assert.ok(!parseSelector("x").matches(labels));
  assert.ok(!parseSelector("toString").matches({}));
});

Deno.test("Selector.empty() is true only without requirements", () => {
  assert.ok(parseSelector("").empty());
  assert.ok(parseSelector("  \t").empty());
  assert.ok(everything().empty());
  assert.ok(everything().matches(undefined));
  assert.ok(!parseSelector("x").empty());
  assert.ok(selectorFromSet({}).empty());
  assert.ok(!selectorFromSet({ a: "b" }).empty());
});

Deno.test("Selector.requirements() exposes sorted keys, operators, values", () => {
  assert.deepEqual(parseSelector("z in (b,a),!y,x>3").requirements(), [
    { key: "x", operator: ">", values: ["3"] },
    { key: "y", operator: "!", values: [] },
    { key: "z", operator: "in", values: ["a", "b"] },
  ]);
});

Deno.test("selectorFromSet() matches exactly the given pairs", () => {
  const labels = { foo: "bar", baz: "blah" };
  assert.ok(selectorFromSet({}).matches(labels));
  assert.ok(selectorFromSet({ foo: "bar" }).matches(labels));
  assert.ok(selectorFromSet({ foo: "bar", baz: "blah" }).matches(labels));
  assert.ok(!selectorFromSet({ foo: "blah" }).matches(labels));
  assert.ok(!selectorFromSet({ foo: "bar", other: "x" }).matches(labels));
  assert.equal(selectorFromSet({ b: "2", a: "1" }).toString(), "a=1,b=2");
  // Like apimachinery, values are not validated and are compared verbatim.
  assert.ok(selectorFromSet({ a: "=x" }).matches({ a: "=x" }));
});
