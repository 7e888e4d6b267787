import assert from "node:assert/strict";
import { parseYaml, YamlError } from "./_yaml.ts";

function fails(text: string, line: number, column: number, message: RegExp) {
  assert.throws(() => parseYaml(text), (e) => {
    assert.ok(e instanceof YamlError, `not a YamlError: ${e}`);
    assert.match(e.message, message);
    assert.deepEqual([e.line, e.column], [line, column], e.message);
    return true;
  });
}

Deno.test("parseYaml() reads block mappings, sequences and compact mappings", () => {
  const text = [
    "a: 1",
    "b:",
    "  c: x",
    "  d:",
    "  - 1",
    "  - k: v",
    "    l: w",
    "  - - nested",
    "  e: after",
    "list:",
    "- one",
    "-",
    "- two",
    "",
  ].join("\n");
  assert.deepEqual(parseYaml(text), {
    a: 1,
    b: { c: "x", d: [1, { k: "v", l: "w" }, ["nested"]], e: "after" },
    list: ["one", null, "two"],
  });
});

Deno.test("parseYaml() resolves plain scalars with the core schema", () => {
  assert.deepEqual(
    parseYaml(
      "a: ~\nb: null\nc:\nd: true\ne: False\nf: 42\ng: -1.5\nh: 0x1f\ni: 1e3\nj: .inf\n" +
        "k: 0.0.1\nl: yes\nm: https://x:443/p\nn: a#b\no: 12345678901234567890\n",
    ),
    {
      a: null,
      b: null,
      c: null,
      d: true,
      e: false,
      f: 42,
      g: -1.5,
      h: 31,
      i: 1000,
      j: Infinity,
      k: "0.0.1",
      l: "yes",
      m: "https://x:443/p",
      n: "a#b",
      o: "12345678901234567890",
    },
  );
});

Deno.test("parseYaml() reads quoted scalars with escapes and folding", () => {
  const text = [
    `a: "tab\\there \\"q\\" \\u00e9 \\x41 \\U0001F600 \\\\"`,
    `b: 'it''s # not a comment'`,
    `c: "folded`,
    `  over   `,
    ``,
    `  lines"`,
    `d: "joined\\`,
    `   here"`,
    `"quoted key": 'true'`,
    `e: "123"`,
  ].join("\n");
  assert.deepEqual(parseYaml(text), {
    a: 'tab\there "q" é A 😀 \\',
    b: "it's # not a comment",
    c: "folded over\nlines",
    d: "joinedhere",
    "quoted key": "true",
    e: "123",
  });
});

Deno.test("parseYaml() folds multi-line plain scalars", () => {
  const text =
    "hint: Install the plugin by\n  following https://x.example/a\n\n  done\nnext: 1\n";
  assert.deepEqual(parseYaml(text), {
    hint: "Install the plugin by following https://x.example/a\ndone",
    next: 1,
  });
});

Deno.test("parseYaml() reads literal and folded block scalars with chomping", () => {
  const text = [
    "lit: |",
    "  a",
    "    b",
    "",
    "  c",
    "",
    "strip: |-",
    "  x",
    "",
    "keep: |+",
    "  y",
    "",
    "fold: >",
    "  one",
    "  two",
    "",
    "  three",
    "    indented",
    "  four",
    "explicit: |2",
    "    lead",
    "empty: |",
    "last: z",
  ].join("\n");
  assert.deepEqual(parseYaml(text), {
    lit: "a\n  b\n\nc\n",
    strip: "x",
    keep: "y\n\n",
    fold: "one two\nthree\n  indented\nfour\n",
    explicit: "  lead\n",
    empty: "",
    last: "z",
  });
});

Deno.test("parseYaml() reads flow collections, over several lines too", () => {
  const text = [
    "a: {}",
    "b: []",
    'c: [x, "y, z", 3, {k: v}, [1, 2],]',
    "d: {k: v, 'q': [1], e:, url: http://h:1}",
    "e: [",
    "  one,  # a comment",
    "  two",
    "]",
  ].join("\n");
  assert.deepEqual(parseYaml(text), {
    a: {},
    b: [],
    c: ["x", "y, z", 3, { k: "v" }, [1, 2]],
    d: { k: "v", q: [1], e: null, url: "http://h:1" },
    e: ["one", "two"],
  });
});

Deno.test("parseYaml() resolves anchors, aliases and merge keys", () => {
  const text = [
    "base: &b",
    "  x: 1",
    "  y: 2",
    "copy: *b",
    "merged:",
    "  <<: *b",
    "  y: 3",
    "list: [&n 5, *n]",
    "seq:",
    "- &item {k: v}",
    "- *item",
  ].join("\n");
  assert.deepEqual(parseYaml(text), {
    base: { x: 1, y: 2 },
    copy: { x: 1, y: 2 },
    merged: { x: 1, y: 3 },
    list: [5, 5],
    seq: [{ k: "v" }, { k: "v" }],
  });
});

Deno.test("parseYaml() accepts comments, ---, ..., CRLF and a BOM", () => {
  assert.deepEqual(
    parseYaml("\uFEFF# head\r\n---\r\n# c\r\na: 1 # tail\r\n\r\n...\r\n"),
    { a: 1 },
  );
  assert.equal(parseYaml(""), null);
  assert.equal(parseYaml("# only a comment\n"), null);
  assert.deepEqual(parseYaml("--- {a: 1}\n"), { a: 1 });
});

Deno.test("parseYaml() names the line and column of what it rejects", async (t) => {
  const cases: [string, string, number, number, RegExp][] = [
    ["tab indentation", "a:\n\tb: 1\n", 2, 1, /Tabs/],
    ["tag", "a: !!str 1\n", 1, 4, /Tags are not supported/],
    ["complex key", "? a\n: b\n", 1, 1, /Complex mapping keys/],
    ["directive", "%YAML 1.2\n---\na: 1\n", 1, 1, /directives/],
    ["two documents", "a: 1\n---\nb: 2\n", 2, 1, /Several YAML documents/],
    [
      "bad indentation",
      "a:\n  b: 1\n   c: 2\n",
      3,
      4,
      /Unexpected indentation/,
    ],
    ["duplicate key", "a: 1\nb: 2\na: 3\n", 3, 1, /Duplicate mapping key "a"/],
    [
      "unterminated double quote",
      'a: 1\nb: "abc\n',
      2,
      4,
      /Unterminated quoted/,
    ],
    [
      "unterminated flow",
      "a: [1, 2\nb: 3\n",
      1,
      4,
      /Unterminated flow collection/,
    ],
    ["missing comma", 'a: ["x" y]\n', 1, 9, /Expected "," or "\]"/],
    ["mapping value in plain", "a: b: c\n", 1, 5, /Unexpected ": "/],
    ["unknown alias", "a: *nope\n", 1, 4, /Unknown alias "\*nope"/],
    ["bad escape", 'a: "\\q"\n', 1, 5, /Invalid escape/],
    ["sequence on key line", "a: - b\n", 1, 4, /cannot start on the line/],
    ["text after quoted", 'a: "x" y\n', 1, 8, /Unexpected "y"/],
    ["item among keys", "a: 1\n- b\n", 2, 1, /Unexpected sequence item/],
    ["not a key", "a: 1\nb\n", 2, 1, /Expected a mapping key/],
    ["bad block header", "a: |x\n", 1, 5, /Invalid block scalar header/],
  ];
  for (const [label, text, line, column, message] of cases) {
    await t.step(label, () => fails(text, line, column, message));
  }
});
