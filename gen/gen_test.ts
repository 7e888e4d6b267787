import assert from "node:assert/strict";
import {
  crdOpenApi,
  generateFromCrds,
  generateTypes,
  type OpenApiDocument,
} from "./mod.ts";
import {
  denoIn,
  fixtureText,
  recordedDiscovery,
  recordedDocuments,
  writeModules,
} from "./gen_test_util.ts";

const WIDGET_CRD = JSON.parse(
  Deno.readTextFileSync(
    new URL("../examples/widget-crd.json", import.meta.url),
  ),
);

/** The lines of a module from `start` to the first line that is `end`. */
function block(text: string, start: string, end = "}"): string {
  const from = text.indexOf(start);
  assert.ok(from >= 0, `no ${JSON.stringify(start)} in the module`);
  const to = text.indexOf(`\n${end}\n`, from);
  return text.slice(from, to + end.length + 1);
}

Deno.test("generateTypes() on a real apiserver's documents: a module per group/version, kinds, lists and descriptors", () => {
  const modules = generateTypes(recordedDocuments(), {
    discovery: recordedDiscovery(),
  });
  assert.deepEqual([...modules.keys()], [
    "apiextensions.k8s.io/v1.ts",
    "apps/v1.ts",
    "authentication.k8s.io/v1.ts", // TokenRequest, of serviceaccounts/token
    "autoscaling/v1.ts", // Scale, the kind of deployments/scale
    "core/v1.ts",
    "example.com/v1.ts",
    "example.com/v1beta1.ts",
    "meta/v1.ts", // DeleteOptions, which policy/v1's Eviction holds
    "policy/v1.ts", // Eviction, the kind of pods/eviction
  ]);
  const core = modules.get("core/v1.ts")!;
  // A kind extends KubeObject: metadata is ObjectMeta, imported, not generated.
  assert.match(core, /^export interface Pod extends KubeObject \{$/m);
  assert.match(core, /^ {2}metadata: ObjectMeta;$/m);
  assert.doesNotMatch(core, /export (interface|type) ObjectMeta\b/);
  assert.match(core, /^import \{\n( {2}.*\n)* {2}type ObjectMeta,\n/m);
  // Required fields are not optional; enums are literal unions.
  assert.match(
    block(core, "export type Container = {", "};"),
    /^ {2}name: string;$/m,
  );
  assert.match(
    core,
    /^ {2}imagePullPolicy\?: "Always" \| "IfNotPresent" \| "Never";$/m,
  );
  // Quantity, IntOrString, Time are kubecache's shared types, imported.
  assert.match(core, /^ {2}limits\?: Record<string, Quantity>;$/m);
  assert.match(
    block(core, "export type HTTPGetAction = {", "};"),
    /^ {2}port: IntOrString;$/m,
  );
  // Go writes a zero metav1.Time as null.
  assert.match(
    block(core, "export type PodCondition = {", "};"),
    /^ {2}lastProbeTime\?: Time \| null;$/m,
  );
  assert.doesNotMatch(core, /export (interface|type) (Quantity|Time)\b/);
  // apiVersion and kind of a kind are literal types.
  assert.match(
    block(core, "export interface Pod extends KubeObject {", "}"),
    /^ {2}apiVersion\?: "v1";\n[^]*^ {2}kind\?: "Pod";$/m,
  );
  // The list kind holds its items and ListMeta.
  assert.match(
    block(core, "export type PodList = {", "};"),
    /^ {2}items: Pod\[\];$/m,
  );
  // Descriptors: resource, kind and scope from the paths, short names from discovery.
  assert.match(
    core,
    /^export const Pods: ResourceType<Pod> = resourceType<Pod>\(\{\n {2}apiVersion: "v1",\n {2}kind: "Pod",\n {2}resource: "pods",\n {2}namespaced: true,\n {2}shortNames: \["po"\],\n {2}subresources: \[\n {4}"attach",\n(?: {4}"[a-z]+",\n)* {4}"status",\n {2}\],\n\}\);$/m,
  );
  assert.match(
    block(core, "export const Namespaces", "});"),
    /namespaced: false,/,
  );
  assert.match(
    block(core, "export const Endpoints", "});"),
    /resource: "endpoints",/,
  );
  const apps = modules.get("apps/v1.ts")!;
  // Types of another group/version are imported from its module.
  assert.match(
    apps,
    /^import type \{ PersistentVolumeClaim, PodTemplateSpec \} from "\.\.\/core\/v1\.ts";$/m,
  );
  assert.match(
    block(apps, "export const Deployments", "});"),
    /shortNames: \["deploy"\],/,
  );
  assert.match(apps, /^ {2}selector: LabelSelector;$/m);
  // A CRD's kind, as the server published it.
  const widgets = modules.get("example.com/v1.ts")!;
  assert.match(widgets, /^ {2}size: "small" \| "medium" \| "large";$/m);
  assert.match(widgets, /^ {2}port\?: IntOrString;$/m);
  assert.match(widgets, /^ {2}config\?: Record<string, unknown>;$/m);
  assert.match(widgets, /^ {2}labels\?: Record<string, string>;$/m);
  assert.match(widgets, /^ {2}parts\?: WidgetSpecParts\[\];$/m);
  assert.match(widgets, /^ {2}schedule\?: Time;$/m);
  assert.match(widgets, /^ {2}apiVersion\?: "example.com\/v1";$/m);
  assert.match(widgets, /^ {2}kind\?: "Widget";$/m);
  // Subresources from the paths (and discovery).
  assert.match(
    block(widgets, "export const Widgets", "});"),
    /subresources: \["status"\],/,
  );
  assert.match(widgets, /shortNames: \["wd"\],/);
  // JSDoc from descriptions.
  assert.match(
    widgets,
    /\/\*\*\n \* A Widget is a made-up resource with most schema features\.\n \*\/\nexport interface Widget /,
  );
});

Deno.test("generateTypes() writes the same bytes for the same documents, whatever their order", () => {
  const docs = recordedDocuments();
  const discovery = recordedDiscovery();
  const a = generateTypes(docs, { discovery });
  const reversed = Object.fromEntries(Object.entries(docs).reverse());
  const b = generateTypes(reversed, { discovery: [...discovery].reverse() });
  assert.deepEqual([...a.keys()], [...b.keys()]);
  for (const [path, text] of a) assert.equal(b.get(path), text, path);
});

Deno.test("generateFromCrds() on the CRD gives what the server's documents for it give", () => {
  // The apiserver published these documents for widget-crd.yaml: the
  // generator's view of the CRD must match them byte for byte.
  const fromCrd = generateFromCrds([WIDGET_CRD]);
  const docs: Record<string, OpenApiDocument> = {};
  for (const v of ["v1", "v1beta1"]) {
    docs[`apis/example.com/${v}`] = JSON.parse(
      fixtureText(`openapi/v3/apis__example.com__${v}.json`),
    );
  }
  const discovery = recordedDiscovery().filter((l) =>
    l.groupVersion.startsWith("example.com/")
  );
  const fromServer = generateTypes(docs, { discovery });
  assert.deepEqual([...fromCrd.keys()], [
    "example.com/v1.ts",
    "example.com/v1beta1.ts",
  ]);
  for (const [path, text] of fromServer) assert.equal(fromCrd.get(path), text);
});

Deno.test("crdOpenApi() publishes every served version with the apiserver's schema names and paths", () => {
  const served = crdOpenApi(WIDGET_CRD);
  const recorded = JSON.parse(
    fixtureText("openapi/v3/apis__example.com__v1.json"),
  );
  const doc = served.documents["apis/example.com/v1"];
  assert.deepEqual(
    Object.keys(doc.paths ?? {}).sort(),
    Object.keys(recorded.paths).sort(),
  );
  const schemas = doc.components?.schemas ?? {};
  for (const name of ["com.example.v1.Widget", "com.example.v1.WidgetList"]) {
    assert.deepEqual(schemas[name], recorded.components.schemas[name], name);
  }
  assert.deepEqual(served.discovery.map((d) => d.groupVersion), [
    "example.com/v1",
    "example.com/v1beta1",
  ]);
  // A version that is not served publishes nothing.
  const notServed = structuredClone(WIDGET_CRD);
  notServed.spec.versions[1].served = false;
  assert.deepEqual(Object.keys(crdOpenApi(notServed).documents), [
    "apis/example.com/v1",
  ]);
});

Deno.test("generateTypes() --group and --kind narrow the output to a kind, its list and what they use", () => {
  const modules = generateTypes(recordedDocuments(), {
    discovery: recordedDiscovery(),
    group: "apps",
    kind: "deployment",
  });
  assert.deepEqual([...modules.keys()], ["apps/v1.ts", "core/v1.ts"]);
  const apps = modules.get("apps/v1.ts")!;
  assert.match(apps, /export interface Deployment extends/);
  assert.match(apps, /export type DeploymentList = \{/);
  assert.doesNotMatch(apps, /StatefulSet/);
  const core = modules.get("core/v1.ts")!;
  // core/v1 holds the types Deployment uses, without descriptors.
  assert.match(core, /export type PodTemplateSpec = \{/);
  assert.doesNotMatch(core, /export const /);
  assert.deepEqual(
    [...generateTypes(recordedDocuments(), { group: "core" }).keys()],
    ["core/v1.ts"],
  );
  assert.equal(generateTypes(recordedDocuments(), { kind: "Nope" }).size, 0);
});

/** A namespaced CRD `Gadget` of example.com/v1 with this schema. */
function gadgetCrd(openAPIV3Schema: Record<string, unknown>): unknown {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "gadgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "gadgets", kind: "Gadget" },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema },
      }],
    },
  };
}

/** Each `export type Name = {...};` of a module, by name. */
function typeBlocks(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/^export type (\w+) = \{\n[^]*?^\};$/gm)) {
    out.set(m[1], m[0]);
  }
  return out;
}

Deno.test("generateFromCrds() names a nested type by its path only: adding fields renames nothing, a name a kind holds gets _", () => {
  const obj = (properties: Record<string, unknown>) => ({
    type: "object",
    properties,
  });
  const spec = {
    parts: { type: "array", items: obj({ name: { type: "string" } }) },
    window: obj({ start: { type: "string" } }),
  };
  const before = generateFromCrds([gadgetCrd(obj({ spec: obj(spec) }))])
    .get("example.com/v1.ts")!;
  const after = generateFromCrds([gadgetCrd(obj({
    // A field before the others, one spelling the list kind's name, and
    // new nested objects around the old ones.
    list: obj({ size: { type: "integer" } }),
    aaa: obj({ b: obj({ c: { type: "string" } }) }),
    spec: obj({
      ...spec,
      alpha: obj({ x: { type: "string" } }),
      window: obj({
        start: { type: "string" },
        zone: obj({ name: { type: "string" } }),
      }),
    }),
  }))]).get("example.com/v1.ts")!;
  const old = typeBlocks(before);
  const now = typeBlocks(after);
  assert.deepEqual([...old.keys()].sort(), [
    "GadgetList",
    "GadgetSpec",
    "GadgetSpecParts",
    "GadgetSpecWindow",
  ]);
  for (const name of ["GadgetSpecParts"]) {
    assert.equal(now.get(name), old.get(name), name);
  }
  for (const name of old.keys()) assert.ok(now.has(name), name);
  assert.ok(now.has("GadgetSpecWindowZone"));
  assert.ok(now.has("GadgetAaaB"));
  // The kind GadgetList keeps its name; the field `list` joins with `_`.
  assert.match(after, /^export type GadgetList = \{$/m);
  assert.match(after, /^ {2}list\?: Gadget_List;$/m);
  assert.ok(now.has("Gadget_List"));
  assert.doesNotMatch(after, /export type \w+[0-9] = /);
});

Deno.test("generateFromCrds() takes a CRD's in-place copies of the well-known shapes for kubecache's shared types, and writes apiVersion and kind as literals", () => {
  const str = { type: "string" };
  const modules = generateFromCrds([gadgetCrd({
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          // metav1.LabelSelector as controller-gen writes it.
          selector: {
            type: "object",
            "x-kubernetes-map-type": "atomic",
            properties: {
              matchExpressions: {
                type: "array",
                items: {
                  type: "object",
                  required: ["key", "operator"],
                  properties: {
                    key: str,
                    operator: str,
                    values: { type: "array", items: str },
                  },
                },
              },
              matchLabels: { type: "object", additionalProperties: str },
            },
          },
          // corev1.LocalObjectReference and corev1.ObjectReference.
          secretRef: {
            type: "object",
            "x-kubernetes-map-type": "atomic",
            properties: { name: { ...str, default: "" } },
          },
          target: {
            type: "object",
            "x-kubernetes-map-type": "atomic",
            properties: Object.fromEntries(
              [
                "apiVersion",
                "fieldPath",
                "kind",
                "name",
                "namespace",
                "resourceVersion",
                "uid",
              ].map((k) => [k, str]),
            ),
          },
          // One `name` field and no atomic marker: a type of its own.
          owner: { type: "object", properties: { name: str } },
          expires: { type: "string", format: "date-time" },
        },
      },
      status: {
        type: "object",
        properties: {
          // metav1.Condition as controller-gen writes it.
          conditions: {
            type: "array",
            items: {
              type: "object",
              required: [
                "lastTransitionTime",
                "message",
                "reason",
                "status",
                "type",
              ],
              properties: {
                lastTransitionTime: { type: "string", format: "date-time" },
                message: { type: "string", maxLength: 32768 },
                observedGeneration: { type: "integer", format: "int64" },
                reason: str,
                status: { type: "string", enum: ["True", "False", "Unknown"] },
                type: str,
              },
            },
          },
        },
      },
    },
  })]);
  const text = modules.get("example.com/v1.ts")!;
  const spec = block(text, "export type GadgetSpec = {", "};");
  assert.match(spec, /^ {2}selector\?: LabelSelector;$/m);
  assert.match(spec, /^ {2}secretRef\?: LocalObjectReference;$/m);
  assert.match(spec, /^ {2}target\?: ObjectReference;$/m);
  assert.match(spec, /^ {2}owner\?: GadgetSpecOwner;$/m);
  assert.match(spec, /^ {2}expires\?: Time;$/m);
  assert.match(
    block(text, "export type GadgetStatus = {", "};"),
    /^ {2}conditions\?: Condition\[\];$/m,
  );
  assert.doesNotMatch(
    text,
    /export type Gadget(SpecSelector|SpecSecretRef|SpecTarget|StatusConditions)\b/,
  );
  assert.match(text, /^import \{\n( {2}.*\n)* {2}type Condition,\n/m);
  const kind = block(text, "export interface Gadget extends KubeObject {", "}");
  assert.match(kind, /^ {2}apiVersion\?: "example\.com\/v1";$/m);
  assert.match(kind, /^ {2}kind\?: "Gadget";$/m);
  assert.match(
    block(text, "export type GadgetList = {", "};"),
    /^ {2}kind\?: "GadgetList";$/m,
  );
});

Deno.test("generateTypes() aliases an import whose name a local type takes", () => {
  const gvk = { group: "example.com", version: "v1", kind: "Condition" };
  const modules = generateTypes({
    "apis/example.com/v1": {
      paths: {
        "/apis/example.com/v1/conditions": {
          get: { "x-kubernetes-group-version-kind": gvk },
        },
      },
      components: {
        schemas: {
          "com.example.v1.Condition": {
            type: "object",
            "x-kubernetes-group-version-kind": [gvk],
            properties: {
              metadata: {
                $ref:
                  "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
              },
              other: {
                $ref:
                  "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Condition",
              },
            },
          },
        },
      },
    },
  });
  const text = modules.get("example.com/v1.ts")!;
  assert.match(text, /type Condition as KubeCondition,/);
  assert.match(text, /^ {2}other\?: KubeCondition;$/m);
  assert.match(text, /^export interface Condition extends KubeObject \{$/m);
});

Deno.test("generateTypes() and crdOpenApi() reject what they cannot read, naming it", () => {
  assert.throws(
    () => generateTypes("apps" as unknown as Record<string, OpenApiDocument>),
    {
      name: "TypeError",
      message: 'generateTypes: documents must be an object, got "apps"',
    },
  );
  assert.throws(() => generateTypes({}, { group: 1 as unknown as string }), {
    message: "generateTypes: options.group must be a string, got 1",
  });
  assert.throws(() => crdOpenApi({ kind: "ConfigMap", metadata: {} }), {
    name: "TypeError",
    message:
      'crdOpenApi: crd must be a CustomResourceDefinition, got kind "ConfigMap"',
  });
  assert.throws(
    () =>
      crdOpenApi({
        kind: "CustomResourceDefinition",
        metadata: { name: "x.example.com" },
        spec: { group: "example.com" },
      }),
    /CustomResourceDefinition "x.example.com" needs spec.group, spec.names.plural and spec.names.kind/,
  );
});

Deno.test({
  name:
    "generated modules pass deno check, fmt and lint, and real objects round-trip through them",
  // Subprocesses of deno: several seconds.
  sanitizeResources: true,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kubecache-gen-" });
    try {
      const modules = generateTypes(recordedDocuments(), {
        discovery: recordedDiscovery(),
      });
      await writeModules(dir, modules);
      // The Pod a real apiserver answered to a create, as recorded.
      const transcript = JSON.parse(
        await Deno.readTextFile(
          new URL(
            "../testing/fixtures/apiserver/table-and-metadata.json",
            import.meta.url,
          ),
        ),
      );
      const pod = transcript.entries.find((e: { step: string }) =>
        e.step === "create pod p1 (unscheduled)"
      ).body;
      const widget = JSON.parse(fixtureText("widget-w1.json"));
      // A Deployment as kube-apiserver v1.26 returns one after defaulting.
      const deployment = {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: {
          name: "web",
          namespace: "default",
          uid: "0b1c",
          resourceVersion: "612",
          generation: 1,
          creationTimestamp: "2026-12-01T00:00:00Z",
          annotations: { "deployment.kubernetes.io/revision": "1" },
        },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: {
              containers: [{
                name: "web",
                image: "nginx:1.25",
                ports: [{ containerPort: 80, protocol: "TCP" }],
                resources: { limits: { cpu: "500m", memory: "128Mi" } },
                terminationMessagePath: "/dev/termination-log",
                terminationMessagePolicy: "File",
                imagePullPolicy: "IfNotPresent",
              }],
              restartPolicy: "Always",
              terminationGracePeriodSeconds: 30,
              dnsPolicy: "ClusterFirst",
              securityContext: {},
              schedulerName: "default-scheduler",
            },
          },
          strategy: {
            type: "RollingUpdate",
            rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" },
          },
          revisionHistoryLimit: 10,
          progressDeadlineSeconds: 600,
        },
        status: {
          observedGeneration: 1,
          replicas: 2,
          conditions: [{
            type: "Progressing",
            status: "True",
            lastUpdateTime: "2026-12-01T00:00:01Z",
            lastTransitionTime: "2026-12-01T00:00:00Z",
            reason: "NewReplicaSetCreated",
            message: 'Created new replica set "web-6d4b"',
          }],
        },
      };
      const json = (v: unknown) =>
        JSON.stringify(v, null, 2);
      await Deno.writeTextFile(
        `${dir}/roundtrip.ts`,
        [
          'import { type Pod, Pods } from "./core/v1.ts";',
          'import { type Deployment, Deployments } from "./apps/v1.ts";',
          'import { type Widget, Widgets } from "./example.com/v1.ts";',
          `export const pod: Pod = ${json(pod)};`,
          `export const deployment: Deployment = ${json(deployment)};`,
          `export const widget: Widget = ${json(widget)};`,
          "export const types = [Pods, Deployments, Widgets];",
          // apiVersion and kind are literals: a Pod is not a Widget.
          "// @ts-expect-error a Pod is not a Widget",
          "export const notWidget: Widget = pod;",
          // A wrong value is a type error (the directive fails if it is not).
          "export const wrong: Widget = {",
          '  metadata: { name: "w2" },',
          "  // @ts-expect-error size is small, medium or large",
          '  spec: { size: "huge" },',
          "};",
          "",
        ].join("\n"),
      );
      const check = await denoIn(dir, ["check", "."]);
      assert.equal(check.code, 0, check.output);
      const files = [...modules.keys()];
      const fmt = await denoIn(dir, ["fmt", "--check", ...files]);
      assert.equal(fmt.code, 0, fmt.output);
      const lint = await denoIn(dir, ["lint", ...files]);
      assert.equal(lint.code, 0, lint.output);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
