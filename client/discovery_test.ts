import assert from "node:assert/strict";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { Widgets } from "../testing/demo_objects.ts";
import { KubeConfig } from "./config.ts";
import { KubeClient } from "./rest.ts";
import { BUILTIN_RESOURCE_TYPES, type ResourceType } from "../api/resources.ts";
import { resourceTypesOf } from "./_api_resources.ts";
import {
  Discovery,
  type DiscoveryClient,
  resolveResourceName,
  UnknownResourceError,
} from "./discovery.ts";

function key(t: ResourceType | undefined): string {
  return t ? `${t.group}/${t.version}/${t.resource}` : "none";
}

Deno.test("resolveResourceName() accepts plural, singular, short name, kind and group suffixes", () => {
  const types = [...BUILTIN_RESOURCE_TYPES, Widgets];
  const cases: [string, string][] = [
    ["pods", "/v1/pods"],
    ["pod", "/v1/pods"],
    ["po", "/v1/pods"],
    ["Pod", "/v1/pods"],
    ["PODS", "/v1/pods"],
    ["deploy", "apps/v1/deployments"],
    ["deployments.apps", "apps/v1/deployments"],
    ["deployment.apps", "apps/v1/deployments"],
    ["deploy.apps", "apps/v1/deployments"],
    ["deployments.v1.apps", "apps/v1/deployments"],
    ["ing", "networking.k8s.io/v1/ingresses"],
    ["ingresses.networking.k8s.io", "networking.k8s.io/v1/ingresses"],
    ["crd", "apiextensions.k8s.io/v1/customresourcedefinitions"],
    ["widgets.example.com", "example.com/v1/widgets"],
    ["wd", "example.com/v1/widgets"],
    ["widget.v1.example.com", "example.com/v1/widgets"],
    ["deployments.v2.apps", "none"],
    ["pods.apps", "none"],
    ["nonsense", "none"],
    ["", "none"],
  ];
  for (const [name, want] of cases) {
    assert.equal(key(resolveResourceName(name, types)), want, name);
  }
});

Deno.test("resolveResourceName() works on the real apiserver's discovery documents", () => {
  const fixture = JSON.parse(Deno.readTextFileSync(
    new URL("../testing/fixtures/apiserver/discovery.json", import.meta.url),
  ));
  const types: ResourceType[] = [];
  for (const e of fixture.entries) {
    const m = /^\/(api|apis\/[^/]+)\/(v\w+)$/.exec(e.path);
    if (!m || !e.body?.resources) continue;
    const gv = m[1] === "api" ? m[2] : `${m[1].slice(5)}/${m[2]}`;
    types.push(...resourceTypesOf(gv, e.body.resources));
  }
  assert.ok(types.length > 5);
  assert.equal(key(resolveResourceName("cm", types)), "/v1/configmaps");
  assert.equal(key(resolveResourceName("rs", types)), "apps/v1/replicasets");
  assert.equal(key(resolveResourceName("namespace", types)), "/v1/namespaces");
  assert.equal(resolveResourceName("ns", types)?.namespaced, false);
});

Deno.test("Discovery reads the FakeApiServer's groups once and resolves names", async () => {
  await using server = await FakeApiServer.start({
    resources: [...BUILTIN_RESOURCE_TYPES, Widgets],
  });
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  const discovery = new Discovery(client);
  assert.equal(key(await discovery.resolve("po")), "/v1/pods");
  const after = server.requests.length;
  assert.equal(key(await discovery.resolve("deploy")), "apps/v1/deployments");
  assert.equal(
    key(await discovery.resolve("widgets.example.com")),
    "example.com/v1/widgets",
  );
  const wd = await discovery.resolve("wd");
  assert.equal(wd.namespaced, true);
  assert.equal(wd.kind, "Widget");
  assert.equal(server.requests.length, after, "discovery is cached");
  await assert.rejects(discovery.resolve("gizmos"), (e) => {
    assert.ok(e instanceof UnknownResourceError);
    assert.equal(e.resourceName, "gizmos");
    return true;
  });
  discovery.invalidate();
  await discovery.resources();
  assert.ok(server.requests.length > after);
});

Deno.test("Discovery leaves out a group whose discovery fails, and does not cache a failed /apis", async () => {
  await using server = await FakeApiServer.start();
  await using client = new KubeClient(
    KubeConfig.fromOptions({ server: server.url }),
  );
  const discovery = new Discovery(client);
  server.faults.failNext(1, {
    status: 503,
    match: (req) => new URL(req.url).pathname === "/apis/apps/v1",
  });
  const types = await discovery.resources();
  assert.ok(types.some((t) => t.resource === "pods"));
  assert.ok(!types.some((t) => t.group === "apps"));

  const again = new Discovery(client);
  server.faults.failNext(1, {
    status: 500,
    match: (req) => new URL(req.url).pathname === "/apis",
  });
  await assert.rejects(again.resources(), /500|Internal/);
  assert.ok((await again.resources()).some((t) => t.group === "apps"));
});

Deno.test("Discovery.resolve() looks up an explicit non-preferred version", async () => {
  const calls: string[] = [];
  const client: DiscoveryClient = {
    request<R>(_method: string, path: string): Promise<R> {
      calls.push(path);
      const docs: Record<string, unknown> = {
        "/api": { versions: ["v1"] },
        "/api/v1": {
          resources: [{ name: "pods", namespaced: true, kind: "Pod" }],
        },
        "/apis": {
          groups: [{
            name: "batch",
            versions: [{ groupVersion: "batch/v1", version: "v1" }, {
              groupVersion: "batch/v1beta1",
              version: "v1beta1",
            }],
            preferredVersion: { groupVersion: "batch/v1", version: "v1" },
          }],
        },
        "/apis/batch/v1": {
          resources: [{ name: "jobs", namespaced: true, kind: "Job" }],
        },
        "/apis/batch/v1beta1": {
          resources: [{ name: "cronjobs", namespaced: true, kind: "CronJob" }, {
            name: "cronjobs/status",
            namespaced: true,
            kind: "CronJob",
          }],
        },
      };
      return docs[path]
        ? Promise.resolve(docs[path] as R)
        : Promise.reject(new Error(`404 ${path}`));
    },
  };
  const discovery = new Discovery(client);
  assert.equal(
    key(await discovery.resolve("cronjobs.v1beta1.batch")),
    "batch/v1beta1/cronjobs",
  );
  assert.ok(calls.includes("/apis/batch/v1beta1"));
  await assert.rejects(discovery.resolve("cronjobs"), UnknownResourceError);
});
