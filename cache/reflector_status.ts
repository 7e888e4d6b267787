/**
 * The Reflector's status as told to a person: its status events
 * ({@link ReflectorStatus}, heard through a {@link ReflectorStatusListener}),
 * the root cause of a failure in one line, the default log built on them
 * ({@link logReflectorStatus}), and the reporter that derives the events
 * from the Reflector's failures and successes. `reflector.ts` re-exports
 * the public names; the reporter is internal.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";

/**
 * A change in a Reflector's health, for logs and status lines. One
 * mechanism serves both the default log ({@link logReflectorStatus}) and
 * programs such as the CLI (the `onStatus` option):
 * - `Failed`: a list or watch failed and the Reflector waits `retryInMs`
 *   before the `next` attempt. `failures` counts the failures of this outage;
 *   `repeated` is true when `cause` is the same as the previous failure's.
 * - `Restarted`: routine, no waiting: the server answered 410 (the watch
 *   fell out of its window) and a relist follows at once, a stream cut after
 *   events is resumed, or a silent watch was abandoned. Debug level.
 * - `Recovered`: the first success after `Failed`: a list succeeded
 *   (`relisted`), or a reopened watch delivered an event or stayed up for
 *   a second. `downMs` since the first failure.
 * - `Skipped`: a watched object of an unexpected apiVersion/kind was not
 *   applied (client-go's expected GVK check); `repeated` when this
 *   apiVersion/kind was skipped before, or when more than 10 new ones were
 *   told in the last minute (so a server cycling through kinds cannot
 *   flood a log). `streak` counts the objects skipped in a row, this one
 *   included: every object since the streak began was dropped, so the
 *   cache is not being updated (the default log says so at 10, 100,
 *   1000... in a row).
 *
 * @example Alert on long outages only
 * ```ts
 * import type { ReflectorStatus } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * function alert(status: ReflectorStatus): string | undefined {
 *   if (status.type === "Failed" && status.failures >= 5) return `down: ${status.cause}`;
 *   if (status.type === "Recovered" && status.failures >= 5) return `back after ${status.downMs} ms`;
 *   return undefined;
 * }
 * assert.equal(alert({ type: "Recovered", relisted: false, failures: 6, downMs: 40_000 }), "back after 40000 ms");
 * ```
 */
export type ReflectorStatus =
  | {
    type: "Failed";
    error: unknown;
    cause: string;
    retryInMs: number;
    next: "list" | "watch";
    failures: number;
    repeated: boolean;
  }
  | { type: "Restarted"; error: unknown; cause: string; next: "list" | "watch" }
  | { type: "Recovered"; relisted: boolean; failures: number; downMs: number }
  | {
    type: "Skipped";
    object: KubeObject;
    cause: string;
    repeated: boolean;
    streak: number;
  };

/**
 * Receives a Reflector's {@link ReflectorStatus} events. Called
 * synchronously; should return quickly and not throw.
 *
 * @example Collect status events instead of logging them
 * ```ts
 * import { type KubeObject, newSharedIndexInformer, type ReflectorStatus, type ReflectorStatusListener } from "@kubecache/core";
 * import { FakeClock, FakeControllerSource } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const clock = new FakeClock();
 * const source = new FakeControllerSource<KubeObject>();
 * source.failNext("list", new Error("connection refused"));
 * const events: ReflectorStatus[] = [];
 * const onStatus: ReflectorStatusListener = (_reflector, status) => void events.push(status);
 * const informer = newSharedIndexInformer(source, { clock, onStatus });
 * const stop = new AbortController();
 * const running = informer.run(stop.signal);
 * await clock.waitForWaiters();
 * assert.equal(events[0].type, "Failed");
 * assert.equal(events[0].type === "Failed" && events[0].next, "list");
 * stop.abort();
 * await running;
 * ```
 */
export type ReflectorStatusListener = (
  reflector: { readonly name: string },
  status: ReflectorStatus,
) => void;

/**
 * The default status listener: one line on stderr per new failure cause
 * (`pods: cannot reach http://127.0.0.1:6443: connection refused; retrying
 * in 3.2 s`), none for the same cause repeated, one when it has recovered,
 * one per newly skipped apiVersion/kind, and nothing for routine restarts
 * (a watch expiry ending in a relist).
 *
 * @param reflector the Reflector (its `name` starts the line)
 * @param status what happened
 *
 * @example Log the lines a Reflector would print by default
 * ```ts
 * import { logReflectorStatus } from "@kubecache/core";
 * import assert from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const original = console.error;
 * console.error = (line: string) => lines.push(line);
 * try {
 *   const error = new Error("boom");
 *   logReflectorStatus({ name: "pods" }, {
 *     type: "Failed", error, cause: "boom", retryInMs: 3_210, next: "watch", failures: 1, repeated: false,
 *   });
 *   logReflectorStatus({ name: "pods" }, {
 *     type: "Failed", error, cause: "boom", retryInMs: 6_400, next: "watch", failures: 2, repeated: true,
 *   });
 * } finally {
 *   console.error = original;
 * }
 * assert.deepEqual(lines, ["pods: boom; retrying in 3.2 s"]);
 * ```
 */
export function logReflectorStatus(
  reflector: { readonly name: string },
  status: ReflectorStatus,
): void {
  const line = statusLine(reflector.name, status);
  if (line !== undefined) console.error(line);
}

/** The line {@link logReflectorStatus} prints for `status`, if any. */
export function statusLine(
  name: string,
  status: ReflectorStatus,
): string | undefined {
  switch (status.type) {
    case "Failed":
      if (status.repeated) return undefined;
      return `${name}: ${status.cause}; ${
        status.next === "list" ? "relisting" : "retrying"
      } in ${seconds(status.retryInMs)}`;
    case "Recovered":
      return `${name}: ${
        status.relisted ? "relisted, watching" : "watching"
      } again after ${seconds(status.downMs)} (${status.failures} failed ${
        status.failures === 1 ? "attempt" : "attempts"
      })`;
    case "Skipped": {
      const lines: string[] = [];
      if (!status.repeated) lines.push(`${name}: skipped ${status.cause}`);
      if (isPowerOfTen(status.streak)) {
        lines.push(
          `${name}: unhealthy: the last ${status.streak} watched objects were all skipped (apiVersion/kind not expected); the cache is not being updated`,
        );
      }
      return lines.length > 0 ? lines.join("\n") : undefined;
    }
    case "Restarted":
      return undefined;
  }
}

/** 10, 100, 1000, ...: when a streak of skipped objects is worth a line. */
function isPowerOfTen(n: number): boolean {
  if (n < 10) return false;
  while (n % 10 === 0) n /= 10;
  return n === 1;
}

/** `3210` → `"3.2 s"`. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * One line naming the root cause of `err`: the server's answer for a
 * Status error, else the innermost message of the `cause` chain, made
 * readable for the usual connection failures (`cannot reach
 * http://127.0.0.1:6443: connection refused`).
 */
export function describeCause(err: unknown): string {
  if (isStatusLike(err)) {
    const what = `${err.code}${err.reason ? ` ${err.reason}` : ""}`;
    return err.message
      ? `the server answered ${what}: ${err.message}`
      : `the server answered ${what}`;
  }
  const messages: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    messages.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  const all = messages.join(" | ");
  const url = /for url \(([^)\s]+)\)/.exec(all)?.[1];
  let reason = messages.at(-1) ?? "unknown error";
  for (const [pattern, text] of KNOWN_REASONS) {
    if (pattern.test(all)) {
      reason = text;
      break;
    }
  }
  if (reason === messages.at(-1)) {
    // Deno's "error sending request for url (...): client error (Connect): x"
    // says the useful part last.
    const cut = reason.lastIndexOf("): ");
    if (cut !== -1) reason = reason.slice(cut + 3);
  }
  if (url === undefined) return reason;
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    // keep the text as sent
  }
  return `cannot reach ${origin}: ${reason}`;
}

const KNOWN_REASONS: [RegExp, string][] = [
  [/connection refused/i, "connection refused"],
  [/connection reset/i, "connection reset"],
  [
    /dns error|failed to lookup address|name or service not known/i,
    "host name not resolved",
  ],
  [/timed out/i, "timed out"],
];

function isStatusLike(
  err: unknown,
): err is Error & { code: number; reason: string } {
  return err instanceof Error && err.name === "StatusError" &&
    typeof (err as { code?: unknown }).code === "number";
}

/** The apiVersion/kinds remembered as already told about. */
const MAX_SKIPPED_TYPES = 100;
/** New apiVersion/kinds told about per minute, at most. */
const NEW_TYPES_PER_MINUTE = 10;

/** An outage in progress: failures since the last success. */
interface Outage {
  since: number;
  failures: number;
  lastCause: string;
}

/**
 * The Reflector's status bookkeeping: the outage in progress (failures
 * since the last success, the last cause), the apiVersion/kinds skipped,
 * and the listener they are told to.
 */
export class StatusReporter {
  #reflector: { readonly name: string };
  #now: () => number;
  #listener: () => ReflectorStatusListener | undefined;
  #outage?: Outage;
  #skippedTypes = new Set<string>();
  /** Watched objects skipped for an unexpected apiVersion/kind. */
  skipped = 0;
  /** Watched objects skipped in a row (0 once one is applied). */
  streak = 0;
  /** When the streak began. */
  streakSince: number | undefined;
  /** New apiVersion/kinds told in the current minute. */
  #newTypesTold = 0;
  #windowStart = -Infinity;

  constructor(
    reflector: { readonly name: string },
    now: () => number,
    listener: () => ReflectorStatusListener | undefined,
  ) {
    this.#reflector = reflector;
    this.#now = now;
    this.#listener = listener;
  }

  /** Failures since the last success; 0 when healthy. */
  get failures(): number {
    return this.#outage?.failures ?? 0;
  }

  /** Whether a failure has not been followed by a success yet. */
  get failing(): boolean {
    return this.#outage !== undefined;
  }

  /** A failure leading to a backoff of `retryInMs` before the `next` attempt. */
  failed(error: unknown, retryInMs: number, next: "list" | "watch"): void {
    const cause = describeCause(error);
    const outage = this.#outage ??= {
      since: this.#now(),
      failures: 0,
      lastCause: "",
    };
    outage.failures++;
    const repeated = outage.lastCause === cause;
    outage.lastCause = cause;
    this.#tell({
      type: "Failed",
      error,
      cause,
      retryInMs,
      next,
      failures: outage.failures,
      repeated,
    });
  }

  /** A routine restart without waiting (410 answered, a cut stream resumed). */
  restarted(error: unknown, next: "list" | "watch"): void {
    this.#tell({ type: "Restarted", error, cause: describeCause(error), next });
  }

  /** A success: ends the outage, if any. */
  recovered(relisted: boolean): void {
    const outage = this.#outage;
    if (!outage) return;
    this.#outage = undefined;
    this.#tell({
      type: "Recovered",
      relisted,
      failures: outage.failures,
      downMs: this.#now() - outage.since,
    });
  }

  /** An object of `got` apiVersion/kind skipped by an `event` of the watch. */
  skip(object: KubeObject, event: string, expected: string): void {
    this.skipped++;
    if (this.streak++ === 0) this.streakSince = this.#now();
    const got = `${object.apiVersion ?? "?"} ${object.kind ?? "?"}`;
    let repeated = this.#skippedTypes.has(got);
    if (!repeated) {
      if (this.#skippedTypes.size < MAX_SKIPPED_TYPES) {
        this.#skippedTypes.add(got);
      }
      // New kinds are told at most NEW_TYPES_PER_MINUTE a minute, however
      // many a server cycles through (the set above stops growing).
      const now = this.#now();
      if (now - this.#windowStart >= 60_000) {
        this.#windowStart = now;
        this.#newTypesTold = 0;
      }
      repeated = ++this.#newTypesTold > NEW_TYPES_PER_MINUTE;
    }
    const ns = object.metadata?.namespace;
    this.#tell({
      type: "Skipped",
      object,
      cause: `${event} ${
        ns ? `${ns}/` : ""
      }${object.metadata?.name}: ${got}, expected ${expected}`,
      repeated,
      streak: this.streak,
    });
  }

  /** A watched object was applied: the streak of skipped ones is over. */
  applied(): void {
    this.streak = 0;
    this.streakSince = undefined;
  }

  #tell(status: ReflectorStatus): void {
    const listener = this.#listener();
    if (!listener) return;
    try {
      listener(this.#reflector, status);
    } catch (err) {
      console.error(`${this.#reflector.name}: status listener threw`, err);
    }
  }
}
