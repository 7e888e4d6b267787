/**
 * The built-in kinds' modules under api/ are what the generator writes from
 * the committed recording: regenerating gives the committed bytes, module
 * for module, and every resource of the recording's discovery has its
 * descriptor with the server's scope, short names and subresources.
 */

import assert from "node:assert/strict";
import { builtinModules, OUT, readInput } from "./_builtin.ts";

const input = readInput();
const modules = builtinModules(input);

/** The committed `api/<group>/<version>.ts` files, by path under api/. */
function committed(): Map<string, string> {
  const out = new Map<string, string>();
  for (const dir of Deno.readDirSync(OUT)) {
    if (!dir.isDirectory) continue;
    for (const f of Deno.readDirSync(new URL(`${dir.name}/`, OUT))) {
      if (!/^v[0-9][a-z0-9]*\.ts$/.test(f.name)) continue;
      const path = `${dir.name}/${f.name}`;
      out.set(path, Deno.readTextFileSync(new URL(path, OUT)));
    }
  }
  return out;
}

Deno.test("the committed api/<group>/<version>.ts modules are what `deno task gen:builtin` writes, byte for byte", () => {
  const files = committed();
  assert.deepEqual([...files.keys()].sort(), [...modules.keys()].sort());
  for (const [path, text] of modules) {
    assert.ok(
      files.get(path) === text,
      `api/${path} differs from the generator's output: run deno task gen:builtin`,
    );
  }
});

Deno.test("the recording is a real kube-apiserver v1.32's, with every built-in group/version", () => {
  assert.match(input.source, /^kube-apiserver v1\.32\./);
  const gvs = input.discovery.map((d) => d.groupVersion);
  for (
    const gv of [
      "v1",
      "apps/v1",
      "batch/v1",
      "networking.k8s.io/v1",
      "rbac.authorization.k8s.io/v1",
      "storage.k8s.io/v1",
      "policy/v1",
      "autoscaling/v2",
      "scheduling.k8s.io/v1",
      "admissionregistration.k8s.io/v1",
    ]
  ) assert.ok(gvs.includes(gv), gv);
  assert.ok(!gvs.some((gv) => gv.startsWith("example.com")));
});

Deno.test("every resource the server's discovery lists has a descriptor with its scope, short names and subresources", async () => {
  let checked = 0;
  for (const list of input.discovery) {
    const [group, version] = list.groupVersion.includes("/")
      ? list.groupVersion.split("/")
      : ["", list.groupVersion];
    const path = `${group === "" ? "core" : group}/${version}.ts`;
    const mod = await import(new URL(path, OUT).href) as Record<
      string,
      unknown
    >;
    const descriptors = Object.values(mod).filter((v) =>
      typeof v === "object" && v !== null && "resource" in v
    ) as {
      resource: string;
      kind: string;
      namespaced: boolean;
      shortNames: string[];
      subresources: string[];
    }[];
    for (const r of list.resources) {
      if (r.name.includes("/")) continue;
      const d = descriptors.find((x) => x.resource === r.name);
      assert.ok(d, `${list.groupVersion} ${r.name} has no descriptor`);
      assert.equal(d.kind, r.kind, r.name);
      assert.equal(d.namespaced, r.namespaced, r.name);
      assert.deepEqual(d.shortNames, r.shortNames ?? [], r.name);
      const subs = list.resources.filter((s) => s.name.startsWith(`${r.name}/`))
        .map((s) => s.name.slice(r.name.length + 1)).sort();
      assert.deepEqual(d.subresources, subs, r.name);
      checked++;
    }
  }
  assert.ok(checked > 50, `only ${checked} resources checked`);
});
