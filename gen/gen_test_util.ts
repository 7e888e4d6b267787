/**
 * What the generator's tests share: the recorded kube-apiserver v1.26
 * documents of `testing/fixtures/openapi-v1.26/`, and a type check of
 * generated modules in a folder of their own (`deno check` with an import
 * map that points `@kubecache/core` at this checkout).
 *
 * @module
 */

import type { ApiResourceList, OpenApiDocument } from "./mod.ts";

const FIXTURES = new URL(
  "../testing/fixtures/openapi-v1.26/",
  import.meta.url,
);

/** A file of the recorded fixtures, as text. */
export function fixtureText(path: string): string {
  return Deno.readTextFileSync(new URL(path, FIXTURES));
}

/**
 * The recorded OpenAPI documents by index path (`api/v1`,
 * `apis/apps/v1`), each fetched from the index's `serverRelativeURL`.
 */
export function recordedDocuments(): Record<string, OpenApiDocument> {
  const docs: Record<string, OpenApiDocument> = {};
  for (const e of Deno.readDirSync(new URL("openapi/v3/", FIXTURES))) {
    if (e.name === "index.json") continue;
    const path = e.name.replace(/\.json$/, "").replaceAll("__", "/");
    docs[path] = JSON.parse(fixtureText(`openapi/v3/${e.name}`));
  }
  return docs;
}

/** The recorded discovery documents of every group/version. */
export function recordedDiscovery(): ApiResourceList[] {
  const out: ApiResourceList[] = [];
  for (const e of Deno.readDirSync(new URL("discovery/", FIXTURES))) {
    const doc = JSON.parse(fixtureText(`discovery/${e.name}`));
    if (doc.kind === "APIResourceList") out.push(doc);
  }
  return out;
}

/** Write modules (path → text) under a folder. */
export async function writeModules(
  dir: string,
  modules: ReadonlyMap<string, string>,
): Promise<void> {
  for (const [path, text] of modules) {
    const file = `${dir}/${path}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), {
      recursive: true,
    });
    await Deno.writeTextFile(file, text);
  }
}

/**
 * Run a deno subcommand in `dir` with a deno.json mapping the public
 * `@kubecache/core` entry points to this checkout; returns its exit code
 * and output.
 */
export async function denoIn(
  dir: string,
  args: string[],
): Promise<{ code: number; output: string }> {
  const root = new URL("../", import.meta.url);
  await Deno.writeTextFile(
    `${dir}/deno.json`,
    JSON.stringify(
      {
        imports: { "@kubecache/core": new URL("mod.ts", root).href },
        lock: false,
      },
      null,
      2,
    ) + "\n",
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder().decode(out.stdout) +
    new TextDecoder().decode(out.stderr);
  return { code: out.code, output: text };
}
