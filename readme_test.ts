/**
 * The README as a new user follows it: its Quick start saved in the
 * checkout must pass the checks of `deno task test`, and its text and
 * tables must read in a terminal.
 */

import assert from "node:assert/strict";

const README = await Deno.readTextFile(new URL("./README.md", import.meta.url));

/** The first ```ts block after a heading. */
function codeAfter(heading: string): string {
  const at = README.indexOf(`\n## ${heading}\n`);
  assert.ok(at >= 0, `no "## ${heading}" section`);
  const start = README.indexOf("```ts\n", at) + "```ts\n".length;
  return README.slice(start, README.indexOf("```", start));
}

Deno.test("README Quick start, saved in the checkout as quickstart.ts, passes deno lint", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    // From the checkout's root, so deno.json's lint settings apply.
    args: ["lint", "-"],
    cwd: new URL(".", import.meta.url).pathname,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(codeAfter("Quick start")));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  const output = new TextDecoder().decode(stdout) +
    new TextDecoder().decode(stderr);
  assert.equal(code, 0, output);
});

Deno.test("README lines fit a 100-column terminal, except the programs' own output and the import map", () => {
  // Inside a ```text block: a program's output as it prints it; inside a
  // ```json block: the import map, whose paths JSON cannot wrap.
  let inOutput = false;
  const long: string[] = [];
  README.split("\n").forEach((line, i) => {
    if (line.startsWith("```")) {
      inOutput = line === "```text" || line === "```json";
    } else if (!inOutput && line.length > 100) {
      long.push(`line ${i + 1}: ${line.length} characters`);
    }
  });
  assert.deepEqual(long, []);
});

Deno.test("the TypeScript snippets of docs/ type-check (deno check --doc-only)", async () => {
  const root = new URL(".", import.meta.url).pathname;
  const pages = [...Deno.readDirSync(`${root}docs`)]
    .filter((e) => e.isFile && e.name.endsWith(".md"))
    .map((e) => `docs/${e.name}`);
  assert.ok(pages.includes("docs/performance.md"));
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--doc-only", ...pages],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const output = new TextDecoder().decode(stdout) +
    new TextDecoder().decode(stderr);
  assert.equal(code, 0, output);
});

Deno.test("user-facing text names no issue, commit, load average or the out-of-repo design file", async () => {
  const root = new URL(".", import.meta.url).pathname;
  const pages = [
    "README.md",
    ...[...Deno.readDirSync(`${root}docs`)]
      .filter((e) => e.isFile && e.name.endsWith(".md"))
      .map((e) => `docs/${e.name}`),
  ];
  const banned =
    /DESIGN\.md|\bissue \d+|\bcommit [0-9a-f]{7,}\b|\bmain at [0-9a-f]{7,}|load average/i;
  const found: string[] = [];
  for (const page of pages) {
    (await Deno.readTextFile(`${root}${page}`)).split("\n").forEach(
      (line, i) => {
        if (banned.test(line)) found.push(`${page}:${i + 1}: ${line}`);
      },
    );
  }
  assert.deepEqual(found, []);
});

/**
 * Whether a line of code cites the out-of-repo design file or one of this
 * project's issues, in any case (the word, a space and a number, with
 * or without an item after it). An upstream report named with its project
 * (client-go's, kube-rs's, ...) is allowed.
 */
function citesTracker(line: string): boolean {
  return /DESIGN\.md|(?<!(?:client-go|kubernetes|kube-rs|controller-runtime|deno) )\bissue \d+/i
    .test(line);
}

Deno.test("citesTracker() catches issue numbers in any case and allows upstream reports", () => {
  // The cited forms are built here rather than written out, so that a
  // plain search of the repository for them finds only real citations.
  const n = (word: string, num: number) => `${word} ${num}`;
  assert.equal(
    citesTracker(`// ${n("Issue", 10)} item 5: an index function`),
    true,
  );
  assert.equal(citesTracker(`// ${n("issue", 16)} item 8`), true);
  assert.equal(citesTracker(`// ${n("ISSUE", 3)}`), true);
  assert.equal(citesTracker(`// see ${"DESIGN"}.md`), true);
  assert.equal(
    citesTracker(`// as client-go ${n("issue", 1234)} reports`),
    false,
  );
  assert.equal(citesTracker(`// kube-rs ${n("issue", 964)}: no dedup`), false);
  assert.equal(citesTracker("// an issue with 3 parts"), false);
});

Deno.test("code comments point at docs/, not at the out-of-repo design file or issue numbers", async () => {
  const root = new URL(".", import.meta.url).pathname;
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(`${root}${dir}`)) {
      const path = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory) {
        if (![".git", "node_modules", "fixtures"].includes(e.name)) {
          await walk(path);
        }
      } else if (e.name.endsWith(".ts") && path !== "readme_test.ts") {
        (await Deno.readTextFile(`${root}${path}`)).split("\n").forEach(
          (line, i) => {
            if (citesTracker(line)) {
              found.push(`${path}:${i + 1}: ${line.trim()}`);
            }
          },
        );
      }
    }
  };
  await walk("");
  assert.deepEqual(found, []);
});

Deno.test("CI installs the exact Deno version README says is tested", async () => {
  const ci = await Deno.readTextFile(new URL("./.ci/run", import.meta.url));
  const pinned = ci.match(/npm install -g deno@(\S+)/)?.[1];
  assert.match(
    pinned ?? "",
    /^\d+\.\d+\.\d+$/,
    "an exact version, not a range",
  );
  assert.match(
    README,
    new RegExp(`tested with Deno ${pinned!.replaceAll(".", "\\.")}\\b`),
  );
  assert.match(
    README,
    new RegExp(`npm install -g deno@${pinned!.replaceAll(".", "\\.")}\\b`),
  );
});

Deno.test("README names the namespaces a FakeApiServer starts with", async () => {
  const { FakeApiServer } = await import("@kubecache/core/testing");
  const { Namespaces } = await import("@kubecache/core");
  await using server = await FakeApiServer.start();
  const actual = server.list(Namespaces).map((ns) => ns.metadata.name).sort();
  const text = README.replaceAll("\n", " ");
  const said = text.match(
    /starts with the namespaces ((?:`[a-z-]+`(?:,\s+|\s+and\s+)?)+)/,
  )
    ?.[1];
  assert.ok(said, "README does not say which namespaces exist at start");
  assert.deepEqual(
    [...said.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]).sort(),
    actual,
  );
});

Deno.test("the Quick start ends, saying why once, when its informer stops on a fatal error (no --allow-net for the server) instead of waiting forever", async () => {
  const block = README.slice(README.indexOf("## Quick start"))
    .match(/```ts\n([\s\S]*?)```/)![1];
  // The same script, its client sent to "localhost", which
  // --allow-net=127.0.0.1 does not cover (the server still listens).
  const script = block.replace(
    "KubeConfig.fromOptions({ server: server.url })",
    'KubeConfig.fromOptions({ server: server.url.replace("127.0.0.1", "localhost") })',
  );
  assert.notEqual(script, block);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net=127.0.0.1", "-"],
    cwd: new URL(".", import.meta.url).pathname,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    // A guard only: the script ends by itself at once.
    signal: AbortSignal.timeout(120_000),
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(script));
  await writer.close();
  const { code, stderr } = await child.output();
  const text = new TextDecoder().decode(stderr);
  assert.equal(code, 1, text);
  assert.equal(
    text.split("run again with the --allow-net flag").length - 1,
    1,
    text,
  );
  assert.match(
    text,
    /^configmaps: stopped on a fatal error: Requires net access to "localhost:\d+"/m,
  );
});

Deno.test("README names DeepReadonly and shows how to type helpers that take cached objects; a helper typed (p: Pod) fails deno check on one, as it says", async () => {
  const section = README.slice(
    README.indexOf("### Objects from the cache are read-only"),
  );
  assert.ok(section.length < README.length, "the section is there");
  const block = section.match(/```ts\n([\s\S]*?)```/)![1];
  assert.match(block, /function \w+\(pod: DeepReadonly<Pod>\)/);
  assert.match(block, /deepCopy\(cached\)/);
  // The claim: a helper typed with the plain type refuses a cached object.
  const root = new URL(".", import.meta.url).pathname;
  const file = await Deno.makeTempFile({ dir: root, suffix: "_check.ts" });
  try {
    await Deno.writeTextFile(
      file,
      [
        'import type { DeepReadonly, Pod } from "@kubecache/core";',
        "function helper(pod: Pod): string | undefined {",
        "  return pod.metadata.name;",
        "}",
        "const cached: DeepReadonly<Pod> = { metadata: { name: 'web' } };",
        "helper(cached);",
      ].join("\n"),
    );
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["check", file],
      cwd: root,
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.notEqual(code, 0);
    assert.match(new TextDecoder().decode(stderr), /TS2345/);
  } finally {
    await Deno.remove(file);
  }
});
