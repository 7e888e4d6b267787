/**
 * The Reflector's list/watch cycle as a pure state machine, in the manner of
 * kube-rs `watcher.rs` (a private `State` and one `step` function), with
 * client-go `reflector.go`'s rules (`relistResourceVersion`,
 * `isLastSyncResourceVersionUnavailable`, `isWatchErrorRetriable`, the very
 * short watch). `reflector.ts` performs the action each state asks for (a
 * list, a watch, a sleep), classifies what happened into a
 * {@link ReflectorInput} and asks {@link step} for the next state. Every rule
 * about where a failure sends the cycle, and which resourceVersion it resumes
 * from, lives here and nowhere else.
 *
 * Internal module: not exported from `mod.ts`.
 *
 * @module
 */

/** A watch that ends with no event sooner than this is a "very short watch". */
export const VERY_SHORT_WATCH_MS = 1_000;

/**
 * How a failed request or stream is classified (by `reflector.ts`, which
 * knows StatusError):
 * - `expired`: 410 Expired/Gone, or 504 "too large resource version": the
 *   server answered; the RV asked for is not available there.
 * - `throttled`: 429; wait at least its Retry-After, then retry the same call.
 * - `network`: no answer at all (refused, reset, DNS, TLS, a cut stream).
 * - `status`: any other answer (5xx, 403, a malformed event...).
 */
export type FailureKind = "expired" | "throttled" | "network" | "status";

/** A state the Reflector's cycle can be in. `rv` is always the last synced RV (the resume RV). */
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
  | { type: "InitListed"; rv: string; fromList: boolean }
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
  /** The list (or watch-list) succeeded at `rv`; `watching`: a watch-list's stream stays open. */
  | { type: "listed"; rv: string; watching?: boolean }
  /** The list (or watch-list) failed; `watchList`: it was a watch-list. */
  | {
    type: "listFailed";
    kind: FailureKind;
    error: unknown;
    watchList?: boolean;
  }
  /** A watch-list cannot be used this cycle; `error` is reported when set. */
  | { type: "fallBackToList"; error?: unknown }
  /** The watch request was answered with a stream. */
  | { type: "watchOpened" }
  /** The watch request failed. */
  | { type: "watchOpenFailed"; kind: FailureKind; error: unknown }
  /**
   * The watch ended: `clean` (the server closed it), `broken` (the stream
   * rejected), `stalled` (the watchdog abandoned it) or `error` (an ERROR
   * event; `kind` classifies its Status). `events`: events applied before
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
  | { type: "slept" };

/** The result of {@link step}. */
export interface Transition {
  /** The next state. */
  state: ReflectorState;
  /** An error to tell the watch error handler about (once per failed list or watch). */
  report?: unknown;
  /** The server answered: start the backoff over. */
  resetBackoff?: boolean;
}

/** The state a Reflector starts in. */
export function initialState(): ReflectorState {
  return {
    type: "Empty",
    rv: "",
    quorum: false,
    listOnly: false,
    keepBackoff: false,
  };
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

/** Whether the watch about to open should hold its RV on initial ADDEDs. */
function startsFromScratch(rv: string): boolean {
  return rv === "" || rv === "0";
}

/**
 * The one transition function: where `input` in `state` leads. Pure; an
 * input a state cannot receive throws a `TypeError` (a driver bug).
 */
export function step(state: ReflectorState, input: ReflectorInput): Transition {
  if (input.type === "cycleFailed") {
    return backoff(state.rv, input.error, "status", relist(state.rv));
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
    case "listed":
      // After a watch refused (410) the RV a list had just handed out, this
      // relist answered that same RV again (a paged list at an RV is an
      // exact read, still served after the watch cache restarted): the
      // watch would refuse it again, for good. A quorum read moves on.
      if (
        s.keepBackoff && !s.quorum && !input.watching && input.rv === s.rv
      ) {
        return { state: { ...s, quorum: true }, resetBackoff: false };
      }
      // A successful list is the server answering: start the backoff over.
      return {
        state: input.watching
          ? { type: "Watching", rv: input.rv, fromList: true, holdRV: false }
          : { type: "InitListed", rv: input.rv, fromList: true },
        resetBackoff: !s.keepBackoff,
      };
    case "listFailed": {
      const report = input.watchList ? input.error : undefined;
      if (input.kind === "expired") {
        // The RV is gone (or not there yet): a quorum read at once; if that
        // was a quorum read already, back off before the next one.
        const next: EmptyState = { ...s, quorum: true };
        if (!s.quorum) return { state: next, report, resetBackoff: true };
        return backoff(s.rv, input.error, input.kind, next);
      }
      return backoff(s.rv, input.error, input.kind, { ...s });
    }
    case "fallBackToList":
      return { state: { ...s, listOnly: true }, report: input.error };
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
          fromList: s.fromList,
          holdRV: startsFromScratch(s.rv),
        },
      };
    case "watchOpenFailed":
      switch (input.kind) {
        case "expired":
          return expired(s.rv, s.fromList, input.error, input.kind);
        case "throttled":
        case "network":
          // client-go isWatchErrorRetriable: retry the watch, not the list.
          return backoff(s.rv, input.error, input.kind, {
            ...s,
            fromList: false,
          });
        case "status":
          return backoff(s.rv, input.error, input.kind, relist(s.rv));
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
        return expired(s.rv, fromList, input.error, kind);
      }
      if (kind === "throttled") {
        return backoff(s.rv, input.error, kind, resume);
      }
      return backoff(s.rv, input.error, kind, relist(s.rv));
    }
    case "broken":
      // A stream that cannot be decoded (garbage, a line over the size or
      // depth limit): back off, then resume at the last RV. Resuming at once
      // would loop as fast as the server answers; a relist would not cure
      // the stream, only cost a list each time.
      if (undecodable(input.error)) {
        return backoff(s.rv, input.error, "status", resume);
      }
      // A connection that keeps dying before any event is a very short
      // watch: back off, then relist. One cut after events (or after a quiet
      // while) resumes at once at the last RV.
      if (veryShort) {
        return backoff(s.rv, input.error, "network", relist(s.rv));
      }
      return { state: resume, report: input.error };
    case "clean":
      if (veryShort) {
        return backoff(
          s.rv,
          new Error(
            `very short watch: the watch lasted ${input.lastedMs} ms and delivered no event`,
          ),
          "status",
          relist(s.rv),
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
  rv: string,
  fromList: boolean,
  error: unknown,
  kind: FailureKind,
): Transition {
  if (fromList) {
    return backoff(rv, error, kind, { ...relist(rv), keepBackoff: true });
  }
  return { state: relist(rv), report: error, resetBackoff: true };
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

function relist(rv: string): EmptyState {
  return {
    type: "Empty",
    rv,
    quorum: false,
    listOnly: false,
    keepBackoff: false,
  };
}

function backoff(
  rv: string,
  error: unknown,
  kind: FailureKind,
  then: EmptyState | InitListedState,
): Transition {
  return {
    state: { type: "Backoff", rv, error, kind, then },
    report: error,
  };
}
