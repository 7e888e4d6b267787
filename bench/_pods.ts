/**
 * The pods the benchmarks feed to clients: realistic running pods of about
 * 4.5 KB of JSON each (with managedFields, as a real apiserver sends them),
 * from the demo workload's object builders. Bench-only.
 *
 * @module
 */

import type { Pod } from "../client/types.ts";
import { makePod, Rng, running, scheduled } from "../testing/_demo_objects.ts";

/**
 * `count` distinct running pods over 20 namespaces, 50 apps and 50 nodes,
 * the same for the same `nowMs`; resourceVersions are "1".."count".
 * @param count how many pods
 * @param nowMs creation and start time, in ms since the epoch
 */
export function benchPods(count: number, nowMs: number): Pod[] {
  const rng = new Rng(3);
  return Array.from({ length: count }, (_, i) => {
    const pod = makePod({
      namespace: `bench-${i % 20}`,
      owner: `app-${i % 50}-5d8f9c7b6`,
      ownerKind: "ReplicaSet",
      ownerUid: "4b6f8a52-0c1d-4e2f-9a3b-5c6d7e8f9a0b",
      app: `app-${i % 50}`,
      image: "registry.example/team/app:1.0.0",
      hash: "5d8f9c7b6",
      createdMs: nowMs,
      rng,
    });
    const ready = running(scheduled(pod, `node-${i % 50}`, nowMs), {
      nowMs,
      ready: true,
      rng,
    });
    ready.metadata.resourceVersion = String(i + 1);
    return ready;
  });
}
