import assert from "node:assert/strict";
import { generateFromCrds } from "../gen/mod.ts";

Deno.test("examples/typed_crd.ts type-checks (a misspelt field is an error) and syncs a typed Widget", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--check",
      "-A",
      new URL("./typed_crd.ts", import.meta.url).pathname,
    ],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(
    stdout,
    "added w1: medium [gear]\ncached w1: 2 replicas\n",
  );
});

Deno.test("examples/kube_types/ is what gen writes for examples/widget-crd.json", async () => {
  const crd = JSON.parse(
    await Deno.readTextFile(new URL("./widget-crd.json", import.meta.url)),
  );
  const modules = generateFromCrds([crd], { importFrom: "../../../mod.ts" });
  for (const [path, text] of modules) {
    const file = new URL(`./kube_types/${path}`, import.meta.url);
    assert.equal(await Deno.readTextFile(file), text, path);
  }
});
