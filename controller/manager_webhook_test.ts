// A Manager's webhooks, served by its HTTPS server and called by a
// FakeApiServer from the webhook configurations stored in it: allowed,
// denied, patched; the server in /readyz, up on every replica, down after
// run() ends; a bad certificate makes run() reject.

import assert from "node:assert/strict";
import {
  type ConfigMap,
  ConfigMaps,
  KubeClient,
  KubeConfig,
  type KubeObject,
  StatusError,
} from "@kubecache/core";
import { FakeApiServer } from "@kubecache/core/testing";
import {
  MutatingWebhookConfigurations,
  ValidatingWebhookConfigurations,
} from "../api/admissionregistration.k8s.io/v1.ts";
import { hasOpenssl, makePki } from "../testing/pki_test_util.ts";
import { Manager } from "./manager.ts";

const noOpenssl = !(await hasOpenssl());
const ValidatingConfigs = ValidatingWebhookConfigurations;
const MutatingConfigs = MutatingWebhookConfigurations;

function configuration(
  name: string,
  url: string,
  caBundle: string,
): KubeObject {
  return {
    metadata: { name },
    webhooks: [{
      name: `${name}.example.com`,
      clientConfig: { url, caBundle },
      rules: [{
        operations: ["CREATE", "UPDATE"],
        apiGroups: [""],
        apiVersions: ["v1"],
        resources: ["configmaps"],
      }],
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
    }],
  } as KubeObject;
}

Deno.test({
  name:
    "Manager: its webhooks are served over HTTPS, called by the API server, in /readyz, and stopped with it",
  ignore: noOpenssl,
  async fn() {
    await using pki = await makePki();
    await Deno.writeTextFile(`${pki.dir}/tls.crt`, pki.serverCert);
    await Deno.writeTextFile(`${pki.dir}/tls.key`, pki.serverKey);
    await using server = await FakeApiServer.start();
    await using client = new KubeClient(
      KubeConfig.fromOptions({ server: server.url }),
    );
    await using manager = new Manager(client, {
      health: { port: 0 },
      metrics: { port: 0 },
      webhook: {
        port: 0,
        hostname: "127.0.0.1",
        certFile: `${pki.dir}/tls.crt`,
        keyFile: `${pki.dir}/tls.key`,
      },
    });
    manager.webhook(ConfigMaps)
      .defaulter((cm) => ({ ...cm, data: { owner: "team-a", ...cm.data } }))
      .validator({
        create(cm) {
          if (cm.data?.forbidden) throw new Error("forbidden data");
        },
      });
    const stop = new AbortController();
    const running = manager.run(stop.signal);
    const deadline = Date.now() + 5_000;
    while (!manager.addresses().webhook && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const port = manager.addresses().webhook!.port;
    const base = `https://127.0.0.1:${port}`;
    const ca = btoa(pki.ca);
    server.create(
      MutatingConfigs,
      configuration("defaults", `${base}/mutate--v1-configmap`, ca),
    );
    server.create(
      ValidatingConfigs,
      configuration("checks", `${base}/validate--v1-configmap`, ca),
    );

    // Patched, then allowed.
    const created = await client.create(ConfigMaps, {
      metadata: { name: "a", namespace: "default" },
    } as ConfigMap);
    assert.deepEqual(created.data, { owner: "team-a" });
    // Denied.
    const err = await client.create(ConfigMaps, {
      metadata: { name: "b", namespace: "default" },
      data: { forbidden: "1" },
    } as ConfigMap).catch((e) => e);
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 403);
    assert.equal(
      err.message,
      'admission webhook "checks.example.com" denied the request: forbidden data',
    );

    const health = `http://127.0.0.1:${manager.addresses().health!.port}`;
    const ready = await fetch(`${health}/readyz?verbose`);
    assert.match(await ready.text(), /^\[\+\]webhook ok$/m);
    const metrics = await (await fetch(
      `http://127.0.0.1:${manager.addresses().metrics!.port}/metrics`,
    )).text();
    assert.match(
      metrics,
      /^controller_runtime_webhook_requests_total\{code="200",webhook="\/mutate--v1-configmap"\} 2$/m,
    );
    assert.match(
      metrics,
      /^controller_runtime_webhook_requests_total\{code="200",webhook="\/validate--v1-configmap"\} 2$/m,
    );

    stop.abort();
    await running;
    assert.equal(manager.addresses().webhook, undefined);
    // Stopped: the API server cannot reach it, and failurePolicy (Fail) refuses.
    const down = await client.create(ConfigMaps, {
      metadata: { name: "c", namespace: "default" },
    } as ConfigMap).catch((e) => e);
    assert.equal(down.code, 500);
    assert.match(down.message, /failed calling webhook "defaults.example.com"/);
  },
});

Deno.test({
  name:
    "Manager: run() rejects when the webhook certificate cannot be read, and stops what it started",
  ignore: noOpenssl,
  async fn() {
    await using server = await FakeApiServer.start();
    await using client = new KubeClient(
      KubeConfig.fromOptions({ server: server.url }),
    );
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (m: string) => void warnings.push(m);
    try {
      await using manager = new Manager(client, {
        webhook: {
          port: 0,
          hostname: "127.0.0.1",
          certFile: "/nonexistent/tls.crt",
          keyFile: "/nonexistent/tls.key",
        },
      });
      manager.webhook(ConfigMaps).validator({});
      await assert.rejects(
        manager.run(new AbortController().signal),
        /WebhookServer.start: cannot use certificate \/nonexistent\/tls.crt with key \/nonexistent\/tls.key/,
      );
    } finally {
      console.warn = warn;
    }
    assert.equal(warnings.length, 1);
  },
});

Deno.test("Manager: webhooks and conversions are registered before run()", async () => {
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }),
  );
  await using manager = new Manager(client);
  const stop = new AbortController();
  stop.abort();
  await manager.run(stop.signal);
  assert.throws(
    () => manager.webhook(ConfigMaps),
    /register webhooks before run\(\)/,
  );
  assert.throws(
    () => manager.conversion(ConfigMaps, { hub: "v1", convert: (o) => o }),
    /register conversions before run\(\)/,
  );
});
