/**
 * The watch stream decoder: newline-delimited JSON `watch.Event`s from a
 * response body, decoded incrementally into an `AsyncIterable<WatchEvent>`
 * (client-go `rest/watch.Decoder` + `watch.StreamWatcher`).
 *
 * @module
 */

import type {
  BatchWatchIterator,
  WatchEvent,
  WatchEventType,
} from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import { LineBuffer } from "./_line_buffer.ts";
import {
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_MAX_OBJECT_BYTES,
  tooDeep,
} from "./_json_limits.ts";
import { errorMessage } from "../api/validate.ts";

/**
 * What went wrong in a {@link WatchDecodeError}.
 *
 * @example Tell a cut stream from a broken one
 * ```ts
 * import { decodeWatch, WatchDecodeError, type WatchDecodeErrorKind } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * const cut = new Response('{"type":"ADDED","object":{"metadata":').body!; // ends mid-line
 * let kind: WatchDecodeErrorKind | undefined;
 * try {
 *   for await (const _ of decodeWatch(cut));
 * } catch (err) {
 *   if (err instanceof WatchDecodeError) kind = err.kind;
 * }
 * assert.equal(kind, "UnexpectedEnd");
 * ```
 */
export type WatchDecodeErrorKind =
  /** A line is not JSON. */
  | "Malformed"
  /** A line is JSON but not a watch event (unknown `type`, no `object`). */
  | "InvalidEvent"
  /** The bytes are not UTF-8. */
  | "InvalidUtf8"
  /** The stream ended or broke in the middle of a line or of a character. */
  | "UnexpectedEnd"
  /** A line is longer than `maxObjectBytes` (an unterminated line fails as soon as it passes it). */
  | "TooLong"
  /** A line's JSON nests deeper than `maxJsonDepth`. */
  | "TooDeep";

/**
 * The typed error that ends a watch whose stream cannot be decoded or was
 * cut. Every complete event before it has been yielded, so a Reflector can
 * resume at the last resourceVersion it saw.
 *
 * Messages never contain more than the first 40 characters of the
 * offending line (watch events can carry Secret data).
 *
 * @example A stream that stops being JSON
 * ```ts
 * import { decodeWatch, WatchDecodeError } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * const body = new Response(
 *   '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n' +
 *     "<html>502 Bad Gateway</html>\n",
 * ).body!;
 * const names: string[] = [];
 * await assert.rejects(async () => {
 *   for await (const ev of decodeWatch(body)) {
 *     if (ev.type === "ADDED") names.push(ev.object.metadata.name!);
 *   }
 * }, (err) => {
 *   assert.ok(err instanceof WatchDecodeError);
 *   assert.equal(err.kind, "Malformed");
 *   assert.equal(err.line, 2);
 *   return true;
 * });
 * assert.deepEqual(names, ["a"]); // the complete event before it was delivered
 * ```
 */
export class WatchDecodeError extends Error {
  /** What went wrong. */
  readonly kind: WatchDecodeErrorKind;
  /** 1-based number of the offending line in the stream (the partial one for `UnexpectedEnd`). */
  readonly line: number;

  /**
   * Create a decode error.
   * @param message what went wrong
   * @param opts `kind`, `line` and the underlying `cause`
   */
  constructor(
    message: string,
    opts: { kind: WatchDecodeErrorKind; line: number; cause?: unknown },
  ) {
    super(
      message,
      opts.cause === undefined ? undefined : { cause: opts.cause },
    );
    this.name = "WatchDecodeError";
    this.kind = opts.kind;
    this.line = opts.line;
  }
}

/**
 * Options of {@link decodeWatch}.
 *
 * @example Fill in kind and apiVersion, and hear when the stream ends
 * ```ts
 * import { decodeWatch, type DecodeWatchOptions } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 *
 * let closed = false;
 * const opts: DecodeWatchOptions = {
 *   typeMeta: { kind: "ConfigMap", apiVersion: "v1" },
 *   onClose: () => closed = true,
 * };
 * const body = new Response('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n').body!;
 * const events = await Array.fromAsync(decodeWatch(body, opts));
 * assert.equal(events[0].object.kind, "ConfigMap");
 * assert.equal(closed, true);
 * ```
 */
export interface DecodeWatchOptions {
  /**
   * Stops the iteration: the body is cancelled (closing its connection) and
   * the pending `next()` rejects with `signal.reason`.
   */
  signal?: AbortSignal;
  /**
   * Called once when the iteration is over, however it ends: the stream
   * ended or failed, the signal aborted, or the consumer stopped early.
   * `KubeClient.watch` releases its request here.
   */
  onClose?: () => void;
  /**
   * The `kind` and `apiVersion` to give an event's object that lacks them
   * (not an ERROR event's Status). `KubeClient.watch` passes its resource
   * type's, so watched and listed objects have the same shape.
   */
  typeMeta?: { kind: string; apiVersion: string };
  /**
   * The longest line accepted, in characters of decoded text (its bytes
   * for ASCII JSON); a longer one — or an unterminated one once it passes
   * this — ends the watch with a `TooLong` {@link WatchDecodeError}, so a
   * broken server or proxy cannot grow the line buffer without bound.
   * Default 16 MiB (client-go's streaming decoder refuses a frame over
   * 16 MiB).
   */
  maxObjectBytes?: number;
  /**
   * The deepest JSON nesting accepted in an event; deeper ends the watch
   * with a `TooDeep` {@link WatchDecodeError}. Default 10,000 (client-go's
   * decoder limit). Lines shorter than twice the limit cannot be that deep
   * and are not looked at.
   */
  maxJsonDepth?: number;
}

const EVENT_TYPES: ReadonlySet<string> = new Set<WatchEventType>([
  "ADDED",
  "MODIFIED",
  "DELETED",
  "BOOKMARK",
  "ERROR",
]);

function preview(line: string): string {
  return JSON.stringify(line.length > 40 ? `${line.slice(0, 40)}...` : line);
}

/**
 * Parse one line into an event, or throw the typed error that says why not.
 * ERROR events pass through with their Status as the object, as client-go's
 * decoder does; turning them into errors is the Reflector's job.
 */
function parseEvent<T>(
  line: string,
  lineNo: number,
  maxDepth: number,
): WatchEvent<T> {
  if (line.length > 2 * maxDepth && tooDeep(line, maxDepth)) {
    throw new WatchDecodeError(
      `Cannot decode watch event on line ${lineNo}: JSON nested deeper than ${maxDepth} levels (maxJsonDepth): ${
        preview(line)
      }`,
      { kind: "TooDeep", line: lineNo },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (cause) {
    throw new WatchDecodeError(
      `Cannot decode watch event on line ${lineNo}: not JSON: ${preview(line)}`,
      { kind: "Malformed", line: lineNo, cause },
    );
  }
  const ev = value as { type?: unknown; object?: unknown };
  if (
    ev === null || typeof ev !== "object" || typeof ev.type !== "string" ||
    !EVENT_TYPES.has(ev.type) || ev.object === null ||
    typeof ev.object !== "object" || Array.isArray(ev.object)
  ) {
    const type = ev && typeof ev === "object" ? ev.type : undefined;
    throw new WatchDecodeError(
      `Cannot decode watch event on line ${lineNo}: expected {"type": ADDED|MODIFIED|DELETED|BOOKMARK|ERROR, "object": {...}}, got type ${
        JSON.stringify(type) ?? "undefined"
      }: ${preview(line)}`,
      { kind: "InvalidEvent", line: lineNo },
    );
  }
  return ev as WatchEvent<T>;
}

/**
 * Decode a watch response body into events, incrementally: a line or a
 * multi-byte UTF-8 character may be split across chunks, and one chunk may
 * hold many events.
 *
 * The iterator returns when the stream ends cleanly after a complete line
 * (e.g. at the server's `timeoutSeconds`). It throws a
 * {@link WatchDecodeError} for a malformed line, invalid UTF-8, or a stream
 * that ends or breaks mid-line; it throws `signal.reason` on abort. In every
 * case, and when the consumer leaves the loop early, the body is cancelled,
 * which closes the connection.
 *
 * @typeParam T the object type of the events
 * @param body the response body (bytes of newline-delimited JSON)
 * @param opts `signal` to stop the iteration, `onClose` to hear that it is over
 * @returns an async iterator of the events
 * @throws {WatchDecodeError} when the stream cannot be decoded or is cut
 *
 * @example Decode a body
 * ```ts
 * import { decodeWatch } from "@kubecache/core/client";
 * import assert from "node:assert/strict";
 * const body = new Response(
 *   '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n' +
 *     '{"type":"DELETED","object":{"metadata":{"name":"a"}}}\n',
 * ).body!;
 * const types = [];
 * for await (const ev of decodeWatch(body)) types.push(ev.type);
 * assert.deepEqual(types, ["ADDED", "DELETED"]);
 * ```
 */
export function decodeWatch<T extends KubeObject = KubeObject>(
  body: ReadableStream<Uint8Array>,
  opts: DecodeWatchOptions = {},
): AsyncGenerator<WatchEvent<T>, void, undefined> & BatchWatchIterator<T> {
  return new DecodedWatch(decodeChunks<T>(body, opts));
}

/**
 * The events of one decoded chunk at a time: next() hands them out one by
 * one, nextBatch() all that are left of the chunk at once (one promise per
 * chunk for the Reflector instead of one per event).
 */
class DecodedWatch<T>
  implements AsyncGenerator<WatchEvent<T>, void, undefined> {
  #chunks: AsyncGenerator<WatchEvent<T>[], void, undefined>;
  #buf: WatchEvent<T>[] = [];
  #i = 0;
  /** A refill in flight: overlapping next() calls wait for it, as a generator's queue would. */
  #busy: Promise<unknown> | undefined;

  constructor(chunks: AsyncGenerator<WatchEvent<T>[], void, undefined>) {
    this.#chunks = chunks;
  }

  next(): Promise<IteratorResult<WatchEvent<T>, void>> {
    if (this.#busy !== undefined) {
      const again = () => this.next();
      return this.#busy.then(again, again);
    }
    if (this.#i < this.#buf.length) {
      return Promise.resolve({ done: false, value: this.#buf[this.#i++] });
    }
    const p = this.#refill();
    this.#busy = p;
    return p;
  }

  async #refill(): Promise<IteratorResult<WatchEvent<T>, void>> {
    try {
      const r = await this.#chunks.next();
      if (r.done) return r;
      this.#buf = r.value;
      this.#i = 1;
      return { done: false, value: r.value[0] };
    } finally {
      this.#busy = undefined;
    }
  }

  nextBatch(): Promise<IteratorResult<WatchEvent<T>[], void>> {
    if (this.#i < this.#buf.length) {
      const rest = this.#i === 0 ? this.#buf : this.#buf.slice(this.#i);
      this.#buf = [];
      this.#i = 0;
      return Promise.resolve({ done: false, value: rest });
    }
    return this.#chunks.next();
  }

  async return(): Promise<IteratorResult<WatchEvent<T>, void>> {
    this.#buf = [];
    this.#i = 0;
    await this.#chunks.return(undefined);
    return { done: true, value: undefined };
  }

  throw(err: unknown): Promise<IteratorResult<WatchEvent<T>, void>> {
    this.#buf = [];
    this.#i = 0;
    return this.#chunks.throw(err) as Promise<IteratorReturnResult<void>>;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }
}

/** The decoder proper: yields each chunk's events as one non-empty array. */
async function* decodeChunks<T extends KubeObject>(
  body: ReadableStream<Uint8Array>,
  opts: DecodeWatchOptions,
): AsyncGenerator<WatchEvent<T>[], void, undefined> {
  const { signal, onClose, typeMeta } = opts;
  const maxBytes = opts.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
  const maxDepth = opts.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  if (signal?.aborted) {
    onClose?.();
    throw signal.reason;
  }
  const reader = body.getReader();
  // Cancelling the reader makes a pending read() settle, so an abort never
  // waits for the next byte from the server.
  const onAbort = () => reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  const decoder = new TextDecoder("utf-8", { fatal: true });
  // Deno's fatal decoder validates slowly (~7× a lenient one on 64 KiB), so
  // whole-character chunks are decoded leniently first; see quickDecode.
  const lenient = new TextDecoder("utf-8", { ignoreBOM: true });
  // Whether the fatal decoder has decided about a leading BOM (it has once
  // it produced a character); until then every chunk goes through it.
  let bomSettled = false;
  const lines = new LineBuffer(maxBytes, (length) => {
    throw new WatchDecodeError(
      `Cannot decode watch stream: line ${
        lineNo + 1
      } is longer than ${maxBytes} characters (maxObjectBytes), ${length} so far`,
      { kind: "TooLong", line: lineNo + 1 },
    );
  });
  let lineNo = 0;
  let events: WatchEvent<T>[] = [];
  const onLine = (line: string) => {
    lineNo++;
    // Blank lines carry no event (a JSON stream decoder skips whitespace);
    // the first-character test keeps trim() off the hot path.
    if (line.charCodeAt(0) !== 0x7b && line.trim() === "") return;
    const ev = parseEvent<T>(line, lineNo, maxDepth);
    if (typeMeta !== undefined && ev.type !== "ERROR") {
      const obj = ev.object as KubeObject;
      if (obj.kind === undefined) obj.kind = typeMeta.kind;
      if (obj.apiVersion === undefined) obj.apiVersion = typeMeta.apiVersion;
    }
    events.push(ev);
  };
  // The bytes of an incomplete character the decoder holds from the last chunk.
  let carry: Uint8Array = NO_BYTES;
  let finished = false;
  try {
    while (true) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (cause) {
        signal?.throwIfAborted();
        throw new WatchDecodeError(
          `Watch stream broke after line ${lineNo}: ${errorMessage(cause)}`,
          { kind: "UnexpectedEnd", line: lineNo + 1, cause },
        );
      }
      signal?.throwIfAborted();
      if (chunk.done) break;
      // Decode and split the whole chunk before yielding: a malformed line
      // later in the chunk still lets the earlier events through first.
      let failure: unknown;
      try {
        let text: string | undefined = carry.length === 0 && bomSettled
          ? quickDecode(lenient, chunk.value)
          : undefined;
        if (text === undefined) {
          text = decodeChunk(decoder, chunk.value, lineNo);
          bomSettled ||= text.length > 0;
        }
        lines.push(text, onLine);
        carry = incompleteTail(carry, chunk.value);
      } catch (err) {
        failure = err;
        // Invalid UTF-8 fails the whole chunk: recover the lines before the
        // bad byte so their events are still delivered first.
        if (err instanceof WatchDecodeError && err.kind === "InvalidUtf8") {
          failure = salvage(carry, chunk.value, lines, onLine) ?? err;
        }
      }
      if (events.length > 0) {
        const batch = events;
        events = [];
        yield batch;
      }
      if (failure !== undefined) throw failure;
    }
    lines.push(decodeChunk(decoder, undefined, lineNo), onLine);
    if (events.length > 0) yield events;
    const tail = lines.takeTail();
    if (tail.trim() !== "") {
      throw new WatchDecodeError(
        `Watch stream ended in the middle of line ${
          lineNo + 1
        } after ${tail.length} characters: ${preview(tail)}`,
        { kind: "UnexpectedEnd", line: lineNo + 1 },
      );
    }
    finished = true;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
    onClose?.();
  }
}

function decodeChunk(
  decoder: TextDecoder,
  bytes: Uint8Array | undefined,
  lineNo: number,
): string {
  try {
    return bytes === undefined
      ? decoder.decode()
      : decoder.decode(bytes, { stream: true });
  } catch (cause) {
    // At the end (no bytes), an incomplete character means the stream was cut.
    const cut = bytes === undefined;
    throw new WatchDecodeError(
      cut
        ? `Watch stream ended in the middle of a UTF-8 character on line ${
          lineNo + 1
        }`
        : `Cannot decode watch stream near line ${lineNo + 1}: invalid UTF-8`,
      { kind: cut ? "UnexpectedEnd" : "InvalidUtf8", line: lineNo + 1, cause },
    );
  }
}

const NO_BYTES = new Uint8Array(0);

/**
 * Decode a chunk that starts on a character boundary with the lenient
 * decoder, or return undefined when the fatal decoder must do it: the chunk
 * ends mid-character, or the text holds U+FFFD (invalid bytes, or a real
 * U+FFFD, which the fatal decoder then keeps). Otherwise the text is what
 * the fatal streaming decoder would give, which holds nothing back.
 */
function quickDecode(
  lenient: TextDecoder,
  bytes: Uint8Array,
): string | undefined {
  if (incompleteTail(NO_BYTES, bytes).length > 0) return undefined;
  const text = lenient.decode(bytes);
  return text.includes("\uFFFD") ? undefined : text;
}

/**
 * The trailing bytes of `prev + bytes` that start a UTF-8 character not yet
 * complete (what a streaming decoder keeps for the next chunk).
 */
function incompleteTail(prev: Uint8Array, bytes: Uint8Array): Uint8Array {
  const all = bytes.length >= 4 || prev.length === 0
    ? bytes
    : new Uint8Array([...prev, ...bytes]);
  for (let i = all.length - 1; i >= 0 && i >= all.length - 4; i--) {
    const b = all[i];
    if ((b & 0xc0) === 0x80) continue; // continuation byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return all.length - i < need ? all.slice(i) : NO_BYTES;
  }
  return NO_BYTES;
}

/**
 * Re-decode a chunk that holds invalid UTF-8 line by line, feeding the good
 * lines to `onLine`; returns the error for the first bad line (or the parse
 * error of a line before it).
 */
function salvage(
  carry: Uint8Array,
  bytes: Uint8Array,
  lines: LineBuffer,
  onLine: (line: string) => void,
): unknown {
  const all = new Uint8Array([...carry, ...bytes]);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let start = 0;
  try {
    while (start < all.length) {
      const nl = all.indexOf(0x0a, start);
      const end = nl === -1 ? all.length : nl + 1;
      lines.push(
        decoder.decode(all.subarray(start, end), { stream: true }),
        onLine,
      );
      start = end;
    }
  } catch (err) {
    return err instanceof TypeError ? undefined : err;
  }
  return undefined;
}
