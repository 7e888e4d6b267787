/**
 * The API contract (docs/architecture.md, docs/behaviour.md) where no other test pins it down
 * by name: export paths, constructor shapes, option names and defaults.
 * Each test names the clause it checks. Behaviour behind a clause is tested
 * beside its code; this file checks that the contract's spelling works.
 */

import assert from "node:assert/strict";
import * as root from "./mod.ts";
import * as cache from "./cache/mod.ts";
import * as client from "./client/mod.ts";
import * as testing from "./testing/mod.ts";
import * as workqueue from "./workqueue/mod.ts";
import * as leaderelection from "./leaderelection/mod.ts";
import * as controller from "./controller/mod.ts";

const denoJson = JSON.parse(
  await Deno.readTextFile(new URL("./deno.json", import.meta.url)),
);

/** The generated modules of the built-in groups: `api/<group>/<version>.ts`. */
const GENERATED_GROUPS = [
  ...Deno.readDirSync(new URL("./api/", import.meta.url)),
]
  .filter((e) => e.isDirectory)
  .flatMap((dir) =>
    [...Deno.readDirSync(new URL(`./api/${dir.name}/`, import.meta.url))]
      .filter((e) => /^v[0-9][a-z0-9]*\.ts$/.test(e.name))
      .map((e) => `api/${dir.name}/${e.name}`)
  ).sort();

Deno.test("contract: deno.json is @kubecache/core with the listed export paths, and one per built-in group/version", () => {
  assert.equal(denoJson.name, "@kubecache/core");
  assert.ok(GENERATED_GROUPS.includes("api/core/v1.ts"));
  assert.ok(GENERATED_GROUPS.includes("api/apps/v1.ts"));
  const groups = Object.fromEntries(
    GENERATED_GROUPS.map((f) => [`./${f.slice(0, -3)}`, `./${f}`]),
  );
  assert.deepEqual(denoJson.exports, {
    ...groups,
    ".": "./mod.ts",
    "./cache": "./cache/mod.ts",
    "./client": "./client/mod.ts",
    "./testing": "./testing/mod.ts",
    "./workqueue": "./workqueue/mod.ts",
    "./leaderelection": "./leaderelection/mod.ts",
    "./controller": "./controller/mod.ts",
    "./cli": "./cli.ts",
    "./gen": "./gen/mod.ts",
  });
});

Deno.test("contract: README's Install names every export path of deno.json", async () => {
  const readme = await Deno.readTextFile(
    new URL("./README.md", import.meta.url),
  );
  const install = readme.slice(
    readme.indexOf("## Install"),
    readme.indexOf("## Quick start"),
  );
  const listed = install.match(/\(entry points ([^)]*)\)/)?.[1] ?? "";
  const paths = [...listed.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  assert.deepEqual(new Set(paths), new Set(Object.keys(denoJson.exports)));
});

Deno.test("contract: mod.ts re-exports cache/, workqueue/ and the client's config, client and types, not testing/, leaderelection/ or controller/", () => {
  const rootNames = new Set(Object.keys(root));
  for (
    const name of [
      "KubeConfig",
      "KubeClient",
      "listWatch",
      "metadataListWatch",
      "Pods",
      "StatusError",
      "isNotFound",
    ]
  ) {
    assert.ok(rootNames.has(name), `mod.ts lacks ${name}`);
    assert.ok(name in client, `client/mod.ts lacks ${name}`);
  }
  const included = { cache, workqueue };
  for (const [path, mod] of Object.entries(included)) {
    const missing = Object.keys(mod).filter((n) => !rootNames.has(n));
    assert.deepEqual(missing, [], `mod.ts lacks ${path}/ exports`);
  }
  const excluded = { testing, leaderelection, controller };
  for (const [path, mod] of Object.entries(excluded)) {
    // By identity: controller/'s Controller (controller-runtime's) is not
    // cache/'s Controller (client-go tools/cache's), though both are named so.
    const leaked = Object.entries(mod).filter(([n, v]) =>
      (root as Record<string, unknown>)[n] === v
    ).map(([n]) => n);
    assert.deepEqual(leaked, [], `mod.ts re-exports ${path}/`);
  }
});

/** The contract's `Queue` methods, which FIFO and DeltaFIFO both have. */
const QUEUE_METHODS = [
  "add",
  "update",
  "delete",
  "replace",
  "resync",
  "list",
  "listKeys",
  "get",
  "getByKey",
  "pop",
  "addIfNotPresent",
  "hasSynced",
  "close",
  "isClosed",
];

/** Methods the contract lists for each class, by name. */
const METHODS: [string, { prototype: object }, string[]][] = [
  ["FIFO", cache.FIFO, QUEUE_METHODS],
  ["DeltaFIFO", cache.DeltaFIFO, [...QUEUE_METHODS, "keyOf"]],
  ["Heap", cache.Heap, [
    "add",
    "bulkAdd",
    "addIfNotPresent",
    "update",
    "delete",
    "pop",
    "list",
    "listKeys",
    "get",
    "getByKey",
    "close",
    "isClosed",
  ]],
  ["Reflector", cache.Reflector, [
    "run",
    "listAndWatch",
    "lastSyncResourceVersion",
    Symbol.asyncDispose.description!,
  ]],
  ["SharedIndexInformer", cache.SharedIndexInformer, [
    "addEventHandler",
    "removeEventHandler",
    "getStore",
    "getIndexer",
    "addIndexers",
    "run",
    "lastSyncResourceVersion",
    "setWatchErrorHandler",
    "setTransform",
    "isStopped",
    Symbol.asyncDispose.description!,
  ]],
  ["SharedInformerFactory", cache.SharedInformerFactory, [
    "informerFor",
    "metadataInformerFor",
    "lister",
    "start",
    "waitForCacheSync",
    "shutdown",
    Symbol.asyncDispose.description!,
  ]],
  ["KubeClient", client.KubeClient, [
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "close",
    Symbol.asyncDispose.description!,
  ]],
  ["WorkQueue", workqueue.WorkQueue, [
    "add",
    "len",
    "get",
    "done",
    "shutDown",
    "shutDownWithDrain",
    "shuttingDown",
    Symbol.asyncIterator.description!,
  ]],
  ["DelayingQueue", workqueue.DelayingQueue, ["addAfter"]],
  ["RateLimitingQueue", workqueue.RateLimitingQueue, [
    "addRateLimited",
    "forget",
    "numRequeues",
  ]],
  ["LeaderElector", leaderelection.LeaderElector, [
    "run",
    "isLeader",
    "getLeader",
  ]],
  ["FakeClock", testing.FakeClock, ["now", "sleep", "step", "hasWaiters"]],
  ["FakeControllerSource", testing.FakeControllerSource, [
    "add",
    "modify",
    "delete",
    "list",
    "watch",
  ]],
  ["FakeApiServer", testing.FakeApiServer, [
    "create",
    "update",
    "delete",
    "list",
    "resourceVersion",
    "compact",
    "compactStorage",
    "resetWatchCache",
    "close",
    Symbol.asyncDispose.description!,
  ]],
  ["FakeApiServerFaults", testing.FakeApiServerFaults, [
    "closeWatches",
    "closeWatchesAfter",
    "failNext",
    "stallWatches",
    "splitWrites",
    "latency",
    "clear",
  ]],
];

/** `Symbol.asyncDispose` is listed by its description; look it up as the symbol. */
function member(proto: object, name: string): unknown {
  const symbols: Record<string, symbol> = {
    [Symbol.asyncDispose.description!]: Symbol.asyncDispose,
    [Symbol.asyncIterator.description!]: Symbol.asyncIterator,
  };
  return (proto as Record<PropertyKey, unknown>)[symbols[name] ?? name];
}

Deno.test("contract: every class has the methods of the API contract", () => {
  const missing: string[] = [];
  for (const [name, cls, methods] of METHODS) {
    for (const m of methods) {
      if (typeof member(cls.prototype, m) !== "function") {
        missing.push(`${name}.${m}`);
      }
    }
  }
  assert.deepEqual(missing, []);
  for (const m of ["fromFile", "fromOptions", "inCluster", "load"] as const) {
    assert.equal(typeof client.KubeConfig[m], "function", `KubeConfig.${m}`);
  }
  assert.equal(typeof testing.FakeApiServer.start, "function");
});

Deno.test("contract: the built-in resource types are exported", () => {
  const names = [
    "Pods",
    "ConfigMaps",
    "Secrets",
    "Services",
    "Namespaces",
    "Nodes",
    "Events",
    "Endpoints",
    "ServiceAccounts",
    "PersistentVolumes",
    "PersistentVolumeClaims",
    "Deployments",
    "ReplicaSets",
    "StatefulSets",
    "DaemonSets",
    "Jobs",
    "CronJobs",
    "Ingresses",
    "Leases",
    "EndpointSlices",
    "CustomResourceDefinitions",
  ];
  const exported = client as unknown as Record<string, client.ResourceType>;
  const missing = names.filter((n) =>
    typeof exported[n]?.resource !== "string"
  );
  assert.deepEqual(missing, []);
});

interface DocSymbol {
  name: string;
  declarations: {
    kind: string;
    location: { filename: string };
    jsDoc?: { doc?: string; tags?: { kind: string; doc?: string }[] };
  }[];
}

/**
 * Whether a file is written by the generator: its symbols carry the
 * schema's descriptions as JSDoc, and its module doc the runnable example
 * (thousands of kinds and fields, one example each would be noise).
 */
function generated(filename: string): boolean {
  return GENERATED_GROUPS.some((f) =>
    filename === new URL(`./${f}`, import.meta.url).href
  );
}

Deno.test("contract: a generated module of a built-in group has a runnable example in its module doc", async () => {
  for (const f of GENERATED_GROUPS) {
    const text = await Deno.readTextFile(new URL(`./${f}`, import.meta.url));
    assert.match(text, /^\/\/ Generated by kubecache gen\./, f);
    if (!text.includes("resourceType<")) continue; // no resource (meta/v1)
    const moduleDoc = text.slice(0, text.indexOf("@module"));
    assert.match(moduleDoc, /@example [^\n]+\n \* ```ts\n/, f);
  }
});

Deno.test("contract: every exported symbol has a runnable @example", async () => {
  const entryPoints = Object.values(denoJson.exports as Record<string, string>);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", ...entryPoints],
    cwd: new URL(".", import.meta.url),
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0);
  const doc = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    nodes: Record<string, { symbols: DocSymbol[] }>;
  };
  const lacking = new Set<string>();
  for (const { symbols } of Object.values(doc.nodes)) {
    for (const { name, declarations: [decl] } of symbols) {
      // A re-export ("reference") is checked where it is declared.
      if (["moduleDoc", "import", "reference"].includes(decl.kind)) continue;
      if (generated(decl.location.filename)) continue;
      const texts = [
        decl.jsDoc?.doc ?? "",
        ...(decl.jsDoc?.tags ?? []).filter((t) => t.kind === "example")
          .map((t) => t.doc ?? ""),
      ];
      // A ```ts block, which `deno test --doc` runs, not marked `ignore`.
      const runnable = texts.some((t) =>
        [...t.matchAll(/^```([^\n]*)$/gm)].some(([, info]) =>
          /^(ts|typescript)(\s|$)/.test(info) && !/\bignore\b/.test(info)
        )
      );
      if (!runnable) lacking.add(`${name} (${decl.location.filename})`);
    }
  }
  assert.deepEqual([...lacking], []);
});
