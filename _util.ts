/**
 * Internal helpers shared by cache/ and client/: a newline splitter for
 * watch streams and the exponential backoff policy of the Reflector. Not
 * exported from `mod.ts`.
 *
 * @module
 */

import type { Clock } from "./cache/clock.ts";

/**
 * Incremental line splitting without a stream around it: feed text with
 * {@link LineBuffer.push}, get each complete line (without the `\n`, a
 * trailing `\r` removed) through the callback. Partial input is kept as
 * pieces and joined only when a newline arrives, so a long line split into
 * many chunks stays linear. Used by {@link LineSplitter} and by the watch
 * decoder, which calls it directly to avoid a stream hop per line.
 */
export class LineBuffer {
  #pending: string[] = [];

  /**
   * Split `chunk`, calling `onLine` for every line it completes.
   * @param chunk the next piece of text
   * @param onLine receives each complete line
   */
  push(chunk: string, onLine: (line: string) => void): void {
    let start = 0;
    let nl = chunk.indexOf("\n");
    while (nl !== -1) {
      let line = chunk.slice(start, nl);
      if (this.#pending.length > 0) {
        this.#pending.push(line);
        line = this.#pending.join("");
        this.#pending = [];
      }
      if (line.endsWith("\r")) line = line.slice(0, -1);
      onLine(line);
      start = nl + 1;
      nl = chunk.indexOf("\n", start);
    }
    if (start < chunk.length) this.#pending.push(chunk.slice(start));
  }

  /** The unterminated text received since the last newline (and forget it). */
  takeTail(): string {
    const tail = this.#pending.join("");
    this.#pending = [];
    return tail;
  }
}

/**
 * Splits a text stream into lines (without the `\n`, a trailing `\r`
 * removed). Partial input is kept as pieces and joined only when a newline
 * arrives, so a long line split into many chunks stays linear. An
 * unterminated tail is reported through `onTail` at the end instead of being
 * emitted, so a cut stream is never mistaken for a complete line.
 */
export class LineSplitter extends TransformStream<string, string> {
  /**
   * Create a splitter.
   * @param onTail called at flush with a non-empty unterminated tail
   */
  constructor(onTail?: (tail: string) => void) {
    const buffer = new LineBuffer();
    super({
      transform(chunk, controller) {
        buffer.push(chunk, (line) => controller.enqueue(line));
      },
      flush() {
        const tail = buffer.takeTail();
        if (tail.trim() !== "") onTail?.(tail);
      },
    });
  }
}

/** Options of {@link Backoff}; all durations in milliseconds. */
export interface BackoffOptions {
  /** First delay. Default 800. */
  initialMs?: number;
  /** Multiplier per failure. Default 2. */
  factor?: number;
  /** Upper bound of the base delay. Default 30 000. */
  maxMs?: number;
  /** Each delay is drawn from [d, d·(1+jitter)). Default 1.0. */
  jitter?: number;
  /** Back to `initialMs` when the previous failure is older than this. Default 120 000. */
  resetAfterMs?: number;
  /** Clock for the reset measurement. */
  clock: Clock;
  /** Random source in [0, 1). Default `Math.random`. */
  random?: () => number;
}

/**
 * Exponential backoff with jitter and reset after a quiet period: client-go's
 * `wait.Backoff` plus `DelayWithReset` as used by the Reflector (800 ms
 * doubling to 30 s, jitter 1.0, reset after 2 min).
 */
export class Backoff {
  #opts: Required<BackoffOptions>;
  #current: number;
  #lastFailure = -Infinity;

  constructor(opts: BackoffOptions) {
    this.#opts = {
      initialMs: 800,
      factor: 2,
      maxMs: 30_000,
      jitter: 1.0,
      resetAfterMs: 120_000,
      random: Math.random,
      ...opts,
    };
    for (const k of ["initialMs", "factor", "maxMs", "resetAfterMs"] as const) {
      const v = this.#opts[k];
      if (!(v >= 0) || !Number.isFinite(v)) {
        throw new RangeError(`Backoff option ${k} must be >= 0: got ${v}`);
      }
    }
    this.#current = this.#opts.initialMs;
  }

  /** The delay (ms) to wait after a failure happening now; advances the schedule. */
  next(): number {
    const now = this.#opts.clock.now();
    if (now - this.#lastFailure > this.#opts.resetAfterMs) {
      this.#current = this.#opts.initialMs;
    }
    this.#lastFailure = now;
    const base = this.#current;
    this.#current = Math.min(base * this.#opts.factor, this.#opts.maxMs);
    return base + base * this.#opts.jitter * this.#opts.random();
  }

  /** Start over at the initial delay. */
  reset(): void {
    this.#current = this.#opts.initialMs;
    this.#lastFailure = -Infinity;
  }
}
