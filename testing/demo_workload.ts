/**
 * A simulated cluster workload for the embedded `FakeApiServer`: several
 * namespaces, deployments whose pods move through Pending →
 * ContainerCreating → Running (and get restarted or rolled out), job pods
 * that end Succeeded or Failed, config map churn and node heartbeats. It is
 * what `deno task demo` watches, and a realistic source of events for tests.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import { type Clock, realClock } from "../api/clock.ts";
import {
  ConfigMaps,
  Deployments,
  Leases,
  Namespaces,
  Nodes,
  Pods,
  ReplicaSets,
  type ResourceType,
} from "../api/resources.ts";
import {
  crashed,
  type Deployment,
  finished,
  heartbeat,
  makeConfigMap,
  makeDeployment,
  makeLease,
  makeNamespace,
  makeNode,
  makePod,
  makeReplicaSet,
  type Pod,
  renewed,
  running,
  scheduled,
} from "./demo_objects.ts";
import { Rng } from "./rng.ts";

/**
 * What {@link DemoWorkload} drives: the direct state API of `FakeApiServer`
 * (synchronous, each call returns the stored object). Any object with these
 * four methods fits, so the workload can also feed a test double.
 *
 * @example A FakeApiServer is a target
 * ```ts
 * import { type DemoWorkloadTarget, FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * const target: DemoWorkloadTarget = server;
 * assert.equal(typeof target.create, "function");
 * ```
 */
export interface DemoWorkloadTarget {
  /** Store a new object; returns it as stored (with uid, resourceVersion). */
  create(type: ResourceType, obj: KubeObject): KubeObject;
  /** Replace an object; a stale resourceVersion throws a conflict. */
  update(type: ResourceType, obj: KubeObject): KubeObject;
  /**
   * Delete an object by namespace (`""` when cluster-scoped) and name;
   * one with finalizers only gets a deletionTimestamp, and goes away when
   * an update removes its last finalizer. Returns the object as last stored.
   */
  delete(type: ResourceType, namespace: string, name: string): KubeObject;
  /** The stored objects of a type, optionally in one namespace. */
  list(type: ResourceType, namespace?: string): KubeObject[];
  /** The stored object, or undefined (`""` namespace when cluster-scoped). */
  get(
    type: ResourceType,
    namespace: string,
    name: string,
  ): KubeObject | undefined;
}

/**
 * Options of {@link DemoWorkload}.
 *
 * @example A slow, seeded workload
 * ```ts
 * import type { DemoWorkloadOptions } from "@kubecache/core/testing";
 * import { FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const opts: DemoWorkloadOptions = { seed: 7, intervalMs: 1_000, clock: new FakeClock() };
 * assert.equal(opts.seed, 7); // the same seed gives the same objects and changes
 * ```
 */
export interface DemoWorkloadOptions {
  /**
   * Seed of the pseudo-random choices: the same seed and clock give the same
   * sequence of changes.
   * @default {1}
   */
  seed?: number;
  /** Time source of timestamps and of the pause between ticks. @default {realClock} */
  clock?: Clock;
  /** Milliseconds between two ticks of {@link DemoWorkload.run}. @default {500} */
  intervalMs?: number;
  /** Number of worker nodes (plus one control-plane node). @default {2} */
  workers?: number;
}

type Stage =
  | "pending"
  | "creating"
  | "starting"
  | "ready"
  | "backoff"
  | "done"
  | "terminating";

interface PodState {
  pod: Pod;
  stage: Stage;
  deployment?: DeploymentState;
  /** Ticks spent in `done` (job pods are cleaned up after a while). */
  idle: number;
}

interface DeploymentState {
  obj: Deployment;
  hash: string;
  /** Current ReplicaSet per pod-template hash. */
  replicaSets: Map<string, KubeObject>;
}

const DAY = 86_400_000;
const GRACEFUL = "demo.kubecache.dev/graceful-termination";

/** The deployments the demo starts with: namespace, name, replicas, image. */
const DEPLOYMENTS: [string, string, number, string][] = [
  ["default", "hello", 2, "nginx:1.27"],
  ["shop", "frontend", 3, "registry.example/shop/frontend:1.4.2"],
  ["shop", "cart", 2, "registry.example/shop/cart:2.0.1"],
  ["shop", "catalog", 2, "registry.example/shop/catalog:0.9.7"],
  ["payments", "api", 2, "registry.example/payments/api:3.2.0"],
  ["payments", "ledger", 1, "registry.example/payments/ledger:1.1.0"],
  ["monitoring", "prometheus", 1, "prom/prometheus:v3.4.0"],
  ["kube-system", "coredns", 2, "registry.k8s.io/coredns/coredns:v1.12.0"],
];

const NAMESPACES = ["shop", "payments", "batch", "monitoring"];

/**
 * A deterministic simulated workload driving a `FakeApiServer` (or any
 * {@link DemoWorkloadTarget}) through its direct state API.
 *
 * {@link DemoWorkload.populate} creates a settled cluster (namespaces,
 * nodes and their leases, deployments with replica sets and running pods
 * created hours to days ago, config maps, finished job pods);
 * {@link DemoWorkload.tick} applies one round of changes: pods advance
 * through their lifecycle, containers crash and restart, deployments roll
 * out or scale, a cron job starts pods that end Succeeded or Failed, config
 * maps change, kubelets renew their leases and report heartbeats.
 * {@link DemoWorkload.run} ticks on the injected clock until aborted.
 *
 * @example Populate a FakeApiServer and tick it with a fake clock
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   DemoWorkload,
 *   FakeApiServer,
 *   FakeClock,
 * } from "@kubecache/core/testing";
 * import { Pods } from "@kubecache/core";
 *
 * const clock = new FakeClock(Date.UTC(2025, 0, 1));
 * await using server = await FakeApiServer.start({ clock });
 * const workload = new DemoWorkload(server, { clock, seed: 7 });
 * workload.populate();
 * assert.ok(server.list(Pods).length > 10);
 * const before = server.resourceVersion();
 * workload.tick();
 * assert.notEqual(server.resourceVersion(), before);
 * ```
 */
export class DemoWorkload {
  #target: DemoWorkloadTarget;
  #clock: Clock;
  #rng: Rng;
  #intervalMs: number;
  #workers: number;
  #nodes: KubeObject[] = [];
  #leases: KubeObject[] = [];
  #pods = new Map<string, PodState>();
  #deployments: DeploymentState[] = [];
  #configMaps = new Map<string, KubeObject>();
  #ticks = 0;
  #jobs = 0;
  #populated = false;

  /**
   * Create a workload; nothing is written until {@link DemoWorkload.populate}
   * or {@link DemoWorkload.run}.
   * @param target the server (or double) to write to
   * @param opts seed, clock, tick interval and cluster size
   * @throws {RangeError} when `intervalMs` is not positive or `workers` is below 1
   */
  constructor(target: DemoWorkloadTarget, opts: DemoWorkloadOptions = {}) {
    this.#target = target;
    this.#clock = opts.clock ?? realClock;
    this.#rng = new Rng(opts.seed ?? 1);
    this.#intervalMs = opts.intervalMs ?? 500;
    this.#workers = opts.workers ?? 2;
    if (!(this.#intervalMs > 0)) {
      throw new RangeError(
        `Cannot create demo workload: intervalMs must be positive, got ${this.#intervalMs}`,
      );
    }
    if (!(this.#workers >= 1)) {
      throw new RangeError(
        `Cannot create demo workload: workers must be at least 1, got ${this.#workers}`,
      );
    }
  }

  /** Names of the nodes pods get scheduled to. */
  get nodeNames(): string[] {
    return this.#nodes.map((n) => n.metadata.name!).slice(1);
  }

  /**
   * Create the initial, settled cluster. Called once; later calls do
   * nothing. Objects carry creationTimestamps hours to days before the
   * clock's now, which a target that keeps them shows as realistic ages
   * (`FakeApiServer`, like the apiserver, stamps its own; `startDemoCluster`
   * makes it keep them).
   */
  populate(): void {
    if (this.#populated) return;
    this.#populated = true;
    const now = this.#clock.now();
    const existing = new Set(
      this.#target.list(Namespaces).map((n) => n.metadata.name),
    );
    for (const ns of NAMESPACES) {
      if (!existing.has(ns)) {
        this.#target.create(Namespaces, makeNamespace(ns, now - 9 * DAY));
      }
    }
    for (let i = 0; i <= this.#workers; i++) {
      const name = i === 0 ? "demo-control-plane" : `demo-worker-${i}`;
      this.#nodes.push(
        this.#target.create(Nodes, makeNode(name, now - 10 * DAY, this.#rng)),
      );
      this.#leases.push(
        this.#target.create(Leases, makeLease(name, now, this.#rng)),
      );
    }
    for (const [namespace, name, replicas, image] of DEPLOYMENTS) {
      this.#populateDeployment({ namespace, name, replicas, image, now });
    }
    for (const ns of ["default", ...NAMESPACES]) {
      this.#createConfigMap(ns, "kube-root-ca.crt", {
        "ca.crt":
          "-----BEGIN CERTIFICATE-----\nMIIC/jCCAeagAwIBAgIBADANBgkqhkiG9w0BAQsFADAVMRMw\n-----END CERTIFICATE-----\n",
      }, now - 9 * DAY);
    }
    this.#createConfigMap("shop", "feature-flags", {
      "checkout.v2": "false",
      "recommendations": "true",
    }, now - 3 * DAY);
    this.#createConfigMap("shop", "frontend-config", {
      "LOG_LEVEL": "info",
      "API_URL": "http://api.payments.svc:8080",
    }, now - 5 * DAY);
    this.#createConfigMap("payments", "api-config", {
      "rate-limit": "100",
    }, now - 2 * DAY);
    this.#createConfigMap("monitoring", "prometheus-config", {
      "prometheus.yml": "global:\n  scrape_interval: 15s\n",
    }, now - 7 * DAY);
    for (let i = 0; i < 2; i++) this.#startJob(now - (i + 1) * 3_600_000, true);
  }

  /**
   * Apply one round of changes. Populates first when needed. Each tick
   * advances transitional pods, may crash a container, start a rollout or
   * scale a deployment, starts a job every tenth tick, touches config maps
   * and renews one node lease.
   */
  tick(): void {
    this.populate();
    this.#ticks++;
    const rng = this.#rng;
    for (const state of [...this.#pods.values()]) this.#advance(state);
    if (rng.chance(0.2)) this.#crashOne();
    // A rollout and a job early on, so a newcomer sees pods come and go
    // within seconds; then at random.
    if (this.#ticks === 3 || (rng.chance(0.08) && !this.#rollingOut())) {
      this.#rollOut(rng.pick(this.#deployments));
    }
    if (rng.chance(0.05)) this.#scale(rng.pick(this.#deployments));
    if (this.#ticks % 10 === 1) this.#startJob(this.#clock.now(), false);
    for (const d of this.#deployments) this.#reconcile(d);
    this.#churnConfigMaps();
    this.#renewLease(this.#ticks % this.#leases.length);
    if (rng.chance(0.1)) this.#heartbeat(rng.int(this.#nodes.length));
  }

  /**
   * Populate, then tick every `intervalMs` on the clock until `signal`
   * aborts. Resolves (never rejects) once aborted.
   * @param signal stops the loop
   */
  async run(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    this.populate();
    while (!signal.aborted) {
      try {
        await this.#clock.sleep(this.#intervalMs, signal);
      } catch {
        return;
      }
      this.tick();
    }
  }

  #populateDeployment(o: {
    namespace: string;
    name: string;
    replicas: number;
    image: string;
    now: number;
  }): void {
    const rng = this.#rng;
    const createdMs = o.now - (1 + rng.int(9)) * DAY - rng.int(DAY);
    const obj = this.#target.create(
      Deployments,
      makeDeployment({ ...o, createdMs, rng }),
    ) as Deployment;
    const d: DeploymentState = { obj, hash: "", replicaSets: new Map() };
    this.#deployments.push(d);
    this.#newReplicaSet(d, createdMs);
    for (let i = 0; i < o.replicas; i++) {
      const started = createdMs + rng.int(o.now - createdMs);
      this.#startPod(this.#createPod(d, started), started, 4000);
    }
    this.#reconcile(d);
  }

  #newReplicaSet(d: DeploymentState, createdMs: number): void {
    d.hash = this.#rng.suffix(10);
    const rs = makeReplicaSet(d.obj, {
      hash: d.hash,
      replicas: d.obj.spec.replicas,
      createdMs,
      rng: this.#rng,
    });
    d.replicaSets.set(d.hash, this.#target.create(ReplicaSets, rs));
  }

  #createPod(
    d: DeploymentState | undefined,
    createdMs: number,
    job?: string,
  ): PodState {
    const rs = d?.replicaSets.get(d.hash);
    const pod = makePod({
      namespace: d?.obj.metadata.namespace ?? "batch",
      owner: rs?.metadata.name ?? job!,
      ownerKind: d ? "ReplicaSet" : "Job",
      ownerUid: rs?.metadata.uid ?? this.#rng.uuid(),
      app: d?.obj.metadata.name ?? "nightly-report",
      image: d?.obj.spec.template.spec.containers[0].image ??
        "registry.example/batch/report:5.1",
      hash: d?.hash,
      createdMs,
      rng: this.#rng,
    });
    // Stands in for graceful termination: a pod being deleted stays
    // (Terminating) until the workload removes this finalizer.
    pod.metadata.finalizers = [GRACEFUL];
    const state: PodState = {
      pod: this.#target.create(Pods, pod) as Pod,
      stage: "pending",
      deployment: d,
      idle: 0,
    };
    this.#pods.set(keyOf(state.pod), state);
    return state;
  }

  /** Schedule the pod on a node at `atMs`; it runs, ready, `readyAfterMs` later. */
  #startPod(state: PodState, atMs: number, readyAfterMs: number): void {
    this.#set(state, scheduled(state.pod, this.#pickNode(), atMs), "creating");
    this.#set(
      state,
      running(state.pod, {
        nowMs: atMs + readyAfterMs,
        ready: true,
        rng: this.#rng,
      }),
      "ready",
    );
  }

  #set(state: PodState, next: Pod, stage: Stage): void {
    const stored = this.#update(Pods, next) as Pod | undefined;
    if (!stored) {
      this.#pods.delete(keyOf(state.pod));
      return;
    }
    state.pod = stored;
    state.stage = stage;
  }

  /**
   * Ask for a graceful deletion: the finalizer every demo pod carries keeps
   * it (shown Terminating) until `#finalize` removes the finalizer.
   */
  #terminate(state: PodState): void {
    const { namespace, name } = state.pod.metadata;
    const stored = this.#delete(Pods, namespace ?? "", name!) as
      | Pod
      | undefined;
    if (!stored) {
      this.#pods.delete(keyOf(state.pod));
      return;
    }
    state.pod = stored;
    state.stage = "terminating";
  }

  /** The kubelet is done: drop the finalizer, and the server removes the pod. */
  #finalize(state: PodState): void {
    const next = structuredClone(state.pod);
    next.metadata.finalizers = [];
    this.#update(Pods, next);
    this.#pods.delete(keyOf(state.pod));
  }

  /** One lifecycle step of a pod in a transitional stage, with some probability. */
  #advance(state: PodState): void {
    if (state.stage !== "terminating") {
      // Deleted by someone else (`kubectl delete pod`): the server only set
      // its deletionTimestamp, as the finalizer holds it; finish the
      // graceful termination as a kubelet would, or it stays Terminating.
      const { namespace = "", name = "" } = state.pod.metadata;
      const stored = this.#target.get(Pods, namespace, name) as Pod | undefined;
      if (stored?.metadata.deletionTimestamp) {
        state.pod = stored;
        state.stage = "terminating";
      }
    }
    const rng = this.#rng;
    const now = this.#clock.now();
    const isJob = state.deployment === undefined;
    switch (state.stage) {
      case "pending":
        if (rng.chance(0.7)) {
          this.#set(
            state,
            scheduled(state.pod, this.#pickNode(), now),
            "creating",
          );
        }
        return;
      case "creating":
        if (rng.chance(0.6)) {
          this.#set(
            state,
            running(state.pod, { nowMs: now, ready: isJob, rng }),
            isJob ? "ready" : "starting",
          );
        }
        return;
      case "starting":
      case "backoff":
        // A crashed container waits out its back-off a little longer.
        if (rng.chance(state.stage === "backoff" ? 0.3 : 0.6)) {
          this.#set(
            state,
            running(state.pod, { nowMs: now, ready: true, rng }),
            "ready",
          );
        }
        return;
      case "ready":
        if (isJob && rng.chance(0.3)) {
          this.#set(state, finished(state.pod, now, rng.chance(0.75)), "done");
        }
        return;
      case "done":
        if (++state.idle > 40) this.#terminate(state);
        return;
      case "terminating":
        if (rng.chance(0.7)) this.#finalize(state);
        return;
    }
  }

  /** Whether some deployment still has pods of an older template. */
  #rollingOut(): boolean {
    for (const s of this.#pods.values()) {
      if (s.deployment && podHash(s.pod) !== s.deployment.hash) return true;
    }
    return false;
  }

  #crashOne(): void {
    const ready = [...this.#pods.values()].filter((s) =>
      s.stage === "ready" && s.deployment
    );
    if (ready.length === 0) return;
    const state = this.#rng.pick(ready);
    this.#set(state, crashed(state.pod, this.#clock.now()), "backoff");
  }

  /** Start a rolling update: bump the image tag, new ReplicaSet. */
  #rollOut(d: DeploymentState): void {
    const next = structuredClone(d.obj);
    const container = next.spec.template.spec.containers[0];
    const [image, tag] = container.image.split(/:(?=[^:]*$)/);
    const parts = (tag ?? "1.0.0").split(".");
    parts[parts.length - 1] = String(Number(parts.at(-1)) + 1 || 1);
    container.image = `${image}:${parts.join(".")}`;
    next.metadata.generation = (next.metadata.generation ?? 1) + 1;
    const revision = Number(
      next.metadata.annotations?.["deployment.kubernetes.io/revision"] ?? 1,
    );
    next.metadata.annotations = {
      ...next.metadata.annotations,
      "deployment.kubernetes.io/revision": String(revision + 1),
    };
    d.obj = (this.#update(Deployments, next) ?? d.obj) as Deployment;
    this.#newReplicaSet(d, this.#clock.now());
  }

  #scale(d: DeploymentState): void {
    const replicas = d.obj.spec.replicas;
    const target = replicas <= 1
      ? 2
      : replicas >= 4
      ? 3
      : replicas + (this.#rng.chance(0.5) ? 1 : -1);
    const next = structuredClone(d.obj);
    next.spec.replicas = target;
    next.metadata.generation = (next.metadata.generation ?? 1) + 1;
    d.obj = (this.#update(Deployments, next) ?? d.obj) as Deployment;
  }

  /**
   * The deployment controller in miniature: keep `replicas` pods of the
   * current hash, surge by one during a rollout, retire an old pod for each
   * new ready one, and publish the counts in the status.
   */
  #reconcile(d: DeploymentState): void {
    const now = this.#clock.now();
    const desired = d.obj.spec.replicas;
    const live = [...this.#pods.values()].filter((s) =>
      s.deployment === d && s.stage !== "terminating"
    );
    const fresh = live.filter((s) => podHash(s.pod) === d.hash);
    const old = live.filter((s) => podHash(s.pod) !== d.hash);
    const freshReady = fresh.filter((s) => s.stage === "ready").length;
    if (old.length > 0 && freshReady + old.length > desired) {
      this.#terminate(old[0]);
    } else if (fresh.length > desired) {
      this.#terminate(fresh[fresh.length - 1]);
    } else if (fresh.length < desired && live.length < desired + 1) {
      this.#createPod(d, now);
    }
    this.#publishStatus(d);
  }

  #publishStatus(d: DeploymentState): void {
    const pods = [...this.#pods.values()].filter((s) =>
      s.deployment === d && s.stage !== "terminating"
    );
    for (const [hash, rs] of d.replicaSets) {
      d.replicaSets.set(hash, this.#publishReplicaSet(d, rs, hash, pods));
    }
    const ready = pods.filter((s) => s.stage === "ready").length;
    const status = {
      observedGeneration: d.obj.metadata.generation ?? 1,
      replicas: pods.length,
      updatedReplicas: pods.filter((s) => podHash(s.pod) === d.hash).length,
      readyReplicas: ready,
      availableReplicas: ready,
    };
    const cur = d.obj.status;
    if (
      (Object.keys(status) as (keyof typeof status)[]).every((k) =>
        cur[k] === status[k]
      )
    ) return;
    const next = structuredClone(d.obj);
    next.status = { ...next.status, ...status };
    d.obj = (this.#update(Deployments, next) ?? d.obj) as Deployment;
  }

  /**
   * The ReplicaSet controller's view of one hash: the current ReplicaSet
   * wants the deployment's replicas, an old one as many pods as it still
   * has (the deployment controller scales it down as they retire); the
   * status counts its live pods, so READY agrees with the deployment's.
   */
  #publishReplicaSet(
    d: DeploymentState,
    rs: KubeObject,
    hash: string,
    live: PodState[],
  ): KubeObject {
    const mine = live.filter((s) => podHash(s.pod) === hash);
    const ready = mine.filter((s) => s.stage === "ready").length;
    const replicas = hash === d.hash ? d.obj.spec.replicas : mine.length;
    const status = {
      replicas: mine.length,
      fullyLabeledReplicas: mine.length,
      readyReplicas: ready,
      availableReplicas: ready,
      observedGeneration: rs.metadata.generation ?? 1,
    };
    const cur = rs as KubeObject & {
      spec: { replicas: number };
      status?: Record<string, unknown>;
    };
    if (
      cur.spec.replicas === replicas &&
      (Object.keys(status) as (keyof typeof status)[]).every((k) =>
        cur.status?.[k] === status[k]
      )
    ) return rs;
    const next = structuredClone(cur);
    next.spec.replicas = replicas;
    next.status = { ...next.status, ...status };
    return this.#update(ReplicaSets, next) ?? rs;
  }

  #startJob(createdMs: number, settled: boolean): void {
    const name = `nightly-report-${29_000_000 + (++this.#jobs) * 60}`;
    const state = this.#createPod(undefined, createdMs, name);
    if (!settled) return;
    this.#startPod(state, createdMs, 3000);
    this.#set(state, finished(state.pod, createdMs + 60_000, true), "done");
  }

  #createConfigMap(
    namespace: string,
    name: string,
    data: Record<string, string>,
    createdMs: number,
  ): void {
    const cm = makeConfigMap({
      namespace,
      name,
      data,
      createdMs,
      rng: this.#rng,
    });
    this.#configMaps.set(
      `${namespace}/${name}`,
      this.#target.create(ConfigMaps, cm),
    );
  }

  #churnConfigMaps(): void {
    const rng = this.#rng;
    const now = this.#clock.now();
    if (rng.chance(0.25)) {
      const key = rng.pick(["shop/feature-flags", "payments/api-config"]);
      const next = structuredClone(this.#configMaps.get(key)!) as KubeObject & {
        data: Record<string, string>;
      };
      if (key === "shop/feature-flags") {
        next.data["checkout.v2"] = String(next.data["checkout.v2"] !== "true");
      } else {
        next.data["rate-limit"] = String(50 + 10 * rng.int(10));
      }
      const stored = this.#update(ConfigMaps, next);
      if (stored) this.#configMaps.set(key, stored);
    }
    if (rng.chance(0.05)) {
      const session = [...this.#configMaps.keys()].find((k) =>
        k.startsWith("shop/session-")
      );
      if (session) {
        this.#delete(ConfigMaps, "shop", session.slice("shop/".length));
        this.#configMaps.delete(session);
      } else {
        this.#createConfigMap("shop", `session-${rng.suffix(5)}`, {
          ttl: "300",
        }, now);
      }
    }
  }

  #renewLease(i: number): void {
    this.#leases[i] = this.#update(
      Leases,
      renewed(this.#leases[i], this.#clock.now()),
    ) ?? this.#leases[i];
  }

  #heartbeat(i: number): void {
    this.#nodes[i] = this.#update(
      Nodes,
      heartbeat(this.#nodes[i], this.#clock.now()),
    ) ?? this.#nodes[i];
  }

  /**
   * Write the workload's version of an object. Someone else (a controller
   * under test, kubectl) may have changed it since: then the workload's
   * spec, status and data win, their labels and annotations are kept.
   * Undefined when the object is gone.
   */
  #update(type: ResourceType, next: KubeObject): KubeObject | undefined {
    const { namespace = "", name = "" } = next.metadata;
    const cur = this.#target.get(type, namespace, name);
    if (!cur) return undefined;
    if (cur.metadata.resourceVersion !== next.metadata.resourceVersion) {
      next = {
        ...next,
        metadata: {
          ...next.metadata,
          resourceVersion: cur.metadata.resourceVersion,
          labels: cur.metadata.labels,
          annotations: cur.metadata.annotations,
        },
      };
    }
    return this.#target.update(type, next);
  }

  /** Delete unless already gone; undefined when it was. */
  #delete(
    type: ResourceType,
    namespace: string,
    name: string,
  ): KubeObject | undefined {
    if (!this.#target.get(type, namespace, name)) return undefined;
    return this.#target.delete(type, namespace, name);
  }

  #pickNode(): string {
    return this.#rng.pick(this.nodeNames);
  }
}

function keyOf(obj: KubeObject): string {
  return `${obj.metadata.namespace}/${obj.metadata.name}`;
}

function podHash(pod: Pod): string | undefined {
  return pod.metadata.labels?.["pod-template-hash"];
}
