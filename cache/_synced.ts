// Internal: how an informer's sync state is watched, so waitForCacheSync
// (shared_informer.ts) wakes when it may have changed instead of polling. A
// `hasSynced` function handed out by an informer (its bound `hasSynced`, a
// registration's `hasSynced`) carries a SyncWatch under the SYNC_WATCH
// symbol; plain functions are still polled.

/** Where a watchable `hasSynced` function keeps its {@link SyncWatch}. */
export const SYNC_WATCH: unique symbol = Symbol("kubecache.syncWatch");

/** How to be told when a `hasSynced` function may give a new answer. */
export interface SyncWatch {
  /** Call `wake` on every possible change until the returned function is called. */
  subscribe(wake: () => void): () => void;
  /** True once the informer stopped: an unsynced function will stay so. */
  stopped(): boolean;
}

/** A `hasSynced` function, possibly watchable. */
export type SyncedFunc = (() => boolean) & { [SYNC_WATCH]?: SyncWatch };

/** The waiters of one informer; `notify` is cheap when nobody waits. */
export class SyncNotifier implements SyncWatch {
  #waiters = new Set<() => void>();
  #stopped: () => boolean;

  constructor(stopped: () => boolean) {
    this.#stopped = stopped;
  }

  /** Whether anyone waits (callers skip work otherwise). */
  get waiting(): boolean {
    return this.#waiters.size > 0;
  }

  subscribe(wake: () => void): () => void {
    this.#waiters.add(wake);
    return () => this.#waiters.delete(wake);
  }

  stopped(): boolean {
    return this.#stopped();
  }

  /** Wake every waiter (each re-checks its condition). */
  notify(): void {
    for (const wake of [...this.#waiters]) wake();
  }

  /** Mark `fn` as watched by this notifier and return it. */
  watch<F extends () => boolean>(fn: F): F {
    (fn as SyncedFunc)[SYNC_WATCH] = this;
    return fn;
  }
}
