/**
 * The manifests that deploy a program's webhooks, from what its
 * {@link WebhookRegistry} serves (what controller-gen's `webhook` and
 * kubebuilder's `config/webhook` and `config/certmanager` write for a Go
 * operator): the Service in front of the pods, a cert-manager Issuer and
 * Certificate for the serving certificate, the
 * Mutating/ValidatingWebhookConfigurations whose `caBundle` cert-manager's
 * CA injector fills in, and the `spec.conversion` of each converted CRD.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import {
  checkObject,
  checkOptionalString,
  checkString,
  show,
} from "../api/validate.ts";
import { WebhookRegistry } from "./webhook.ts";

/**
 * Options of {@link webhookManifests}.
 *
 * @example The webhook Service of a Deployment labelled app=widgets
 * ```ts
 * import type { WebhookManifestOptions } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const opts: WebhookManifestOptions = { name: "widgets-webhook", namespace: "widgets-system", selector: { app: "widgets" } };
 * assert.equal(opts.targetPort, undefined); // 9443
 * ```
 */
export interface WebhookManifestOptions {
  /** Name of the Service, and prefix of the other objects' names. */
  name: string;
  /** Namespace of the Service, the Issuer and the Certificate. */
  namespace: string;
  /** Labels of the pods that serve the webhooks (the Service's selector). */
  selector: Record<string, string>;
  /** The port the webhook server listens on in the pods (the Manager's `webhook.port`). Default 9443. */
  targetPort?: number;
  /**
   * The Secret cert-manager writes the serving certificate into, to mount
   * where the Manager's `certFile` and `keyFile` point. Default
   * `<name>-tls`.
   */
  secretName?: string;
  /** `failurePolicy` of every admission webhook. Default `"Fail"`. */
  failurePolicy?: "Fail" | "Ignore";
  /** `timeoutSeconds` of every admission webhook (1-30). Default 10. */
  timeoutSeconds?: number;
}

/**
 * The objects that deploy the webhooks of `registry` behind a Service:
 *
 * - a `Service` `<name>` (port 443 to `targetPort` of the pods of `selector`);
 * - a self-signed cert-manager `Issuer` and a `Certificate` for
 *   `<name>.<namespace>.svc` (and `.svc.cluster.local`) written to
 *   `secretName`;
 * - a `MutatingWebhookConfiguration` (when a defaulter is registered) and a
 *   `ValidatingWebhookConfiguration` (when a validator is), named
 *   `<name>`, one webhook per type (`m<kind>.<group>` / `v<kind>.<group>`,
 *   the core group as `core.k8s.io`) for the operations it handles, through
 *   the Service at its path; annotated
 *   `cert-manager.io/inject-ca-from: <namespace>/<name>-serving-cert` so
 *   cert-manager fills in `caBundle`;
 * - for each conversion, a `CustomResourceDefinition` holding only the
 *   name, the same annotation and `spec.conversion` (strategy Webhook, the
 *   Service at `/convert`): merge it into the CRD's manifest, or apply it
 *   server-side to a CRD that exists.
 *
 * Print them as one `v1` `List` and pipe them to `kubectl apply -f -`.
 *
 * @param registry what is served (a Manager's: `manager.webhookManifests(opts)`)
 * @param opts where the webhooks run
 * @returns the objects, in the order above
 * @throws {TypeError} when `registry` is not a WebhookRegistry or an option has the wrong type
 * @throws {RangeError} when `timeoutSeconds` is not 1-30 or `targetPort` not 1-65535
 *
 * @example The manifests of a validating webhook
 * ```ts
 * import { webhookManifests, WebhookRegistry } from "@kubecache/core/controller";
 * import { ConfigMaps } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const registry = new WebhookRegistry();
 * registry.webhook(ConfigMaps).validator({ delete() { throw new Error("kept"); } });
 * const objects = webhookManifests(registry, { name: "cm-guard", namespace: "ops", selector: { app: "cm-guard" } });
 * assert.deepEqual(objects.map((o) => o.kind), ["Service", "Issuer", "Certificate", "ValidatingWebhookConfiguration"]);
 * const hook = (objects[3] as any).webhooks[0];
 * assert.deepEqual(hook.rules[0].operations, ["DELETE"]);
 * assert.equal(hook.clientConfig.service.path, "/validate--v1-configmap");
 * ```
 */
export function webhookManifests(
  registry: WebhookRegistry,
  opts: WebhookManifestOptions,
): KubeObject[] {
  const call = "webhookManifests";
  if (!(registry instanceof WebhookRegistry)) {
    throw new TypeError(
      `${call}: registry must be a WebhookRegistry, got ${show(registry)}`,
    );
  }
  checkObject(call, "opts", opts);
  checkString(call, "opts.name", opts.name);
  checkString(call, "opts.namespace", opts.namespace);
  checkObject(call, "opts.selector", opts.selector);
  checkOptionalString(call, "opts.secretName", opts.secretName);
  const targetPort = opts.targetPort ?? 9443;
  if (!Number.isInteger(targetPort) || targetPort < 1 || targetPort > 65535) {
    throw new RangeError(
      `${call}: opts.targetPort must be a port number 1-65535, got ${
        show(opts.targetPort)
      }`,
    );
  }
  const timeoutSeconds = opts.timeoutSeconds ?? 10;
  if (
    !Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 ||
    timeoutSeconds > 30
  ) {
    throw new RangeError(
      `${call}: opts.timeoutSeconds must be an integer 1-30, got ${
        show(opts.timeoutSeconds)
      }`,
    );
  }
  const failurePolicy = opts.failurePolicy ?? "Fail";
  if (failurePolicy !== "Fail" && failurePolicy !== "Ignore") {
    throw new TypeError(
      `${call}: opts.failurePolicy must be "Fail" or "Ignore", got ${
        show(failurePolicy)
      }`,
    );
  }
  const { name, namespace } = opts;
  const certName = `${name}-serving-cert`;
  const inject = {
    "cert-manager.io/inject-ca-from": `${namespace}/${certName}`,
  };
  const service = (path: string) => ({ name, namespace, path });
  const out: KubeObject[] = [
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace },
      spec: {
        selector: { ...opts.selector },
        ports: [{ name: "webhook", port: 443, targetPort, protocol: "TCP" }],
      },
    } as KubeObject,
    {
      apiVersion: "cert-manager.io/v1",
      kind: "Issuer",
      metadata: { name: `${name}-selfsigned`, namespace },
      spec: { selfSigned: {} },
    } as KubeObject,
    {
      apiVersion: "cert-manager.io/v1",
      kind: "Certificate",
      metadata: { name: certName, namespace },
      spec: {
        secretName: opts.secretName ?? `${name}-tls`,
        dnsNames: [
          `${name}.${namespace}.svc`,
          `${name}.${namespace}.svc.cluster.local`,
        ],
        issuerRef: { kind: "Issuer", name: `${name}-selfsigned` },
      },
    } as KubeObject,
  ];
  const described = registry.webhooks();
  for (
    const [kind, prefix, configKind] of [
      ["mutate", "m", "MutatingWebhookConfiguration"],
      ["validate", "v", "ValidatingWebhookConfiguration"],
    ] as const
  ) {
    const hooks = described.filter((d) => d.kind === kind).map((d) => ({
      name: `${prefix}${d.type.kind.toLowerCase()}.${
        d.type.group || "core.k8s.io"
      }`,
      clientConfig: { service: service(d.path) },
      rules: [{
        operations: [...d.operations],
        apiGroups: [d.type.group],
        apiVersions: [d.type.version],
        resources: [d.type.resource],
      }],
      failurePolicy,
      sideEffects: "None",
      timeoutSeconds,
      admissionReviewVersions: ["v1"],
    }));
    if (hooks.length === 0) continue;
    out.push({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: configKind,
      metadata: { name, annotations: { ...inject } },
      webhooks: hooks,
    } as KubeObject);
  }
  for (const d of described.filter((x) => x.kind === "convert")) {
    out.push({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: {
        name: `${d.type.resource}.${d.type.group}`,
        annotations: { ...inject },
      },
      spec: {
        conversion: {
          strategy: "Webhook",
          webhook: {
            clientConfig: { service: service(d.path) },
            conversionReviewVersions: ["v1"],
          },
        },
      },
    } as KubeObject);
  }
  return out;
}
