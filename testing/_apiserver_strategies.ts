/**
 * The map of strategies: which {@link ResourceStrategy} serves which
 * `group/resource`. Adding a kind's rules means adding its entry to one
 * family file. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { ResourceType } from "../api/resources.ts";
import { APPS } from "./_apiserver_strategy_apps.ts";
import { CORE } from "./_apiserver_strategy_core.ts";
import { CRDS } from "./_apiserver_strategy_crd.ts";
import type { ResourceStrategy } from "./_apiserver_types.ts";

const BY_KEY = new Map<string, ResourceStrategy>([
  ...Object.entries(CORE).map(([r, s]) => [`/${r}`, s] as const),
  ...Object.entries(APPS),
  ["apiextensions.k8s.io/customresourcedefinitions", CRDS],
]);

// Kinds without their own strategy. Outside the core group objects track
// metadata.generation, as custom resources and most built-in APIs do.
const PLAIN: ResourceStrategy = {};
const PLAIN_WITH_GENERATION: ResourceStrategy = { generation: true };

/** The strategy of a resource type (a plain one when none is registered). */
export function strategyFor(type: ResourceType): ResourceStrategy {
  return BY_KEY.get(`${type.group}/${type.resource}`) ??
    (type.group === "" ? PLAIN : PLAIN_WITH_GENERATION);
}
