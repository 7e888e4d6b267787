/**
 * How long `cli.ts gen` takes for a whole cluster:
 *
 * - `generate`: `generateTypes()` alone, in-process, on the recorded
 *   kube-apiserver v1.26 documents (every file of `--fixtures DIR`'s
 *   `openapi/v3/`, default the repository's copy) and their discovery;
 * - `from-cluster`: `cli.ts gen --from-cluster` end to end over HTTP
 *   against a FakeApiServer serving every resource of the recorded
 *   discovery (so every group/version of that cluster) plus the Widget
 *   CRD: the index, each document, discovery, generation, files written.
 *
 * Prints min and median of `--runs` runs (default 5) of each.
 *
 * Run: `deno run -A bench/gen_cluster.ts [--runs 5] [--fixtures DIR]`
 *
 * @module
 */

import { generateTypes, type OpenApiDocument } from "../gen/mod.ts";
import type { ApiResourceList } from "../gen/mod.ts";
import { main } from "../cli.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import {
  CustomResourceDefinitions,
  type ResourceType,
  resourceType,
} from "../api/resources.ts";

const arg = (name: string) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const RUNS = Number(arg("--runs") ?? 5);
const FIXTURES = arg("--fixtures") ??
  new URL("../testing/fixtures/openapi-v1.26", import.meta.url).pathname;

const docs: Record<string, OpenApiDocument> = {};
for (const e of Deno.readDirSync(`${FIXTURES}/openapi/v3`)) {
  const path = e.name.replace(/\.json$/, "").replaceAll("__", "/");
  // Group/version documents only: api/v1, apis/<group>/<version>.
  if (!/^(api\/[^/]+|apis\/[^/]+\/[^/]+)$/.test(path)) continue;
  docs[path] = JSON.parse(
    Deno.readTextFileSync(`${FIXTURES}/openapi/v3/${e.name}`),
  );
}
const discovery: ApiResourceList[] = [];
for (const e of Deno.readDirSync(`${FIXTURES}/discovery`)) {
  const doc = JSON.parse(
    Deno.readTextFileSync(`${FIXTURES}/discovery/${e.name}`),
  );
  if (doc.kind === "APIResourceList") discovery.push(doc);
}

function stats(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  return `min ${s[0].toFixed(0)} ms, median ${s[s.length >> 1].toFixed(0)} ms`;
}

const gen: number[] = [];
let modules = 0;
for (let i = 0; i < RUNS; i++) {
  const t = performance.now();
  modules = generateTypes(docs, { discovery }).size;
  gen.push(performance.now() - t);
}
console.log(
  `generate: ${Object.keys(docs).length} documents -> ${modules} modules: ${
    stats(gen)
  }`,
);

// Every resource of the recorded cluster (not the CRD's: created below).
const types: ResourceType[] = [];
for (const list of discovery) {
  if (list.groupVersion.startsWith("example.com/")) continue;
  for (const r of list.resources) {
    if (r.name.includes("/")) continue;
    types.push(resourceType({
      apiVersion: list.groupVersion,
      kind: r.kind,
      resource: r.name,
      namespaced: r.namespaced,
      shortNames: r.shortNames,
    }));
  }
}
if (!types.some((t) => t.resource === "customresourcedefinitions")) {
  types.push(CustomResourceDefinitions);
}
await using server = await FakeApiServer.start({ resources: types });
const crd = JSON.parse(
  Deno.readTextFileSync(
    new URL("../examples/widget-crd.json", import.meta.url),
  ),
);
server.create(CustomResourceDefinitions, crd);
const out = await Deno.makeTempDir({ prefix: "kubecache-gen-bench-" });
const e2e: number[] = [];
let written = 0;
try {
  for (let i = 0; i < RUNS; i++) {
    const lines: string[] = [];
    const t = performance.now();
    const code = await main(
      ["gen", "--from-cluster", "-s", server.url, "--out", out],
      { stdout: (l) => void lines.push(l), stderr: () => {} },
    );
    e2e.push(performance.now() - t);
    if (code !== 0) throw new Error(`gen exited ${code}`);
    written = lines.length;
  }
} finally {
  await Deno.remove(out, { recursive: true });
}
console.log(
  `from-cluster: ${types.length} resource types -> ${written} modules: ${
    stats(e2e)
  }`,
);
