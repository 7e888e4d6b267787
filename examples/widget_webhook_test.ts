// The Widget webhooks of examples/widget_webhook.ts served by a Manager
// over HTTPS and called by a FakeApiServer, from the manifests the example
// prints (with caBundle filled in as cert-manager's CA injector does, and
// the Service resolved to the Manager): allowed, patched, denied,
// converted both ways (a controller's cache on v1beta1 included), and a
// webhook that times out under each failurePolicy.

import assert from "node:assert/strict";
import {
  type ConfigMap,
  ConfigMaps,
  CustomResourceDefinitions,
  KubeClient,
  KubeConfig,
  type KubeObject,
  resourceType,
  StatusError,
} from "../mod.ts";
import { Manager } from "../controller/mod.ts";
import { FakeApiServer, FakeClock } from "../testing/mod.ts";
import { hasOpenssl, makePki } from "../testing/pki_test_util.ts";
import {
  addWidgetWebhooks,
  DEPLOYMENT,
  WIDGET_CRD,
  Widgets,
  WidgetsV1beta1,
} from "./widget_webhook.ts";

const noOpenssl = !(await hasOpenssl());
const ns = { namespace: "default" };

const configType = (kind: string) =>
  resourceType({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind,
    resource: `${kind.toLowerCase()}s`,
    namespaced: false,
  });

async function setup() {
  const pki = await makePki();
  const dir = pki.dir;
  await Deno.writeTextFile(`${dir}/tls.crt`, pki.serverCert);
  await Deno.writeTextFile(`${dir}/tls.key`, pki.serverKey);
  const clock = new FakeClock(Date.now());
  let webhookBase = "";
  const server = await FakeApiServer.start({
    clock,
    serviceResolver: (svc) =>
      svc.name === DEPLOYMENT.name && svc.namespace === DEPLOYMENT.namespace &&
        svc.port === 443
        ? webhookBase
        : undefined,
  });
  const client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
  const manager = new Manager(client, {
    webhook: {
      port: 0,
      hostname: "127.0.0.1",
      certFile: `${dir}/tls.crt`,
      keyFile: `${dir}/tls.key`,
    },
  });
  addWidgetWebhooks(manager);
  // A slow webhook of the same server, for the timeouts.
  const gate = Promise.withResolvers<void>();
  let entered = Promise.withResolvers<void>();
  manager.webhook(ConfigMaps).validator({
    async create() {
      entered.resolve();
      await gate.promise;
    },
  });
  // A controller whose cache reads Widgets in v1beta1 (list and watch converted).
  const seen = new Map<string, number | undefined>();
  const lister = manager.factory.lister(WidgetsV1beta1);
  manager.controller("widgets-v1beta1", WidgetsV1beta1).complete((req) => {
    const w = lister.namespaced(req.namespace!).get(req.name);
    if (w) seen.set(req.name, w.spec.scale);
  });
  const stop = new AbortController();
  const running = manager.run(stop.signal);
  const deadline = Date.now() + 5_000;
  while (!manager.addresses().webhook && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
  webhookBase = `https://127.0.0.1:${manager.addresses().webhook!.port}`;

  // What `--print-manifests` prints, with cert-manager's caBundle injected.
  const caBundle = btoa(pki.ca);
  const items = manager.webhookManifests(DEPLOYMENT);
  for (const o of items) {
    if (o.kind?.endsWith("WebhookConfiguration")) {
      const config = structuredClone(o) as KubeObject & {
        webhooks: {
          clientConfig: { caBundle?: string };
          rules: { resources: string[] }[];
        }[];
      };
      // The Widget webhooks only: the slow one gets configurations of its own.
      config.webhooks = config.webhooks.filter((w) =>
        w.rules[0].resources[0] === "widgets"
      );
      for (const w of config.webhooks) w.clientConfig.caBundle = caBundle;
      server.create(configType(o.kind!), config);
    }
  }
  const conversion = items.find((o) => o.kind === "CustomResourceDefinition") as
    & KubeObject
    & {
      spec: {
        conversion: { webhook: { clientConfig: { caBundle?: string } } };
      };
    };
  const crd = structuredClone(WIDGET_CRD);
  crd.spec.conversion = structuredClone(conversion.spec.conversion);
  (crd.spec.conversion as typeof conversion.spec.conversion).webhook
    .clientConfig.caBundle = caBundle;
  server.create(CustomResourceDefinitions, crd);
  return {
    server,
    client,
    manager,
    clock,
    seen,
    gate,
    entered: () => (entered = Promise.withResolvers<void>()).promise,
    async [Symbol.asyncDispose]() {
      gate.resolve();
      stop.abort();
      await running;
      await manager[Symbol.asyncDispose]();
      client.close();
      await server.close();
      await pki[Symbol.asyncDispose]();
    },
  };
}

Deno.test({
  name:
    "Widget webhooks: a Widget without a size is created with the default (mutating, allowed)",
  ignore: noOpenssl,
  async fn() {
    await using env = await setup();
    const w = await env.client.create(Widgets, {
      metadata: { name: "plain", namespace: "default" },
      spec: { replicas: 2 },
    });
    assert.deepEqual(w.spec, { size: "medium", replicas: 2 });
    const kept = await env.client.create(Widgets, {
      metadata: { name: "big", namespace: "default" },
      spec: { size: "large" },
    });
    assert.equal(kept.spec.size, "large");
  },
});

Deno.test({
  name:
    "Widget webhooks: more than 10 replicas is refused with the validator's 422, on create and update",
  ignore: noOpenssl,
  async fn() {
    await using env = await setup();
    const err = await env.client.create(Widgets, {
      metadata: { name: "many", namespace: "default" },
      spec: { replicas: 11 },
    }).catch((e) => e);
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 422);
    assert.equal(err.reason, "Invalid");
    assert.equal(
      err.message,
      'admission webhook "vwidget.example.com" denied the request: spec.replicas: Invalid value: 11: must be at most 10',
    );
    const ok = await env.client.create(Widgets, {
      metadata: { name: "ten", namespace: "default" },
      spec: { replicas: 10 },
    });
    const upd = await env.client.update(Widgets, {
      ...ok,
      spec: { ...ok.spec, replicas: 12 },
    })
      .catch((e) => e);
    assert.equal(upd.code, 422);
  },
});

Deno.test({
  name:
    "Widget webhooks: v1beta1 is converted through the Manager's /convert both ways, in a controller's cache too",
  ignore: noOpenssl,
  async fn() {
    await using env = await setup();
    // Written in v1beta1: converted to v1 (stored), defaulted there, answered in v1beta1.
    const created = await env.client.create(WidgetsV1beta1, {
      metadata: { name: "beta", namespace: "default" },
      spec: { count: 3 },
    });
    assert.equal(created.apiVersion, "example.com/v1beta1");
    assert.deepEqual(created.spec, { scale: 2, count: 3 });
    const stored = env.server.list(Widgets, "default").find((w) =>
      w.metadata.name === "beta"
    );
    assert.deepEqual(stored?.spec, { size: "medium", replicas: 3 });
    // Written in v1, read in v1beta1.
    await env.client.create(Widgets, {
      metadata: { name: "one", namespace: "default" },
      spec: { size: "large", replicas: 1 },
    });
    assert.deepEqual((await env.client.get(WidgetsV1beta1, "one", ns)).spec, {
      scale: 3,
      count: 1,
    });
    // The controller's v1beta1 cache got both, converted.
    const deadline = Date.now() + 5_000;
    while (env.seen.size < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual(Object.fromEntries(env.seen), { beta: 2, one: 3 });
  },
});

Deno.test({
  name:
    "Widget webhooks: a webhook of the Manager that times out refuses the write with failurePolicy Fail and is skipped with Ignore",
  ignore: noOpenssl,
  async fn() {
    await using env = await setup();
    const Configs = configType("ValidatingWebhookConfiguration");
    const config = (failurePolicy: string) =>
      ({
        metadata: { name: `slow-${failurePolicy.toLowerCase()}` },
        webhooks: [{
          name: "slow.example.com",
          clientConfig: {
            service: {
              namespace: DEPLOYMENT.namespace,
              name: DEPLOYMENT.name,
              path: "/validate--v1-configmap",
            },
            caBundle: (env.server.list(Configs)[0] as KubeObject & {
              webhooks: { clientConfig: { caBundle: string } }[];
            }).webhooks[0].clientConfig.caBundle,
          },
          rules: [{
            operations: ["CREATE"],
            apiGroups: [""],
            apiVersions: ["v1"],
            resources: ["configmaps"],
          }],
          failurePolicy,
          sideEffects: "None",
          timeoutSeconds: 2,
          admissionReviewVersions: ["v1"],
        }],
      }) as KubeObject;
    env.server.create(Configs, config("Fail"));
    let entered = env.entered();
    const failing = env.client.create(
      ConfigMaps,
      { metadata: { name: "a", namespace: "default" } } as ConfigMap,
    )
      .catch((e) => e);
    await entered;
    env.clock.step(2_000);
    const err = await failing;
    assert.equal(err.code, 500);
    assert.match(
      err.message,
      /^Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https:\/\/127.0.0.1:\d+\/validate--v1-configmap\?timeout=2s": context deadline exceeded$/,
    );
    env.server.delete(Configs, "", "slow-fail");
    env.server.create(Configs, config("Ignore"));
    entered = env.entered();
    const ignored = env.client.create(
      ConfigMaps,
      { metadata: { name: "b", namespace: "default" } } as ConfigMap,
    );
    await entered;
    env.clock.step(2_000);
    assert.equal((await ignored).metadata.name, "b");
  },
});
