// FakeApiServer calls admission webhooks from the
// Mutating/ValidatingWebhookConfigurations stored in it, as kube-apiserver
// does; the webhooks here are a real WebhookServer over HTTPS
// (openssl-made certificates) serving a WebhookRegistry.

import assert from "node:assert/strict";
import {
  type ConfigMap,
  ConfigMaps,
  isForbidden,
  KubeClient,
  KubeConfig,
  type KubeObject,
  StatusError,
} from "@kubecache/core";
import {
  type AdmissionRequest,
  type AdmissionResponse,
  jsonPatchOf,
  WebhookRegistry,
  WebhookServer,
} from "@kubecache/core/controller";
import { FakeApiServer } from "./fake_api_server.ts";
import { FakeClock } from "./fake_clock.ts";
import { hasOpenssl, makePki } from "./pki_test_util.ts";
import {
  MUTATING_CONFIGS,
  VALIDATING_CONFIGS,
} from "./_apiserver_admission.ts";
import { jsonPatch } from "./_apiserver_patch.ts";

const noOpenssl = !(await hasOpenssl());

type Pki = Awaited<ReturnType<typeof makePki>>;

/** A cluster, a client, and a webhook server of `registry` with the test PKI. */
async function setup(
  registry: WebhookRegistry,
  opts: { clock?: FakeClock; serviceResolver?: boolean } = {},
) {
  const pki = await makePki();
  await Deno.writeTextFile(`${pki.dir}/tls.crt`, pki.serverCert);
  await Deno.writeTextFile(`${pki.dir}/tls.key`, pki.serverKey);
  const webhooks = new WebhookServer({
    port: 0,
    hostname: "127.0.0.1",
    certFile: `${pki.dir}/tls.crt`,
    keyFile: `${pki.dir}/tls.key`,
  }, { registry, clock: new FakeClock() });
  await webhooks.start();
  const base = `https://127.0.0.1:${webhooks.addr!.port}`;
  const server = await FakeApiServer.start({
    clock: opts.clock,
    serviceResolver: opts.serviceResolver
      ? (svc) =>
        svc.name === "hooks" && svc.namespace === "system" && svc.port === 443
          ? base
          : undefined
      : undefined,
  });
  const client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
  return {
    pki,
    server,
    client,
    base,
    caBundle: btoa(pki.ca),
    async [Symbol.asyncDispose]() {
      client.close();
      await server.close();
      await webhooks.close();
      await pki[Symbol.asyncDispose]();
    },
  };
}

type Env = Awaited<ReturnType<typeof setup>>;

function hook(
  env: Env,
  name: string,
  path: string,
  extra: Record<string, unknown> = {},
) {
  return {
    name,
    clientConfig: { url: `${env.base}${path}`, caBundle: env.caBundle },
    rules: [{
      operations: ["CREATE", "UPDATE"],
      apiGroups: [""],
      apiVersions: ["v1"],
      resources: ["configmaps"],
    }],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...extra,
  };
}

function validating(env: Env, name: string, webhooks: unknown[]) {
  env.server.create(
    VALIDATING_CONFIGS,
    { metadata: { name }, webhooks } as KubeObject,
  );
}

function mutating(env: Env, name: string, webhooks: unknown[]) {
  env.server.create(
    MUTATING_CONFIGS,
    { metadata: { name }, webhooks } as KubeObject,
  );
}

function cm(
  name: string,
  data: Record<string, string> = {},
  labels?: Record<string, string>,
): ConfigMap {
  return { metadata: { name, namespace: "default", labels }, data };
}

async function denied(p: Promise<unknown>): Promise<StatusError> {
  const err = await p.then(() => undefined, (e) => e);
  assert.ok(err instanceof StatusError, `expected a StatusError, got ${err}`);
  return err;
}

Deno.test({
  name:
    "admission: a mutating webhook's JSON patch is applied before the object is stored",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    registry.webhook(ConfigMaps).defaulter((c) => ({
      ...c,
      data: { size: "1", ...c.data },
    }));
    await using env = await setup(registry);
    mutating(env, "defaults", [
      hook(env, "default.example.com", "/mutate--v1-configmap"),
    ]);
    const created = await env.client.create(ConfigMaps, cm("a"));
    assert.deepEqual(created.data, { size: "1" });
    assert.deepEqual(
      env.server.list(ConfigMaps, "default").find((c) =>
        c.metadata.name === "a"
      )?.data,
      { size: "1" },
    );
    const kept = await env.client.create(ConfigMaps, cm("b", { size: "5" }));
    assert.deepEqual(kept.data, { size: "5" });
  },
});

Deno.test({
  name:
    "admission: a denial is kube-apiserver's Status, with the webhook's code, and nothing is stored",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    registry.webhook(ConfigMaps).validator({
      create(c) {
        if (Number(c.data?.replicas) > 10) {
          throw new Error("replicas must be at most 10");
        }
      },
    });
    await using env = await setup(registry);
    validating(env, "limits", [
      hook(env, "limits.example.com", "/validate--v1-configmap"),
    ]);
    const err = await denied(
      env.client.create(ConfigMaps, cm("big", { replicas: "11" })),
    );
    assert.ok(isForbidden(err));
    assert.deepEqual(err.status, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'admission webhook "limits.example.com" denied the request: replicas must be at most 10',
      reason: "Forbidden",
      code: 403,
    });
    assert.equal(
      env.server.list(ConfigMaps, "default").some((c) =>
        c.metadata.name === "big"
      ),
      false,
    );
    await env.client.create(ConfigMaps, cm("small", { replicas: "3" }));
  },
});

Deno.test({
  name:
    "admission: mutating webhooks run before validating ones, which see the patched object",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    const seen: (string | undefined)[] = [];
    registry.webhook(ConfigMaps)
      .defaulter((c) => ({ ...c, data: { ...c.data, defaulted: "yes" } }))
      .validator({ create: (c) => void seen.push(c.data?.defaulted) });
    await using env = await setup(registry);
    validating(env, "a-validating", [
      hook(env, "v.example.com", "/validate--v1-configmap"),
    ]);
    mutating(env, "z-mutating", [
      hook(env, "m.example.com", "/mutate--v1-configmap"),
    ]);
    await env.client.create(ConfigMaps, cm("x"));
    assert.deepEqual(seen, ["yes"]);
  },
});

Deno.test({
  name:
    "admission: mutating webhooks are called in the order of their configurations' names, each on the last one's output",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    const step = (n: string) => (req: AdmissionRequest): AdmissionResponse => {
      const obj = req.object as ConfigMap;
      const next = {
        ...obj,
        data: { ...obj.data, order: `${obj.data?.order ?? ""}${n}` },
      };
      return {
        uid: req.uid,
        allowed: true,
        patchType: "JSONPatch",
        patch: btoa(JSON.stringify(jsonPatchOf(obj, next))),
      };
    };
    registry.handle("/one", step("1"));
    registry.handle("/two", step("2"));
    await using env = await setup(registry);
    mutating(env, "b-second", [hook(env, "two.example.com", "/two")]);
    mutating(env, "a-first", [hook(env, "one.example.com", "/one")]);
    assert.equal(
      (await env.client.create(ConfigMaps, cm("o"))).data?.order,
      "12",
    );
  },
});

Deno.test({
  name:
    "admission: rules match operations, resources and subresources, and scope",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    const calls: string[] = [];
    registry.handle("/record", (req) => {
      calls.push(
        `${req.operation} ${req.resource.resource}${
          req.subResource ? "/" + req.subResource : ""
        }`,
      );
      return { uid: req.uid, allowed: true };
    });
    await using env = await setup(registry);
    const rule = (r: Record<string, unknown>) => ({
      operations: ["*"],
      apiGroups: ["*"],
      apiVersions: ["*"],
      resources: ["*"],
      ...r,
    });
    validating(env, "rules", [
      hook(env, "updates-only", "/record", {
        rules: [rule({ operations: ["UPDATE"], resources: ["configmaps"] })],
      }),
      hook(env, "cluster-scope", "/record", {
        rules: [rule({ scope: "Cluster" })],
      }),
      hook(env, "secrets", "/record", {
        rules: [rule({ resources: ["secrets"] })],
      }),
    ]);
    const created = await env.client.create(ConfigMaps, cm("r"));
    assert.deepEqual(calls, []); // a namespaced CREATE of a configmap: none matches
    await env.client.update(ConfigMaps, { ...created, data: { a: "1" } });
    assert.deepEqual(calls, ["UPDATE configmaps"]);
    calls.length = 0;
    await env.client.create(
      {
        group: "",
        version: "v1",
        resource: "namespaces",
        kind: "Namespace",
        namespaced: false,
      },
      { metadata: { name: "team-a" } },
    );
    assert.deepEqual(calls, ["CREATE namespaces"]); // a namespace is cluster-scoped
  },
});

Deno.test({
  name:
    "admission: '*' does not match a subresource, 'deployments/status' matches only it",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    const calls: string[] = [];
    registry.handle("/record", (req) => {
      calls.push(`${req.name} ${req.subResource ?? "-"}`);
      return { uid: req.uid, allowed: true };
    });
    await using env = await setup(registry);
    const rule = (resources: string[]) => ({
      operations: ["*"],
      apiGroups: ["apps"],
      apiVersions: ["v1"],
      resources,
    });
    validating(env, "subs", [
      hook(env, "main", "/record", { rules: [rule(["*"])] }),
      hook(env, "status", "/record", { rules: [rule(["deployments/status"])] }),
    ]);
    const Deployments = {
      group: "apps",
      version: "v1",
      resource: "deployments",
      kind: "Deployment",
      namespaced: true,
    };
    const d = await env.client.create(Deployments, {
      metadata: { name: "web", namespace: "default" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "c", image: "nginx" }] },
        },
      },
    } as KubeObject);
    assert.deepEqual(calls, ["web -"]);
    calls.length = 0;
    await env.client.update(
      Deployments,
      { ...d, status: { replicas: 1 } } as KubeObject,
      { subresource: "status" },
    );
    assert.deepEqual(calls, ["web status"]);
  },
});

Deno.test({
  name: "admission: namespaceSelector and objectSelector",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    registry.webhook(ConfigMaps).validator({
      create() {
        throw new Error("no");
      },
    });
    await using env = await setup(registry);
    env.server.create(
      {
        group: "",
        version: "v1",
        resource: "namespaces",
        kind: "Namespace",
        namespaced: false,
      },
      { metadata: { name: "guarded", labels: { guard: "on" } } },
    );
    validating(env, "selectors", [
      hook(env, "ns.example.com", "/validate--v1-configmap", {
        namespaceSelector: { matchLabels: { guard: "on" } },
      }),
      hook(env, "obj.example.com", "/validate--v1-configmap", {
        objectSelector: {
          matchExpressions: [{ key: "guard", operator: "Exists" }],
        },
      }),
    ]);
    await env.client.create(ConfigMaps, cm("free")); // default: not guarded, no label
    const inNs = await denied(
      env.client.create(ConfigMaps, {
        metadata: { name: "x", namespace: "guarded" },
      }),
    );
    assert.match(
      inNs.message,
      /^admission webhook "ns.example.com" denied the request: no$/,
    );
    const labelled = await denied(
      env.client.create(ConfigMaps, cm("y", {}, { guard: "1" })),
    );
    assert.match(
      labelled.message,
      /^admission webhook "obj.example.com" denied/,
    );
  },
});

Deno.test({
  name:
    "admission: a webhook that times out fails the write with failurePolicy Fail, and is skipped with Ignore",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    const release = Promise.withResolvers<void>();
    let entered = Promise.withResolvers<void>();
    registry.handle("/slow", async (req) => {
      entered.resolve();
      await release.promise;
      return {
        uid: req.uid,
        allowed: false,
        status: { code: 403, message: "too late" },
      };
    });
    const clock = new FakeClock(Date.now());
    await using env = await setup(registry, { clock });
    validating(env, "slow", [
      hook(env, "slow.example.com", "/slow", { timeoutSeconds: 5 }),
    ]);
    const write = env.client.create(ConfigMaps, cm("t"));
    await entered.promise;
    clock.step(5_000);
    const err = await denied(write);
    assert.equal(err.code, 500);
    assert.equal(err.reason, "InternalError");
    assert.match(
      err.message,
      /^Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/slow\?timeout=5s": context deadline exceeded$/,
    );
    assert.equal(
      env.server.list(ConfigMaps, "default").some((c) =>
        c.metadata.name === "t"
      ),
      false,
    );

    // The same webhook with failurePolicy Ignore: the write goes through.
    const cfg = env.server.list(VALIDATING_CONFIGS)[0] as KubeObject & {
      webhooks: Record<string, unknown>[];
    };
    env.server.update(
      VALIDATING_CONFIGS,
      {
        ...cfg,
        webhooks: [{ ...cfg.webhooks[0], failurePolicy: "Ignore" }],
      } as KubeObject,
    );
    entered = Promise.withResolvers<void>();
    const ignored = env.client.create(ConfigMaps, cm("u"));
    await entered.promise;
    clock.step(5_000);
    assert.equal((await ignored).metadata.name, "u");
    release.resolve();
  },
});

Deno.test({
  name:
    "admission: an answer that is not a valid AdmissionReview follows failurePolicy",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    registry.handle(
      "/wrong-uid",
      () => ({ uid: "not-the-request's", allowed: false }),
    );
    registry.handle(
      "/patching-validator",
      (req) => ({
        uid: req.uid,
        allowed: true,
        patchType: "JSONPatch",
        patch: btoa("[]"),
      }),
    );
    await using env = await setup(registry);
    validating(env, "bad", [hook(env, "bad.example.com", "/wrong-uid")]);
    const err = await denied(env.client.create(ConfigMaps, cm("g")));
    assert.equal(err.code, 500);
    assert.match(
      err.message,
      /failed calling webhook "bad.example.com": received invalid webhook response: expected response.uid="[0-9a-f-]+", got "not-the-request's"$/,
    );
    const cfg = env.server.list(VALIDATING_CONFIGS)[0] as KubeObject & {
      webhooks: Record<string, unknown>[];
    };
    env.server.update(VALIDATING_CONFIGS, {
      ...cfg,
      webhooks: [
        { ...cfg.webhooks[0], failurePolicy: "Ignore" },
        { ...hook(env, "patching.example.com", "/patching-validator") },
      ],
    } as KubeObject);
    const err2 = await denied(env.client.create(ConfigMaps, cm("h")));
    assert.match(
      err2.message,
      /"patching.example.com": received invalid webhook response: validating webhook may not return response.patch$/,
    );
  },
});

Deno.test({
  name:
    "admission: a service reference is called through the serviceResolver; without one, or an untrusted CA, the call fails",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    registry.webhook(ConfigMaps).validator({
      create() {
        throw new Error("via service");
      },
    });
    await using env = await setup(registry, { serviceResolver: true });
    validating(env, "svc", [{
      ...hook(env, "svc.example.com", ""),
      clientConfig: {
        service: {
          namespace: "system",
          name: "hooks",
          path: "/validate--v1-configmap",
        },
        caBundle: env.caBundle,
      },
    }]);
    const err = await denied(env.client.create(ConfigMaps, cm("s")));
    assert.equal(
      err.message,
      'admission webhook "svc.example.com" denied the request: via service',
    );
    const cfg = env.server.list(VALIDATING_CONFIGS)[0] as KubeObject & {
      webhooks: Record<string, unknown>[];
    };
    env.server.update(VALIDATING_CONFIGS, {
      ...cfg,
      webhooks: [{
        ...hook(env, "untrusted.example.com", "/validate--v1-configmap"),
        clientConfig: { url: `${env.base}/validate--v1-configmap` },
      }],
    } as KubeObject);
    const untrusted = await denied(env.client.create(ConfigMaps, cm("s2")));
    assert.equal(untrusted.code, 500);
    assert.match(
      untrusted.message,
      /failed calling webhook "untrusted.example.com": failed to call webhook: Post "https:\/\/127.0.0.1:\d+\/validate--v1-configmap\?timeout=10s": /,
    );
  },
});

Deno.test({
  name: "admission: a dry run reaches only webhooks without side effects",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    let dryRuns = 0;
    registry.handle("/count", (req) => {
      if (req.dryRun) dryRuns++;
      return { uid: req.uid, allowed: true };
    });
    await using env = await setup(registry);
    validating(env, "side", [
      hook(env, "side.example.com", "/count", { sideEffects: "Some" }),
    ]);
    const res = await fetch(
      `${env.server.url}/api/v1/namespaces/default/configmaps?dryRun=All`,
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(cm("d")),
      },
    );
    assert.equal(res.status, 400);
    assert.equal(
      (await res.json()).message,
      'admission webhook "side.example.com" does not support dry run',
    );
    const cfg = env.server.list(VALIDATING_CONFIGS)[0] as KubeObject & {
      webhooks: Record<string, unknown>[];
    };
    env.server.update(
      VALIDATING_CONFIGS,
      {
        ...cfg,
        webhooks: [{ ...cfg.webhooks[0], sideEffects: "None" }],
      } as KubeObject,
    );
    const ok = await fetch(
      `${env.server.url}/api/v1/namespaces/default/configmaps?dryRun=All`,
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(cm("d")),
      },
    );
    assert.equal(ok.status, 201);
    await ok.body?.cancel();
    assert.equal(dryRuns, 1);
  },
});

Deno.test({
  name: "admission: a webhook's warnings reach the client as Warning headers",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    registry.webhook(ConfigMaps).validator({ create: () => ["data is empty"] });
    await using env = await setup(registry);
    validating(env, "warn", [
      hook(env, "warn.example.com", "/validate--v1-configmap"),
    ]);
    const res = await fetch(
      `${env.server.url}/api/v1/namespaces/default/configmaps`,
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(cm("w")),
      },
    );
    assert.equal(res.status, 201);
    await res.body?.cancel();
    assert.equal(res.headers.get("warning"), '299 - "data is empty"');
  },
});

Deno.test({
  name:
    "admission: an answer with a field of the wrong type is a failed call that follows failurePolicy, never a crash",
  ignore: noOpenssl,
  async fn() {
    const answers: Record<string, (uid: string) => unknown> = {
      "/status-string": (uid) => ({ uid, allowed: false, status: "nope" }),
      "/allowed-string": (uid) => ({ uid, allowed: "true" }),
      "/code-string": (uid) => ({
        uid,
        allowed: false,
        status: { code: "403", message: "no" },
      }),
      "/warnings-object": (uid) => ({ uid, allowed: true, warnings: { a: 1 } }),
    };
    await using env = await setup(new WebhookRegistry());
    // A raw HTTPS server: the registry never answers a wrongly typed field.
    const raw = Deno.serve({
      port: 0,
      hostname: "127.0.0.1",
      cert: env.pki.serverCert,
      key: env.pki.serverKey,
      onListen() {},
    }, async (req) => {
      const review = await req.json();
      const answer = answers[new URL(req.url).pathname](review.request.uid);
      return Response.json({
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response: answer,
      });
    });
    await using _raw = { [Symbol.asyncDispose]: () => raw.shutdown() };
    const rawBase = `https://127.0.0.1:${raw.addr.port}`;
    let i = 0;
    for (const path of Object.keys(answers)) {
      for (const kind of ["validating", "mutating"] as const) {
        const name = `${kind}${i++}`;
        const configs = kind === "validating"
          ? VALIDATING_CONFIGS
          : MUTATING_CONFIGS;
        (kind === "validating" ? validating : mutating)(env, name, [
          {
            ...hook(env, "typed.example.com", path),
            clientConfig: { url: rawBase + path, caBundle: env.caBundle },
          },
        ]);
        const err = await denied(env.client.create(ConfigMaps, cm(name)));
        assert.equal(err.code, 500, `${path} ${kind}: ${err.message}`);
        assert.match(
          err.message,
          /failed calling webhook "typed.example.com": failed to call webhook: .*json: cannot unmarshal/,
          `${path} ${kind}`,
        );
        const cfg = env.server.get(configs, "", name) as KubeObject & {
          webhooks: Record<string, unknown>[];
        };
        env.server.update(configs, {
          ...cfg,
          webhooks: [{ ...cfg.webhooks[0], failurePolicy: "Ignore" }],
        } as KubeObject);
        await env.client.create(ConfigMaps, cm(name));
        env.server.delete(configs, "", name);
      }
    }
  },
});

Deno.test("jsonPatchOf and the fake's JSON patch agree: applying the diff of two documents gives the second", () => {
  // Seeded random documents: objects, arrays, scalars, keys with / and ~.
  let seed = 7;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const keys = ["a", "b", "c/d", "e~f", "g"];
  const value = (depth: number): unknown => {
    const k = rnd(depth > 2 ? 3 : 6);
    if (k === 0) return rnd(10);
    if (k === 1) return ["x", "y", null, true][rnd(4)];
    if (k === 2) return null;
    if (k === 3) return Array.from({ length: rnd(4) }, () => value(depth + 1));
    return Object.fromEntries(
      keys.filter(() => rnd(2) === 0).map((key) => [key, value(depth + 1)]),
    );
  };
  for (let i = 0; i < 500; i++) {
    const a = { root: value(0) };
    const b = { root: value(0) };
    assert.deepEqual(
      jsonPatch(a, jsonPatchOf(a, b)),
      b,
      JSON.stringify({ a, b }),
    );
  }
});

Deno.test({
  name:
    "admission: a DELETE reaches validating webhooks with the stored object as oldObject; a missing object is 404 first",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    const seen: string[] = [];
    registry.webhook(ConfigMaps).validator({
      delete(c, req) {
        seen.push(`${req.operation} ${c.metadata.name} ${req.object === null}`);
        if (c.metadata.labels?.keep) throw new Error("kept");
      },
    });
    await using env = await setup(registry);
    validating(env, "deletes", [
      hook(env, "deletes.example.com", "/validate--v1-configmap", {
        rules: [{
          operations: ["DELETE"],
          apiGroups: [""],
          apiVersions: ["v1"],
          resources: ["configmaps"],
        }],
      }),
    ]);
    env.server.create(ConfigMaps, cm("kept", {}, { keep: "1" }));
    env.server.create(ConfigMaps, cm("gone"));
    const err = await denied(
      env.client.delete(ConfigMaps, "kept", { namespace: "default" }),
    );
    assert.equal(
      err.message,
      'admission webhook "deletes.example.com" denied the request: kept',
    );
    await env.client.delete(ConfigMaps, "gone", { namespace: "default" });
    const names = env.server.list(ConfigMaps, "default").map((c) =>
      c.metadata.name
    );
    assert.ok(names.includes("kept"));
    assert.ok(!names.includes("gone"));
    const missing = await denied(
      env.client.delete(ConfigMaps, "never", { namespace: "default" }),
    );
    assert.equal(missing.code, 404);
    assert.deepEqual(seen, ["DELETE kept true", "DELETE gone true"]);
  },
});

Deno.test({
  name:
    "admission: webhook configurations are never sent to webhooks; a webhook without a known admissionReviewVersion fails its call",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    let calls = 0;
    registry.handle("/all", (req) => {
      calls++;
      return {
        uid: req.uid,
        allowed: false,
        status: { code: 403, message: "no" },
      };
    });
    await using env = await setup(registry);
    const everything = [{
      operations: ["*"],
      apiGroups: ["*"],
      apiVersions: ["*"],
      resources: ["*"],
    }];
    // Created over HTTP: it would be refused if the webhook saw it.
    await env.client.create(VALIDATING_CONFIGS, {
      metadata: { name: "all" },
      webhooks: [hook(env, "all.example.com", "/all", { rules: everything })],
    } as KubeObject);
    await env.client.create(VALIDATING_CONFIGS, {
      metadata: { name: "other" },
      webhooks: [],
    } as KubeObject);
    assert.equal(calls, 0);
    const err = await denied(env.client.create(ConfigMaps, cm("x")));
    assert.equal(
      err.message,
      'admission webhook "all.example.com" denied the request: no',
    );
    assert.equal(calls, 1);

    env.server.delete(VALIDATING_CONFIGS, "", "all");
    validating(env, "old", [
      hook(env, "old.example.com", "/all", { admissionReviewVersions: ["v2"] }),
    ]);
    const old = await denied(env.client.create(ConfigMaps, cm("y")));
    assert.equal(old.code, 500);
    assert.match(
      old.message,
      /failed calling webhook "old.example.com": could not create admission objects: webhook does not accept known AdmissionReview versions \(v1, v1beta1\)$/,
    );
    assert.equal(calls, 1);
  },
});

Deno.test({
  name:
    "admission: a mutating webhook that patches a DELETE fails it (there is no object to patch)",
  ignore: noOpenssl,
  async fn() {
    const registry = new WebhookRegistry();
    registry.handle("/patch-anything", (req) => ({
      uid: req.uid,
      allowed: true,
      patchType: "JSONPatch",
      patch: btoa(
        JSON.stringify([{ op: "add", path: "/metadata/labels", value: {} }]),
      ),
    }));
    await using env = await setup(registry);
    mutating(env, "deletes", [
      hook(env, "patcher.example.com", "/patch-anything", {
        rules: [{
          operations: ["DELETE"],
          apiGroups: [""],
          apiVersions: ["v1"],
          resources: ["configmaps"],
        }],
      }),
    ]);
    env.server.create(ConfigMaps, cm("d"));
    const err = await denied(
      env.client.delete(ConfigMaps, "d", { namespace: "default" }),
    );
    assert.equal(err.code, 500);
    assert.equal(
      err.message,
      'Internal error occurred: admission webhook "patcher.example.com" attempted to modify the object, which is not supported for this operation',
    );
  },
});
