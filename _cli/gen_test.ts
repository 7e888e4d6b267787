import assert from "node:assert/strict";
import { main } from "../cli.ts";
import {
  CustomResourceDefinitions,
  KubeClient,
  KubeConfig,
  type KubeObject,
  type ResourceType,
  SharedInformerFactory,
} from "../mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { denoIn } from "../gen/gen_test_util.ts";
import { readManifests, splitYamlDocuments } from "./gen.ts";

const FIXTURES = new URL("../testing/fixtures/", import.meta.url);
const WELL_KNOWN = new URL("crds/well-known.yaml", FIXTURES).pathname;
const WIDGET_CRD = new URL("openapi-v1.26/widget-crd.yaml", FIXTURES).pathname;

/** Run `cli.ts gen ...` in-process; returns exit code, stdout lines, stderr. */
async function gen(args: string[]) {
  const out: string[] = [];
  let err = "";
  const code = await main(["gen", ...args], {
    stdout: (l) => void out.push(l),
    stderr: (t) => void (err += t),
    signal: new AbortController().signal,
  });
  return { code, out, err };
}

async function withTempDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "kubecache-gen-cli-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function read(dir: string, path: string): string {
  return Deno.readTextFileSync(`${dir}/${path}`);
}

Deno.test("gen --crd reads several YAML documents per file: one module per served version, passing check, fmt and lint", async () => {
  await withTempDir(async (dir) => {
    const r = await gen(["--crd", WELL_KNOWN, WIDGET_CRD, "--out", dir]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.out.map((l) => l.slice(dir.length + 1)), [
      "argoproj.io/v1alpha1.ts",
      "cert-manager.io/v1.ts",
      "example.com/v1.ts",
      "example.com/v1beta1.ts",
      "monitoring.coreos.com/v1.ts",
      "templates.gatekeeper.sh/v1.ts",
      "templates.gatekeeper.sh/v1beta1.ts", // v1alpha1 is not served
    ]);
    assert.match(r.err, /^wrote 7 modules to .* in \d+ ms\n$/);
    const cert = read(dir, "cert-manager.io/v1.ts");
    assert.match(cert, /^ {2}issuerRef: CertificateSpecIssuerRef;$/m);
    assert.match(cert, /^ {2}secretName: string;$/m);
    assert.match(cert, /^ {2}algorithm\?: "RSA" \| "ECDSA" \| "Ed25519";$/m);
    assert.match(
      cert,
      /^ {2}usages\?: \("signing" \| "digital signature" \| "server auth" \| "client auth"\)\[\];$/m,
    );
    assert.match(cert, /^ {2}status: "True" \| "False" \| "Unknown";$/m);
    assert.match(cert, /^ {2}annotations\?: Record<string, string>;$/m);
    assert.match(cert, /shortNames: \["cert", "certs"\],/);
    const smon = read(dir, "monitoring.coreos.com/v1.ts");
    assert.match(smon, /^ {2}targetPort\?: IntOrString;$/m);
    assert.match(smon, /^ {2}params\?: Record<string, string\[\]>;$/m);
    assert.match(smon, /^ {2}endpoints\?: ServiceMonitorSpecEndpoints\[\];$/m);
    assert.match(
      smon,
      /^ {2}relabelings\?: ServiceMonitorSpecEndpointsRelabelings\[\];$/m,
    );
    const app = read(dir, "argoproj.io/v1alpha1.ts");
    assert.match(app, /^ {2}operation\?: Record<string, unknown>;$/m);
    assert.match(
      app,
      /^ {2}syncPolicy\?: ApplicationSpecSyncPolicy \| null;$/m,
    );
    // Known fields of a preserve-unknown-fields object, and any other.
    assert.match(
      app,
      /export type ApplicationStatus = \{\n(.*\n)*? {2}\[field: string\]: unknown;\n\};/,
    );
    const gk = read(dir, "templates.gatekeeper.sh/v1.ts");
    assert.match(gk, /^\s+namespaced: false,$/m);
    assert.match(gk, /^ {2}byPod\?: Record<string, unknown>\[\];$/m);
    const files = r.out.map((l) => l.slice(dir.length + 1));
    for (const args of [["check", ...files], ["fmt", "--check", ...files]]) {
      const run = await denoIn(dir, args);
      assert.equal(run.code, 0, run.output);
    }
    const lint = await denoIn(dir, ["lint", ...files]);
    assert.equal(lint.code, 0, lint.output);
  });
});

Deno.test("gen --from-cluster: every group/version FakeApiServer serves, with its CRDs, short names from discovery", async () => {
  await using server = await FakeApiServer.start();
  const crd = readManifests(WIDGET_CRD)[0] as KubeObject;
  server.create(CustomResourceDefinitions, crd);
  await withTempDir(async (dir) => {
    const r = await gen(["--from-cluster", "-s", server.url, "--out", dir]);
    assert.equal(r.code, 0, r.err);
    const written = r.out.map((l) => l.slice(dir.length + 1));
    for (
      const path of [
        "core/v1.ts",
        "apps/v1.ts",
        "apiextensions.k8s.io/v1.ts",
        "example.com/v1.ts",
        "example.com/v1beta1.ts",
      ]
    ) assert.ok(written.includes(path), `${path} in ${written}`);
    const widgets = read(dir, "example.com/v1.ts");
    assert.match(widgets, /shortNames: \["wd"\],/);
    assert.match(widgets, /^ {2}size: "small" \| "medium" \| "large";$/m);
    assert.match(read(dir, "apps/v1.ts"), /shortNames: \["deploy"\],/);
    const check = await denoIn(dir, ["check", ...written]);
    assert.equal(check.code, 0, check.output);
    // --group narrows the documents fetched, not only the output.
    server.requests.length = 0;
    const apps = await gen([
      "--from-cluster",
      "-s",
      server.url,
      "--group",
      "example.com",
      "--out",
      `${dir}/only`,
    ]);
    assert.equal(apps.code, 0, apps.err);
    assert.deepEqual(apps.out.map((l) => l.slice(dir.length + 6)), [
      "example.com/v1.ts",
      "example.com/v1beta1.ts",
    ]);
    const fetched = server.requests.map((q) => q.path).filter((p) =>
      p.startsWith("/openapi/v3/")
    );
    assert.deepEqual(fetched.sort(), [
      "/openapi/v3/apis/example.com/v1",
      "/openapi/v3/apis/example.com/v1beta1",
    ]);
  });
});

Deno.test("gen --from-cluster against a server without /openapi/v3 names what was asked and what answered", async () => {
  await using server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    () => new Response("404 page not found\n", { status: 404 }),
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const r = await gen(["--from-cluster", "-s", url, "--out", "unused"]);
  assert.equal(r.code, 1);
  assert.equal(
    r.err,
    `error: cannot generate from the cluster at ${url}: GET /openapi/v3 answered 404 NotFound (404 page not found); the cluster does not serve OpenAPI v3 (Kubernetes 1.24 and later do). Save a document and use --openapi FILE, or use --crd FILE\n`,
  );
});

Deno.test("gen --openapi reads a saved document; nothing matching --kind is an error", async () => {
  await withTempDir(async (dir) => {
    const file = new URL(
      "openapi-v1.26/openapi/v3/apis__apps__v1.json",
      FIXTURES,
    ).pathname;
    const r = await gen([
      "--openapi",
      file,
      "--kind",
      "StatefulSet",
      "--out",
      dir,
    ]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.out.map((l) => l.slice(dir.length + 1)), [
      "apps/v1.ts",
      "core/v1.ts",
    ]);
    const apps = read(dir, "apps/v1.ts");
    assert.match(apps, /export const StatefulSets: ResourceType<StatefulSet>/);
    // Without discovery, no short names.
    assert.doesNotMatch(apps, /shortNames/);
    const none = await gen(["--openapi", file, "--kind", "Nope", "--out", dir]);
    assert.equal(none.code, 1);
    assert.equal(
      none.err,
      'error: nothing to generate: no kind "Nope" in the source\n',
    );
  });
});

Deno.test("a generated CRD descriptor's informer syncs the custom resources on FakeApiServer", async () => {
  await using server = await FakeApiServer.start();
  const crd = readManifests(WIDGET_CRD)[0] as KubeObject;
  server.create(CustomResourceDefinitions, crd);
  await withTempDir(async (dir) => {
    const r = await gen(["--crd", WIDGET_CRD, "--out", dir]);
    assert.equal(r.code, 0, r.err);
    // Point the module at this checkout to import it here.
    const file = `${dir}/example.com/v1.ts`;
    const text = read(dir, "example.com/v1.ts").replace(
      '"@kubecache/core"',
      JSON.stringify(new URL("../mod.ts", import.meta.url).href),
    );
    await Deno.writeTextFile(file, text);
    const { Widgets } = await import(file) as {
      Widgets: ResourceType<KubeObject>;
    };
    await using client = new KubeClient(
      KubeConfig.fromOptions({ server: server.url }),
    );
    for (const name of ["w1", "w2"]) {
      await client.create(Widgets, {
        metadata: { name, namespace: "default" },
        spec: { size: "small" },
      });
    }
    await using factory = new SharedInformerFactory(client);
    const informer = factory.informerFor(Widgets);
    const stop = new AbortController();
    factory.start(stop.signal);
    assert.ok(await factory.waitForCacheSync(stop.signal));
    const names = informer.getStore().list().map((w) => w.metadata.name);
    assert.deepEqual(names.sort(), ["w1", "w2"]);
    stop.abort();
  });
});

Deno.test("splitYamlDocuments() splits at --- and ..., counting lines from the file's start", () => {
  const docs = splitYamlDocuments(
    "# head\na: 1\n---\nb: 2\n--- # c\nc: 3\n...\n---\n# only a comment\n",
  );
  assert.deepEqual(docs, [
    { text: "# head\na: 1", line: 0 },
    { text: "\nb: 2", line: 2 },
    { text: "\nc: 3", line: 4 },
  ]);
});

Deno.test("gen --crd/--openapi with a missing file prints one line naming the flag and the file; one module is 'wrote 1 module'", async () => {
  const crd = await gen(["--crd", "nosuch.yaml", "--out", "unused"]);
  assert.equal(crd.code, 1);
  assert.deepEqual(crd.out, []);
  assert.equal(
    crd.err,
    "error: Cannot read --crd file nosuch.yaml: the file does not exist\n",
  );
  const openapi = await gen(["--openapi", "nosuch.json", "--out", "unused"]);
  assert.equal(
    openapi.err,
    "error: Cannot read --openapi file nosuch.json: the file does not exist\n",
  );
  await withTempDir(async (dir) => {
    const one = await gen([
      "--crd",
      WELL_KNOWN,
      "--group",
      "cert-manager.io",
      "--out",
      dir,
    ]);
    assert.equal(one.code, 0, one.err);
    assert.equal(one.out.length, 1);
    assert.match(one.err, /^wrote 1 module to .* in \d+ ms\n$/);
  });
});
