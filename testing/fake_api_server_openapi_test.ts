import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_api_server.ts";
import { CustomResourceDefinitions } from "../api/resources.ts";
import type { KubeObject } from "../api/object.ts";

const FIXTURES = new URL("./fixtures/openapi-v1.26/", import.meta.url);
const recorded = (name: string) =>
  JSON.parse(
    Deno.readTextFileSync(new URL(`openapi/v3/${name}.json`, FIXTURES)),
  );
const WIDGET_CRD = JSON.parse(
  Deno.readTextFileSync(
    new URL("../examples/widget-crd.json", import.meta.url),
  ),
) as KubeObject;

async function get(server: FakeApiServer, path: string) {
  const res = await fetch(new URL(path, server.url));
  return { res, text: await res.text() };
}

/** SHA-512 of the text, in the upper-case hex kube-apiserver writes. */
async function sha512(text: string): Promise<string> {
  const bytes = new Uint8Array(
    await crypto.subtle.digest("SHA-512", new TextEncoder().encode(text)),
  );
  let hex = "";
  for (const b of bytes) hex += (b < 16 ? "0" : "") + b.toString(16);
  return hex.toUpperCase();
}

type Index = { paths: Record<string, { serverRelativeURL: string }> };

Deno.test("FakeApiServer /openapi/v3 lists each group/version with the SHA-512 of its document, as kube-apiserver does", async () => {
  await using server = await FakeApiServer.start();
  const index = JSON.parse((await get(server, "/openapi/v3")).text) as Index;
  assert.ok(index.paths["api/v1"]);
  assert.ok(index.paths["apis/apps/v1"]);
  const url = index.paths["apis/apps/v1"].serverRelativeURL;
  const [path, hash] = url.split("?hash=");
  assert.equal(path, "/openapi/v3/apis/apps/v1");
  const { res, text } = await get(server, url);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(res.headers.get("cache-control"), "public, immutable");
  assert.equal(hash, await sha512(text));
  // The kinds' schemas are those a real kube-apiserver v1.26 published.
  const doc = JSON.parse(text);
  const real = recorded("apis__apps__v1");
  const name = "io.k8s.api.apps.v1.Deployment";
  assert.deepEqual(doc.components.schemas[name], real.components.schemas[name]);
  assert.deepEqual(
    doc.components.schemas["io.k8s.api.core.v1.PodSpec"],
    real.components.schemas["io.k8s.api.core.v1.PodSpec"],
  );
  // Paths as the real server's, for the resources the fake serves.
  const deployPaths = Object.keys(doc.paths).filter((p) =>
    p.includes("/deployments")
  ).sort();
  assert.deepEqual(
    deployPaths,
    Object.keys(real.paths).filter((p) =>
      p.includes("/deployments") && !p.includes("/watch/")
    ).sort(),
  );
  assert.equal((await get(server, "/openapi/v3/apis/nope/v1")).res.status, 404);
});

Deno.test("FakeApiServer publishes a CRD's served versions in /openapi/v3 once it is established", async () => {
  await using server = await FakeApiServer.start();
  const before = JSON.parse((await get(server, "/openapi/v3")).text) as Index;
  assert.equal(before.paths["apis/example.com/v1"], undefined);
  server.create(CustomResourceDefinitions, structuredClone(WIDGET_CRD));
  const after = JSON.parse((await get(server, "/openapi/v3")).text) as Index;
  const doc = JSON.parse(
    (await get(server, after.paths["apis/example.com/v1"].serverRelativeURL))
      .text,
  );
  // What the real server published for the same CRD.
  const real = recorded("apis__example.com__v1");
  for (const name of ["com.example.v1.Widget", "com.example.v1.WidgetList"]) {
    assert.deepEqual(
      doc.components.schemas[name],
      real.components.schemas[name],
    );
  }
  assert.deepEqual(
    Object.keys(doc.paths).sort(),
    Object.keys(real.paths).sort(),
  );
  assert.ok(after.paths["apis/example.com/v1beta1"]);
  // Only the new group/versions appear; the others keep their hash.
  assert.equal(
    after.paths["apis/apps/v1"].serverRelativeURL,
    before.paths["apis/apps/v1"].serverRelativeURL,
  );
});
