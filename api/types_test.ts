/**
 * The root's kinds and descriptors are the generated ones: every field of a
 * built-in kind is typed (this file type-checks only if so, and each
 * `@ts-expect-error` fails the check when its line is not an error), and
 * `Pods`, `Deployments`, ... are the very descriptors of the group modules.
 */

import assert from "node:assert/strict";
import {
  BUILTIN_RESOURCE_TYPES,
  ConfigMaps,
  CronJobs,
  CustomResourceDefinitions,
  Deployments,
  Endpoints,
  EndpointSlices,
  Events,
  Ingresses,
  Jobs,
  Leases,
  Pods,
  ServiceAccounts,
} from "./resources.ts";
import type {
  Deployment,
  Ingress,
  KubeEvent,
  Pod,
  PodSpec,
  PodStatus,
} from "./types.ts";
import type { ResourceType } from "./resource_type.ts";
import * as core from "./core/v1.ts";
import * as apps from "./apps/v1.ts";
import * as batch from "./batch/v1.ts";
import * as networking from "./networking.k8s.io/v1.ts";
import * as coordination from "./coordination.k8s.io/v1.ts";
import * as discovery from "./discovery.k8s.io/v1.ts";
import * as apiextensions from "./apiextensions.k8s.io/v1.ts";

Deno.test("the root's descriptors are the generated ones of their group/version", () => {
  assert.equal(Pods, core.Pods);
  assert.equal(ConfigMaps, core.ConfigMaps);
  assert.equal(Events, core.Events);
  assert.equal(Endpoints, core.Endpoints);
  assert.equal(ServiceAccounts, core.ServiceAccounts);
  assert.equal(Deployments, apps.Deployments);
  assert.equal(Jobs, batch.Jobs);
  assert.equal(CronJobs, batch.CronJobs);
  assert.equal(Ingresses, networking.Ingresses);
  assert.equal(Leases, coordination.Leases);
  assert.equal(EndpointSlices, discovery.EndpointSlices);
  assert.equal(
    CustomResourceDefinitions,
    apiextensions.CustomResourceDefinitions,
  );
  assert.equal(BUILTIN_RESOURCE_TYPES.length, 21);
  assert.deepEqual(Deployments.subresources, ["scale", "status"]);
  assert.deepEqual(Pods.shortNames, ["po"]);
  // Typed with the kind: an Ingress read through Ingresses is an Ingress.
  const typed: ResourceType<Ingress> = Ingresses;
  assert.equal(typed.kind, "Ingress");
});

Deno.test("a built-in kind is typed in full: fields the hand-written types lacked, and what the server requires", () => {
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web-1" },
    spec: {
      containers: [{ name: "web", image: "nginx:1.27" }],
      topologySpreadConstraints: [{
        maxSkew: 1,
        topologyKey: "topology.kubernetes.io/zone",
        whenUnsatisfiable: "DoNotSchedule",
      }],
    },
    // Go writes a zero metav1.Time as null.
    status: {
      conditions: [{ type: "Ready", status: "True", lastProbeTime: null }],
    },
  };
  assert.equal(pod.spec?.topologySpreadConstraints?.[0].maxSkew, 1);
  const deployment: Deployment = {
    metadata: { name: "web" },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: { spec: { containers: [{ name: "web" }] } },
      strategy: { rollingUpdate: { maxSurge: "25%", maxUnavailable: 0 } },
    },
  };
  assert.equal(deployment.spec?.strategy?.rollingUpdate?.maxSurge, "25%");

  // @ts-expect-error PodSpec.containers is required, as the server requires it
  const noContainers: PodSpec = { nodeName: "node-a" };
  // @ts-expect-error a misspelt field of a pod spec
  const misspelt: PodSpec = { containers: [], nodeNmae: "node-a" };
  // @ts-expect-error phase is one of the server's values
  const badPhase: PodStatus = { phase: "Runing" };
  // @ts-expect-error an Event is about an object: involvedObject is required
  const aboutNothing: KubeEvent = { metadata: { name: "e" } };
  const notAPod: Pod = {
    // @ts-expect-error apiVersion is the literal "v1"
    apiVersion: "apps/v1",
    // @ts-expect-error kind is the literal "Pod"
    kind: "Deployment",
    metadata: { name: "web" },
  };
  assert.ok([noContainers, misspelt, badPhase, aboutNothing, notAPod]);
});
