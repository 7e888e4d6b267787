/**
 * The Reflector's list/watch cycle as a pure state machine, in the manner of
 * kube-rs `watcher.rs` (a private `State` and one `step` function), with
 * client-go `reflector.go`'s rules (`relistResourceVersion`,
 * `isLastSyncResourceVersionUnavailable`, `isWatchErrorRetriable`, the very
 * short watch, `paginatedResult`, the watch-list fallback).
 * `reflector.ts` performs the action each state asks for (a list, a watch,
 * a sleep), tells what happened as a {@link ReflectorInput} (a failure
 * sorted by {@link classify}) and asks {@link step} for the next state.
 * Every rule about where a failure sends the cycle, which resourceVersion
 * it resumes from, how the next list is asked for ({@link listRequest}) and
 * when an outage is over lives here and nowhere else. The state carries
 * what the cycle learnt about the server ({@link ServerFacts}), so it is
 * the one input of every list and watch decision.
 *
 * Internal module: not exported from `mod.ts`.
 *
 * @module
 */

import {
  isExpired,
  isTooLargeResourceVersion,
  isTooManyRequests,
  StatusError,
} from "../api/errors.ts";

/** A watch that ends with no event sooner than this is a "very short watch". */
export const VERY_SHORT_WATCH_MS = 1_000;

/**
 * How a failed request or stream is classified ({@link classify}):
 * - `expired`: 410 Expired/Gone, or 504 "too large resource version": the
 *   server answered; the RV asked for is not available there.
 * - `throttled`: 429; wait at least its Retry-After, then retry the same call.
 * - `network`: no answer at all (refused, reset, DNS, TLS, a stream cut,
 *   mid-line or not).
 * - `undecodable`: a stream that is not a watch stream (garbage, a line
 *   over the size or depth limit): client/'s `WatchDecodeError` other than
 *   `UnexpectedEnd` (a stream cut mid-line, `network`). Retrying the same
 *   call after a backoff is all there is to do: a relist would not cure the
 *   stream, only cost a list each time.
 * - `status`: any other answer (5xx, 403, an ERROR event...).
 */
export type FailureKind =
  | "expired"
  | "throttled"
  | "network"
  | "undecodable"
  | "status";

/**
 * Classify a failure (client-go `isExpiredError`,
 * `isTooLargeResourceVersionError`, `isWatchErrorRetriable`: no Status at
 * all means no answer). The one place a failure's kind is decided.
 */
export function classify(err: unknown): FailureKind {
  if (isExpired(err) || isTooLargeResourceVersion(err)) return "expired";
  if (isTooManyRequests(err)) return "throttled";
  if (undecodable(err)) return "undecodable";
  if (!(err instanceof StatusError)) return "network";
  return "status";
}

/**
 * A permission Deno denied (`Deno.errors.NotCapable` when `--allow-net`
 * does not cover the server, `PermissionDenied`), here or down the `cause`
 * chain: no retry can succeed, so the Reflector stops on it.
 */
export function isPermissionDenied(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 8; depth++) {
    if (
      e instanceof Deno.errors.NotCapable ||
      e instanceof Deno.errors.PermissionDenied
    ) return true;
    e = e.cause;
  }
  return false;
}

/**
 * The watch decoder's error for a stream that is not a watch stream
 * (client/'s `WatchDecodeError`, recognised by name as cache/ does not
 * import client/); a stream cut mid-line (`UnexpectedEnd`) is a broken
 * connection instead.
 */
function undecodable(err: unknown): boolean {
  return err instanceof Error && err.name === "WatchDecodeError" &&
    (err as { kind?: unknown }).kind !== "UnexpectedEnd";
}

/** What the cycle has learnt about the server; kept across relists. */
export interface ServerFacts {
  /**
   * The first list at RV "0" came back paged: the watch cache is off, so
   * later lists keep paging (client-go `paginatedResult`).
   */
  readonly paginatedResult: boolean;
  /** The server rejected or ignored a watch-list: use list+watch from now on. */
  readonly watchListUnsupported: boolean;
}

/**
 * A state the Reflector's cycle can be in. `rv` is always the last synced
 * RV (the resume RV); `server` what the cycle knows of the server.
 */
export type ReflectorState =
  /**
   * A list is due, and in flight while the Reflector is in this state (all
   * its pages, or a watch-list's initial events). Entered at start (`rv`
   * `""`), after a failure that needs a relist (`rv` = last synced RV), and
   * with `quorum` after a LIST or watch-list answered 410 / "too large".
   * The list goes to {@link relistResourceVersion}. Success: `InitListed`
   * (or `Watching` for a watch-list, whose stream stays open). 410 / too
   * large: `Empty` with `quorum`, at once the first time. Any other failure:
   * `Backoff`, then `Empty` again (`quorum` kept until a list succeeds).
   * `listOnly`: this cycle falls back from watch-list to list.
   * `keepBackoff`: this relist follows a watch that answered 410 for the RV
   * the previous list had just handed out; its success does not reset the
   * backoff, so a server that keeps doing that is retried ever more slowly.
   */
  | {
    type: "Empty";
    rv: string;
    server: ServerFacts;
    quorum: boolean;
    listOnly: boolean;
    keepBackoff: boolean;
  }
  /**
   * Synced at `rv`; a watch is opened from it next. Entered after a list,
   * after a watch that ended cleanly or broke after delivering something,
   * after the liveness watchdog abandoned a silent watch, and after the
   * backoff of a throttled or unreachable watch request. `fromList`: `rv`
   * came straight from a list, and this is the first watch from it, with
   * no backoff in between. Watch opened:
   * `Watching`. 410: `Empty` at `rv` (at once, unless `fromList`). 429 or
   * no answer: `Backoff`, then `InitListed` again. Other answers: `Backoff`,
   * then `Empty`.
   */
  | { type: "InitListed"; rv: string; server: ServerFacts; fromList: boolean }
  /**
   * A watch is open from `rv`. The one mutation outside {@link step}: the
   * driver moves `rv` in place per event (no allocation on the hot path),
   * but not on the synthetic ADDED events of a watch from `""`/`"0"` while
   * `holdRV` is true (client-go `propagateRVFromStart`): the first event of
   * another type clears it. See {@link step} for where each ending goes.
   */
  | {
    type: "Watching";
    rv: string;
    server: ServerFacts;
    fromList: boolean;
    holdRV: boolean;
  }
  /**
   * Waiting after `error` before going to `then`; the driver draws the
   * delay from its backoff policy (at least a 429's Retry-After).
   */
  | {
    type: "Backoff";
    rv: string;
    server: ServerFacts;
    error: unknown;
    kind: FailureKind;
    then: EmptyState | InitListedState;
  };

/** The `Empty` state. */
export type EmptyState = Extract<ReflectorState, { type: "Empty" }>;
/** The `InitListed` state. */
export type InitListedState = Extract<ReflectorState, { type: "InitListed" }>;

/** What happened in the current state, as the driver observed it. */
export type ReflectorInput =
  /**
   * The list (or watch-list) succeeded at `rv`; `watching`: a watch-list's
   * stream stays open; `paged`: the server answered in pages.
   */
  | { type: "listed"; rv: string; watching?: boolean; paged?: boolean }
  /** The list (or watch-list) failed; `watchList`: it was a watch-list. */
  | {
    type: "listFailed";
    kind: FailureKind;
    error: unknown;
    watchList?: boolean;
  }
  /**
   * A watch-list cannot be used this cycle; `error` is reported when set;
   * `unsupported`: the server rejected or ignored it, so never again.
   */
  | { type: "fallBackToList"; error?: unknown; unsupported?: boolean }
  /** The watch request was answered with a stream. */
  | { type: "watchOpened" }
  /**
   * A watch proved the server healthy (its first event, or a second
   * without failing): an outage in progress is over. Any state takes it
   * and stays as it is.
   */
  | { type: "watchHealthy" }
  /** The watch request failed. */
  | { type: "watchOpenFailed"; kind: FailureKind; error: unknown }
  /**
   * The watch ended: `clean` (the server closed it), `broken` (the stream
   * rejected), `stalled` (the watchdog abandoned it) or `error` (an ERROR
   * event); `kind` classifies `error` ({@link classify}) for `broken` and
   * `error`. `events`: events applied before
   * the end (an ERROR event not counted); `lastedMs`: since the request.
   */
  | {
    type: "watchEnded";
    end: "clean" | "broken" | "stalled" | "error";
    events: number;
    lastedMs: number;
    kind?: FailureKind;
    error?: unknown;
  }
  /** The store's resync failed: the cycle restarts with a relist. */
  | { type: "cycleFailed"; error: unknown }
  /** The backoff delay has passed. */
  | { type: "slept" }
  /**
   * The run's signal cut the action short: the cycle stops where it is
   * (the state is kept, so a later run resumes from its RV).
   */
  | { type: "aborted" }
  /**
   * `listAndWatch` starts a cycle: a relist at the last synced RV, unless
   * a list is due already (its quorum rule kept).
   */
  | { type: "restart" };

/** The result of {@link step}. */
export interface Transition {
  /** The next state. */
  state: ReflectorState;
  /** An error to tell the watch error handler about (once per failed list or watch). */
  report?: unknown;
  /** The server answered: start the backoff over. */
  resetBackoff?: boolean;
  /**
   * An outage, if one is in progress, is over: `"list"` after a list,
   * `"watch"` when a watch proved the server healthy.
   */
  recovered?: "list" | "watch";
}

/** What a Reflector knows of a server it has not talked to yet. */
export const UNKNOWN_SERVER: ServerFacts = {
  paginatedResult: false,
  watchListUnsupported: false,
};

/** The state a Reflector starts in. */
export function initialState(): ReflectorState {
  return relist({ rv: "", server: UNKNOWN_SERVER });
}

/**
 * The RV of the list an `Empty` state asks for (client-go
 * `relistResourceVersion`): `""` (a quorum read) after a list answered 410
 * or "too large"; `"0"` (the apiserver's cache) before the first sync;
 * otherwise the last synced RV, so the watch cache can serve it.
 */
export function relistResourceVersion(s: EmptyState): string {
  if (s.quorum) return "";
  return s.rv === "" ? "0" : s.rv;
}

/** The RV a watch-list from an `Empty` state asks for (`NotOlderThan`). */
export function watchListResourceVersion(s: EmptyState): string {
  return s.quorum ? "" : s.rv;
}

/** How the list of an `Empty` state is asked for. */
export type ListRequest =
  /** A watch-list (`sendInitialEvents`) from `rv`, `NotOlderThan`. */
  | { watchList: true; rv: string }
  /** A list at `rv`; `keepPaging`: follow `continue` even at RV "0". */
  | { watchList: false; rv: string; keepPaging: boolean };

/**
 * The list an `Empty` state asks for: a watch-list when the Reflector
 * wants one and neither this cycle nor the server ruled it out, else a
 * list (client-go `ListAndWatchWithContext`'s choice).
 */
export function listRequest(s: EmptyState, useWatchList: boolean): ListRequest {
  if (useWatchList && !s.server.watchListUnsupported && !s.listOnly) {
    return { watchList: true, rv: watchListResourceVersion(s) };
  }
  return {
    watchList: false,
    rv: relistResourceVersion(s),
    keepPaging: s.server.paginatedResult,
  };
}

/** Whether the watch about to open should hold its RV on initial ADDEDs. */
function startsFromScratch(rv: string): boolean {
  return rv === "" || rv === "0";
}

/**
 * The one transition function: where `input` in `state` leads. Pure; an
 * input a state cannot receive throws a `TypeError` (a driver bug).
 */
export function step(state: ReflectorState, input: ReflectorInput): Transition {
  switch (input.type) {
    case "cycleFailed":
      return backoff(state, input.error, "status", relist(state));
    case "aborted":
      return { state };
    case "watchHealthy":
      // The same state object: in `Watching` the driver moves its `rv` per
      // event. (A watch-list's events arrive while the list is due.)
      return { state, recovered: "watch" };
    case "restart":
      return { state: state.type === "Empty" ? state : relist(state) };
  }
  switch (state.type) {
    case "Empty":
      return fromEmpty(state, input);
    case "InitListed":
      return fromInitListed(state, input);
    case "Watching":
      return fromWatching(state, input);
    case "Backoff":
      if (input.type === "slept") return { state: state.then };
      break;
  }
  throw new TypeError(
    `Reflector state ${state.type} cannot take input ${input.type}`,
  );
}

function fromEmpty(s: EmptyState, input: ReflectorInput): Transition {
  switch (input.type) {
    case "listed": {
      // A first list at RV "0" answered in pages: the watch cache is off,
      // so every later list pages too (client-go `paginatedResult`).
      const server: ServerFacts = input.paged && !input.watching &&
          !s.server.paginatedResult && relistResourceVersion(s) === "0"
        ? { ...s.server, paginatedResult: true }
        : s.server;
      // After a watch refused (410) the RV a list had just handed out, this
      // relist answered that same RV again (a paged list at an RV is an
      // exact read, still served after the watch cache restarted): the
      // watch would refuse it again, for good. A quorum read moves on.
      if (
        s.keepBackoff && !s.quorum && !input.watching && input.rv === s.rv
      ) {
        return {
          state: { ...s, server, quorum: true },
          resetBackoff: false,
          recovered: "list",
        };
      }
      // A successful list is the server answering: start the backoff over.
      return {
        state: input.watching
          ? {
            type: "Watching",
            rv: input.rv,
            server,
            fromList: true,
            holdRV: false,
          }
          : { type: "InitListed", rv: input.rv, server, fromList: true },
        resetBackoff: !s.keepBackoff,
        recovered: "list",
      };
    }
    case "listFailed": {
      const report = input.watchList ? input.error : undefined;
      if (input.kind === "expired") {
        // The RV is gone (or not there yet): a quorum read at once; if that
        // was a quorum read already, back off before the next one.
        const next: EmptyState = { ...s, quorum: true };
        if (!s.quorum) return { state: next, report, resetBackoff: true };
        return backoff(s, input.error, input.kind, next);
      }
      return backoff(s, input.error, input.kind, { ...s });
    }
    case "fallBackToList": {
      const server: ServerFacts = input.unsupported
        ? { ...s.server, watchListUnsupported: true }
        : s.server;
      return { state: { ...s, server, listOnly: true }, report: input.error };
    }
  }
  throw new TypeError(`Reflector state Empty cannot take input ${input.type}`);
}

function fromInitListed(
  s: InitListedState,
  input: ReflectorInput,
): Transition {
  switch (input.type) {
    case "watchOpened":
      return {
        state: {
          type: "Watching",
          rv: s.rv,
          server: s.server,
          fromList: s.fromList,
          holdRV: startsFromScratch(s.rv),
        },
      };
    case "watchOpenFailed":
      switch (input.kind) {
        case "expired":
          return expired(s, s.fromList, input.error, input.kind);
        case "throttled":
        case "network":
        case "undecodable":
          // client-go isWatchErrorRetriable: retry the watch, not the list.
          return backoff(s, input.error, input.kind, {
            ...s,
            fromList: false,
          });
        case "status":
          return backoff(s, input.error, input.kind, relist(s));
      }
  }
  throw new TypeError(
    `Reflector state InitListed cannot take input ${input.type}`,
  );
}

function fromWatching(
  s: Extract<ReflectorState, { type: "Watching" }>,
  input: ReflectorInput,
): Transition {
  if (input.type !== "watchEnded") {
    throw new TypeError(
      `Reflector state Watching cannot take input ${input.type}`,
    );
  }
  const fromList = s.fromList && input.events === 0;
  const resume: InitListedState = {
    type: "InitListed",
    rv: s.rv,
    server: s.server,
    fromList: false,
  };
  const veryShort = input.events === 0 &&
    input.lastedMs < VERY_SHORT_WATCH_MS;
  switch (input.end) {
    case "stalled":
      // The watchdog abandoned a silent watch: reopen at once, no list.
      return { state: resume, report: input.error };
    case "error": {
      const kind = input.kind ?? "status";
      if (kind === "expired") {
        return expired(s, fromList, input.error, kind);
      }
      if (kind === "throttled") {
        return backoff(s, input.error, kind, resume);
      }
      return backoff(s, input.error, kind, relist(s));
    }
    case "broken":
      // A stream that cannot be decoded (garbage, a line over the size or
      // depth limit): back off, then resume at the last RV. Resuming at once
      // would loop as fast as the server answers; a relist would not cure
      // the stream (see FailureKind).
      if (input.kind === "undecodable") {
        return backoff(s, input.error, input.kind, resume);
      }
      // A connection that keeps dying before any event is a very short
      // watch: back off, then relist. One cut after events (or after a quiet
      // while) resumes at once at the last RV.
      if (veryShort) {
        return backoff(s, input.error, "network", relist(s));
      }
      return { state: resume, report: input.error };
    case "clean":
      if (veryShort) {
        return backoff(
          s,
          new Error(
            `very short watch: the watch lasted ${input.lastedMs} ms and delivered no event`,
          ),
          "status",
          relist(s),
        );
      }
      // The server's timeout, or closed after events: reopen at once.
      return { state: resume };
  }
}

/**
 * A watch answered 410 (the RV fell out of the watch window): relist at the
 * last synced RV — a list at an RV is served at least that fresh — at once,
 * since the server has answered. Except on the first watch straight after a
 * list, before any event: the server refuses what it just handed out
 * (apiservers out of step behind a load balancer, or a list slower than the
 * watch window), so back off to avoid a tight list/watch loop, and keep the
 * backoff through that relist's success.
 */
function expired(
  s: { rv: string; server: ServerFacts },
  fromList: boolean,
  error: unknown,
  kind: FailureKind,
): Transition {
  if (fromList) {
    return backoff(s, error, kind, { ...relist(s), keepBackoff: true });
  }
  return { state: relist(s), report: error, resetBackoff: true };
}

/** A list due at the last synced RV, with what is known of the server. */
function relist(s: { rv: string; server: ServerFacts }): EmptyState {
  return {
    type: "Empty",
    rv: s.rv,
    server: s.server,
    quorum: false,
    listOnly: false,
    keepBackoff: false,
  };
}

function backoff(
  s: { rv: string; server: ServerFacts },
  error: unknown,
  kind: FailureKind,
  then: EmptyState | InitListedState,
): Transition {
  return {
    state: { type: "Backoff", rv: s.rv, server: s.server, error, kind, then },
    report: error,
  };
}
