/**
 * Progress of the initial list on stderr ("Loading pods: 12,500 of
 * 100,000"), counted by wrapping the ListerWatcher the informer uses.
 *
 * @module
 */

import type { ListerWatcher } from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";

/** Counts listed objects and rewrites one status line while enabled. */
export class ListProgress {
  #write: (text: string) => void;
  #resource: string;
  #enabled: boolean;
  #loaded = 0;
  #shown = false;

  /**
   * Create a progress line.
   * @param resource plural name shown, e.g. `"pods"`
   * @param opts `write` raw text (no newline added); `enabled` false to stay silent
   */
  constructor(
    resource: string,
    opts: { write: (text: string) => void; enabled: boolean },
  ) {
    this.#resource = resource;
    this.#write = opts.write;
    this.#enabled = opts.enabled;
  }

  /** Objects counted so far in the current list. */
  get loaded(): number {
    return this.#loaded;
  }

  /**
   * Record one list page.
   * @param items objects in the page
   * @param opts `first` for the first page of a list, `remaining` the
   * server's remainingItemCount, `more` whether a continue token came back
   */
  page(
    items: number,
    opts: { first: boolean; remaining?: number; more: boolean },
  ): void {
    if (opts.first) this.#loaded = 0;
    this.#loaded += items;
    // A one-page list is over before anyone could read a progress line.
    if (!this.#enabled || (!opts.more && !this.#shown)) return;
    const total = opts.remaining !== undefined
      ? ` of ${fmt(this.#loaded + opts.remaining)}`
      : "";
    this.#write(
      `\r\x1b[2KLoading ${this.#resource}: ${fmt(this.#loaded)}${total}`,
    );
    this.#shown = true;
  }

  /** Erase the line (if shown) and stop reporting. */
  done(): void {
    if (this.#shown) this.#write("\r\x1b[2K");
    this.#shown = false;
    this.#enabled = false;
  }
}

function fmt(n: number): string {
  return n.toLocaleString("en-US");
}

/**
 * Wrap a ListerWatcher so every list page is counted by `progress`. A list
 * at resourceVersion "0" (which servers answer in one piece from their
 * cache) becomes a paginated quorum read, as `kubectl get` makes, so
 * progress can be shown page by page and the server streams in chunks.
 * @param lw the lister-watcher the informer would use
 * @param progress the counter
 */
export function withProgress<T extends KubeObject>(
  lw: ListerWatcher<T>,
  progress: ListProgress,
): ListerWatcher<T> {
  // The Reflector requests the next page while the current one is read, so
  // a short last page can arrive before a long one requested earlier:
  // pages are counted in the order they were requested.
  let counted: Promise<unknown> = Promise.resolve();
  return {
    description: lw.description,
    expectedType: lw.expectedType,
    list(opts, signal) {
      if (opts.resourceVersion === "0" && !opts.continue) {
        opts = { ...opts, resourceVersion: undefined };
      }
      const first = !opts.continue;
      const pending = lw.list(opts, signal);
      const turn = (first ? Promise.resolve() : counted)
        .then(() => pending)
        .then((page) => {
          progress.page(page.items.length, {
            first,
            remaining: page.metadata.remainingItemCount,
            more: Boolean(page.metadata.continue),
          });
          return page;
        });
      counted = turn.catch(() => {});
      return turn;
    },
    watch: (opts, signal) => lw.watch(opts, signal),
  };
}
