/**
 * A {@link ListerWatcher} that follows a {@link ShardMembership}: every
 * list and watch carries the shard selector of the ranges the member owns
 * at that moment, and a change of ownership ends the watch with a 410
 * Expired ERROR event, so the Reflector relists with the new selector: the
 * objects of ranges gained are added, those of ranges lost are removed.
 *
 * @module
 */

import type {
  ListerWatcher,
  ListOptions,
  ObjectList,
  WatchEvent,
} from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import type { ShardField } from "../api/shard_selector.ts";
import type { ShardMembership } from "./sharding.ts";

/** The ERROR event that makes a Reflector relist (as a compacted watch does). */
const RESHARD: WatchEvent<never> = {
  type: "ERROR",
  object: {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    code: 410,
    reason: "Expired",
    message: "the owned shard ranges changed",
  },
};

/**
 * Make a ListerWatcher of the objects in the ranges `membership` owns
 * (server-side sharded where the server supports it, filtered by `lw`
 * otherwise: `lw` must honour a per-call `shardSelector`, as `listWatch`
 * does). While the member owns nothing, a list is empty and a watch sends
 * nothing until it owns something.
 *
 * @typeParam T the object type
 * @param lw lists and watches the type (e.g. `listWatch(client, type)`)
 * @param membership whose owned ranges to follow
 * @param field the hashed field (default the uid)
 * @returns the following ListerWatcher
 *
 * @example Cache the objects of the owned ranges
 * ```ts
 * import { shardedListWatch, ShardMembership } from "@kubecache/core/controller";
 * import { ConfigMaps, KubeClient, KubeConfig, listWatch } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: "http://127.0.0.1:1" }));
 * const membership = new ShardMembership(client, { name: "demo", namespace: "default", identity: "a" });
 * const lw = shardedListWatch(listWatch(client, ConfigMaps), membership);
 * // Owning nothing yet: an empty list, no request.
 * assert.deepEqual((await lw.list({})).items, []);
 * ```
 */
export function shardedListWatch<T extends KubeObject>(
  lw: ListerWatcher<T>,
  membership: ShardMembership,
  field: ShardField = "object.metadata.uid",
): ListerWatcher<T> {
  let version = 0;
  let listedVersion = -1;
  let lastRV = "";
  const waiters = new Set<() => void>();
  membership.subscribe(() => {
    version++;
    for (const w of [...waiters]) w();
  });
  const changed = (since: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      if (version !== since || signal?.aborted) return resolve();
      const done = () => {
        waiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  return {
    description: `${lw.description ?? "objects"} (sharded)`,
    expectedType: lw.expectedType,
    async list(opts: ListOptions, signal?: AbortSignal) {
      const v = version;
      const selector = membership.selector(field);
      let page: ObjectList<T>;
      if (selector === undefined) {
        page = { metadata: { resourceVersion: lastRV }, items: [] };
      } else {
        page = await lw.list({ ...opts, shardSelector: selector }, signal);
        lastRV = page.metadata.resourceVersion ?? lastRV;
      }
      if (!opts.continue) listedVersion = v;
      return page;
    },
    async watch(opts: ListOptions, signal?: AbortSignal) {
      const v = listedVersion;
      const selector = membership.selector(field);
      if (version !== v) return oneEvent(RESHARD as WatchEvent<T>);
      if (selector === undefined) {
        return (async function* () {
          await changed(v, signal);
          if (!signal?.aborted) yield RESHARD as WatchEvent<T>;
        })();
      }
      const inner = await lw.watch(
        { ...opts, shardSelector: selector },
        signal,
      );
      const it = inner[Symbol.asyncIterator]();
      const stop = new AbortController();
      const reshard = changed(
        v,
        AbortSignal.any(
          signal ? [signal, stop.signal] : [stop.signal],
        ),
      ).then(() => "reshard" as const);
      return (async function* () {
        try {
          for (;;) {
            const next = it.next();
            const r = await Promise.race([next, reshard]);
            if (r === "reshard") {
              next.catch(() => {}); // abandoned: its request is aborted below
              if (!signal?.aborted && version !== v) {
                yield RESHARD as WatchEvent<T>;
              }
              return;
            }
            if (r.done) return;
            const rv = (r.value.object as KubeObject)?.metadata
              ?.resourceVersion;
            if (rv && r.value.type !== "ERROR") lastRV = rv;
            yield r.value;
          }
        } finally {
          stop.abort();
          Promise.resolve(it.return?.()).catch(() => {});
        }
      })();
    },
  };
}

function oneEvent<T>(ev: WatchEvent<T>): AsyncIterable<WatchEvent<T>> {
  return (async function* () {
    yield ev;
  })();
}
