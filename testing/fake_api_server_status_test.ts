/**
 * The status subresource on FakeApiServer, as kube-apiserver's strategies
 * treat it: for a kind with `/status` (a CRD with `subresources.status`,
 * pods, deployments...), a write to the object itself leaves status alone
 * (a create drops the given one, an update or patch keeps the stored one)
 * and a write to `/status` changes only status. KubeClient reaches
 * `/status` with `options.subresource`.
 */

import assert from "node:assert/strict";
import {
  CustomResourceDefinitions,
  Deployments,
  Nodes,
  Pods,
  resourceType,
} from "../api/resources.ts";
import type { KubeObject } from "../api/object.ts";
import { isNotFound } from "../api/errors.ts";
import { serverWithClient } from "./client_test_util.ts";
import { widgetCrd } from "./_apiserver_test_util.ts";

type Widget = KubeObject & {
  spec?: { size?: number };
  status?: { ready?: boolean };
};
const Widgets = resourceType<Widget>({
  apiVersion: "example.test/v1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
});

/** The Widget CRD, with or without the status subresource. */
function crd(status: boolean) {
  const c = widgetCrd() as unknown as {
    spec: { versions: Record<string, unknown>[] };
  };
  if (status) c.spec.versions[0].subresources = { status: {} };
  return c as unknown as KubeObject;
}

async function setup(status: boolean) {
  const env = await serverWithClient();
  await env.client.create(CustomResourceDefinitions, crd(status));
  return env;
}

Deno.test("a CRD with the status subresource: writes to the object keep its status, /status writes change only status", async () => {
  await using env = await setup(true);
  const { client } = env;
  const created = await client.create(Widgets, {
    metadata: { name: "w", namespace: "default" },
    spec: { size: 1 },
    status: { ready: true },
  });
  // PrepareForCreate removes status for a CRD with the subresource.
  assert.equal(created.status, undefined);

  const patched = await client.patch(Widgets, "w", {
    spec: { size: 2 },
    status: { ready: true },
  }, { patchType: "merge" });
  assert.equal(patched.spec?.size, 2);
  assert.equal(patched.status, undefined);

  const viaStatus = await client.patch(Widgets, "w", {
    spec: { size: 9 },
    status: { ready: true },
  }, { patchType: "merge", subresource: "status" });
  assert.equal(viaStatus.spec?.size, 2); // spec through /status is ignored
  assert.deepEqual(viaStatus.status, { ready: true });

  const replaced = await client.update(Widgets, {
    ...viaStatus,
    spec: { size: 3 },
    status: { ready: false },
  });
  assert.equal(replaced.spec?.size, 3);
  assert.deepEqual(replaced.status, { ready: true });

  const statusPut = await client.update(Widgets, {
    ...replaced,
    spec: { size: 8 },
    status: { ready: false },
  }, { subresource: "status" });
  assert.equal(statusPut.spec?.size, 3);
  assert.deepEqual(statusPut.status, { ready: false });

  const applied = await client.patch(Widgets, "w", {
    apiVersion: "example.test/v1",
    kind: "Widget",
    metadata: { name: "w" },
    spec: { size: 4 },
    status: { ready: true },
  }, { patchType: "apply", fieldManager: "me" });
  assert.equal(applied.spec?.size, 4);
  assert.deepEqual(applied.status, { ready: false });

  const got = await client.get(Widgets, "w", { subresource: "status" });
  assert.deepEqual(got.status, { ready: false });
  assert.equal(got.metadata.resourceVersion, applied.metadata.resourceVersion);
});

Deno.test("a CRD without the status subresource: status is written like any field", async () => {
  await using env = await setup(false);
  const { client } = env;
  const created = await client.create(Widgets, {
    metadata: { name: "w", namespace: "default" },
    status: { ready: true },
  });
  assert.deepEqual(created.status, { ready: true });
  const patched = await client.patch(Widgets, "w", {
    status: { ready: false },
  }, { patchType: "merge" });
  assert.deepEqual(patched.status, { ready: false });
  await assert.rejects(
    client.patch(Widgets, "w", { status: {} }, {
      patchType: "merge",
      subresource: "status",
    }),
    (err: unknown) => isNotFound(err),
  );
});

Deno.test("built-in kinds with /status: a create resets status (nodes keep it), an update of the object keeps the stored one", async () => {
  await using env = await serverWithClient();
  const { server, client } = env;
  const deployment = await client.create(Deployments, {
    metadata: { name: "web", namespace: "default" },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "c", image: "nginx" }] },
      },
    },
    status: { replicas: 5, readyReplicas: 5 },
  } as never);
  assert.equal(
    (deployment as { status?: { readyReplicas?: number } }).status
      ?.readyReplicas,
    undefined,
  );
  const pod = await client.create(Pods, {
    metadata: { name: "p", namespace: "default" },
    spec: { containers: [{ name: "c", image: "nginx" }] },
    status: { phase: "Running" },
  } as never) as { status?: { phase?: string } };
  assert.equal(pod.status?.phase, "Pending");
  const running = await client.patch(Pods, "p", {
    status: { phase: "Running" },
  }, { patchType: "merge", subresource: "status" }) as {
    status?: { phase?: string };
  };
  assert.equal(running.status?.phase, "Running");
  const relabelled = await client.patch(Pods, "p", {
    metadata: { labels: { a: "b" } },
    status: { phase: "Failed" },
  }, { patchType: "strategic" }) as {
    metadata: { labels?: Record<string, string> };
    status?: { phase?: string };
  };
  assert.deepEqual(relabelled.metadata.labels, { a: "b" });
  assert.equal(relabelled.status?.phase, "Running");

  const node = await client.create(Nodes, {
    metadata: { name: "n1" },
    status: { capacity: { pods: "110" } },
  } as never) as { status?: { capacity?: Record<string, string> } };
  assert.deepEqual(node.status?.capacity, { pods: "110" });
  const nodeUpdated = await client.update(Nodes, {
    ...node,
    status: { capacity: { pods: "1" } },
  } as never) as { status?: { capacity?: Record<string, string> } };
  assert.deepEqual(nodeUpdated.status?.capacity, { pods: "110" });

  // The direct state methods stand for the cluster's controllers: they
  // set status on a create, as the demo and tests rely on.
  const direct = server.create(Pods, {
    metadata: { name: "q", namespace: "default" },
    spec: { containers: [{ name: "c", image: "nginx" }] },
    status: { phase: "Succeeded" },
  } as never) as { status?: { phase?: string } };
  assert.equal(direct.status?.phase, "Succeeded");
});
