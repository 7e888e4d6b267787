/**
 * The list side of the Reflector: the paged list (client-go `tools/pager`,
 * with the next page requested while the current one still arrives), the
 * action of an `Empty` state (a list into the store), and the watch-list
 * (client-go `watchList`). Internal module; `reflector.ts` uses it.
 *
 * @module
 */

import { isBadRequest, isExpired, isInvalid } from "../api/errors.ts";
import {
  classify,
  type EmptyState,
  listRequest,
  type ReflectorInput,
} from "./_reflector_state.ts";
import type { Clock } from "../api/clock.ts";
import {
  closeWatch,
  type OpenWatch,
  openWatch,
  ScratchStore,
} from "./_reflector_watch.ts";
import type {
  ListerWatcher,
  ListOptions,
  ObjectList,
} from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import type { ReflectorStore } from "./store.ts";
import { KeyError } from "./keys.ts";

/** Page size when the caller sets none and paging applies (client-go `pager.defaultPageSize`). */
const DEFAULT_PAGE_SIZE = 500;

/** A complete list: its items, its RV, and whether it came in pages. */
export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
  paginated: boolean;
}

/** One page request, and the request of the page after it once started. */
interface PageRequest<T> {
  opts: ListOptions;
  page: Promise<ObjectList<T>>;
  /** The next page's continue token, once this page's head told it. */
  token?: string;
  /** The next page, requested before this one was complete. */
  ahead?: PageRequest<T>;
}

/**
 * Issues the page requests of one paged list. The API server writes a
 * list's metadata before its items, so a ListerWatcher that honours
 * `onListMeta` (KubeClient does) tells the continue token while the page is
 * still arriving: the next page is requested then, and travels (and is
 * produced by the server) while this one is read and decoded. At most one
 * page is requested ahead, and only for the page being read, so the pager
 * never runs further ahead than that. A ListerWatcher that ignores the hook
 * is paged one request at a time, as before.
 */
class Pager<T extends KubeObject> {
  #lw: ListerWatcher<T>;
  #limit: number | undefined;
  #signal: AbortSignal;
  /** Aborts a page requested ahead that the list does not use. */
  #done = new AbortController();
  #current: PageRequest<T> | undefined;

  constructor(
    lw: ListerWatcher<T>,
    limit: number | undefined,
    signal: AbortSignal,
  ) {
    this.#lw = lw;
    this.#limit = limit;
    this.#signal = AbortSignal.any([signal, this.#done.signal]);
  }

  /** Request the first page. */
  first(opts: ListOptions): PageRequest<T> {
    return this.#current = this.#request(opts);
  }

  /** The page after `prev` (continue token `token`): the one requested ahead, or a new request. */
  next(prev: PageRequest<T>, token: string): PageRequest<T> {
    const ahead = prev.ahead;
    const req = ahead !== undefined && prev.token === token
      ? ahead
      : this.#request(this.#continueOpts(token));
    this.#current = req;
    // Its head may have arrived while the previous page was being read.
    this.#requestAhead(req);
    return req;
  }

  /** Abandon any page requested ahead and not used. */
  close(): void {
    this.#done.abort();
  }

  #request(opts: ListOptions): PageRequest<T> {
    const req: PageRequest<T> = { opts, page: undefined! };
    // The hook rides in the options, so a wrapper forwarding them keeps it.
    req.page = this.#lw.list({
      ...opts,
      onListMeta: (meta) => {
        req.token = meta.continue;
        if (req === this.#current) this.#requestAhead(req);
      },
    }, this.#signal);
    // A page requested ahead may fail before it is awaited (or never be):
    // its awaiter still sees the rejection.
    req.page.catch(() => {});
    return req;
  }

  #requestAhead(req: PageRequest<T>): void {
    if (!req.token || req.ahead !== undefined || this.#signal.aborted) return;
    req.ahead = this.#request(this.#continueOpts(req.token));
  }

  /** Continue pages carry the token, the limit, and no resourceVersion. */
  #continueOpts(token: string): ListOptions {
    const opts: ListOptions = { continue: token };
    if (this.#limit !== undefined) opts.limit = this.#limit;
    return opts;
  }
}

/**
 * client-go `pager.List` with `FullListIfExpired`, and the Reflector's page
 * size rule: `pageSize` when set; else 500 at RV "0" / "", and unpaged at
 * an exact RV (so the watch cache can serve it) unless `keepPaging`. Every
 * page request carries the limit; see {@link Pager} for the page requested
 * ahead.
 */
export async function listPages<T extends KubeObject>(
  lw: ListerWatcher<T>,
  rv: string,
  paging: { pageSize: number; keepPaging: boolean },
  signal: AbortSignal,
): Promise<ListResult<T>> {
  let limit: number | undefined = DEFAULT_PAGE_SIZE;
  if (paging.pageSize > 0) limit = paging.pageSize;
  else if (!paging.keepPaging && rv !== "" && rv !== "0") limit = undefined;
  const opts: ListOptions = { resourceVersion: rv };
  if (limit !== undefined) opts.limit = limit;
  const items: T[] = [];
  let listRV: string | undefined;
  let paginated = false;
  const pager = new Pager(lw, limit, signal);
  try {
    let req = pager.first(opts);
    for (;;) {
      let page;
      try {
        page = await req.page;
      } catch (err) {
        if (!req.opts.continue || !isExpired(err)) throw err;
        // The continue token expired mid-list: one full list at the
        // requested RV (client-go pager's FullListIfExpired).
        pager.close();
        const full = await lw.list({ resourceVersion: rv }, signal);
        return {
          items: full.items,
          resourceVersion: full.metadata.resourceVersion ?? "",
          paginated,
        };
      }
      listRV ??= page.metadata.resourceVersion ?? "";
      const token = page.metadata.continue;
      // The next page first: it travels while this one's items are copied.
      if (token) req = pager.next(req, token);
      for (const item of page.items) items.push(item);
      if (!token) break;
      paginated = true;
    }
  } finally {
    pager.close();
  }
  return { items, resourceVersion: listRV, paginated };
}

/** How one pass over a watch ended, as the watch-list needs it. */
export interface InitialEventsOutcome {
  end: "clean" | "broken" | "stalled" | "error" | "initialEnd";
  events: number;
  error?: unknown;
}

/** What the list action needs from the Reflector. */
export interface ListContext<T extends KubeObject> {
  lw: ListerWatcher<T>;
  store: ReflectorStore<T>;
  clock: Clock;
  pageSize: number;
  useWatchList: boolean;
  /** A list or watch-list was stored (counted as a sync). */
  onListed(): void;
  /** A watch-list's watch was opened (counted as a watch). */
  onWatchOpened(): void;
  /** Report an error that does not fail the list (an item dropped). */
  report(error: unknown): void;
  /**
   * Apply a watch-list's events to `into` until its end bookmark (the
   * Reflector's watch loop), moving `target.rv`.
   */
  consumeInitialEvents(
    w: OpenWatch<T>,
    into: ScratchStore<T>,
    signal: AbortSignal,
    target: { rv: string; holdRV: boolean },
  ): Promise<InitialEventsOutcome>;
}

/** The outcome of a list action: the input for the state machine, and the watch-list's open watch. */
export interface ListActionResult<T> {
  input: ReflectorInput;
  watch?: OpenWatch<T>;
}

/**
 * The action of an `Empty` state: the list (or watch-list) the state asks
 * for ({@link listRequest}), into the store. What it learns of the server
 * goes back in the input, for the state to keep.
 */
export async function listAction<T extends KubeObject>(
  ctx: ListContext<T>,
  s: EmptyState,
  signal: AbortSignal,
): Promise<ListActionResult<T>> {
  const request = listRequest(s, ctx.useWatchList);
  if (request.watchList) return await watchList(ctx, request.rv, signal);
  let result: ListResult<T>;
  try {
    result = await listPages(ctx.lw, request.rv, {
      pageSize: ctx.pageSize,
      keepPaging: request.keepPaging,
    }, signal);
  } catch (error) {
    return { input: { type: "listFailed", kind: classify(error), error } };
  }
  if (signal.aborted) return { input: { type: "aborted" } };
  try {
    replaceKeyable(ctx, result.items, result.resourceVersion);
  } catch (error) {
    return { input: { type: "listFailed", kind: "status", error } };
  }
  ctx.onListed();
  return {
    input: {
      type: "listed",
      rv: result.resourceVersion,
      paged: result.paginated,
    },
  };
}

/** KeyErrors reported one by one per list; the rest are counted in one more. */
const REPORTED_KEY_ERRORS = 10;

/**
 * `store.replace(items)`, but a list item that cannot be keyed (a name that
 * is not a non-empty string) is dropped and reported, as a watch event's
 * is, instead of failing the whole list: a relist would get it again, so
 * one bad object would keep the informer from ever syncing. The keys are
 * checked only after `replace` refused the list (a store with `keyOf`,
 * such as a DeltaFIFO or a Store), so a good list costs nothing more.
 */
function replaceKeyable<T extends KubeObject>(
  ctx: ListContext<T>,
  items: T[],
  rv: string,
): void {
  const store = ctx.store;
  try {
    store.replace(items, rv);
    return;
  } catch (error) {
    const keyOf = (store as { keyOf?: (obj: T) => string }).keyOf;
    if (!(error instanceof KeyError) || typeof keyOf !== "function") {
      throw error;
    }
  }
  const kept: T[] = [];
  let dropped = 0;
  for (const item of items) {
    try {
      (store as unknown as { keyOf: (obj: T) => string }).keyOf(item);
      kept.push(item);
    } catch (error) {
      if (!(error instanceof KeyError)) throw error;
      if (++dropped <= REPORTED_KEY_ERRORS) ctx.report(error);
    }
  }
  if (dropped > REPORTED_KEY_ERRORS) {
    ctx.report(
      new KeyError(
        `Cannot compute key: ${
          dropped - REPORTED_KEY_ERRORS
        } more list items dropped`,
        undefined,
      ),
    );
  }
  store.replace(kept, rv);
}

/**
 * client-go `watchList`: stream the state as ADDED events into a scratch
 * store until the end-of-initial-events bookmark, then `replace`; the
 * watch stays open for `Watching`. A server that rejects or ignores it
 * makes the cycle fall back to list+watch.
 */
async function watchList<T extends KubeObject>(
  ctx: ListContext<T>,
  rv: string,
  signal: AbortSignal,
): Promise<ListActionResult<T>> {
  const scratch = new ScratchStore<T>();
  let w: OpenWatch<T>;
  try {
    w = await openWatch(ctx.lw, ctx.clock, {
      resourceVersion: rv,
      resourceVersionMatch: "NotOlderThan",
      sendInitialEvents: true,
    }, signal);
    ctx.onWatchOpened();
  } catch (error) {
    if (isInvalid(error) || isBadRequest(error)) {
      // A server before watch-list (1.24 answers 422): never ask again.
      return { input: { type: "fallBackToList", unsupported: true } };
    }
    const kind = classify(error);
    if (kind === "status") {
      return { input: { type: "fallBackToList", error } };
    }
    return { input: { type: "listFailed", kind, error, watchList: true } };
  }
  const target = { rv: "", holdRV: false };
  const out = await ctx.consumeInitialEvents(w, scratch, signal, target);
  if (signal.aborted) return { input: { type: "aborted" }, watch: w };
  if (out.end === "initialEnd") {
    try {
      replaceKeyable(ctx, scratch.list(), target.rv);
    } catch (error) {
      closeWatch(w);
      return { input: { type: "listFailed", kind: "status", error } };
    }
    ctx.onListed();
    return {
      input: { type: "listed", rv: target.rv, watching: true },
      watch: w,
    };
  }
  closeWatch(w);
  if (out.end === "error" || out.end === "broken") {
    const kind = classify(out.error);
    if (kind === "status") {
      return { input: { type: "fallBackToList", error: out.error } };
    }
    return {
      input: { type: "listFailed", kind, error: out.error, watchList: true },
    };
  }
  // The stream sent objects but no end bookmark before going quiet or
  // ending: the server ignores sendInitialEvents, so use list+watch from
  // now on. An empty stream closed early may just be a dropped
  // connection: fall back for this cycle only.
  const unsupported = out.end === "stalled" || out.events > 0;
  return { input: { type: "fallBackToList", unsupported } };
}
