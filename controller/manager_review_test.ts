// Run-time failures a review found: what run() does when an informer
// stops for good after the caches synced.

import assert from "node:assert/strict";
import { ConfigMaps } from "../api/resources.ts";
import { MUTATION_DETECTOR_ENV } from "../cache/mutation_detector.ts";
import { Manager } from "./manager.ts";
import { TestCluster } from "./_test_util.ts";

Deno.test("Manager: an informer that stops on a fatal error after the caches synced rejects run() with that error", async () => {
  await using c = await TestCluster.start();
  c.server.create(ConfigMaps, {
    metadata: { name: "a", namespace: "default" },
    data: { k: "v" },
  });
  const before = Deno.env.get(MUTATION_DETECTOR_ENV);
  Deno.env.set(MUTATION_DETECTOR_ENV, "true");
  try {
    await using manager = new Manager(c.client(), { clock: c.clock });
    let reconciled = false;
    manager.controller("cm", ConfigMaps).complete(() => {
      // A bug of the user's: the cached object is changed in place.
      const cm = manager.factory.lister(ConfigMaps).namespaced("default")
        .get("a") as unknown as { data: Record<string, string> };
      cm.data.k = "changed";
      reconciled = true;
    });
    const ctrl = new AbortController();
    let settled: { error?: unknown } | undefined;
    const done = manager.run(ctrl.signal).then(
      () => (settled = {}),
      (error) => (settled = { error }),
    );
    await c.until(() => reconciled, "the reconcile");
    await c.until(() => settled !== undefined, "run() to settle", {
      maxMs: 60_000,
    }).catch(() => {});
    const result = settled;
    ctrl.abort();
    await c.until(() => settled !== undefined, "run() to settle after abort", {
      maxMs: 120_000,
    });
    await done;
    assert.ok(result?.error, "run() went on after its cache stopped for good");
    assert.match(String(result.error), /mutat/i);
  } finally {
    if (before === undefined) Deno.env.delete(MUTATION_DETECTOR_ENV);
    else Deno.env.set(MUTATION_DETECTOR_ENV, before);
  }
});
