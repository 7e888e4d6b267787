// Internal: the resources of a metav1.APIResourceList as ResourceTypes, for
// Discovery and for the test that resolves names over the recorded
// discovery documents of a real apiserver.

import { type ResourceType, resourceType } from "../api/resources.ts";

/** One entry of a metav1.APIResourceList (the fields Discovery reads). */
export interface APIResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
}

/** `groupVersion`'s resources as ResourceTypes; subresources ("pods/log") are left out. */
export function resourceTypesOf(
  groupVersion: string,
  resources: APIResource[],
): ResourceType[] {
  return resources
    .filter((r) => !r.name.includes("/"))
    .map((r) =>
      resourceType({
        apiVersion: groupVersion,
        kind: r.kind,
        resource: r.name,
        namespaced: r.namespaced,
        singular: r.singularName || undefined,
        shortNames: r.shortNames ?? [],
      })
    );
}
