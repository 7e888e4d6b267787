/**
 * README's recipes for using kubecache outside the checkout, followed as a
 * user would: the `deno.json` import map of "Using it outside the checkout"
 * names every entry point and makes the Quick start run unchanged in
 * another folder, and the one-line CLI install of "Installing the CLI"
 * gives a working `kubecache` command.
 */

import assert from "node:assert/strict";
import { ConfigMaps } from "@kubecache/core";
import { FakeApiServer, readTextUntil } from "@kubecache/core/testing";

const CHECKOUT = new URL("./", import.meta.url).pathname.replace(/\/$/, "");
const README = await Deno.readTextFile(new URL("./README.md", import.meta.url));
const denoJson = JSON.parse(
  await Deno.readTextFile(new URL("./deno.json", import.meta.url)),
);

/** The README text under a heading, up to the next heading. */
function section(heading: string): string {
  const at = README.indexOf(`\n${heading}\n`);
  assert.ok(at >= 0, `no "${heading}" section`);
  const end = README.indexOf("\n#", at + heading.length + 2);
  return README.slice(at, end < 0 ? undefined : end);
}

/** The first fenced block of a language in a text. */
function block(text: string, lang: string): string {
  const start = text.indexOf("```" + lang + "\n");
  assert.ok(start >= 0, `no \`\`\`${lang} block`);
  const from = start + lang.length + 4;
  return text.slice(from, text.indexOf("```", from));
}

/** The import map of the recipe, pointed at this checkout. */
function importMap(): { imports: Record<string, string> } {
  const json = block(section("### Using it outside the checkout"), "json");
  return JSON.parse(json.replaceAll("/path/to/kubecache", CHECKOUT));
}

async function run(
  args: string[],
  cwd: string,
): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code, output: text.decode(stdout) + text.decode(stderr) };
}

Deno.test("README's import map names every entry point of deno.json, each at its file", () => {
  const expected = Object.fromEntries(
    Object.entries(denoJson.exports as Record<string, string>).map((
      [path, file],
    ) => [
      `${denoJson.name}${path === "." ? "" : path.slice(1)}`,
      `${CHECKOUT}/${file.replace(/^\.\//, "")}`,
    ]),
  );
  assert.deepEqual(importMap().imports, expected);
});

Deno.test("README's Quick start runs unchanged in another folder with the import map", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubecache-outside-" });
  try {
    await Deno.writeTextFile(
      `${dir}/quickstart.ts`,
      block(section("## Quick start"), "ts"),
    );
    // Without the recipe the import does not resolve: the failure a user
    // copying the script out of the checkout would meet.
    const without = await run(
      ["run", "--allow-net=127.0.0.1", "quickstart.ts"],
      dir,
    );
    assert.notEqual(without.code, 0, without.output);
    assert.match(without.output, /@kubecache\/core/);

    await Deno.writeTextFile(
      `${dir}/deno.json`,
      JSON.stringify(importMap(), null, 2),
    );
    const { code, output } = await run(
      ["run", "--allow-net=127.0.0.1", "quickstart.ts"],
      dir,
    );
    assert.equal(code, 0, output);
    assert.match(output, /1 config map cached/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("README's one-line CLI install gives a kubecache command that watches a cluster", async () => {
  const install = section("### Installing the CLI").split("\n").find((line) =>
    line.startsWith("deno install ")
  );
  assert.ok(install, "no `deno install` line");
  const root = await Deno.makeTempDir({ prefix: "kubecache-install-" });
  await using server = await FakeApiServer.start();
  server.create(ConfigMaps, {
    metadata: { name: "installed-ok", namespace: "default" },
  });
  try {
    // As written, from the checkout; --root keeps it out of ~/.deno.
    const args = install.split(/\s+/).slice(1);
    const installed = await run([...args, "--root", root], CHECKOUT);
    assert.equal(installed.code, 0, installed.output);

    const child = new Deno.Command(`${root}/bin/kubecache`, {
      args: ["watch", "cm", "--server", server.url],
      // No kubeconfig anywhere: --server alone makes the connection.
      clearEnv: true,
      env: { PATH: Deno.env.get("PATH") ?? "", HOME: root },
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream())
      .getReader();
    const { text } = await readTextUntil(
      reader,
      (t) => t.includes("installed-ok"),
    );
    child.kill("SIGINT");
    await reader.cancel();
    const status = await child.status;
    assert.match(text, /^NAME\s+DATA\s+AGE\ninstalled-ok\s+0\s/m);
    assert.equal(status.code, 0);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
