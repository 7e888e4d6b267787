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

Deno.test("README lines fit a 100-column terminal, except the programs' own output", () => {
  // Inside a ```text block: a program's output as it prints it.
  let inOutput = false;
  const long: string[] = [];
  README.split("\n").forEach((line, i) => {
    if (line.startsWith("```")) inOutput = line === "```text";
    else if (!inOutput && line.length > 100) {
      long.push(`line ${i + 1}: ${line.length} characters`);
    }
  });
  assert.deepEqual(long, []);
});
