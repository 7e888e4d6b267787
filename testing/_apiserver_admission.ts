/**
 * Admission webhooks of the fake API server, as kube-apiserver's
 * `MutatingAdmissionWebhook` and `ValidatingAdmissionWebhook` plugins call
 * them (`k8s.io/apiserver/pkg/admission/plugin/webhook`): the
 * configurations stored in the fake are read at each write, each webhook's
 * rules, scope, namespaceSelector and objectSelector are matched, the
 * webhook is called over HTTPS (`clientConfig.url`, or a service through
 * the server's `serviceResolver`) trusting its `caBundle`, within its
 * `timeoutSeconds`, and its answer is checked and applied: a JSON patch,
 * warnings, or a denial in kube-apiserver's words. A call that fails
 * follows `failurePolicy`. The two admission stages of the write chain call
 * {@link runMutatingWebhooks} and {@link runValidatingWebhooks}. Internal
 * to `FakeApiServer`.
 *
 * @module
 */

import type { AdmissionReview } from "../api/admission_review.ts";
import { StatusError } from "../api/errors.ts";
import type { KubeObject, Status } from "../api/object.ts";
import {
  MutatingWebhookConfigurations,
  ValidatingWebhookConfigurations,
} from "../api/admissionregistration.k8s.io/v1.ts";
import type { LabelSelector } from "../api/types.ts";
import { errorMessage } from "../api/validate.ts";
import { parseSelector } from "../cache/labels.ts";
import { labelSelectorString } from "../client/printer_columns.ts";
import type { ServerContext } from "./_apiserver_context.ts";
import type { Write } from "./_apiserver_decode.ts";
import { jsonPatch } from "./_apiserver_patch.ts";
import { failure } from "./_apiserver_status.ts";
import type { Table } from "./_apiserver_store.ts";

/** admissionregistration.k8s.io/v1 ValidatingWebhookConfigurations, served by every fake. */
export const VALIDATING_CONFIGS = ValidatingWebhookConfigurations;

/** admissionregistration.k8s.io/v1 MutatingWebhookConfigurations, served by every fake. */
export const MUTATING_CONFIGS = MutatingWebhookConfigurations;

/** What is being admitted (kube-apiserver's `admission.Attributes`). */
export interface Attributes {
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  table: Table;
  subresource?: string;
  /** "" for cluster-scoped objects. */
  namespace: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  /** Operation options (CreateOptions, UpdateOptions, DeleteOptions). */
  options?: Record<string, unknown>;
}

/** The admission attributes of a write of the chain. */
export function attributesOf(w: Write): Attributes {
  return {
    operation: w.operation,
    table: w.table,
    subresource: w.subresource,
    namespace: w.namespace,
    name: w.name ?? w.object.metadata?.name ?? "",
    object: w.object,
    oldObject: w.oldObject,
    dryRun: w.dryRun,
    options: {
      kind: w.operation === "CREATE" ? "CreateOptions" : "UpdateOptions",
      apiVersion: "meta.k8s.io/v1",
      ...(w.dryRun ? { dryRun: ["All"] } : {}),
    },
  };
}

/** The part of a webhook of either configuration the fake reads. */
interface Webhook {
  name: string;
  clientConfig?: {
    url?: string;
    service?: { namespace: string; name: string; path?: string; port?: number };
    caBundle?: string;
  };
  rules?: {
    operations?: string[];
    apiGroups?: string[];
    apiVersions?: string[];
    resources?: string[];
    scope?: string;
  }[];
  failurePolicy?: string;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
}

/** A failed call: handled by `failurePolicy` (webhookutil `ErrCallingWebhook`). */
class CallingError extends Error {
  constructor(webhook: string, reason: string) {
    super(`failed calling webhook "${webhook}": ${reason}`);
  }
}

/** The webhooks of one kind of configuration, in kube-apiserver's order (by configuration name). */
function webhooksOf(
  ctx: ServerContext,
  configs: typeof VALIDATING_CONFIGS,
): Webhook[] {
  const table = ctx.cluster.find(
    configs.group,
    configs.version,
    configs.resource,
  );
  if (!table) return [];
  return table.sorted().flatMap((e) =>
    ((e.obj as { webhooks?: Webhook[] }).webhooks ?? []) as Webhook[]
  );
}

function selects(
  selector: LabelSelector | undefined,
  labels?: Record<string, string>,
): boolean {
  if (!selector) return true;
  const text = labelSelectorString(selector);
  if (text === undefined) return false; // an unknown operator selects nothing
  return parseSelector(text).matches(labels ?? {});
}

/** `rules` (kube-apiserver `rules.Matcher`): operation, group, version, resource/subresource, scope. */
function ruleMatches(hook: Webhook, a: Attributes): boolean {
  const type = a.table.type;
  const isNamespaceObject = type.group === "" && type.resource === "namespaces";
  return (hook.rules ?? []).some((r) => {
    const has = (list: string[] | undefined, v: string) =>
      (list ?? []).some((x) => x === "*" || x === v);
    if (!has(r.operations, a.operation)) return false;
    if (!has(r.apiGroups, type.group)) return false;
    if (!has(r.apiVersions, type.version)) return false;
    const resourceOk = (r.resources ?? []).some((spec) => {
      const i = spec.indexOf("/");
      const [res, sub] = i < 0
        ? [spec, ""]
        : [spec.slice(0, i), spec.slice(i + 1)];
      return (res === "*" || res === type.resource) &&
        (sub === "*" || sub === (a.subresource ?? ""));
    });
    if (!resourceOk) return false;
    const scope = r.scope ?? "*";
    if (scope === "Namespaced") return !isNamespaceObject && a.namespace !== "";
    if (scope === "Cluster") return isNamespaceObject || a.namespace === "";
    return true;
  });
}

/** kube-apiserver's `ShouldCallHook`: rules, namespaceSelector, objectSelector. */
function shouldCall(ctx: ServerContext, hook: Webhook, a: Attributes): boolean {
  if (!ruleMatches(hook, a)) return false;
  const type = a.table.type;
  if (type.group === "" && type.resource === "namespaces") {
    // A namespace is matched by its own labels.
    const self = a.object ?? a.oldObject;
    if (!selects(hook.namespaceSelector, self?.metadata.labels)) return false;
  } else if (a.namespace !== "" && hook.namespaceSelector) {
    const nsTable = ctx.cluster.find("", "v1", "namespaces");
    const ns = nsTable?.get(a.namespace)?.obj;
    if (!selects(hook.namespaceSelector, ns?.metadata.labels)) return false;
  }
  if (hook.objectSelector) {
    const matchesNew = a.object !== undefined &&
      selects(hook.objectSelector, a.object.metadata?.labels);
    const matchesOld = a.oldObject !== undefined &&
      selects(hook.objectSelector, a.oldObject.metadata?.labels);
    if (!matchesNew && !matchesOld) return false;
  }
  return true;
}

/** Webhook configurations are never sent to webhooks (a webhook could lock itself out). */
function exempt(a: Attributes): boolean {
  const t = a.table.type;
  return t.group === "admissionregistration.k8s.io";
}

/**
 * kube-apiserver's `ToStatusErr` as its released webhook plugin calls it:
 * the webhook's Status, its message prefixed, a code under 400 raised to
 * 400. (The newest source also prefixes `<resource> "<name>" is
 * forbidden: ` and defaults the code to 403.)
 */
export function denialOf(
  webhook: string,
  result: Status | undefined,
): StatusError {
  const r: Status = structuredClone(result ?? {});
  if (!r.code || r.code < 400) r.code = 400;
  if (!r.status || r.status === "Success") r.status = "Failure";
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  r.message = r.message
    ? `${deniedBy}: ${r.message}`
    : r.reason
    ? `${deniedBy}: ${r.reason}`
    : `${deniedBy} without explanation`;
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    ...r,
  });
}

/** apierrors.NewInternalError. */
function internalError(message: string): StatusError {
  return new StatusError(
    failure(500, "InternalError", `Internal error occurred: ${message}`, {
      causes: [{ message }],
    }),
  );
}

function review(hook: Webhook, a: Attributes, uid: string): AdmissionReview {
  const t = a.table.type;
  const versions = hook.admissionReviewVersions ?? [];
  const apiVersion = versions.includes("v1")
    ? "admission.k8s.io/v1"
    : "admission.k8s.io/v1beta1";
  const gvk = { group: t.group, version: t.version, kind: t.kind };
  const gvr = { group: t.group, version: t.version, resource: t.resource };
  const typed = (o: KubeObject | undefined) =>
    o ? { ...o, apiVersion: a.table.apiVersion, kind: t.kind } : null;
  return {
    apiVersion: apiVersion as "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: gvk,
      resource: gvr,
      ...(a.subresource ? { subResource: a.subresource } : {}),
      requestKind: gvk,
      requestResource: gvr,
      ...(a.subresource ? { requestSubResource: a.subresource } : {}),
      name: a.name,
      ...(a.namespace ? { namespace: a.namespace } : {}),
      operation: a.operation,
      userInfo: {
        username: "kubernetes-admin",
        groups: ["system:masters", "system:authenticated"],
      },
      object: typed(a.object),
      oldObject: typed(a.oldObject),
      dryRun: a.dryRun,
      options: a.options ?? null,
    },
  };
}

/** The URL a webhook is called at, with kube-apiserver's `?timeout=` parameter. */
function urlOf(
  ctx: ServerContext,
  hook: Webhook,
  timeoutSeconds: number,
): string {
  const cc = hook.clientConfig ?? {};
  let base: string;
  if (cc.url) {
    base = cc.url;
  } else if (cc.service) {
    const ref = {
      namespace: cc.service.namespace,
      name: cc.service.name,
      port: cc.service.port ?? 443,
    };
    const resolved = ctx.serviceResolver?.(ref);
    if (!resolved) {
      throw new CallingError(
        hook.name,
        `failed to call webhook: service "${ref.namespace}/${ref.name}" cannot be resolved: the FakeApiServer has no serviceResolver for it`,
      );
    }
    base = resolved.replace(/\/$/, "") + (cc.service.path ?? "");
  } else {
    throw new CallingError(
      hook.name,
      "failed to call webhook: clientConfig has neither url nor service",
    );
  }
  const u = new URL(base);
  u.searchParams.set("timeout", `${timeoutSeconds}s`);
  return u.toString();
}

/**
 * Call one webhook and check its answer (`VerifyAdmissionResponse`).
 * @throws {CallingError} when it cannot be called in time or answers garbage
 */
async function call(
  ctx: ServerContext,
  hook: Webhook,
  a: Attributes,
  mutating: boolean,
): Promise<
  { allowed: boolean; status?: Status; patch?: unknown[]; warnings: string[] }
> {
  const versions = hook.admissionReviewVersions ?? [];
  if (!versions.includes("v1") && !versions.includes("v1beta1")) {
    throw new CallingError(
      hook.name,
      "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)",
    );
  }
  const timeoutSeconds = hook.timeoutSeconds ?? 10;
  const url = urlOf(ctx, hook, timeoutSeconds);
  const uid = crypto.randomUUID();
  const body = review(hook, a, uid);
  const abort = new AbortController();
  const onClose = () => abort.abort();
  ctx.closing.addEventListener("abort", onClose);
  let client: Deno.HttpClient | undefined;
  let timedOut = false;
  const timer = ctx.clock.sleep(timeoutSeconds * 1000, abort.signal).then(
    () => {
      timedOut = true;
      abort.abort();
    },
    () => {},
  );
  let answer: unknown;
  try {
    const ca = hook.clientConfig?.caBundle;
    if (ca) client = Deno.createHttpClient({ caCerts: [atob(ca)] });
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
      },
      body: JSON.stringify(body),
      signal: abort.signal,
      client,
    });
    const text = await res.text();
    if (res.status < 200 || res.status > 299) {
      throw new Error(
        `the server responded with the status code ${res.status} but did not return more information`,
      );
    }
    answer = JSON.parse(text);
    checkDecodes(answer);
  } catch (err) {
    const why = timedOut ? "context deadline exceeded" : errorMessage(err);
    throw new CallingError(
      hook.name,
      `failed to call webhook: Post "${url}": ${why}`,
    );
  } finally {
    abort.abort();
    await timer;
    ctx.closing.removeEventListener("abort", onClose);
    client?.close();
  }
  let verified;
  try {
    verified = verify(answer, uid, mutating, body.apiVersion);
  } catch (err) {
    throw new CallingError(
      hook.name,
      `received invalid webhook response: ${errorMessage(err)}`,
    );
  }
  return verified;
}

/**
 * The typing Go's decoder of the answer into `admissionv1.AdmissionReview`
 * enforces: a field of the wrong JSON type fails the decoding, so the call
 * fails (and follows `failurePolicy`) instead of the answer being read as
 * a denial or crashing the write. `null` is every field's zero value.
 */
function checkDecodes(answer: unknown): void {
  const fail = (field: string, want: string, v: unknown): never => {
    const got = Array.isArray(v)
      ? "array"
      : typeof v === "boolean"
      ? "bool"
      : typeof v;
    throw new Error(
      `json: cannot unmarshal ${got} into Go struct field ${field} of type ${want}`,
    );
  };
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  const str = (o: Record<string, unknown>, k: string, field: string) => {
    if (o[k] != null && typeof o[k] !== "string") fail(field, "string", o[k]);
  };
  if (answer === null) return;
  if (!isObj(answer)) fail("AdmissionReview", "v1.AdmissionReview", answer);
  const r = answer as Record<string, unknown>;
  str(r, "apiVersion", "AdmissionReview.apiVersion");
  str(r, "kind", "AdmissionReview.kind");
  const res = r.response;
  if (res == null) return;
  if (!isObj(res)) {
    return fail("AdmissionReview.response", "v1.AdmissionResponse", res);
  }
  str(res, "uid", "AdmissionResponse.response.uid");
  if (res.allowed != null && typeof res.allowed !== "boolean") {
    fail("AdmissionResponse.response.allowed", "bool", res.allowed);
  }
  str(res, "patch", "AdmissionResponse.response.patch");
  str(res, "patchType", "AdmissionResponse.response.patchType");
  if (res.warnings != null) {
    if (!Array.isArray(res.warnings)) {
      fail("AdmissionResponse.response.warnings", "[]string", res.warnings);
    }
    for (const w of res.warnings as unknown[]) {
      if (w != null && typeof w !== "string") {
        fail("AdmissionResponse.response.warnings", "string", w);
      }
    }
  }
  const st = res.status;
  if (st == null) return;
  if (!isObj(st)) fail("AdmissionResponse.response.status", "v1.Status", st);
  const status = st as Record<string, unknown>;
  for (const k of ["status", "message", "reason"]) {
    str(status, k, `Status.response.status.${k}`);
  }
  if (
    status.code != null &&
    (typeof status.code !== "number" || !Number.isInteger(status.code) ||
      Math.abs(status.code) > 2 ** 31 - 1)
  ) {
    fail("Status.response.status.code", "int32", status.code);
  }
  if (status.details != null && !isObj(status.details)) {
    fail("Status.response.status.details", "v1.StatusDetails", status.details);
  }
}

/** kube-apiserver's `VerifyAdmissionResponse`. */
function verify(
  answer: unknown,
  uid: string,
  mutating: boolean,
  sent: string,
): {
  allowed: boolean;
  status?: Status;
  patch?: unknown[];
  warnings: string[];
} {
  const r = answer as Partial<AdmissionReview> | null;
  if (r === null || typeof r !== "object" || Array.isArray(r)) {
    throw new Error("the answer is not an AdmissionReview");
  }
  const res = r.response;
  if (!res || typeof res !== "object") {
    throw new Error("webhook response was absent");
  }
  const v1 = sent === "admission.k8s.io/v1";
  if (v1 && res.uid !== uid) {
    throw new Error(`expected response.uid="${uid}", got "${res.uid ?? ""}"`);
  }
  if (
    v1 &&
    (r.apiVersion !== "admission.k8s.io/v1" || r.kind !== "AdmissionReview")
  ) {
    throw new Error(
      `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${
        r.apiVersion ?? ""
      }, Kind=${r.kind ?? ""}`,
    );
  }
  let patch: unknown[] | undefined;
  if (mutating) {
    if (res.patch && res.patchType === undefined && v1) {
      throw new Error(
        "webhook returned response.patch but not response.patchType",
      );
    }
    if (!res.patch && res.patchType !== undefined && v1) {
      throw new Error(
        "webhook returned response.patchType but not response.patch",
      );
    }
    if (res.patch) {
      if (res.patchType !== undefined && res.patchType !== "JSONPatch") {
        throw new Error(`unsupported patch type "${res.patchType}"`);
      }
      try {
        patch = JSON.parse(new TextDecoder().decode(
          Uint8Array.from(atob(res.patch), (c) => c.charCodeAt(0)),
        ));
      } catch (err) {
        throw new Error(
          `received undecodable patch in webhook response: ${
            errorMessage(err)
          }`,
        );
      }
      if (!Array.isArray(patch)) {
        throw new Error(
          "received undecodable patch in webhook response: not a JSON array",
        );
      }
    }
  } else if (v1 && res.patch) {
    throw new Error("validating webhook may not return response.patch");
  } else if (v1 && res.patchType !== undefined) {
    throw new Error("validating webhook may not return response.patchType");
  }
  return {
    allowed: res.allowed === true,
    status: res.status,
    patch,
    warnings: Array.isArray(res.warnings) ? res.warnings.map(String) : [],
  };
}

/** A dry run may reach only webhooks without side effects. */
function checkDryRun(hook: Webhook, a: Attributes): void {
  if (!a.dryRun) return;
  if (hook.sideEffects !== "None" && hook.sideEffects !== "NoneOnDryRun") {
    throw new StatusError(
      failure(
        400,
        "BadRequest",
        `admission webhook "${hook.name}" does not support dry run`,
      ),
    );
  }
}

function ignoresFailure(hook: Webhook): boolean {
  return hook.failurePolicy === "Ignore";
}

/**
 * Call the matching mutating webhooks one after the other, in the order of
 * their configurations' names, each seeing the object the previous ones
 * patched. @returns the object as patched (`a.object` when none patched)
 * @throws {StatusError} the first denial, or a failed call under `failurePolicy: Fail`
 */
export async function runMutatingWebhooks(
  ctx: ServerContext,
  a: Attributes,
  warnings: string[],
): Promise<KubeObject | undefined> {
  if (exempt(a)) return a.object;
  let obj = a.object;
  for (const hook of webhooksOf(ctx, MUTATING_CONFIGS)) {
    const attrs = { ...a, object: obj };
    if (!shouldCall(ctx, hook, attrs)) continue;
    checkDryRun(hook, attrs);
    let result;
    try {
      result = await call(ctx, hook, attrs, true);
    } catch (err) {
      if (!(err instanceof CallingError)) throw err;
      if (ignoresFailure(hook)) continue;
      throw internalError(err.message);
    }
    warnings.push(...result.warnings);
    if (!result.allowed) throw denialOf(hook.name, result.status);
    if (!result.patch || result.patch.length === 0) continue;
    if (obj === undefined) {
      throw internalError(
        `admission webhook "${hook.name}" attempted to modify the object, which is not supported for this operation`,
      );
    }
    const typed = {
      ...obj,
      apiVersion: a.table.apiVersion,
      kind: a.table.type.kind,
    };
    try {
      obj = jsonPatch(typed, result.patch) as KubeObject;
    } catch (err) {
      throw internalError(errorMessage(err));
    }
  }
  return obj;
}

/**
 * Call the matching validating webhooks at once, as kube-apiserver does.
 * @throws {StatusError} a denial (the first in configuration order), or a
 *   failed call under `failurePolicy: Fail`
 */
export async function runValidatingWebhooks(
  ctx: ServerContext,
  a: Attributes,
  warnings: string[],
): Promise<void> {
  if (exempt(a)) return;
  const hooks = webhooksOf(ctx, VALIDATING_CONFIGS).filter((h) =>
    shouldCall(ctx, h, a)
  );
  for (const hook of hooks) checkDryRun(hook, a);
  const outcomes = await Promise.all(hooks.map(async (hook) => {
    try {
      const result = await call(ctx, hook, a, false);
      warnings.push(...result.warnings);
      return result.allowed ? undefined : denialOf(hook.name, result.status);
    } catch (err) {
      if (!(err instanceof CallingError)) throw err;
      return ignoresFailure(hook) ? undefined : internalError(err.message);
    }
  }));
  const first = outcomes.find((e) => e !== undefined);
  if (first) throw first;
}
