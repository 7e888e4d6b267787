/**
 * The pods the benchmarks feed to clients: realistic running pods of about
 * 4.5 KB of JSON each (with managedFields, as a real apiserver sends them),
 * from the demo workload's object builders, in the shape the bench:compare
 * server holds. Bench-only.
 *
 * @module
 */

import type { Pod } from "../api/types.ts";
import { makePod, running, scheduled } from "../testing/demo_objects.ts";
import { Rng } from "../testing/rng.ts";

export { Rng };

/** Namespaces the bench pods are spread over (`bench-0` ...). */
export const BENCH_NAMESPACES = 20;

/**
 * Bench pod number `i`: created an hour before `nowMs`, running and ready,
 * in one of {@link BENCH_NAMESPACES} namespaces, 500 apps and 50 nodes, with
 * a name unique for every `i` (random suffixes could collide among 300k).
 * @param i the pod's number
 * @param rng the random source (the same seed gives the same pods)
 * @param nowMs the current time, in ms since the epoch
 */
export function benchPod(i: number, rng: Rng, nowMs: number): Pod {
  const app = `app-${i % 500}`;
  const hash = `${app}-5d8f9c7b6${i % 10}`;
  const pod = makePod({
    namespace: `bench-${i % BENCH_NAMESPACES}`,
    owner: hash,
    ownerKind: "ReplicaSet",
    ownerUid: "4b6f8a52-0c1d-4e2f-9a3b-5c6d7e8f9a0b",
    app,
    image: `registry.example/team/${app}:1.${i % 7}.0`,
    hash: "5d8f9c7b6" + (i % 10),
    createdMs: nowMs - 3_600_000,
    rng,
  });
  pod.metadata.name = `${hash}-${i.toString(36).padStart(5, "0")}`;
  return running(scheduled(pod, `node-${i % 50}`, nowMs - 3_500_000), {
    nowMs: nowMs - 3_400_000,
    ready: true,
    rng,
  });
}

/**
 * `count` bench pods with resourceVersions "1".."count".
 * @param count how many pods
 * @param nowMs the current time, in ms since the epoch
 */
export function benchPods(count: number, nowMs: number): Pod[] {
  const rng = new Rng(3);
  return Array.from({ length: count }, (_, i) => {
    const pod = benchPod(i, rng, nowMs);
    pod.metadata.resourceVersion = String(i + 1);
    return pod;
  });
}
