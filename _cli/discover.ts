/**
 * Discovery for the CLI: the resource types a server serves (`/api/v1` and
 * the preferred version of every group under `/apis`), as kubectl's
 * discovery client reads them.
 *
 * @module
 */

import type { ResourceType } from "../client/resources.ts";

/** What discovery needs of a client: `KubeClient.request` fits. */
export interface DiscoveryClient {
  /** One JSON GET of an absolute path. */
  request<R>(
    method: string,
    path: string,
    opts?: { signal?: AbortSignal },
  ): Promise<R>;
}

interface APIResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
}

interface APIGroupList {
  groups: {
    name: string;
    preferredVersion?: { version: string };
    versions: { version: string }[];
  }[];
}

/**
 * Every listable, watchable resource type the server serves: core v1 first,
 * then each group's preferred version in the server's order (kubectl's
 * priority). Subresources (`pods/log`) are left out.
 * @param client a client with `request`
 * @param signal aborts the requests
 * @throws {StatusError} when the server refuses discovery
 */
export async function discoverResourceTypes(
  client: DiscoveryClient,
  signal?: AbortSignal,
): Promise<ResourceType[]> {
  const [core, groups] = await Promise.all([
    client.request<{ resources: APIResource[] }>("GET", "/api/v1", { signal }),
    client.request<APIGroupList>("GET", "/apis", { signal }),
  ]);
  const lists = await Promise.all(groups.groups.map(async (g) => {
    const version = g.preferredVersion?.version ?? g.versions[0]?.version;
    const list = await client.request<{ resources: APIResource[] }>(
      "GET",
      `/apis/${g.name}/${version}`,
      { signal },
    );
    return toTypes(list.resources, g.name, version);
  }));
  return [...toTypes(core.resources, "", "v1"), ...lists.flat()];
}

function toTypes(
  resources: APIResource[],
  group: string,
  version: string,
): ResourceType[] {
  return resources
    .filter((r) => !r.name.includes("/"))
    .filter((r) =>
      !r.verbs || (r.verbs.includes("list") && r.verbs.includes("watch"))
    )
    .map((r) => ({
      group,
      version,
      resource: r.name,
      kind: r.kind,
      namespaced: r.namespaced,
      singular: r.singularName || r.kind.toLowerCase(),
      shortNames: r.shortNames ?? [],
    }));
}
