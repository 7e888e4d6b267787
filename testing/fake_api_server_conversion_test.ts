// FakeApiServer serves the versions of a custom resource it does not
// store by converting through the CRD's conversion webhook (here a
// WebhookRegistry's /convert on a real WebhookServer over HTTPS), or by
// changing apiVersion alone with strategy None.

import assert from "node:assert/strict";
import {
  CustomResourceDefinitions,
  KubeClient,
  KubeConfig,
  type KubeObject,
  resourceType,
  StatusError,
} from "@kubecache/core";
import {
  type ConversionOptions,
  WebhookRegistry,
  WebhookServer,
} from "@kubecache/core/controller";
import { FakeApiServer } from "./fake_api_server.ts";
import { hasOpenssl, makePki } from "./pki_test_util.ts";
import { FakeClock } from "./fake_clock.ts";

const noOpenssl = !(await hasOpenssl());

interface Widget extends KubeObject {
  spec: { size?: number; sizeInches?: number };
}
const WidgetsV1 = resourceType<Widget>({
  apiVersion: "example.com/v1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
});
const WidgetsV1beta1 = resourceType<Widget>({
  apiVersion: "example.com/v1beta1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
});

const schema = (field: string) => ({
  openAPIV3Schema: {
    type: "object",
    properties: {
      spec: { type: "object", properties: { [field]: { type: "integer" } } },
    },
  },
});

function crd(conversion: Record<string, unknown>): KubeObject {
  return {
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
          schema: schema("sizeInches"),
        },
        { name: "v1", served: true, storage: true, schema: schema("size") },
      ],
      conversion,
    },
  } as KubeObject;
}

const convert: ConversionOptions = {
  hub: "v1",
  convert(obj, toVersion) {
    const w = obj as Widget;
    const next = structuredClone(w);
    next.spec = toVersion === "v1"
      ? { size: w.spec.sizeInches }
      : { sizeInches: w.spec.size };
    return next;
  },
};

async function setup(
  opts: { strategy?: "None"; convert?: ConversionOptions } = {},
) {
  const pki = await makePki();
  await Deno.writeTextFile(`${pki.dir}/tls.crt`, pki.serverCert);
  await Deno.writeTextFile(`${pki.dir}/tls.key`, pki.serverKey);
  const registry = new WebhookRegistry();
  registry.conversion(WidgetsV1, opts.convert ?? convert);
  const webhooks = new WebhookServer({
    port: 0,
    hostname: "127.0.0.1",
    certFile: `${pki.dir}/tls.crt`,
    keyFile: `${pki.dir}/tls.key`,
  }, { registry, clock: new FakeClock() });
  await webhooks.start();
  const server = await FakeApiServer.start();
  server.create(
    CustomResourceDefinitions,
    crd(
      opts.strategy === "None" ? { strategy: "None" } : {
        strategy: "Webhook",
        webhook: {
          clientConfig: {
            url: `https://127.0.0.1:${webhooks.addr!.port}/convert`,
            caBundle: btoa(pki.ca),
          },
          conversionReviewVersions: ["v1"],
        },
      },
    ),
  );
  const client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
  return {
    server,
    client,
    async [Symbol.asyncDispose]() {
      client.close();
      await server.close();
      await webhooks.close();
      await pki[Symbol.asyncDispose]();
    },
  };
}

const opts = { namespace: "default" };

Deno.test({
  name:
    "conversion: GET and LIST in a version not stored are converted through the webhook",
  ignore: noOpenssl,
  async fn() {
    await using env = await setup();
    const stored = env.server.create(WidgetsV1, {
      metadata: { name: "w", namespace: "default", labels: { a: "1" } },
      spec: { size: 3 },
    });
    const got = await env.client.get(WidgetsV1beta1, "w", opts);
    assert.equal(got.apiVersion, "example.com/v1beta1");
    assert.deepEqual(got.spec, { sizeInches: 3 });
    assert.deepEqual(got.metadata, stored.metadata);
    const list = await env.client.list(WidgetsV1beta1, opts);
    assert.deepEqual(list.items.map((w) => [w.apiVersion, w.spec]), [
      ["example.com/v1beta1", { sizeInches: 3 }],
    ]);
    // The stored version is served as stored.
    assert.deepEqual((await env.client.get(WidgetsV1, "w", opts)).spec, {
      size: 3,
    });
  },
});

Deno.test({
  name:
    "conversion: a write in a version not stored is converted to the stored one, and answered in its own",
  ignore: noOpenssl,
  async fn() {
    await using env = await setup();
    const created = await env.client.create(WidgetsV1beta1, {
      metadata: { name: "w", namespace: "default" },
      spec: { sizeInches: 4 },
    });
    assert.equal(created.apiVersion, "example.com/v1beta1");
    assert.deepEqual(created.spec, { sizeInches: 4 });
    assert.deepEqual(env.server.list(WidgetsV1, "default")[0].spec, {
      size: 4,
    });
    const updated = await env.client.update(WidgetsV1beta1, {
      ...created,
      spec: { sizeInches: 5 },
    });
    assert.deepEqual(updated.spec, { sizeInches: 5 });
    assert.deepEqual(env.server.list(WidgetsV1, "default")[0].spec, {
      size: 5,
    });
  },
});

Deno.test({
  name:
    "conversion: a watch in a version not stored sends converted objects, in order",
  ignore: noOpenssl,
  async fn() {
    await using env = await setup();
    const stop = new AbortController();
    const seen: [string, number | undefined][] = [];
    const done = Promise.withResolvers<void>();
    const watching = (async () => {
      for await (
        const ev of await env.client.watch(WidgetsV1beta1, {
          ...opts,
          signal: stop.signal,
        })
      ) {
        if (ev.type === "ERROR" || ev.type === "BOOKMARK") continue;
        seen.push([ev.object.apiVersion!, ev.object.spec.sizeInches]);
        if (seen.length === 3) done.resolve();
      }
    })().catch(() => {});
    for (const size of [1, 2, 3]) {
      env.server.create(WidgetsV1, {
        metadata: { name: `w${size}`, namespace: "default" },
        spec: { size },
      });
    }
    await done.promise;
    stop.abort();
    await watching;
    assert.deepEqual(seen, [
      ["example.com/v1beta1", 1],
      ["example.com/v1beta1", 2],
      ["example.com/v1beta1", 3],
    ]);
  },
});

Deno.test({
  name:
    "conversion: strategy None changes only apiVersion, without calling a webhook",
  ignore: noOpenssl,
  async fn() {
    await using env = await setup({ strategy: "None" });
    env.server.create(WidgetsV1, {
      metadata: { name: "w", namespace: "default" },
      spec: { size: 3 },
    });
    const got = await env.client.get(WidgetsV1beta1, "w", opts);
    assert.equal(got.apiVersion, "example.com/v1beta1");
    assert.deepEqual(got.spec, { size: 3 });
  },
});

Deno.test({
  name:
    "conversion: a webhook that fails or changes what it must not is a 500 InternalError naming it",
  ignore: noOpenssl,
  async fn() {
    {
      await using env = await setup({
        convert: {
          hub: "v1",
          convert() {
            throw new Error("cannot convert");
          },
        },
      });
      env.server.create(WidgetsV1, {
        metadata: { name: "w", namespace: "default" },
        spec: { size: 3 },
      });
      const err = await env.client.get(WidgetsV1beta1, "w", opts).catch((e) =>
        e
      );
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 500);
      assert.equal(err.reason, "InternalError");
      assert.equal(
        err.message,
        "Internal error occurred: conversion webhook for example.com/v1, Kind=Widget failed: cannot convert",
      );
    }
    {
      await using env = await setup({
        convert: {
          hub: "v1",
          convert: (o) => ({
            ...o,
            metadata: { ...o.metadata, name: "other" },
          }),
        },
      });
      env.server.create(WidgetsV1, {
        metadata: { name: "w", namespace: "default" },
        spec: { size: 3 },
      });
      const err = await env.client.get(WidgetsV1beta1, "w", opts).catch((e) =>
        e
      );
      assert.equal(err.code, 500);
      assert.match(
        err.message,
        /returned invalid object: must have the same name: w != other$/,
      );
    }
  },
});

Deno.test({
  name:
    "conversion: only labels and annotations of the webhook's metadata are kept",
  ignore: noOpenssl,
  async fn() {
    await using env = await setup({
      convert: {
        hub: "v1",
        convert: (o) => ({
          ...o,
          metadata: {
            ...o.metadata,
            labels: { converted: "yes" },
            generation: 99,
          },
        }),
      },
    });
    env.server.create(WidgetsV1, {
      metadata: { name: "w", namespace: "default" },
      spec: { size: 3 },
    });
    const got = await env.client.get(WidgetsV1beta1, "w", opts);
    assert.deepEqual(got.metadata.labels, { converted: "yes" });
    assert.equal(got.metadata.generation, 1);
  },
});
