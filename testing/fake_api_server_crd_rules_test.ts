/**
 * The schema rules of custom resources that the recorded transcript
 * (fake_api_server_crd_schema_test.ts) does not exercise, with the answers
 * kube-apiserver's source gives: fieldValidation, maxLength, maxItems,
 * maxProperties, map-list keys, embedded resources, CEL rules without a
 * message, with a reason and fieldPath, and rules the fake's CEL subset
 * cannot evaluate (accepted with a warning).
 */

import assert from "node:assert/strict";
import { resourceType, StatusError } from "../mod.ts";
import { FakeApiServer } from "./fake_api_server.ts";

const GIZMOS = "/apis/example.com/v1/namespaces/default/gizmos";
const Gizmos = resourceType({
  apiVersion: "example.com/v1",
  kind: "Gizmo",
  resource: "gizmos",
  namespaced: true,
});

async function call(
  server: FakeApiServer,
  method: string,
  path: string,
  body: unknown,
  contentType = "application/json",
) {
  const res = await fetch(new URL(path, server.url), {
    method,
    headers: { "content-type": contentType },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const json = await res.json();
  const warnings = [
    ...(res.headers.get("warning") ?? "").matchAll(
      /299 - ("(?:[^"\\]|\\.)*")/g,
    ),
  ].map((m) => JSON.parse(m[1]) as string);
  return { code: res.status, body: json, warnings };
}

async function withGizmos(): Promise<FakeApiServer> {
  const server = await FakeApiServer.start();
  const yaml = await Deno.readTextFile(
    new URL("./fixtures/crd-validation/gizmo-crd.yaml", import.meta.url),
  );
  const made = await call(
    server,
    "PATCH",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com?fieldManager=test",
    yaml,
    "application/apply-patch+yaml",
  );
  assert.equal(made.code, 201);
  return server;
}

function gizmo(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: "example.com/v1",
    kind: "Gizmo",
    metadata: { name },
    spec,
  };
}

Deno.test("fieldValidation: Warn names each pruned field, Strict answers 400, Ignore is silent, another value 422", async () => {
  await using server = await withGizmos();
  const spec = {
    size: 1,
    bogus: 1,
    template: { image: "i", env: [{ name: "A", typo: "x" }] },
    extra: { kept: { deep: true } },
  };
  const warn = await call(server, "POST", GIZMOS, gizmo("warn", spec));
  assert.equal(warn.code, 201);
  assert.deepEqual(warn.warnings, [
    'unknown field "spec.bogus"',
    'unknown field "spec.template.env[0].typo"',
  ]);
  assert.equal(warn.body.spec.bogus, undefined);
  assert.deepEqual(warn.body.spec.template.env, [{ name: "A", value: "" }]);
  // x-kubernetes-preserve-unknown-fields keeps its subtree as written.
  assert.deepEqual(warn.body.spec.extra, { kept: { deep: true } });

  const strict = await call(
    server,
    "POST",
    `${GIZMOS}?fieldValidation=Strict`,
    gizmo("strict", spec),
  );
  assert.equal(strict.code, 400);
  assert.equal(strict.body.reason, "BadRequest");
  assert.equal(
    strict.body.message,
    'Gizmo in version "v1" cannot be handled as a Gizmo: strict decoding error: unknown field "spec.bogus", unknown field "spec.template.env[0].typo"',
  );
  const patched = await call(
    server,
    "PATCH",
    `${GIZMOS}/warn?fieldValidation=Strict`,
    { spec: { other: 1 } },
    "application/merge-patch+json",
  );
  assert.equal(patched.code, 400);
  assert.equal(
    patched.body.message,
    'strict decoding error: unknown field "spec.other"',
  );

  const ignore = await call(
    server,
    "POST",
    `${GIZMOS}?fieldValidation=Ignore`,
    gizmo("ignore", spec),
  );
  assert.equal(ignore.code, 201);
  assert.deepEqual(ignore.warnings, []);
  assert.equal(ignore.body.spec.bogus, undefined);

  const bad = await call(
    server,
    "POST",
    `${GIZMOS}?fieldValidation=Loud`,
    gizmo("bad", spec),
  );
  assert.equal(bad.code, 422);
  assert.equal(
    bad.body.message,
    'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"',
  );
});

Deno.test("maxLength, maxItems and maxProperties are TooLong and TooMany causes, which skip the CEL rules", async () => {
  await using server = await withGizmos();
  const res = await call(
    server,
    "POST",
    GIZMOS,
    gizmo("big", {
      size: 1,
      label: "abcdefghijklmn",
      tags: ["a", "b", "c", "d", "e"],
      selector: { a: "1", b: "2", c: "3", d: "4" },
    }),
  );
  assert.equal(res.code, 422);
  assert.equal(
    res.body.message,
    'Gizmo.example.com "big" is invalid: [<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation, spec.label: Too long: may not be more than 12 bytes, spec.selector: Too many: 4: must have at most 3 items, spec.tags: Too many: 5: must have at most 4 items]',
  );
  assert.deepEqual(
    res.body.details.causes.map((c: { reason: string; field: string }) =>
      `${c.reason} ${c.field}`
    ),
    [
      "FieldValueInvalid <nil>",
      "FieldValueTooLong spec.label",
      "FieldValueTooMany spec.selector",
      "FieldValueTooMany spec.tags",
    ],
  );
});

Deno.test("a map list's duplicate keys are a Duplicate of the key; its defaulted key counts", async () => {
  await using server = await withGizmos();
  const res = await call(
    server,
    "POST",
    GIZMOS,
    gizmo("dup", {
      size: 1,
      endpoints: [{ name: "a" }, { name: "b" }, { name: "a", port: 81 }],
    }),
  );
  assert.equal(res.code, 422);
  assert.equal(
    res.body.message,
    'Gizmo.example.com "dup" is invalid: spec.endpoints[2]: Duplicate value: map[string]interface {}{"name":"a"}',
  );
  assert.equal(res.body.details.causes[0].reason, "FieldValueDuplicate");
});

Deno.test("server.create and server.update prune, default and validate a custom resource too", async () => {
  await using server = await withGizmos();
  const made = server.create(
    Gizmos,
    gizmo("direct", { size: 2, bogus: true }) as never,
  ) as unknown as { spec: Record<string, unknown> };
  assert.equal(made.spec.bogus, undefined);
  assert.equal(made.spec.mode, "auto");
  assert.throws(
    () => server.create(Gizmos, gizmo("zero", { size: 0 }) as never),
    (err: unknown) =>
      err instanceof StatusError && err.status.code === 422 &&
      err.message.includes(
        "spec.size in body should be greater than or equal to 1",
      ),
  );
});

const DOOHICKEY_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "doohickeys.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "doohickeys", singular: "doohickey", kind: "Doohickey" },
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              "x-kubernetes-validations": [
                { rule: "self.name.startsWith('d-')" },
                {
                  rule: "self.ports.all(p, p > 0 && p < 65536)",
                  fieldPath: ".ports",
                  reason: "FieldValueForbidden",
                  message: "ports must be valid",
                },
                { rule: "self.name.split('-').size() == 2" },
                {
                  rule: "!has(self.alias) || self.alias in ['x', 'y']",
                  message: "alias is x or y",
                },
              ],
              properties: {
                name: { type: "string" },
                alias: { type: "string" },
                ports: { type: "array", items: { type: "integer" } },
                pod: {
                  type: "object",
                  "x-kubernetes-embedded-resource": true,
                  "x-kubernetes-preserve-unknown-fields": true,
                },
              },
            },
          },
        },
      },
    }],
  },
};

Deno.test("CEL rules: failed rule text, reason and fieldPath, has() and macros; a rule outside the subset is accepted with a warning", async () => {
  await using server = await FakeApiServer.start();
  const made = await call(
    server,
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    DOOHICKEY_CRD,
  );
  assert.equal(made.code, 201);
  const path = "/apis/example.com/v1/namespaces/default/doohickeys";
  const doohickey = (name: string, spec: unknown) => ({
    apiVersion: "example.com/v1",
    kind: "Doohickey",
    metadata: { name },
    spec,
  });
  const bad = await call(
    server,
    "POST",
    path,
    doohickey("bad", { name: "x-1", alias: "z", ports: [80, 0] }),
  );
  assert.equal(bad.code, 422);
  assert.equal(
    bad.body.message,
    `Doohickey.example.com "bad" is invalid: [spec.ports: Forbidden: ports must be valid, spec: Invalid value: "object": alias is x or y, spec: Invalid value: "object": failed rule: self.name.startsWith('d-')]`,
  );
  assert.deepEqual(
    bad.body.details.causes.map((c: { reason: string; field: string }) =>
      `${c.reason} ${c.field}`
    ),
    [
      "FieldValueForbidden spec.ports",
      "FieldValueInvalid spec",
      "FieldValueInvalid spec",
    ],
  );
  // The split() rule is not in the subset: not checked, and said so.
  const unsupported =
    "x-kubernetes-validations rule \"self.name.split('-').size() == 2\" at spec was not checked: FakeApiServer does not evaluate it (function split is not in the subset)";
  assert.ok(bad.warnings.includes(unsupported), JSON.stringify(bad.warnings));

  const good = await call(
    server,
    "POST",
    path,
    doohickey("good", {
      name: "d-1",
      ports: [80],
      pod: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "p", bogus: 1 },
        spec: { anything: true },
      },
    }),
  );
  assert.equal(good.code, 201);
  assert.deepEqual(good.warnings, [
    'unknown field "spec.pod.metadata.bogus"',
    unsupported,
  ]);
  // An embedded resource keeps apiVersion, kind and metadata (pruned to ObjectMeta).
  assert.deepEqual(good.body.spec.pod, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p" },
    spec: { anything: true },
  });
});
