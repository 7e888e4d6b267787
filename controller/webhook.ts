/**
 * Admission and conversion webhooks in controller-runtime's shape
 * (`pkg/webhook/admission` `CustomDefaulter` / `CustomValidator`,
 * `pkg/webhook/conversion`): a {@link WebhookRegistry} maps the
 * conventional paths to handlers and answers a `Request` with a
 * `Response`, so it runs in the Manager's HTTPS server, in a test without
 * one, or behind any `Deno.serve`.
 *
 * @module
 */

import type {
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
} from "../api/admission_review.ts";
import type {
  ConversionRequest,
  ConversionResponse,
  ConversionReview,
} from "../api/conversion_review.ts";
import { StatusError } from "../api/errors.ts";
import type { KubeObject, Status } from "../api/object.ts";
import type { ResourceType } from "../api/resources.ts";
import {
  checkFunction,
  checkObject,
  checkResourceType,
  checkString,
  errorMessage,
  show,
} from "../api/validate.ts";
import { jsonPatchOf } from "./json_patch.ts";

/**
 * Fills in defaults (controller-runtime `admission.CustomDefaulter`): gets
 * a copy of the object being created or updated and returns it changed
 * (or changes it in place and returns nothing). The server answers with
 * the JSON patch from the object sent to the changed one. Throwing denies
 * the request: a `StatusError` with its own code, reason and message,
 * anything else with code 500 and its message.
 *
 * @example Default a size
 * ```ts
 * import type { Defaulter } from "@kubecache/core/controller";
 * import type { KubeObject } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * type Widget = KubeObject & { spec: { size?: number } };
 * const defaulter: Defaulter<Widget> = (w) => ({ ...w, spec: { size: 1, ...w.spec } });
 * const out = defaulter({ metadata: { name: "w" }, spec: {} }, {} as never) as Widget;
 * assert.equal(out.spec.size, 1);
 * ```
 */
export type Defaulter<T extends KubeObject> = (
  obj: T,
  req: AdmissionRequest,
) => T | void | Promise<T | void>;

/**
 * Validates writes (controller-runtime `admission.CustomValidator`): each
 * method returns nothing (allowed), or warnings (allowed, shown to the
 * client), or throws to deny: a `StatusError` keeps its code, reason and
 * message, any other error is a 403 `Forbidden` with its message. An
 * operation without its method is allowed.
 *
 * @example Refuse too many replicas
 * ```ts
 * import type { Validator } from "@kubecache/core/controller";
 * import type { KubeObject } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * type Widget = KubeObject & { spec: { replicas: number } };
 * const validator: Validator<Widget> = {
 *   create(w) {
 *     if (w.spec.replicas > 10) throw new Error("replicas must be at most 10");
 *   },
 * };
 * assert.throws(() => validator.create!({ metadata: {}, spec: { replicas: 11 } }, {} as never));
 * ```
 */
export interface Validator<T extends KubeObject> {
  /** A CREATE: the object to be created. */
  create?(
    obj: T,
    req: AdmissionRequest,
  ): string[] | void | Promise<string[] | void>;
  /** An UPDATE: the stored object and the new one. */
  update?(
    oldObj: T,
    obj: T,
    req: AdmissionRequest,
  ): string[] | void | Promise<string[] | void>;
  /** A DELETE: the object to be deleted. */
  delete?(
    obj: T,
    req: AdmissionRequest,
  ): string[] | void | Promise<string[] | void>;
}

/**
 * Conversion between the versions of a custom resource (controller-runtime
 * `conversion.Hub` / `Convertible`, as one function): `convert(obj,
 * toVersion)` is called with `toVersion` the hub and `obj` of another
 * version, or with `obj` of the hub version; a conversion between two
 * other versions goes through the hub. It returns the converted object
 * (its `apiVersion` is set for it).
 *
 * @example v1beta1 ↔ v1
 * ```ts
 * import type { ConversionOptions } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const conversion: ConversionOptions = {
 *   hub: "v1",
 *   convert(obj, toVersion) {
 *     const o = structuredClone(obj) as any;
 *     if (toVersion === "v1") o.spec = { size: o.spec.sizeInches };
 *     else o.spec = { sizeInches: o.spec.size };
 *     return o;
 *   },
 * };
 * const v1 = conversion.convert({ metadata: { name: "w" }, spec: { sizeInches: 3 } } as never, "v1") as any;
 * assert.equal(v1.spec.size, 3);
 * ```
 */
export interface ConversionOptions {
  /** The hub version, e.g. `"v1"`: every conversion goes to or from it. */
  hub: string;
  /** Convert `obj` to `toVersion` (a version, e.g. `"v1beta1"`). */
  convert(obj: KubeObject, toVersion: string): KubeObject | Promise<KubeObject>;
}

/**
 * The path a type's mutating or validating webhook is served on, as
 * controller-runtime's builder generates it:
 * `/mutate-<group>-<version>-<kind>` with the group's dots as dashes and
 * the kind lower-cased (`/mutate-example-com-v1-widget`; the core group
 * is empty: `/validate--v1-pod`).
 *
 * @param kind `"mutate"` or `"validate"`
 * @param type the resource type
 * @returns the path
 * @throws {TypeError} when `kind` is neither or `type` is not a ResourceType
 *
 * @example The path of a Widget defaulter
 * ```ts
 * import { webhookPath } from "@kubecache/core/controller";
 * import { resourceType } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const Widgets = resourceType({ apiVersion: "example.com/v1", kind: "Widget", resource: "widgets", namespaced: true });
 * assert.equal(webhookPath("mutate", Widgets), "/mutate-example-com-v1-widget");
 * ```
 */
export function webhookPath(
  kind: "mutate" | "validate",
  type: ResourceType,
): string {
  if (kind !== "mutate" && kind !== "validate") {
    throw new TypeError(
      `webhookPath: kind must be "mutate" or "validate", got ${show(kind)}`,
    );
  }
  checkResourceType("webhookPath", "type", type);
  return `/${kind}-${
    type.group.replaceAll(".", "-")
  }-${type.version}-${type.kind.toLowerCase()}`;
}

/**
 * What one served webhook is, as the manifests that point the API server
 * at it need it: a mutating (`"mutate"`) or validating (`"validate"`)
 * admission webhook of `type` for `operations`, or the conversion
 * (`"convert"`) of `type`'s kind.
 *
 * @example The description of a defaulter
 * ```ts
 * import { WebhookRegistry } from "@kubecache/core/controller";
 * import { ConfigMaps } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const registry = new WebhookRegistry();
 * registry.webhook(ConfigMaps).defaulter((cm) => cm);
 * const [d] = registry.webhooks();
 * assert.deepEqual([d.kind, d.path, d.operations], ["mutate", "/mutate--v1-configmap", ["CREATE", "UPDATE"]]);
 * ```
 */
export interface WebhookDescription {
  /** Mutating, validating or conversion. */
  kind: "mutate" | "validate" | "convert";
  /** The path served. */
  path: string;
  /** The resource type. */
  type: ResourceType;
  /** The operations admitted (none for a conversion). */
  operations: ("CREATE" | "UPDATE" | "DELETE" | "CONNECT")[];
}

/**
 * The path every conversion webhook is served on, as controller-runtime's:
 * a CRD's `spec.conversion.webhook.clientConfig` names it.
 *
 * @example Where a CRD sends its ConversionReviews
 * ```ts
 * import { CONVERSION_PATH } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const clientConfig = { service: { name: "widgets-webhook", namespace: "default", path: CONVERSION_PATH } };
 * assert.equal(clientConfig.service.path, "/convert");
 * ```
 */
export const CONVERSION_PATH = "/convert";

/** controller-runtime's `maxRequestSize`: a larger body answers 413. */
const MAX_REQUEST_BYTES = 7 * 1024 * 1024;

type AdmissionHandler = (req: AdmissionRequest) => Promise<AdmissionResponse>;

interface Converter {
  type: ResourceType;
  opts: ConversionOptions;
}

/**
 * Registers the webhooks of a type, as controller-runtime's
 * `ctrl.NewWebhookManagedBy(mgr).For(&T{})`: `.defaulter(fn)` serves
 * `/mutate-…`, `.validator({ create, update, delete })` serves
 * `/validate-…`. Got from `manager.webhook(Type)` or
 * {@link WebhookRegistry.webhook}.
 *
 * @example Both webhooks of a type
 * ```ts
 * import { WebhookRegistry } from "@kubecache/core/controller";
 * import { ConfigMaps } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const registry = new WebhookRegistry();
 * registry.webhook(ConfigMaps)
 *   .defaulter((cm) => ({ ...cm, data: { ...cm.data, seen: "yes" } }))
 *   .validator({ delete: () => { throw new Error("configmaps are forever"); } });
 * assert.deepEqual(registry.paths(), ["/mutate--v1-configmap", "/validate--v1-configmap"]);
 * ```
 */
export class WebhookBuilder<T extends KubeObject> {
  readonly #type: ResourceType<T>;
  readonly #registry: WebhookRegistry;

  /**
   * A builder registering into `registry`; prefer `registry.webhook(type)`.
   * @throws {TypeError} when `type` is not a ResourceType or `registry` not a WebhookRegistry
   */
  constructor(type: ResourceType<T>, registry: WebhookRegistry) {
    checkResourceType("new WebhookBuilder", "type", type);
    if (!(registry instanceof WebhookRegistry)) {
      throw new TypeError(
        `new WebhookBuilder: registry must be a WebhookRegistry, got ${
          show(registry)
        }`,
      );
    }
    this.#type = type;
    this.#registry = registry;
  }

  /**
   * Serve `fn` as the type's mutating webhook.
   * @throws {TypeError} when `fn` is not a function
   * @throws {Error} when the type has a defaulter already
   */
  defaulter(fn: Defaulter<T>): this {
    checkFunction("WebhookBuilder.defaulter", "fn", fn);
    const type = this.#type;
    this.#registry.handle(
      webhookPath("mutate", type),
      (req) => defaulting(type, fn, req),
    );
    this.#registry.describe({
      kind: "mutate",
      path: webhookPath("mutate", type),
      type,
      operations: ["CREATE", "UPDATE"],
    });
    return this;
  }

  /**
   * Serve `v` as the type's validating webhook.
   * @throws {TypeError} when `v` is not an object or a method not a function
   * @throws {Error} when the type has a validator already
   */
  validator(v: Validator<T>): this {
    checkObject("WebhookBuilder.validator", "validator", v);
    for (const m of Object.keys(v)) {
      if (m !== "create" && m !== "update" && m !== "delete") {
        throw new TypeError(
          `WebhookBuilder.validator: unknown method ${
            show(m)
          }; a validator has create, update and delete`,
        );
      }
      checkFunction("WebhookBuilder.validator", `validator.${m}`, v[m]);
    }
    const type = this.#type;
    this.#registry.handle(
      webhookPath("validate", type),
      (req) => validating(type, v, req),
    );
    const ops = {
      create: "CREATE",
      update: "UPDATE",
      delete: "DELETE",
    } as const;
    this.#registry.describe({
      kind: "validate",
      path: webhookPath("validate", type),
      type,
      // An empty validator still admits creates and updates.
      operations: Object.keys(v).length === 0
        ? ["CREATE", "UPDATE"]
        : (["create", "update", "delete"] as const).filter((m) => v[m]).map((
          m,
        ) => ops[m]),
    });
    return this;
  }
}

/**
 * The webhooks a program serves, by path (controller-runtime's
 * `webhook.Server.Register` with the builder's paths): admission webhooks
 * of {@link WebhookBuilder}, conversion of {@link WebhookRegistry.conversion}
 * on `/convert`. {@link WebhookRegistry.serve} answers one HTTP request as
 * controller-runtime's handlers do:
 *
 * - an admission path takes a POST of an `AdmissionReview` (JSON,
 *   `Content-Type: application/json`, at most 7 MiB) and answers 200 with
 *   an `AdmissionReview` whose response carries the request's uid, in the
 *   request's apiVersion; a body that is not one is answered with a denial
 *   coded 400 (413 past the size), never a broken answer;
 * - `/convert` takes a `ConversionReview` and answers one with the
 *   converted objects, or `result.status: "Failure"` and the message of
 *   what failed; a body that is not a ConversionReview answers HTTP 400;
 * - another path answers 404, another method 405.
 *
 * @example Answer an AdmissionReview without a server
 * ```ts
 * import { WebhookRegistry, type AdmissionReview } from "@kubecache/core/controller";
 * import { resourceType } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const Widgets = resourceType({ apiVersion: "example.com/v1", kind: "Widget", resource: "widgets", namespaced: true });
 * const registry = new WebhookRegistry();
 * registry.webhook(Widgets).validator({
 *   create(w: any) { if (w.spec.replicas > 10) throw new Error("replicas must be at most 10"); },
 * });
 * const review: AdmissionReview = {
 *   apiVersion: "admission.k8s.io/v1",
 *   kind: "AdmissionReview",
 *   request: {
 *     uid: "1", operation: "CREATE", userInfo: {},
 *     kind: { group: "example.com", version: "v1", kind: "Widget" },
 *     resource: { group: "example.com", version: "v1", resource: "widgets" },
 *     object: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { replicas: 11 } } as never,
 *   },
 * };
 * const res = await registry.serve(new Request("https://webhook/validate-example-com-v1-widget", {
 *   method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(review),
 * }));
 * const answer: AdmissionReview = await res.json();
 * assert.equal(answer.response?.allowed, false);
 * assert.deepEqual(answer.response?.status, { code: 403, reason: "Forbidden", message: "replicas must be at most 10" });
 * ```
 */
export class WebhookRegistry {
  readonly #admission = new Map<string, AdmissionHandler>();
  readonly #described: WebhookDescription[] = [];
  readonly #converters = new Map<string, Converter>();

  /**
   * Register the admission webhooks of `type`.
   * @throws {TypeError} when `type` is not a ResourceType
   */
  webhook<T extends KubeObject>(type: ResourceType<T>): WebhookBuilder<T> {
    checkResourceType("WebhookRegistry.webhook", "type", type);
    return new WebhookBuilder(type, this);
  }

  /**
   * Serve the conversion of `type`'s kind (any version of its group) on
   * `/convert`.
   * @throws {TypeError} when `type` is not a ResourceType, `opts.hub` not a string or `opts.convert` not a function
   * @throws {Error} when the kind has a conversion already
   */
  conversion<T extends KubeObject>(
    type: ResourceType<T>,
    opts: ConversionOptions,
  ): void {
    checkResourceType("WebhookRegistry.conversion", "type", type);
    checkObject("WebhookRegistry.conversion", "opts", opts);
    checkString("WebhookRegistry.conversion", "opts.hub", opts.hub);
    checkFunction("WebhookRegistry.conversion", "opts.convert", opts.convert);
    const key = `${type.kind}.${type.group}`;
    if (this.#converters.has(key)) {
      throw new Error(
        `WebhookRegistry.conversion: ${type.kind} of group "${type.group}" has a conversion already`,
      );
    }
    this.#converters.set(key, { type, opts: { ...opts } });
    this.#described.push({
      kind: "convert",
      path: CONVERSION_PATH,
      type,
      operations: [],
    });
  }

  /**
   * Record what a path serves, for {@link WebhookRegistry.webhooks} (the
   * builder does it; a handler of one's own registered with
   * {@link WebhookRegistry.handle} may describe itself too).
   * @throws {TypeError} when `d` is not a description
   */
  describe(d: WebhookDescription): void {
    checkObject("WebhookRegistry.describe", "d", d);
    checkResourceType("WebhookRegistry.describe", "d.type", d.type);
    this.#described.push({ ...d, operations: [...d.operations] });
  }

  /** What is served, as described: the builder's webhooks and the conversions, in registration order. */
  webhooks(): readonly WebhookDescription[] {
    return this.#described;
  }

  /**
   * Serve an admission handler on `path` (what the builder does); exposed
   * for a handler of one's own, as controller-runtime's `Server.Register`.
   * @throws {TypeError} when `path` does not start with `/` or `handler` is not a function
   * @throws {Error} when the path is registered already
   */
  handle(
    path: string,
    handler: (
      req: AdmissionRequest,
    ) => AdmissionResponse | Promise<AdmissionResponse>,
  ): void {
    checkString("WebhookRegistry.handle", "path", path);
    if (!path.startsWith("/") || path === CONVERSION_PATH) {
      throw new TypeError(
        `WebhookRegistry.handle: path must start with "/" and not be ${CONVERSION_PATH}, got ${
          show(path)
        }`,
      );
    }
    checkFunction("WebhookRegistry.handle", "handler", handler);
    if (this.#admission.has(path)) {
      throw new Error(`WebhookRegistry: path ${path} is registered already`);
    }
    this.#admission.set(path, async (req) => await handler(req));
  }

  /** Every path served, in registration order (`/convert` last when any conversion is). */
  paths(): string[] {
    const out = [...this.#admission.keys()];
    if (this.#converters.size > 0) out.push(CONVERSION_PATH);
    return out;
  }

  /**
   * Answer one HTTP request (see the class). Never throws: whatever a
   * handler does, the answer is a well-formed review.
   * @param req the request (its URL's path picks the webhook)
   * @returns the answer
   */
  async serve(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    const isConvert = path === CONVERSION_PATH && this.#converters.size > 0;
    const handler = this.#admission.get(path);
    if (!handler && !isConvert) return text(404, "404 page not found\n");
    if (req.method !== "POST") return text(405, "method not allowed\n");
    const body = await readBody(req);
    if (isConvert) return await this.#convertReview(body);
    return await admissionReview(req, body, handler!);
  }

  async #convertReview(
    body: { text?: string; error?: [number, string] },
  ): Promise<Response> {
    let review: ConversionReview;
    try {
      if (body.error) throw new Error(body.error[1]);
      review = JSON.parse(body.text!);
      if (
        !isPlainObject(review) || !isPlainObject(review.request) ||
        !Array.isArray(review.request.objects)
      ) {
        throw new Error("the body is not a ConversionReview with a request");
      }
    } catch (err) {
      return text(400, `${errorMessage(err)}\n`);
    }
    const request = review.request;
    let response: ConversionResponse;
    try {
      response = {
        uid: String(request.uid ?? ""),
        convertedObjects: await this.#convert(request),
        result: { status: "Success" },
      };
    } catch (err) {
      response = {
        uid: String(request.uid ?? ""),
        convertedObjects: [],
        result: { status: "Failure", message: errorMessage(err) },
      };
    }
    const apiVersion = typeof review.apiVersion === "string"
      ? review.apiVersion
      : "apiextensions.k8s.io/v1";
    const answer = (response: ConversionResponse) =>
      json({ apiVersion, kind: "ConversionReview", response });
    try {
      return answer(response);
    } catch (err) {
      // A converted object that is not JSON (a cycle, a BigInt): a
      // failed conversion, never a thrown error the server answers 500 to.
      return answer({
        uid: response.uid,
        convertedObjects: [],
        result: {
          status: "Failure",
          message: `a converted object is not JSON: ${errorMessage(err)}`,
        },
      });
    }
  }

  async #convert(request: ConversionRequest): Promise<KubeObject[]> {
    const desired = String(request.desiredAPIVersion ?? "");
    const [dGroup, dVersion] = splitApiVersion(desired);
    const out: KubeObject[] = [];
    for (const obj of request.objects) {
      if (!isPlainObject(obj) || typeof obj.apiVersion !== "string") {
        throw new Error("an object to convert has no apiVersion");
      }
      const kind = String(obj.kind ?? "");
      const [group, version] = splitApiVersion(obj.apiVersion);
      const conv = this.#converters.get(`${kind}.${group}`);
      if (!conv) {
        throw new Error(
          `no conversion is registered for ${kind} of group "${group}"`,
        );
      }
      if (dGroup !== group) {
        throw new Error(
          `${obj.apiVersion} ${kind} and ${desired} do not belong to the same API group`,
        );
      }
      if (dVersion === version) {
        throw new Error(
          `conversion is not allowed between the same version ${desired}`,
        );
      }
      const { hub, convert } = conv.opts;
      const step = async (o: KubeObject, to: string): Promise<KubeObject> => {
        const r = await convert(structuredClone(o), to);
        if (!isPlainObject(r) || !isPlainObject(r.metadata)) {
          throw new TypeError(
            `the conversion of ${kind} to ${to} returned ${
              show(r)
            }, not an object with metadata`,
          );
        }
        return { ...r, apiVersion: group ? `${group}/${to}` : to, kind };
      };
      const viaHub = version !== hub && dVersion !== hub;
      out.push(await step(viaHub ? await step(obj, hub) : obj, dVersion));
    }
    return out;
  }
}

function splitApiVersion(apiVersion: string): [string, string] {
  const i = apiVersion.indexOf("/");
  return i < 0
    ? ["", apiVersion]
    : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
}

// deno-lint-ignore no-explicit-any -- fields of parsed JSON, checked where read
function isPlainObject(v: unknown): v is Record<string, any> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function text(status: number, body: string): Response {
  return new Response(body, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}

function json(value: unknown): Response {
  return new Response(JSON.stringify(value), {
    headers: { "Content-Type": "application/json" },
  });
}

/** The body as text, at most {@link MAX_REQUEST_BYTES}. */
async function readBody(
  req: Request,
): Promise<{ text?: string; error?: [number, string] }> {
  if (!req.body) return { error: [400, "request body is empty"] };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_REQUEST_BYTES) {
        await reader.cancel().catch(() => {});
        return {
          error: [
            413,
            `request entity is too large; limit is ${MAX_REQUEST_BYTES} bytes`,
          ],
        };
      }
      chunks.push(value);
    }
  } catch (err) {
    return { error: [400, errorMessage(err)] };
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  if (size === 0) return { error: [400, "request body is empty"] };
  return { text: new TextDecoder().decode(all) };
}

/** controller-runtime's `admission.Errored`: a denial with a code and the message. */
function errored(
  code: number,
  message: string,
): Omit<AdmissionResponse, "uid"> {
  return { allowed: false, status: { code, message } };
}

const OPERATIONS = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

async function admissionReview(
  httpReq: Request,
  body: { text?: string; error?: [number, string] },
  handler: AdmissionHandler,
): Promise<Response> {
  let apiVersion = "admission.k8s.io/v1";
  const answer = (uid: string, res: Omit<AdmissionResponse, "uid">) =>
    json({ apiVersion, kind: "AdmissionReview", response: { uid, ...res } });
  if (body.error) return answer("", errored(...body.error));
  const contentType = httpReq.headers.get("Content-Type") ?? "";
  if (contentType !== "application/json") {
    return answer(
      "",
      errored(400, `contentType=${contentType}, expected application/json`),
    );
  }
  let review: AdmissionReview;
  try {
    review = JSON.parse(body.text!);
  } catch (err) {
    return answer("", errored(400, errorMessage(err)));
  }
  const problem = reviewProblem(review);
  if (problem) return answer("", errored(400, problem));
  if ((review.apiVersion as string) === "admission.k8s.io/v1beta1") {
    apiVersion = review.apiVersion;
  }
  const req = review.request!;
  let res: AdmissionResponse;
  try {
    res = await handler(req);
  } catch (err) {
    // A handler of one's own that throws; the built-in ones never do.
    res = { uid: req.uid, ...errored(500, errorMessage(err)) };
  }
  if (!isPlainObject(res) || typeof res.allowed !== "boolean") {
    res = {
      uid: req.uid,
      ...errored(
        500,
        `the webhook answered ${show(res)}, not an AdmissionResponse`,
      ),
    };
  }
  // controller-runtime's Response.Complete: the request's uid, a code.
  const status: Status = { ...res.status, code: res.status?.code || 200 };
  try {
    return answer(req.uid, { ...res, status });
  } catch (err) {
    // An answer of one's own handler that is not JSON (a cycle, a BigInt).
    return answer(
      req.uid,
      errored(500, `the webhook's answer is not JSON: ${errorMessage(err)}`),
    );
  }
}

function reviewProblem(review: unknown): string | undefined {
  if (!isPlainObject(review)) return "the body is not an AdmissionReview";
  if (review.kind !== "AdmissionReview") {
    return `the body is not an AdmissionReview (kind ${show(review.kind)})`;
  }
  const r = review.request;
  if (!isPlainObject(r)) return "the AdmissionReview has no request";
  if (typeof r.uid !== "string") return "the request has no uid";
  if (!OPERATIONS.has(r.operation)) {
    return `unknown operation ${show(r.operation)}`;
  }
  for (const f of ["object", "oldObject"] as const) {
    if (r[f] !== undefined && r[f] !== null && !isPlainObject(r[f])) {
      return `request.${f} is not an object`;
    }
  }
  return undefined;
}

/** The denial of a thrown error: a StatusError's own Status, else `code` and the message. */
function denial(
  err: unknown,
  code: number,
  reason?: string,
): Omit<AdmissionResponse, "uid"> {
  if (err instanceof StatusError) {
    const { kind: _k, apiVersion: _a, ...status } = err.status;
    return {
      allowed: false,
      status: {
        ...status,
        code: err.code || code,
        reason: err.reason || undefined,
        message: err.message,
      },
    };
  }
  const status: Status = { code, message: errorMessage(err) };
  if (reason) status.reason = reason;
  return { allowed: false, status };
}

async function defaulting<T extends KubeObject>(
  type: ResourceType<T>,
  fn: Defaulter<T>,
  req: AdmissionRequest,
): Promise<AdmissionResponse> {
  const uid = req.uid;
  if (req.operation === "DELETE" || req.operation === "CONNECT") {
    return { uid, allowed: true, status: { code: 200 } };
  }
  if (!isPlainObject(req.object)) {
    return { uid, ...errored(400, `there is no content to decode`) };
  }
  const original = req.object as T;
  const copy = structuredClone(original);
  let changed: T | void;
  try {
    changed = await fn(copy, req);
  } catch (err) {
    return { uid, ...denial(err, 500) };
  }
  const result = changed === undefined ? copy : changed;
  if (!isPlainObject(result)) {
    return {
      uid,
      ...errored(
        500,
        `the defaulter of ${type.kind} returned ${
          show(result)
        }; return the changed object or nothing`,
      ),
    };
  }
  let patch;
  try {
    patch = jsonPatchOf(original, result);
  } catch (err) {
    return { uid, ...errored(500, errorMessage(err)) };
  }
  if (patch.length === 0) return { uid, allowed: true, status: { code: 200 } };
  return {
    uid,
    allowed: true,
    status: { code: 200 },
    patchType: "JSONPatch",
    patch: base64(JSON.stringify(patch)),
  };
}

async function validating<T extends KubeObject>(
  type: ResourceType<T>,
  v: Validator<T>,
  req: AdmissionRequest,
): Promise<AdmissionResponse> {
  const uid = req.uid;
  const obj = req.object as T | undefined;
  const old = req.oldObject as T | undefined;
  const need = (o: unknown) => isPlainObject(o);
  let result: unknown;
  try {
    switch (req.operation) {
      case "CONNECT":
        break;
      case "CREATE":
        if (!need(obj)) {
          return { uid, ...errored(400, "there is no content to decode") };
        }
        result = await v.create?.(obj!, req);
        break;
      case "UPDATE":
        if (!need(obj) || !need(old)) {
          return { uid, ...errored(400, "there is no content to decode") };
        }
        result = await v.update?.(old!, obj!, req);
        break;
      case "DELETE":
        if (!need(old)) {
          return { uid, ...errored(400, "there is no content to decode") };
        }
        result = await v.delete?.(old!, req);
        break;
    }
  } catch (err) {
    return { uid, ...denial(err, 403, "Forbidden") };
  }
  if (result === undefined) {
    return { uid, allowed: true, status: { code: 200 } };
  }
  if (!Array.isArray(result) || result.some((w) => typeof w !== "string")) {
    return {
      uid,
      ...errored(
        500,
        `the validator of ${type.kind} returned ${
          show(result)
        }; return nothing or an array of warnings`,
      ),
    };
  }
  return {
    uid,
    allowed: true,
    status: { code: 200 },
    ...(result.length ? { warnings: result as string[] } : {}),
  };
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}
