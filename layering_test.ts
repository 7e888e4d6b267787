/**
 * Keeps the import graph one-directional (docs/architecture.md, Layers; docs/contributing.md):
 *
 * - `api/` (the API vocabulary) imports nothing outside `api/`;
 * - `cache/` imports only `api/` and itself, `client/` only `api/` and
 *   itself, so neither knows the other;
 * - a private file (`_x.ts`, or anything in a `_x/` folder) is imported only
 *   from its own top-level folder (a top-level `_x/` folder or `_x.ts` file:
 *   only from the root files);
 * - no two files import each other, directly or around a circle, anywhere
 *   in the repository (tests and cross-folder imports included). Every
 *   import counts: a dynamic `import()` loads the module that imported it
 *   all the same (a subcommand importing `cli.ts` back once hung
 *   `cli.ts gen`), and a type-only one still ties two files to each other's
 *   shapes: a type both need goes to the file of its concept;
 * - a public symbol (one an entry point of deno.json exports) is declared
 *   in a public file, the file of its concept, never in a private `_` file;
 * - `cli.ts` loads no `testing/` or `gen/` module statically (the demo
 *   cluster and the generator are loaded with a dynamic `import()` only
 *   for `--demo` and `gen`).
 *
 * Tests (`*_test.ts`, `*_test_util.ts`) may use anything public (a cache/
 * test runs a `FakeApiServer`), but not another folder's private files.
 * The graph is read from the source text (static `import`/`export ... from`
 * and literal dynamic `import()`), so the check needs no `deno info`.
 */

import assert from "node:assert/strict";

/** A relative import: `from` imports `to` (both paths from the repo root). */
export interface Edge {
  from: string;
  to: string;
}

const ROOT = new URL("./", import.meta.url);
const SKIP_DIRS = new Set([".git", "node_modules", "fixtures"]);

/**
 * Files known to sit on an import circle, to be taken out of it by their
 * folder's owner: a circle all of whose files are listed here passes, any
 * other fails, and a listed file that is on no circle any more fails until
 * it leaves the list, so the list only shrinks. Empty: keep it so (a type
 * two files share lives in the file of its concept, as the FakeApiServer's
 * `RequestRecord` in `testing/request_record.ts`).
 */
const KNOWN_CIRCLE_FILES: ReadonlySet<string> = new Set<string>([]);

/** The layer rule: for a folder, the top-level folders its code may import. */
const ALLOWED: Record<string, ReadonlySet<string>> = {
  api: new Set(["api"]),
  cache: new Set(["api", "cache"]),
  client: new Set(["api", "client"]),
  // The work queue knows nothing of Kubernetes but the API vocabulary
  // (Clock, the argument checks).
  workqueue: new Set(["api", "workqueue"]),
  // Leader election writes a Lease through the client.
  leaderelection: new Set(["api", "client", "leaderelection"]),
  // The controller runtime sits on every library layer, never on testing/,
  // the CLI or gen/.
  controller: new Set([
    "api",
    "cache",
    "client",
    "workqueue",
    "leaderelection",
    "controller",
  ]),
  // The generator is pure (documents in, module text out): the API
  // vocabulary and itself.
  gen: new Set(["api", "gen"]),
};

/**
 * Private files another folder may import, and which files: the one YAML
 * parser reads kubeconfigs (client/), `cli.ts gen --crd` manifests and the
 * FakeApiServer's apply bodies; the controller checks the `rateLimiter` it
 * hands to a work queue with the queue's own check.
 */
const SHARED_PRIVATE: Record<string, ReadonlySet<string>> = {
  "client/_yaml.ts": new Set([
    "_cli/gen.ts",
    "testing/_apiserver_decode.ts",
  ]),
  "workqueue/_validate.ts": new Set(["controller/_check.ts"]),
  // The one worker loop: runWorkers' and the Controller's.
  "workqueue/_worker_loop.ts": new Set(["controller/builder.ts"]),
  // The webhook server re-reads its serving certificate as the client
  // re-reads its client certificate: one watcher of a file pair.
  "client/_cert_files.ts": new Set(["controller/webhook_server.ts"]),
  // FakeApiServer's mutual TLS runs on node:https as the webhook server
  // does, through the one bridge to a fetch-style handler.
  "controller/_https_bridge.ts": new Set(["testing/_apiserver_mtls.ts"]),
  // The Manager's factory logs informer errors as every informer does,
  // except the fatal one its run() rejects with.
  "cache/_processor.ts": new Set(["controller/manager.ts"]),
};

const IMPORT_RE = new RegExp(
  [
    // import x from "y"; import type { x } from "y"; export * from "y"; export { x } from "y"
    String.raw`^\s*(?:import|export)\s[^;"'\x60]*?\bfrom\s*["']([^"']+)["']`,
    // import "y";
    String.raw`^\s*import\s*["']([^"']+)["']`,
    // await import("y")
    String.raw`\bimport\(\s*["']([^"']+)["']\s*\)`,
  ].join("|"),
  "gm",
);

/**
 * The specifiers a source loads when it is loaded: static imports and
 * re-exports, not a dynamic `import()` (which loads only when it runs).
 */
export function staticSpecifiersOf(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2];
    if (spec !== undefined) out.push(spec);
  }
  return out;
}

/** The module specifiers a TypeScript source imports or re-exports. */
export function specifiersOf(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec !== undefined) out.push(spec);
  }
  return out;
}

function isTest(path: string): boolean {
  return path.endsWith("_test.ts") || path.endsWith("_test_util.ts");
}

function topFolder(path: string): string {
  const slash = path.indexOf("/");
  return slash === -1 ? "." : path.slice(0, slash);
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "." : path.slice(0, slash);
}

/** Resolve `./x.ts` / `../x.ts` against the importing file, from the root. */
function resolve(from: string, spec: string): string {
  const parts = dirOf(from) === "." ? [] : dirOf(from).split("/");
  for (const seg of spec.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== ".") parts.push(seg);
  }
  return parts.join("/");
}

/**
 * Which top-level folder may import a private path: `_x` segments are
 * private to the folder holding them, so `client/_connect_error.ts` belongs to
 * `client`, and `_cli/args.ts` or `_util.ts` to the root files (`.`).
 * Returns undefined for a public path.
 */
function privateOwner(path: string): string | undefined {
  const segs = path.split("/");
  const i = segs.findIndex((s) => s.startsWith("_"));
  if (i === -1) return undefined;
  return i === 0 ? "." : segs[0];
}

/** Every rule the edges break, one line each (empty when the graph is clean). */
export function layeringViolations(edges: readonly Edge[]): string[] {
  const out: string[] = [];
  for (const { from, to } of edges) {
    const fromTop = topFolder(from);
    const toTop = topFolder(to);
    const allowed = ALLOWED[fromTop];
    if (allowed && !isTest(from) && !allowed.has(toTop)) {
      out.push(
        `layer: ${from} imports ${to} (${fromTop}/ may import only ${
          [...allowed].map((f) => `${f}/`).join(", ")
        })`,
      );
    }
    const owner = privateOwner(to);
    // A private folder's own files may import each other.
    const sameFolder = owner === "." && topFolder(to) !== "." &&
      fromTop === topFolder(to);
    const shared = SHARED_PRIVATE[to]?.has(from) ?? false;
    if (owner !== undefined && owner !== fromTop && !sameFolder && !shared) {
      out.push(`private: ${from} imports ${to}, private to ${owner}/`);
    }
  }
  for (const ring of importCircles(edges)) {
    out.push(`cycle: ${ring.join(" -> ")} -> ${ring[0]}`);
  }
  return out;
}

/**
 * The import circles of the graph: its strongly connected components of
 * more than one file, or a file importing itself (Tarjan's algorithm),
 * each in the order the walk met its files.
 */
export function importCircles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, []);
    if (!next.has(to)) next.set(to, []);
    next.get(from)!.push(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const rings: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const ring: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        ring.push(w);
      } while (w !== v);
      if (ring.length > 1 || next.get(v)!.includes(v)) {
        rings.push(ring.reverse());
      }
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return rings;
}

/** The relative import edges of every `.ts` file under the repo root. */
async function repoEdges(): Promise<Edge[]> {
  const edges: Edge[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(new URL(dir || ".", ROOT))) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory && !SKIP_DIRS.has(entry.name)) {
        await walk(path);
      } else if (entry.isFile && entry.name.endsWith(".ts")) {
        const source = await Deno.readTextFile(new URL(path, ROOT));
        for (const spec of specifiersOf(source)) {
          if (spec.startsWith("./") || spec.startsWith("../")) {
            edges.push({ from: path, to: resolve(path, spec) });
          }
        }
      }
    }
  };
  await walk("");
  return edges;
}

Deno.test("the repository's import graph follows the layering rules", async () => {
  const edges = await repoEdges();
  // The walk found the graph (a broken walk would pass vacuously).
  assert.ok(
    edges.some((e) =>
      e.from === "cache/reflector.ts" && e.to.startsWith("api/")
    ),
    "cache/reflector.ts should import from api/",
  );
  const circles = importCircles(edges);
  const known = (ring: string[]) =>
    ring.every((f) => KNOWN_CIRCLE_FILES.has(f));
  const found = layeringViolations(edges).filter((v) =>
    !(v.startsWith("cycle: ") &&
      circles.some((ring) =>
        known(ring) && v === `cycle: ${ring.join(" -> ")} -> ${ring[0]}`
      ))
  );
  assert.deepEqual(found, []);
  // A file that left every circle must leave the list, so it only shrinks.
  const onCircle = new Set(circles.flat());
  for (const file of KNOWN_CIRCLE_FILES) {
    assert.ok(
      onCircle.has(file),
      `${file} is on no import circle any more: remove it from KNOWN_CIRCLE_FILES`,
    );
  }
});

Deno.test("the import graph the layering test reads has the circle of a dynamic import", () => {
  // cli.ts loads the gen subcommand with import(): were the subcommand to
  // import cli.ts back, that is a circle (it once hung `cli.ts gen`).
  assert.deepEqual(
    importCircles([
      { from: "cli.ts", to: "_cli/gen.ts" },
      { from: "_cli/gen.ts", to: "cli.ts" },
    ]),
    [["_cli/gen.ts", "cli.ts"]],
  );
});

Deno.test("specifiersOf() reads static, multi-line, re-export and dynamic imports", () => {
  const source = [
    'import assert from "node:assert/strict";',
    "import {",
    "  a,",
    "  type B,",
    '} from "./a.ts";',
    'import type { C } from "../api/c.ts";',
    'export * from "./d.ts";',
    'export { e } from "./e.ts";',
    'import "./side_effect.ts";',
    'const f = await import("./f.ts");',
    ' * import { ignored } from "@kubecache/core";',
    "export function g() {}",
  ].join("\n");
  assert.deepEqual(specifiersOf(source), [
    "node:assert/strict",
    "./a.ts",
    "../api/c.ts",
    "./d.ts",
    "./e.ts",
    "./side_effect.ts",
    "./f.ts",
  ]);
});

Deno.test("layeringViolations() reports each broken rule", async (t) => {
  const bad: [string, Edge, RegExp][] = [
    ["api/ imports cache/", { from: "api/a.ts", to: "cache/b.ts" }, /^layer/],
    ["api/ imports client/", { from: "api/a.ts", to: "client/b.ts" }, /^layer/],
    [
      "api/ imports testing/",
      { from: "api/a.ts", to: "testing/b.ts" },
      /^layer/,
    ],
    ["api/ imports cli.ts", { from: "api/a.ts", to: "cli.ts" }, /^layer/],
    [
      "cache/ imports client/",
      { from: "cache/a.ts", to: "client/b.ts" },
      /^layer/,
    ],
    [
      "cache/ imports testing/",
      { from: "cache/a.ts", to: "testing/b.ts" },
      /^layer/,
    ],
    ["cache/ imports mod.ts", { from: "cache/a.ts", to: "mod.ts" }, /^layer/],
    [
      "client/ imports cache/",
      { from: "client/a.ts", to: "cache/b.ts" },
      /^layer/,
    ],
    [
      "client/ imports cli.ts",
      { from: "client/a.ts", to: "cli.ts" },
      /^layer/,
    ],
    [
      "workqueue/ imports cache/",
      { from: "workqueue/queue.ts", to: "cache/heap.ts" },
      /^layer/,
    ],
    [
      "workqueue/ imports client/",
      { from: "workqueue/queue.ts", to: "client/rest.ts" },
      /^layer/,
    ],
    [
      "leaderelection/ imports cache/",
      { from: "leaderelection/a.ts", to: "cache/b.ts" },
      /^layer/,
    ],
    [
      "leaderelection/ imports workqueue/",
      { from: "leaderelection/a.ts", to: "workqueue/b.ts" },
      /^layer/,
    ],
    [
      "controller/ imports testing/",
      { from: "controller/a.ts", to: "testing/b.ts" },
      /^layer/,
    ],
    ["a private file of another folder", {
      from: "_cli/printer.ts",
      to: "client/_watch_decode.ts",
    }, /^private/],
    ["gen/ imports client/", {
      from: "gen/openapi.ts",
      to: "client/rest.ts",
    }, /^layer/],
    ["the YAML parser from a file not listed as sharing it", {
      from: "_cli/printer.ts",
      to: "client/_yaml.ts",
    }, /^private/],
    ["a top-level private folder from a subfolder", {
      from: "examples/_connect.ts",
      to: "_cli/printer.ts",
    }, /^private/],
    ["a top-level private file from a subfolder", {
      from: "examples/x.ts",
      to: "_util.ts",
    }, /^private/],
    ["another folder's private file from a test", {
      from: "cli_test.ts",
      to: "testing/_demo_objects.ts",
    }, /^private/],
  ];
  for (const [name, edge, kind] of bad) {
    await t.step(name, () => {
      const found = layeringViolations([edge]);
      assert.equal(found.length, 1, found.join("\n"));
      assert.match(found[0], kind);
    });
  }
  await t.step("a cycle of two files in one folder", () => {
    assert.deepEqual(
      layeringViolations([
        { from: "cache/fifo.ts", to: "cache/_queue.ts" },
        { from: "cache/_queue.ts", to: "cache/fifo.ts" },
      ]),
      ["cycle: cache/_queue.ts -> cache/fifo.ts -> cache/_queue.ts"],
    );
  });
  await t.step("a ring closed by a type-only import", () => {
    // The import of `export type` is erased at load, yet it binds the two
    // files to each other: the type belongs in the file of its concept.
    assert.deepEqual(
      layeringViolations([
        { from: "client/config.ts", to: "client/_kubeconfig_file.ts" },
        { from: "client/_kubeconfig_file.ts", to: "client/config.ts" },
      ]),
      [
        "cycle: client/_kubeconfig_file.ts -> client/config.ts -> client/_kubeconfig_file.ts",
      ],
    );
  });
  await t.step("a ring across folders, through tests", () => {
    assert.deepEqual(
      layeringViolations([
        { from: "cache/a_test_util.ts", to: "testing/b.ts" },
        { from: "testing/b.ts", to: "cache/a_test_util.ts" },
      ]).filter((v) => v.startsWith("cycle")),
      ["cycle: cache/a_test_util.ts -> testing/b.ts -> cache/a_test_util.ts"],
    );
  });
  await t.step("a ring of three files", () => {
    const found = layeringViolations([
      { from: "cache/a.ts", to: "cache/b.ts" },
      { from: "cache/b.ts", to: "cache/c.ts" },
      { from: "cache/c.ts", to: "cache/a.ts" },
    ]);
    assert.deepEqual(found, [
      "cycle: cache/a.ts -> cache/b.ts -> cache/c.ts -> cache/a.ts",
    ]);
  });
});

Deno.test("layeringViolations() accepts the allowed directions", () => {
  assert.deepEqual(
    layeringViolations([
      { from: "cache/reflector.ts", to: "api/errors.ts" },
      { from: "client/rest.ts", to: "api/object.ts" },
      { from: "client/rest.ts", to: "client/_list_decoder.ts" },
      { from: "cache/factory.ts", to: "cache/controller.ts" },
      { from: "testing/fake_api_server.ts", to: "client/rest.ts" },
      { from: "cli.ts", to: "_cli/args.ts" },
      { from: "_cli/printer.ts", to: "_cli/table.ts" },
      { from: "_cli/gen.ts", to: "client/_yaml.ts" },
      { from: "testing/_apiserver_openapi.ts", to: "gen/mod.ts" },
      { from: "bench/compare/_server.ts", to: "bench/_pods.ts" },
      { from: "cache/factory_test.ts", to: "client/rest.ts" },
      { from: "controller/manager.ts", to: "leaderelection/lease_lock.ts" },
      { from: "controller/builder.ts", to: "workqueue/queue.ts" },
      { from: "workqueue/queue.ts", to: "api/validate.ts" },
      { from: "leaderelection/lease_lock.ts", to: "client/rest.ts" },
      { from: "workqueue/queue_test.ts", to: "testing/fake_clock.ts" },
      { from: "cache/_test_util.ts", to: "testing/fake_clock.ts" },
      // A test importing its neighbour does not make a cycle.
      { from: "cache/a_test.ts", to: "cache/a.ts" },
    ]),
    [],
  );
});

/**
 * Public symbols declared in a private file, to be moved by their folder's
 * owner. Empty: keep it so (a private file that needs a public type takes
 * it with a type-only import from the public file of its concept).
 */
const KNOWN_PRIVATE_DECLARATIONS: readonly string[] = [];

const EXPORT_STAR_RE = /^export \*\s+from\s*["']([^"']+)["']/gm;
const EXPORT_NAMES_RE =
  /^export (?:type )?\{([^}]*)\}(?:\s*from\s*["']([^"']+)["'])?/gm;
const DECLARATION_RE =
  /^export (?:declare )?(?:default )?(?:async )?(?:abstract )?(?:function\*?|class|interface|type|const|let|var|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm;

/** `a`, `type b`, `c as d` of an export or import list, as [local, exported]. */
function namesOf(list: string): [string, string][] {
  return list.split(",").map((n) => n.trim().replace(/^type\s+/, ""))
    .filter(Boolean).map((n) => {
      const [local, exported] = n.split(/\s+as\s+/);
      return [local, exported ?? local];
    });
}

/**
 * Where each public symbol of an entry point is declared, by its declared
 * name: walks `export *`,
 * `export { x } from` and `export { x }` of an imported `x` from the entry
 * point down to the declaring file. `read` returns a file's source.
 */
export async function declarationsOf(
  entry: string,
  read: (path: string) => Promise<string>,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const seen = new Set<string>();
  const visit = async (file: string, wanted: Set<string> | "*") => {
    const key = `${file} ${wanted === "*" ? "*" : [...wanted].sort().join()}`;
    if (seen.has(key)) return;
    seen.add(key);
    const source = await read(file);
    const wants = (name: string) => wanted === "*" || wanted.has(name);
    for (const m of source.matchAll(DECLARATION_RE)) {
      if (wants(m[1])) found.set(m[1], file);
    }
    for (const m of source.matchAll(EXPORT_STAR_RE)) {
      if (m[1].startsWith(".")) await visit(resolve(file, m[1]), wanted);
    }
    for (const m of source.matchAll(EXPORT_NAMES_RE)) {
      for (const [local, exported] of namesOf(m[1])) {
        if (!wants(exported)) continue;
        let from = m[2];
        if (from === undefined) {
          // `export { x }` of an imported binding: follow the import.
          const imp = [...source.matchAll(
            /^import (?:type )?\{([^}]*)\}\s*from\s*["']([^"']+)["']/gm,
          )].find((i) => namesOf(i[1]).some(([, as]) => as === local));
          if (imp === undefined) {
            found.set(exported, file);
            continue;
          }
          from = imp[2];
        }
        if (from.startsWith(".")) {
          await visit(resolve(file, from), new Set([local]));
        }
      }
    }
  };
  await visit(entry, "*");
  return found;
}

/** The entry points of deno.json `exports`, from the repo root. */
async function entryPoints(): Promise<string[]> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  ) as { exports: Record<string, string> };
  return Object.values(config.exports).map((p) => p.replace(/^\.\//, ""));
}

Deno.test("every public symbol is declared in a public file (no `_` file holds one)", async () => {
  const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));
  const found: string[] = [];
  let count = 0;
  for (const entry of await entryPoints()) {
    for (const [name, file] of await declarationsOf(entry, read)) {
      count++;
      if (privateOwner(file) !== undefined) {
        found.push(`${name} is declared in ${file}`);
      }
    }
  }
  // The walk found the surface (a broken walk would pass vacuously).
  assert.ok(count > 300, `only ${count} public symbols found`);
  const unique = [...new Set(found)].sort();
  assert.deepEqual(
    unique.filter((v) => !KNOWN_PRIVATE_DECLARATIONS.includes(v)),
    [],
  );
  for (const known of KNOWN_PRIVATE_DECLARATIONS) {
    assert.ok(unique.includes(known), `no longer found, remove it: ${known}`);
  }
});

Deno.test("declarationsOf() follows export *, named re-exports and re-exported imports", async () => {
  const files: Record<string, string> = {
    "mod.ts": 'export * from "./a.ts";\nexport { c as d } from "./_c.ts";\n',
    "a.ts": [
      'import { B } from "./_b.ts";',
      "export { B };",
      "export interface A {}",
      "export async function f() {}",
      " * export const notCode = 1;",
    ].join("\n"),
    "_b.ts": "export class B {}\nexport const hidden = 1;\n",
    "_c.ts": "export function c() {}\n",
  };
  const found = await declarationsOf(
    "mod.ts",
    (path) => Promise.resolve(files[path]),
  );
  assert.deepEqual(Object.fromEntries(found), {
    A: "a.ts",
    f: "a.ts",
    B: "_b.ts",
    c: "_c.ts", // by the name it is declared with
  });
});

/** Every repo file `entry` loads statically (itself included), from the root. */
async function staticClosure(entry: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const visit = async (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = await Deno.readTextFile(new URL(file, ROOT));
    for (const spec of staticSpecifiersOf(source)) {
      if (spec.startsWith("./") || spec.startsWith("../")) {
        await visit(resolve(file, spec));
      }
    }
  };
  await visit(entry);
  return seen;
}

Deno.test("cli.ts loads no testing/ or gen/ module until --demo or gen asks for it", async () => {
  const loaded = await staticClosure("cli.ts");
  // The walk found the CLI's graph (a broken walk would pass vacuously).
  assert.ok(loaded.has("client/rest.ts") && loaded.has("cache/reflector.ts"));
  assert.deepEqual(
    [...loaded].filter((f) =>
      f.startsWith("testing/") || f.startsWith("gen/") || f === "_cli/gen.ts"
    ),
    [],
  );
  // The demo and the generator are still reachable, through the dynamic
  // imports.
  const cli = await Deno.readTextFile(new URL("cli.ts", ROOT));
  assert.ok(specifiersOf(cli).includes("./testing/demo_cluster.ts"));
  assert.ok(specifiersOf(cli).includes("./_cli/gen.ts"));
});

Deno.test("staticSpecifiersOf() leaves out dynamic imports", () => {
  const source = [
    'import { a } from "./a.ts";',
    'export * from "./b.ts";',
    'const c = await import("./c.ts");',
  ].join("\n");
  assert.deepEqual(staticSpecifiersOf(source), ["./a.ts", "./b.ts"]);
});
