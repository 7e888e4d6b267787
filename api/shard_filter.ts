/**
 * A {@link ListerWatcher} that sends a shard selector and returns the same
 * objects whether or not the server applied it: a list page whose
 * `metadata.shardInfo.selector` echoes the selector was filtered by the
 * server and is passed on as is; any other page (a server without the
 * `ShardedListAndWatch` gate ignores the parameter) is filtered here with
 * the server's hash and range test. Watch events are always tested (a
 * server that filtered sends only matches, so the test keeps them all):
 * kube-apiserver echoes nothing on a watch, and behind a load balancer a
 * watch may reach another apiserver than the list did.
 *
 * @module
 */

import type {
  BatchWatchIterator,
  ListerWatcher,
  ListMeta,
  ListOptions,
  ObjectList,
  WatchEvent,
} from "./listwatch.ts";
import { hasNextBatch } from "./listwatch.ts";
import type { KubeObject } from "./object.ts";
import { newShardMatcher, type ShardMatcher } from "./shard_selector.ts";

/** Counts of what a shard-filtered ListerWatcher saw. */
export interface ShardFilterStats {
  /** List pages the server filtered (their shardInfo echoed the selector). */
  serverFilteredPages: number;
  /** List pages filtered here (no or another shardInfo). */
  clientFilteredPages: number;
  /** Objects (list items and watch events) dropped here as outside the shard. */
  dropped: number;
}

/**
 * Whether a list's metadata says the server applied `matcher`'s selector:
 * its `shardInfo.selector` parses to the same ranges.
 *
 * @param meta a list's metadata
 * @param matcher the selector sent
 * @returns true when the server filtered the list
 */
export function serverApplied(
  meta: ListMeta | undefined,
  matcher: ShardMatcher,
): boolean {
  const echoed = meta?.shardInfo?.selector;
  if (typeof echoed !== "string") return false;
  if (echoed === matcher.canonical) return true;
  try {
    return newShardMatcher(echoed).canonical === matcher.canonical;
  } catch {
    return false;
  }
}

/**
 * Wrap `lw` so every list and watch carries a shard selector and yields only
 * the objects in the shard, on any server version. The selector is
 * `selector` when given, else each call's `opts.shardSelector` (none: the
 * call passes through untouched). The test reads the objects `lw` returns,
 * so a transform inside `lw` must keep `metadata.uid` and
 * `metadata.namespace`.
 *
 * @param lw the ListerWatcher to filter
 * @param selector the shard selector of every call, if fixed
 * @param stats counts to update, if wanted
 * @returns the filtered ListerWatcher (same description and expected type)
 * @throws {ShardSelectorError} when `selector` does not parse
 */
export function shardFilteredListWatch<T extends KubeObject>(
  lw: ListerWatcher<T>,
  selector?: string,
  stats?: ShardFilterStats,
): ListerWatcher<T> {
  const fixed = selector === undefined ? undefined : newShardMatcher(selector);
  const compiled = new Map<string, ShardMatcher>();
  const matcherOf = (opts: ListOptions): ShardMatcher | undefined => {
    if (fixed !== undefined) return fixed;
    const sel = opts.shardSelector;
    if (!sel) return undefined;
    let m = compiled.get(sel);
    if (m === undefined) {
      if (compiled.size >= 8) compiled.clear();
      m = newShardMatcher(sel);
      compiled.set(sel, m);
    }
    return m;
  };
  return {
    description: lw.description,
    expectedType: lw.expectedType,
    async list(opts, signal): Promise<ObjectList<T>> {
      const m = matcherOf(opts);
      if (m === undefined) return lw.list(opts, signal);
      const page = await lw.list(
        { ...opts, shardSelector: m.canonical },
        signal,
      );
      if (serverApplied(page.metadata, m)) {
        if (stats) stats.serverFilteredPages++;
        return page;
      }
      const items = page.items.filter((o) => m.matches(o));
      if (stats) {
        stats.clientFilteredPages++;
        stats.dropped += page.items.length - items.length;
      }
      return { ...page, items };
    },
    async watch(opts, signal): Promise<AsyncIterable<WatchEvent<T>>> {
      const m = matcherOf(opts);
      if (m === undefined) return lw.watch(opts, signal);
      const events = await lw.watch(
        { ...opts, shardSelector: m.canonical },
        signal,
      );
      const it = new ShardWatch(events[Symbol.asyncIterator](), m, stats);
      if (hasNextBatch(it.source)) return it;
      const plain: AsyncIterableIterator<WatchEvent<T>> = {
        next: () => it.next(),
        return: () => it.return(),
        [Symbol.asyncIterator]: () => plain,
      };
      return plain;
    },
  };
}

/** The events of a watch in the shard; BOOKMARK and ERROR always pass. */
class ShardWatch<T extends KubeObject>
  implements AsyncIterableIterator<WatchEvent<T>> {
  constructor(
    readonly source: AsyncIterator<WatchEvent<T>>,
    readonly matcher: ShardMatcher,
    readonly stats: ShardFilterStats | undefined,
  ) {}

  #keep(ev: WatchEvent<T>): boolean {
    if (ev.type === "BOOKMARK" || ev.type === "ERROR") return true;
    if (this.matcher.matches(ev.object)) return true;
    if (this.stats) this.stats.dropped++;
    return false;
  }

  async next(): Promise<IteratorResult<WatchEvent<T>>> {
    for (;;) {
      const r = await this.source.next();
      if (r.done || this.#keep(r.value)) return r;
    }
  }

  async nextBatch(): Promise<IteratorResult<WatchEvent<T>[], void>> {
    // Never an empty batch: a chunk with nothing in the shard reads on.
    for (;;) {
      const r = await (this.source as BatchWatchIterator<T>).nextBatch();
      if (r.done) return r;
      const kept = r.value.filter((ev) => this.#keep(ev));
      if (kept.length > 0) return { done: false, value: kept };
    }
  }

  async return(): Promise<IteratorResult<WatchEvent<T>>> {
    await this.source.return?.();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
