/**
 * API discovery and kubectl-style resource names: {@link Discovery} reads
 * `/api`, `/apis` and each group's preferred version (client-go
 * `discovery.DiscoveryClient`), and {@link resolveResourceName} maps a name
 * as kubectl accepts it — plural, singular, short name, kind, with an
 * optional `.group` or `.version.group` — to a {@link ResourceType}
 * (client-go `restmapper` + the shortcut expander).
 *
 * @module
 */

import type { ResourceType } from "../api/resources.ts";
import { type APIResource, resourceTypesOf } from "./_api_resources.ts";

/**
 * What {@link Discovery} needs of a client: `KubeClient` fits.
 *
 * @example Discovery over a test double
 * ```ts
 * import { Discovery, type DiscoveryClient } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * const docs: Record<string, unknown> = {
 *   "/api": { versions: ["v1"] },
 *   "/api/v1": { resources: [{ name: "pods", singularName: "pod", namespaced: true, kind: "Pod", verbs: ["list", "watch"], shortNames: ["po"] }] },
 *   "/apis": { groups: [] },
 * };
 * const client: DiscoveryClient = { request: <R>(_m: string, path: string) => Promise.resolve(docs[path] as R) };
 * assert.equal((await new Discovery(client).resolve("po")).resource, "pods");
 * ```
 */
export interface DiscoveryClient {
  /** Make one JSON GET request to a path and decode the answer. */
  request<R>(
    method: string,
    path: string,
    opts?: { signal?: AbortSignal },
  ): Promise<R>;
}

/**
 * A name that no discovered resource type answers to.
 *
 * @example A resource name the server does not serve
 * ```ts
 * import { Discovery, KubeClient, KubeConfig, UnknownResourceError } from "@kubecache/core/client";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const discovery = new Discovery(client);
 * assert.equal((await discovery.resolve("cm")).resource, "configmaps");
 * await assert.rejects(discovery.resolve("widgets"), (err) => {
 *   assert.ok(err instanceof UnknownResourceError);
 *   assert.equal(err.resourceName, "widgets");
 *   return true;
 * });
 * ```
 */
export class UnknownResourceError extends Error {
  /** The name asked for. */
  readonly resourceName: string;

  /**
   * Create the error.
   * @param name the name asked for
   */
  constructor(name: string) {
    super(
      `Cannot resolve resource type "${name}": the server does not have it`,
    );
    this.name = "UnknownResourceError";
    this.resourceName = name;
  }
}

interface APIGroup {
  name: string;
  versions: { groupVersion: string; version: string }[];
  preferredVersion?: { groupVersion: string; version: string };
}

const VERSION = /^v\d+((alpha|beta)\d+)?$/;

/**
 * Resolve a kubectl-style resource name against a list of types, in
 * kubectl's precedence: `resource`, `resource.group` or
 * `resource.version.group`, where `resource` is matched (case-insensitively)
 * against the plural, then the singular, then short names, then the kind.
 * Ties go to the type listed first (discovery order: core first).
 *
 * @param name e.g. `"po"`, `"deployments.apps"`, `"deploy.v1.apps"`, `"widgets.example.com"`
 * @param types the candidates (e.g. from {@link Discovery.resources})
 * @returns the type, or undefined when none matches
 *
 * @example
 * ```ts
 * import {
 *   resolveResourceName,
 *   BUILTIN_RESOURCE_TYPES,
 * } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 * assert.equal(resolveResourceName("po", BUILTIN_RESOURCE_TYPES)?.resource, "pods");
 * assert.equal(resolveResourceName("deploy.apps", BUILTIN_RESOURCE_TYPES)?.kind, "Deployment");
 * ```
 */
export function resolveResourceName(
  name: string,
  types: readonly ResourceType[],
): ResourceType | undefined {
  const wanted = name.trim().toLowerCase();
  if (wanted === "") return undefined;
  // The whole name first: a resource called "a.b" wins over resource "a" in group "b".
  const candidates: { resource: string; group?: string; version?: string }[] = [
    { resource: wanted },
  ];
  const dot = wanted.indexOf(".");
  if (dot > 0) {
    const resource = wanted.slice(0, dot);
    const rest = wanted.slice(dot + 1);
    const dot2 = rest.indexOf(".");
    if (dot2 > 0 && VERSION.test(rest.slice(0, dot2))) {
      candidates.push({
        resource,
        version: rest.slice(0, dot2),
        group: rest.slice(dot2 + 1),
      });
    }
    candidates.push({ resource, group: rest });
  }
  for (const c of candidates) {
    let best: ResourceType | undefined;
    let bestRank = Infinity;
    for (const t of types) {
      if (c.group !== undefined && t.group !== c.group) continue;
      if (c.version !== undefined && t.version !== c.version) continue;
      const rank = matchRank(t, c.resource);
      if (rank < bestRank) {
        best = t;
        bestRank = rank;
      }
    }
    if (best) return best;
  }
  return undefined;
}

function matchRank(t: ResourceType, name: string): number {
  if (t.resource === name) return 0;
  if ((t.singular ?? t.kind.toLowerCase()) === name) return 1;
  if (t.shortNames?.includes(name)) return 2;
  if (t.kind.toLowerCase() === name) return 3;
  return Infinity;
}

/**
 * The server's resource types, read once and cached (client-go
 * `discovery.DiscoveryClient` + `memory.NewMemCacheClient`): every
 * top-level resource (no subresources) of the core group and of each
 * group's preferred version. A group whose discovery fails (e.g. an
 * unavailable aggregated API) is left out, as kubectl does.
 *
 * @example Resolve a short name as kubectl does
 * ```ts
 * import { Discovery, KubeClient, KubeConfig } from "@kubecache/core/client";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * // A FakeApiServer stands in for a cluster; for a real one, build the
 * // client from `await KubeConfig.load()`.
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 *
 * const discovery = new Discovery(client);
 * const type = await discovery.resolve("deploy");
 * assert.deepEqual([type.group, type.version, type.resource], ["apps", "v1", "deployments"]);
 * const list = await client.list(type);
 * assert.deepEqual(list.items, []);
 * ```
 */
export class Discovery {
  #client: DiscoveryClient;
  #cache: Promise<ResourceType[]> | undefined;
  #extra = new Map<string, Promise<ResourceType[]>>();

  /**
   * Create a discovery reader.
   * @param client what makes the requests (a `KubeClient`)
   */
  constructor(client: DiscoveryClient) {
    this.#client = client;
  }

  /**
   * Every resource type the server serves at preferred versions, core first.
   * @param signal aborts the discovery requests
   * @returns the types (cached after the first successful call)
   * @throws {StatusError} when `/api` or `/apis` cannot be read
   */
  resources(signal?: AbortSignal): Promise<ResourceType[]> {
    this.#cache ??= this.#discover(signal).catch((err) => {
      this.#cache = undefined; // do not cache a failure
      throw err;
    });
    return this.#cache;
  }

  /**
   * Resolve a kubectl-style name (see {@link resolveResourceName}); a
   * `resource.version.group` name also looks at that version when it is not
   * the preferred one.
   * @param name e.g. `"po"`, `"deployments.apps"`, `"cronjobs.v1.batch"`
   * @param signal aborts the discovery requests
   * @returns the resource type
   * @throws {UnknownResourceError} when nothing matches
   */
  async resolve(name: string, signal?: AbortSignal): Promise<ResourceType> {
    const found = resolveResourceName(name, await this.resources(signal));
    if (found) return found;
    const parts = name.toLowerCase().split(".");
    if (parts.length >= 3 && VERSION.test(parts[1])) {
      const gv = `${parts.slice(2).join(".")}/${parts[1]}`;
      const types = await this.#groupVersion(gv, signal).catch(() => []);
      const t = resolveResourceName(name, types);
      if (t) return t;
    }
    throw new UnknownResourceError(name);
  }

  /** Forget the cached discovery (e.g. after installing a CRD). */
  invalidate(): void {
    this.#cache = undefined;
    this.#extra.clear();
  }

  async #discover(signal?: AbortSignal): Promise<ResourceType[]> {
    const opts = { signal };
    const [core, groups] = await Promise.all([
      this.#client.request<{ versions: string[] }>("GET", "/api", opts),
      this.#client.request<{ groups: APIGroup[] }>("GET", "/apis", opts),
    ]);
    const gvs = [
      ...(core.versions ?? []),
      ...(groups.groups ?? []).map((g) =>
        g.preferredVersion?.groupVersion ?? g.versions[0]?.groupVersion
      ).filter((gv): gv is string => gv !== undefined),
    ];
    const lists = await Promise.all(
      gvs.map((gv, i) =>
        // The core group must answer; an aggregated group may be down.
        i < (core.versions ?? []).length
          ? this.#groupVersion(gv, signal)
          : this.#groupVersion(gv, signal).catch(() => [])
      ),
    );
    return lists.flat();
  }

  #groupVersion(gv: string, signal?: AbortSignal): Promise<ResourceType[]> {
    let p = this.#extra.get(gv);
    if (!p) {
      const path = gv.includes("/") ? `/apis/${gv}` : `/api/${gv}`;
      p = this.#client.request<{ resources: APIResource[] }>("GET", path, {
        signal,
      }).then((list) => resourceTypesOf(gv, list.resources ?? []));
      p.catch(() => this.#extra.delete(gv));
      this.#extra.set(gv, p);
    }
    return p;
  }
}
