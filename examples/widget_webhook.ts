/**
 * Webhooks of a custom resource with two versions: Widgets get a default
 * `spec.size` (mutating), are refused with more than 10 replicas
 * (validating), and are served as `example.com/v1beta1` and
 * `example.com/v1` (conversion, v1 the hub and the stored version):
 *
 * | v1                                    | v1beta1                   |
 * | ------------------------------------- | ------------------------- |
 * | `spec.size`: `small`/`medium`/`large` | `spec.scale`: 1 / 2 / 3   |
 * | `spec.replicas`                       | `spec.count`              |
 *
 *   deno run -A examples/widget_webhook.ts --print-manifests | kubectl apply -f -
 *   deno run -A examples/widget_webhook.ts --cert-dir /tmp/k8s-webhook-server/serving-certs
 *
 * `--print-manifests` prints the CRD and what deploys the webhooks (Service,
 * cert-manager Issuer and Certificate, the webhook configurations with the
 * CRD's conversion) as one `List`; without it the program serves the
 * webhooks on port 9443 from `tls.crt` and `tls.key` in `--cert-dir`
 * (cert-manager's Secret, mounted), re-reading them when cert-manager
 * renews them. docs/webhooks.md walks through the deployment.
 *
 * @module
 */

import {
  type KubeObject,
  type ResourceType,
  resourceType,
  StatusError,
} from "../mod.ts";
import {
  Manager,
  type WebhookManifestOptions,
  webhookManifests,
  WebhookRegistry,
} from "../controller/mod.ts";
import { connectOrExit } from "../cli.ts";

/** A Widget as stored and served in v1, the hub. */
export interface Widget extends KubeObject {
  spec: { size?: "small" | "medium" | "large"; replicas?: number };
}

/** A Widget as served in v1beta1. */
export interface WidgetV1beta1 extends KubeObject {
  spec: { scale?: 1 | 2 | 3; count?: number };
}

/** `example.com/v1` widgets. */
export const Widgets: ResourceType<Widget> = resourceType<Widget>({
  apiVersion: "example.com/v1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
});

/** `example.com/v1beta1` widgets. */
export const WidgetsV1beta1: ResourceType<WidgetV1beta1> = resourceType<
  WidgetV1beta1
>({
  apiVersion: "example.com/v1beta1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
});

/** The most replicas a Widget may ask for. */
export const MAX_REPLICAS = 10;

const SIZES = ["small", "medium", "large"] as const;

/** The CRD: both versions served, v1 stored, converted by the webhook. */
export const WIDGET_CRD: KubeObject & { spec: Record<string, unknown> } = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: {
      plural: "widgets",
      singular: "widget",
      kind: "Widget",
      listKind: "WidgetList",
    },
    versions: [
      {
        name: "v1beta1",
        served: true,
        storage: false,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  scale: { type: "integer", minimum: 1, maximum: 3 },
                  count: { type: "integer", minimum: 0 },
                },
              },
            },
          },
        },
      },
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  size: { type: "string", enum: [...SIZES] },
                  replicas: { type: "integer", minimum: 0 },
                },
              },
            },
          },
        },
      },
    ],
  },
};

/**
 * Register the Widget webhooks on `manager`: the defaulter, the validator
 * and the conversion.
 */
export function addWidgetWebhooks(
  manager: Pick<Manager, "webhook" | "conversion">,
): void {
  manager.webhook(Widgets)
    .defaulter((w) => ({ ...w, spec: { size: "medium", ...w.spec } }))
    .validator({
      create: (w) => checkReplicas(w),
      update: (_old, w) => checkReplicas(w),
    });
  manager.conversion(Widgets, {
    hub: "v1",
    convert(obj, toVersion) {
      if (toVersion === "v1") {
        const { spec, ...rest } = obj as WidgetV1beta1;
        const next: Widget = { ...rest, spec: {} };
        if (spec?.scale !== undefined) next.spec.size = SIZES[spec.scale - 1];
        if (spec?.count !== undefined) next.spec.replicas = spec.count;
        return next;
      }
      if (toVersion === "v1beta1") {
        const { spec, ...rest } = obj as Widget;
        const next: WidgetV1beta1 = { ...rest, spec: {} };
        if (spec?.size !== undefined) {
          next.spec.scale = (SIZES.indexOf(spec.size) + 1) as 1 | 2 | 3;
        }
        if (spec?.replicas !== undefined) next.spec.count = spec.replicas;
        return next;
      }
      throw new Error(`Widgets have no version ${toVersion}`);
    },
  });
}

function checkReplicas(w: Widget): string[] | void {
  const replicas = w.spec?.replicas ?? 1;
  if (replicas > MAX_REPLICAS) {
    // A StatusError keeps its code and reason: 422 Invalid here, instead
    // of the 403 Forbidden a plain Error gets.
    throw StatusError.fromStatus({
      code: 422,
      reason: "Invalid",
      message:
        `spec.replicas: Invalid value: ${replicas}: must be at most ${MAX_REPLICAS}`,
    });
  }
  if (replicas === 0) return ["spec.replicas is 0: the widget does nothing"];
}

/** Where the example's webhooks run in a cluster. */
export const DEPLOYMENT: WebhookManifestOptions = {
  name: "widgets-webhook",
  namespace: "widgets-system",
  selector: { app: "widgets-webhook" },
};

if (import.meta.main) {
  if (Deno.args.includes("--print-manifests")) {
    // What a Manager would serve, without a cluster.
    const registry = new WebhookRegistry();
    addWidgetWebhooks(registry);
    const items = webhookManifests(registry, DEPLOYMENT);
    // The CRD with its conversion stanza merged in.
    const conversion = items.find((o) =>
      o.kind === "CustomResourceDefinition"
    )!;
    const crd = {
      ...WIDGET_CRD,
      metadata: { ...WIDGET_CRD.metadata, ...conversion.metadata },
      spec: {
        ...WIDGET_CRD.spec,
        ...(conversion as unknown as { spec: object }).spec,
      },
    };
    const list = [crd, ...items.filter((o) => o !== conversion)];
    console.log(
      JSON.stringify({ apiVersion: "v1", kind: "List", items: list }, null, 2),
    );
  } else {
    const at = Deno.args.indexOf("--cert-dir");
    const dir = at >= 0
      ? Deno.args[at + 1]
      : "/tmp/k8s-webhook-server/serving-certs";
    await using connection = await connectOrExit(
      Deno.args.filter((_, i) => at < 0 || (i !== at && i !== at + 1)),
    );
    await using manager = new Manager(connection.client, {
      webhook: {
        port: 9443,
        certFile: `${dir}/tls.crt`,
        keyFile: `${dir}/tls.key`,
      },
      health: { port: 8081, hostname: "0.0.0.0" },
    });
    addWidgetWebhooks(manager);
    const stop = new AbortController();
    Deno.addSignalListener("SIGINT", () => stop.abort());
    Deno.addSignalListener("SIGTERM", () => stop.abort());
    console.log(`serving Widget webhooks on :9443 from ${dir}`);
    try {
      await manager.run(stop.signal);
    } catch (err) {
      console.error(`error: ${err instanceof Error ? err.message : err}`);
      Deno.exitCode = 1;
    }
  }
}
