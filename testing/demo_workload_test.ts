import assert from "node:assert/strict";
import { DemoWorkload, type DemoWorkloadTarget } from "./demo_workload.ts";
import { FakeClock } from "./fake_clock.ts";
import type { KubeObject } from "../api/object.ts";
import {
  ConfigMaps,
  Deployments,
  Pods,
  type ResourceType,
} from "../api/resources.ts";
import { FakeApiServer } from "./fake_api_server.ts";

const START = Date.UTC(2025, 5, 1, 12, 0, 0);

/** An in-memory apiserver double that checks resourceVersions like the real one. */
class MemoryTarget implements DemoWorkloadTarget {
  objects = new Map<string, KubeObject>();
  log: string[] = [];
  #rv = 0;

  #key(type: ResourceType, ns: string | undefined, name: string): string {
    return `${type.resource}/${ns || ""}/${name}`;
  }

  create(type: ResourceType, obj: KubeObject): KubeObject {
    const key = this.#key(type, obj.metadata.namespace, obj.metadata.name!);
    if (this.objects.has(key)) throw new Error(`Already exists: ${key}`);
    const stored = {
      ...obj,
      metadata: { ...obj.metadata, resourceVersion: String(++this.#rv) },
    };
    this.objects.set(key, stored);
    this.log.push(`ADDED ${key}`);
    return stored;
  }

  update(type: ResourceType, obj: KubeObject): KubeObject {
    const key = this.#key(type, obj.metadata.namespace, obj.metadata.name!);
    const cur = this.objects.get(key);
    if (!cur) throw new Error(`Not found: ${key}`);
    if (cur.metadata.resourceVersion !== obj.metadata.resourceVersion) {
      throw new Error(`Conflict: ${key}`);
    }
    const stored = {
      ...obj,
      metadata: { ...obj.metadata, resourceVersion: String(++this.#rv) },
    };
    if (
      stored.metadata.deletionTimestamp && !stored.metadata.finalizers?.length
    ) {
      this.objects.delete(key);
      this.log.push(`DELETED ${key}`);
      return stored;
    }
    this.objects.set(key, stored);
    this.log.push(`MODIFIED ${key} ${JSON.stringify(stored).length}`);
    return stored;
  }

  delete(type: ResourceType, ns: string, name: string): KubeObject {
    const key = this.#key(type, ns, name);
    const cur = this.objects.get(key);
    if (!cur) throw new Error(`Not found: ${key}`);
    if (cur.metadata.finalizers?.length) {
      // As the apiserver: finalizers hold the object, marked for deletion.
      return this.update(type, {
        ...cur,
        metadata: {
          ...cur.metadata,
          deletionTimestamp: "2025-06-01T12:00:00Z",
        },
      });
    }
    this.objects.delete(key);
    this.log.push(`DELETED ${key}`);
    return cur;
  }

  get(type: ResourceType, ns: string, name: string): KubeObject | undefined {
    return this.objects.get(this.#key(type, ns, name));
  }

  list(type: ResourceType): KubeObject[] {
    return [...this.objects.entries()]
      .filter(([k]) => k.startsWith(`${type.resource}/`))
      .map(([, v]) => v);
  }

  of(resource: string): KubeObject[] {
    return [...this.objects.entries()]
      .filter(([k]) => k.startsWith(`${resource}/`))
      .map(([, v]) => v);
  }
}

type PodLike = KubeObject & {
  status: {
    phase: string;
    containerStatuses?: {
      restartCount: number;
      state: Record<string, { reason?: string }>;
    }[];
  };
};

function runTicks(seed: number, ticks: number): MemoryTarget {
  const target = new MemoryTarget();
  const workload = new DemoWorkload(target, {
    seed,
    clock: new FakeClock(START),
  });
  for (let i = 0; i < ticks; i++) workload.tick();
  return target;
}

Deno.test("DemoWorkload.populate() creates a settled cluster with backdated objects", () => {
  const target = new MemoryTarget();
  new DemoWorkload(target, { clock: new FakeClock(START) }).populate();
  const pods = target.of("pods") as PodLike[];
  assert.ok(pods.length >= 15, `expected a dozen pods, got ${pods.length}`);
  const running = pods.filter((p) => p.status.phase === "Running");
  assert.ok(running.length >= 13);
  const namespaces = new Set(pods.map((p) => p.metadata.namespace));
  for (const ns of ["default", "shop", "payments", "kube-system", "batch"]) {
    assert.ok(namespaces.has(ns), `no pod in ${ns}`);
  }
  assert.equal(target.of("nodes").length, 3);
  assert.equal(target.of("leases").length, 3);
  assert.ok(target.of("deployments").length >= 7);
  assert.ok(target.of("configmaps").length >= 5);
  const oldest = Math.min(
    ...pods.map((p) => Date.parse(p.metadata.creationTimestamp!)),
  );
  assert.ok(START - oldest > 86_400_000, "pods should look days old");
});

Deno.test("DemoWorkload.populate() is idempotent and keeps existing namespaces", () => {
  const target = new MemoryTarget();
  const workload = new DemoWorkload(target, { clock: new FakeClock(START) });
  workload.populate();
  const count = target.objects.size;
  workload.populate();
  assert.equal(target.objects.size, count);
});

Deno.test("DemoWorkload.tick() is deterministic for a seed", () => {
  const a = runTicks(42, 60).log;
  const b = runTicks(42, 60).log;
  const c = runTicks(43, 60).log;
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});

Deno.test("DemoWorkload.tick() moves pods through their lifecycle", () => {
  const target = new MemoryTarget();
  const seen = new Map<string, Set<string>>();
  const workload = new DemoWorkload(target, {
    seed: 3,
    clock: new FakeClock(START),
  });
  let restarts = 0;
  for (let i = 0; i < 200; i++) {
    workload.tick();
    for (const pod of target.of("pods") as PodLike[]) {
      const states = seen.get(pod.metadata.uid!) ?? new Set();
      const cs = pod.status.containerStatuses?.[0];
      states.add(cs?.state.waiting?.reason ?? pod.status.phase);
      seen.set(pod.metadata.uid!, states);
      restarts = Math.max(restarts, cs?.restartCount ?? 0);
    }
  }
  const all = new Set([...seen.values()].flatMap((s) => [...s]));
  for (
    const state of [
      "Pending",
      "ContainerCreating",
      "Running",
      "CrashLoopBackOff",
      "Succeeded",
      "Failed",
    ]
  ) {
    assert.ok(all.has(state), `no pod was ever ${state}: saw ${[...all]}`);
  }
  assert.ok(restarts >= 1, "some container should have restarted");
  const log = runTicks(3, 200).log;
  assert.ok(log.some((l) => l.startsWith("DELETED pods/")));
  assert.ok(log.some((l) => l.startsWith("MODIFIED configmaps/")));
  assert.ok(log.some((l) => l.startsWith("MODIFIED leases/kube-node-lease/")));
  assert.ok(log.some((l) => l.startsWith("MODIFIED nodes//")));
});

Deno.test("DemoWorkload.tick() keeps each deployment's status true to its pods", () => {
  const target = new MemoryTarget();
  const workload = new DemoWorkload(target, {
    seed: 9,
    clock: new FakeClock(START),
  });
  for (let i = 0; i < 150; i++) workload.tick();
  const pods = target.of("pods") as (PodLike & {
    metadata: { deletionTimestamp?: string };
  })[];
  for (
    const d of target.of("deployments") as (KubeObject & {
      spec: { replicas: number };
      status: { replicas: number; readyReplicas: number };
    })[]
  ) {
    const mine = pods.filter((p) =>
      p.metadata.namespace === d.metadata.namespace &&
      p.metadata.labels?.app === d.metadata.name &&
      !p.metadata.deletionTimestamp
    );
    assert.equal(
      d.status.replicas,
      mine.length,
      `deployment ${d.metadata.name}`,
    );
    assert.ok(d.status.readyReplicas <= d.spec.replicas + 1);
  }
});

Deno.test("DemoWorkload.tick() pods weigh about 4 KB of JSON when running", () => {
  const target = runTicks(5, 1);
  const sizes = target.log
    .filter((l) => l.startsWith("MODIFIED pods/"))
    .map((l) => Number(l.split(" ").at(-1)));
  const max = Math.max(...sizes);
  assert.ok(max > 3500 && max < 6000, `pod size ${max}`);
});

Deno.test("DemoWorkload.run() ticks on the clock and stops on abort", async () => {
  const clock = new FakeClock(START);
  const target = new MemoryTarget();
  const workload = new DemoWorkload(target, { clock, intervalMs: 1000 });
  const controller = new AbortController();
  const done = workload.run(controller.signal);
  await clock.waitForWaiters(1);
  const before = target.log.length;
  await clock.step(1000);
  await clock.waitForWaiters(1);
  assert.ok(target.log.length > before, "a tick should have written");
  controller.abort();
  await done;
  assert.equal(clock.hasWaiters(), false);
});

Deno.test("DemoWorkload constructor rejects bad options", () => {
  const target = new MemoryTarget();
  assert.throws(
    () => new DemoWorkload(target, { intervalMs: 0 }),
    /intervalMs must be positive, got 0/,
  );
  assert.throws(
    () => new DemoWorkload(target, { workers: 0 }),
    /workers must be at least 1, got 0/,
  );
});

Deno.test("DemoWorkload drives a FakeApiServer that serves its objects over HTTP", async () => {
  const clock = new FakeClock(START);
  await using server = await FakeApiServer.start({ clock });
  const workload = new DemoWorkload(server, { clock, seed: 11 });
  for (let i = 0; i < 30; i++) workload.tick();
  const res = await fetch(`${server.url}/api/v1/pods`);
  const list = await res.json() as { items: PodLike[] };
  assert.ok(list.items.length >= 15);
  assert.deepEqual(
    list.items.map((p) => p.metadata.name).sort(),
    server.list(Pods).map((p) => p.metadata.name).sort(),
  );
  const ns = await (await fetch(`${server.url}/api/v1/namespaces`)).json();
  const names = ns.items.map((n: KubeObject) => n.metadata.name);
  for (const n of ["default", "shop", "payments", "batch", "monitoring"]) {
    assert.ok(names.includes(n), n);
  }
});

Deno.test("DemoWorkload finishes a pod someone else deleted, as a kubelet would, and its deployment replaces it", async () => {
  const clock = new FakeClock(START);
  await using server = await FakeApiServer.start({ clock });
  const workload = new DemoWorkload(server, { clock, seed: 5 });
  workload.populate();
  const victim = server.list(Pods, "shop").find((p) =>
    p.metadata.name!.startsWith("cart-")
  )!;
  const { name } = victim.metadata;
  // What `kubectl delete pod` does: the finalizer holds the pod, Terminating.
  server.delete(Pods, "shop", name!);
  assert.ok(server.get(Pods, "shop", name!)?.metadata.deletionTimestamp);
  for (let i = 0; i < 10 && server.get(Pods, "shop", name!); i++) {
    workload.tick();
  }
  assert.equal(server.get(Pods, "shop", name!), undefined, "still Terminating");
  const carts = server.list(Pods, "shop").filter((p) =>
    p.metadata.name!.startsWith("cart-") && !p.metadata.deletionTimestamp
  );
  const cart = server.get(Deployments, "shop", "cart") as {
    spec: { replicas: number };
  };
  assert.equal(carts.length, cart.spec.replicas, "replaced");
});

Deno.test("DemoWorkload keeps others' labels and annotations and forgets deleted objects", () => {
  const target = new MemoryTarget();
  const workload = new DemoWorkload(target, {
    seed: 4,
    clock: new FakeClock(START),
  });
  workload.populate();
  // A controller annotates every config map and pod, and someone deletes a pod.
  for (const [key, obj] of target.objects) {
    if (!key.startsWith("configmaps/") && !key.startsWith("pods/")) continue;
    target.update(
      key.startsWith("pods/") ? Pods : ConfigMaps,
      {
        ...obj,
        metadata: {
          ...obj.metadata,
          annotations: { "example.com/seen": "yes" },
        },
      },
    );
  }
  const victim = target.of("pods")[0];
  target.objects.delete(
    `pods/${victim.metadata.namespace}/${victim.metadata.name}`,
  );
  for (let i = 0; i < 100; i++) workload.tick();
  const flags = target.objects.get("configmaps/shop/feature-flags")!;
  assert.equal(flags.metadata.annotations?.["example.com/seen"], "yes");
  assert.ok(
    target.log.some((l) =>
      l.startsWith("MODIFIED configmaps/shop/feature-flags")
    ),
  );
});

Deno.test("DemoWorkload keeps each ReplicaSet's counts true to its pods, so READY agrees with its deployment's", () => {
  const target = new MemoryTarget();
  const workload = new DemoWorkload(target, {
    seed: 5,
    clock: new FakeClock(START),
  });
  type Counted = KubeObject & {
    spec: { replicas: number };
    status: { replicas?: number; readyReplicas?: number };
  };
  const check = (when: string) => {
    const sets = target.of("replicasets") as Counted[];
    for (const d of target.of("deployments") as Counted[]) {
      const mine = sets.filter((rs) =>
        rs.metadata.namespace === d.metadata.namespace &&
        rs.metadata.ownerReferences?.[0].name === d.metadata.name
      );
      const sum = (k: "replicas" | "readyReplicas") =>
        mine.reduce((n, rs) => n + (rs.status[k] ?? 0), 0);
      const name = `${when}: ${d.metadata.namespace}/${d.metadata.name}`;
      assert.equal(sum("readyReplicas"), d.status.readyReplicas ?? 0, name);
      assert.equal(sum("replicas"), d.status.replicas ?? 0, name);
    }
  };
  workload.populate();
  check("settled");
  // Settled: one ReplicaSet per deployment, all of its pods ready.
  for (const rs of target.of("replicasets") as Counted[]) {
    assert.equal(rs.status.readyReplicas, rs.spec.replicas);
    assert.ok(rs.spec.replicas > 0);
  }
  for (let i = 0; i < 120; i++) {
    workload.tick();
    check(`tick ${i + 1}`);
  }
});

Deno.test("DemoWorkload labels the control-plane node with its role, and nodes carry kubectl's wide fields", () => {
  const target = new MemoryTarget();
  new DemoWorkload(target, { clock: new FakeClock(START) }).populate();
  const nodes = target.of("nodes") as (KubeObject & {
    status: { nodeInfo: Record<string, string> };
  })[];
  const roles = nodes.map((n) => [
    n.metadata.name,
    Object.keys(n.metadata.labels ?? {})
      .filter((l) => l.startsWith("node-role.kubernetes.io/")),
  ]);
  assert.deepEqual(roles, [
    ["demo-control-plane", ["node-role.kubernetes.io/control-plane"]],
    ["demo-worker-1", []],
    ["demo-worker-2", []],
  ]);
  for (const n of nodes) {
    for (
      const field of ["osImage", "kernelVersion", "containerRuntimeVersion"]
    ) {
      assert.ok(n.status.nodeInfo[field], `${n.metadata.name} ${field}`);
    }
  }
});
