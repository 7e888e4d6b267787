import assert from "node:assert/strict";
import type {
  AdmissionRequest,
  AdmissionReview,
} from "../api/admission_review.ts";
import type { ConversionReview } from "../api/conversion_review.ts";
import { StatusError } from "../api/errors.ts";
import type { KubeObject } from "../api/object.ts";
import { ConfigMaps, Pods, resourceType } from "../api/resources.ts";
import { CONVERSION_PATH, webhookPath, WebhookRegistry } from "./webhook.ts";

interface Widget extends KubeObject {
  spec: { size?: number; replicas?: number; sizeInches?: number };
}
const Widgets = resourceType<Widget>({
  apiVersion: "example.com/v1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
});

function widget(spec: Widget["spec"], version = "v1"): Widget {
  return {
    apiVersion: `example.com/${version}`,
    kind: "Widget",
    metadata: { name: "w", namespace: "default" },
    spec,
  };
}

function review(
  operation: AdmissionRequest["operation"],
  object?: KubeObject,
  oldObject?: KubeObject,
): AdmissionReview {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "uid-1",
      kind: { group: "example.com", version: "v1", kind: "Widget" },
      resource: { group: "example.com", version: "v1", resource: "widgets" },
      namespace: "default",
      name: "w",
      operation,
      userInfo: { username: "tester" },
      object,
      oldObject,
    },
  };
}

async function post(
  registry: WebhookRegistry,
  path: string,
  body: unknown,
  headers: Record<string, string> = { "Content-Type": "application/json" },
): Promise<Response> {
  return await registry.serve(
    new Request(`https://webhook.test${path}`, {
      method: "POST",
      headers,
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

async function admit(
  registry: WebhookRegistry,
  path: string,
  body: unknown,
  headers?: Record<string, string>,
) {
  const res = await post(registry, path, body, headers);
  assert.equal(res.status, 200);
  const answer = await res.json() as AdmissionReview;
  assert.equal(answer.kind, "AdmissionReview");
  return answer.response!;
}

const MUTATE = "/mutate-example-com-v1-widget";
const VALIDATE = "/validate-example-com-v1-widget";

Deno.test("webhookPath: controller-runtime's generated paths", () => {
  assert.equal(webhookPath("mutate", Widgets), MUTATE);
  assert.equal(webhookPath("validate", Widgets), VALIDATE);
  assert.equal(webhookPath("validate", Pods), "/validate--v1-pod");
  assert.throws(() => webhookPath("convert" as never, Pods), TypeError);
});

Deno.test("defaulter: the answer is the JSON patch from the sent object to the returned one", async () => {
  const registry = new WebhookRegistry();
  let seen: AdmissionRequest | undefined;
  registry.webhook(Widgets).defaulter((w, req) => {
    seen = req;
    return { ...w, spec: { size: 1, ...w.spec } };
  });
  const res = await admit(
    registry,
    MUTATE,
    review("CREATE", widget({ replicas: 2 })),
  );
  assert.equal(res.uid, "uid-1");
  assert.equal(res.allowed, true);
  assert.equal(res.patchType, "JSONPatch");
  assert.deepEqual(JSON.parse(atob(res.patch!)), [
    { op: "add", path: "/spec/size", value: 1 },
  ]);
  assert.equal(seen?.userInfo.username, "tester");
});

Deno.test("defaulter: a change made in place counts; no change answers no patch", async () => {
  const registry = new WebhookRegistry();
  registry.webhook(Widgets).defaulter((w) => {
    w.spec.size ??= 1;
  });
  const changed = await admit(registry, MUTATE, review("CREATE", widget({})));
  assert.deepEqual(JSON.parse(atob(changed.patch!)), [
    { op: "add", path: "/spec/size", value: 1 },
  ]);
  const same = await admit(
    registry,
    MUTATE,
    review("UPDATE", widget({ size: 3 }), widget({})),
  );
  assert.deepEqual(same, {
    uid: "uid-1",
    allowed: true,
    status: { code: 200 },
  });
});

Deno.test("defaulter: DELETE is allowed without calling it", async () => {
  const registry = new WebhookRegistry();
  let calls = 0;
  registry.webhook(Widgets).defaulter(() => {
    calls++;
  });
  const res = await admit(
    registry,
    MUTATE,
    review("DELETE", undefined, widget({})),
  );
  assert.equal(res.allowed, true);
  assert.equal(calls, 0);
});

Deno.test("defaulter: a throw denies with code 500 and its message; a StatusError keeps its own", async () => {
  const registry = new WebhookRegistry();
  let err: unknown = new Error("no default for you");
  registry.webhook(Widgets).defaulter(() => {
    throw err;
  });
  assert.deepEqual(
    await admit(registry, MUTATE, review("CREATE", widget({}))),
    {
      uid: "uid-1",
      allowed: false,
      status: { code: 500, message: "no default for you" },
    },
  );
  err = StatusError.fromStatus({
    code: 422,
    reason: "Invalid",
    message: "spec.size: Invalid value",
  });
  const res = await admit(registry, MUTATE, review("CREATE", widget({})));
  assert.equal(res.allowed, false);
  assert.equal(res.status?.code, 422);
  assert.equal(res.status?.reason, "Invalid");
  assert.equal(res.status?.message, "spec.size: Invalid value");
});

Deno.test("defaulter: returning something not an object is a 500 denial, not a broken answer", async () => {
  const registry = new WebhookRegistry();
  registry.webhook(Widgets).defaulter(() => "oops" as never);
  const res = await admit(registry, MUTATE, review("CREATE", widget({})));
  assert.equal(res.allowed, false);
  assert.equal(res.status?.code, 500);
  assert.match(res.status!.message!, /returned "oops"/);
});

Deno.test("validator: allowed, warnings, and the object(s) of each operation", async () => {
  const registry = new WebhookRegistry();
  const calls: string[] = [];
  registry.webhook(Widgets).validator({
    create(w) {
      calls.push(`create ${w.spec.replicas}`);
    },
    update(old, w) {
      calls.push(`update ${old.spec.replicas}->${w.spec.replicas}`);
      return ["replicas changed"];
    },
    delete(w) {
      calls.push(`delete ${w.spec.replicas}`);
      return [];
    },
  });
  assert.deepEqual(
    await admit(registry, VALIDATE, review("CREATE", widget({ replicas: 1 }))),
    {
      uid: "uid-1",
      allowed: true,
      status: { code: 200 },
    },
  );
  const upd = await admit(
    registry,
    VALIDATE,
    review("UPDATE", widget({ replicas: 2 }), widget({ replicas: 1 })),
  );
  assert.deepEqual(upd.warnings, ["replicas changed"]);
  assert.equal(upd.allowed, true);
  await admit(
    registry,
    VALIDATE,
    review("DELETE", undefined, widget({ replicas: 2 })),
  );
  assert.equal(
    (await admit(registry, VALIDATE, review("CONNECT"))).allowed,
    true,
  );
  assert.deepEqual(calls, ["create 1", "update 1->2", "delete 2"]);
});

Deno.test("validator: an operation without its method is allowed", async () => {
  const registry = new WebhookRegistry();
  registry.webhook(Widgets).validator({});
  assert.equal(
    (await admit(registry, VALIDATE, review("CREATE", widget({})))).allowed,
    true,
  );
});

Deno.test("validator: a throw is 403 Forbidden with its message; a StatusError keeps code and reason", async () => {
  const registry = new WebhookRegistry();
  let err: unknown = new Error("replicas must be at most 10");
  registry.webhook(Widgets).validator({
    create() {
      throw err;
    },
  });
  assert.deepEqual(
    await admit(registry, VALIDATE, review("CREATE", widget({}))),
    {
      uid: "uid-1",
      allowed: false,
      status: {
        code: 403,
        reason: "Forbidden",
        message: "replicas must be at most 10",
      },
    },
  );
  err = StatusError.fromStatus({
    code: 409,
    reason: "Conflict",
    message: "taken",
  });
  const res = await admit(registry, VALIDATE, review("CREATE", widget({})));
  assert.deepEqual(
    [res.status?.code, res.status?.reason, res.status?.message],
    [409, "Conflict", "taken"],
  );
});

Deno.test("validator: a result that is not warnings is a 500 denial", async () => {
  const registry = new WebhookRegistry();
  registry.webhook(Widgets).validator({ create: () => true as never });
  const res = await admit(registry, VALIDATE, review("CREATE", widget({})));
  assert.equal(res.allowed, false);
  assert.equal(res.status?.code, 500);
});

Deno.test("admission: a body that is not an AdmissionReview is a denial coded 400, in a well-formed answer", async () => {
  const registry = new WebhookRegistry();
  registry.webhook(Widgets).validator({});
  const cases: [unknown, RegExp, Record<string, string>?][] = [
    ["{not json", /JSON/],
    ["[]", /not an AdmissionReview/],
    [{ kind: "ConversionReview" }, /not an AdmissionReview/],
    [{ kind: "AdmissionReview" }, /no request/],
    [{
      ...review("CREATE", widget({})),
      request: { ...review("CREATE").request, operation: "PATCH" },
    }, /unknown operation "PATCH"/],
    [{
      ...review("CREATE"),
      request: { ...review("CREATE").request, object: "x" },
    }, /request.object/],
    [review("CREATE"), /no content/],
    [
      review("CREATE", widget({})),
      /contentType=text\/plain, expected application\/json/,
      { "Content-Type": "text/plain" },
    ],
    ["", /empty/],
  ];
  for (const [body, message, headers] of cases) {
    const res = await admit(registry, VALIDATE, body, headers);
    assert.equal(res.allowed, false, String(message));
    assert.equal(res.status?.code, 400, String(message));
    assert.match(res.status!.message!, message);
  }
});

Deno.test("admission: a body past 7 MiB is a denial coded 413", async () => {
  const registry = new WebhookRegistry();
  registry.webhook(Widgets).validator({});
  const res = await admit(registry, VALIDATE, "x".repeat(7 * 1024 * 1024 + 1));
  assert.equal(res.status?.code, 413);
});

Deno.test("admission: the answer is in the request's apiVersion (v1beta1 too)", async () => {
  const registry = new WebhookRegistry();
  registry.webhook(Widgets).validator({});
  const res = await post(registry, VALIDATE, {
    ...review("CREATE", widget({})),
    apiVersion: "admission.k8s.io/v1beta1",
  });
  assert.equal((await res.json()).apiVersion, "admission.k8s.io/v1beta1");
});

Deno.test("serve: an unknown path is 404, a GET 405", async () => {
  const registry = new WebhookRegistry();
  registry.webhook(Widgets).validator({});
  assert.equal((await post(registry, "/validate-x", {})).status, 404);
  const get = await registry.serve(new Request(`https://w${VALIDATE}`));
  assert.equal(get.status, 405);
  await get.body?.cancel();
  // No conversion registered: /convert is not served.
  const conv = await post(registry, CONVERSION_PATH, {});
  assert.equal(conv.status, 404);
  await conv.body?.cancel();
});

Deno.test("registration: one defaulter, one validator, one conversion per type", () => {
  const registry = new WebhookRegistry();
  registry.webhook(Widgets).defaulter(() => {}).validator({});
  assert.throws(
    () => registry.webhook(Widgets).defaulter(() => {}),
    /registered already/,
  );
  assert.throws(
    () => registry.webhook(Widgets).validator({}),
    /registered already/,
  );
  assert.throws(
    () => registry.webhook(Widgets).validator({ craete() {} } as never),
    /unknown method "craete"/,
  );
  registry.conversion(Widgets, { hub: "v1", convert: (o) => o });
  assert.throws(
    () => registry.conversion(Widgets, { hub: "v1", convert: (o) => o }),
    /has a conversion already/,
  );
  assert.deepEqual(registry.paths(), [MUTATE, VALIDATE, CONVERSION_PATH]);
  assert.deepEqual(
    new WebhookRegistry().webhook(ConfigMaps) instanceof Object,
    true,
  );
});

function convertReview(
  desiredAPIVersion: string,
  objects: KubeObject[],
): ConversionReview {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    request: { uid: "c-1", desiredAPIVersion, objects },
  };
}

function widgetConversion(registry: WebhookRegistry, calls: string[] = []) {
  // v1 (hub): spec.size; v1beta1: spec.sizeInches; v1alpha1: spec.inches
  registry.conversion(Widgets, {
    hub: "v1",
    convert(obj, to) {
      const from = obj.apiVersion!.split("/")[1];
      calls.push(`${from}->${to}`);
      const spec = (obj as Widget).spec as Record<string, number>;
      const size = from === "v1"
        ? spec.size
        : from === "v1beta1"
        ? spec.sizeInches
        : spec.inches;
      const out = structuredClone(obj) as Widget;
      out.spec = to === "v1"
        ? { size }
        : to === "v1beta1"
        ? { sizeInches: size }
        : { inches: size } as never;
      return out;
    },
  });
}

Deno.test("conversion: to and from the hub, and between spokes through it", async () => {
  const registry = new WebhookRegistry();
  const calls: string[] = [];
  widgetConversion(registry, calls);
  const res = await post(
    registry,
    CONVERSION_PATH,
    convertReview("example.com/v1", [widget({ sizeInches: 3 }, "v1beta1")]),
  );
  const answer = await res.json() as ConversionReview;
  assert.equal(answer.kind, "ConversionReview");
  assert.equal(answer.response?.uid, "c-1");
  assert.deepEqual(answer.response?.result, { status: "Success" });
  assert.deepEqual(answer.response?.convertedObjects, [
    widget({ size: 3 }, "v1"),
  ]);

  const spokes = await (await post(
    registry,
    CONVERSION_PATH,
    convertReview("example.com/v1alpha1", [
      widget({ sizeInches: 4 }, "v1beta1"),
    ]),
  )).json() as ConversionReview;
  assert.deepEqual(
    spokes.response?.convertedObjects[0],
    { ...widget({}, "v1alpha1"), spec: { inches: 4 } },
  );
  assert.deepEqual(calls, ["v1beta1->v1", "v1beta1->v1", "v1->v1alpha1"]);
});

Deno.test("conversion: what cannot be converted is a Failure with its message and no objects", async () => {
  const registry = new WebhookRegistry();
  widgetConversion(registry);
  const failing = async (desired: string, obj: KubeObject, message: RegExp) => {
    const answer = await (await post(
      registry,
      CONVERSION_PATH,
      convertReview(desired, [obj]),
    ))
      .json() as ConversionReview;
    assert.equal(answer.response?.uid, "c-1");
    assert.equal(answer.response?.result.status, "Failure");
    assert.match(answer.response!.result.message!, message);
    assert.deepEqual(answer.response?.convertedObjects, []);
  };
  await failing("example.com/v1", widget({}, "v1"), /same version/);
  await failing("other.com/v1", widget({}, "v1beta1"), /same API group/);
  await failing(
    "example.com/v1",
    { ...widget({}), kind: "Gadget" },
    /no conversion is registered for Gadget/,
  );
  await failing("example.com/v1", { metadata: {} }, /no apiVersion/);
  const throwing = new WebhookRegistry();
  throwing.conversion(Widgets, {
    hub: "v1",
    convert() {
      throw new Error("cannot");
    },
  });
  const answer = await (await post(
    throwing,
    CONVERSION_PATH,
    convertReview("example.com/v1", [widget({}, "v1beta1")]),
  )).json() as ConversionReview;
  assert.deepEqual(answer.response?.result, {
    status: "Failure",
    message: "cannot",
  });
});

Deno.test("conversion: a body that is not a ConversionReview is HTTP 400", async () => {
  const registry = new WebhookRegistry();
  widgetConversion(registry);
  for (
    const body of ["nope", "{}", JSON.stringify({ request: { objects: 1 } })]
  ) {
    const res = await post(registry, CONVERSION_PATH, body);
    assert.equal(res.status, 400);
    await res.body?.cancel();
  }
});

Deno.test("serve: an answer that is not JSON (a cycle, a BigInt) is a well-formed failure, never a throw", async () => {
  const registry = new WebhookRegistry();
  registry.conversion(Widgets, {
    hub: "v1",
    convert(obj) {
      const out = structuredClone(obj) as Widget & { self?: unknown };
      out.self = out;
      return out;
    },
  });
  registry.handle("/bigint", (req) => ({
    uid: req.uid,
    allowed: true,
    auditAnnotations: { n: 1n as unknown as string },
  }));
  const res = await post(
    registry,
    CONVERSION_PATH,
    convertReview("example.com/v1", [widget({ sizeInches: 3 }, "v1beta1")]),
  );
  const answer = await res.json() as ConversionReview;
  assert.equal(answer.kind, "ConversionReview");
  assert.equal(answer.response?.uid, "c-1");
  assert.equal(answer.response?.result.status, "Failure");
  assert.match(answer.response?.result.message ?? "", /not JSON/);
  assert.deepEqual(answer.response?.convertedObjects, []);

  const denied = await admit(registry, "/bigint", review("CREATE", widget({})));
  assert.equal(denied.uid, "uid-1");
  assert.equal(denied.allowed, false);
  assert.equal(denied.status?.code, 500);
  assert.match(denied.status?.message ?? "", /not JSON/);
});
