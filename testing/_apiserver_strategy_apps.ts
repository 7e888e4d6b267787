/**
 * Strategies of the workload and other non-core built-in groups: apps
 * (deployments, replicasets, statefulsets, daemonsets), batch, networking
 * and certificates (kube-apiserver
 * `pkg/registry/<group>/<resource>/strategy.go`). Internal to
 * `FakeApiServer`.
 *
 * @module
 */

import { SCALE } from "./_apiserver_scale.ts";
import { STATUS } from "./_apiserver_strategy.ts";
import type { ResourceStrategy } from "./_apiserver_types.ts";

const ALL = ["all"];

/** Strategies of the non-core built-in groups, keyed by `group/resource`. */
export const APPS: Readonly<Record<string, ResourceStrategy>> = {
  "apps/deployments": {
    generation: true,
    subresources: { status: STATUS, scale: SCALE },
    categories: ALL,
  },
  "apps/replicasets": {
    generation: true,
    fields: ["status.replicas"],
    subresources: { status: STATUS, scale: SCALE },
    categories: ALL,
  },
  "apps/statefulsets": {
    generation: true,
    subresources: { status: STATUS, scale: SCALE },
    categories: ALL,
  },
  "apps/daemonsets": {
    generation: true,
    subresources: { status: STATUS },
    categories: ALL,
  },
  "batch/jobs": {
    generation: true,
    fields: ["status.successful"],
    subresources: { status: STATUS },
    categories: ALL,
  },
  "batch/cronjobs": {
    generation: true,
    // SetDefaults_CronJob (batch/v1): kubectl then shows SUSPEND False.
    prepareForCreate(obj) {
      const spec = ((obj as { spec?: Record<string, unknown> }).spec ??= {});
      spec.concurrencyPolicy ??= "Allow";
      spec.suspend ??= false;
      spec.successfulJobsHistoryLimit ??= 3;
      spec.failedJobsHistoryLimit ??= 1;
    },
    subresources: { status: STATUS },
    categories: ALL,
  },
  "networking.k8s.io/ingresses": {
    generation: true,
    subresources: { status: STATUS },
  },
  "certificates.k8s.io/certificatesigningrequests": {
    generation: true,
    fields: ["spec.signerName"],
    subresources: { status: STATUS },
  },
};
