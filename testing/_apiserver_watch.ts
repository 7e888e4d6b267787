/**
 * One open watch of the fake API server: a newline-delimited JSON stream of
 * events for one table, filtered by namespace and selectors the way the
 * watch cache filters them (an object leaving the selector is DELETED,
 * entering it ADDED), with BOOKMARK events, the server-side timeout, and the
 * fault hooks (stall, close after N events). Internal to `FakeApiServer`.
 *
 * @module
 */

import type { Clock } from "../api/clock.ts";
import type { Matcher } from "./_apiserver_select.ts";
import {
  entryJson,
  eventLine,
  type EventSink,
  type HistoryEvent,
  namespaceRange,
  type Table,
} from "./_apiserver_store.ts";
import type { Entry } from "./_apiserver_types.ts";

const encoder = new TextEncoder();
const INITIAL_BATCH = 500;

/** How a watch starts and behaves. */
export interface WatchParams {
  table: Table;
  /** Namespace filter, `""` for all. */
  namespace: string;
  /** Label and field selectors combined. */
  match: Matcher;
  /** Send the current objects as ADDED events first. */
  initial: boolean;
  /** After the initial events, send the initial-events-end BOOKMARK. */
  initialEventsEnd: boolean;
  /** Send nothing but end at the timeout (a watch from a future RV). */
  silent?: boolean;
  /** Events to replay (history after the requested RV). */
  replay: HistoryEvent[];
  /** The resourceVersion the watch starts at (for the pre-timeout bookmark). */
  startRV: number;
  /** Send periodic BOOKMARK events. */
  bookmarks: boolean;
  /** Period of BOOKMARK events in ms. */
  bookmarkInterval: number;
  /** Server-side timeout in ms (undefined: none). */
  timeoutMs: number | undefined;
  /** The current global resourceVersion. */
  currentRV: () => number;
  clock: Clock;
  /** Start stalled (silent until resumed). */
  stalled: boolean;
  /** End after this many more events (undefined: never). */
  closeAfter: number | undefined;
  /**
   * Encode an event's object (Table, metadata only); unset: plain JSON,
   * sharing each event's cached line. `first`: the stream's first event.
   */
  encode?: (e: Entry, first: boolean) => string | null;
  /** Called once when the watch ends, however it ends. */
  onEnd: (w: Watch) => void;
}

/** An open watch stream. */
export class Watch implements EventSink {
  /** The response body. */
  readonly body: ReadableStream<Uint8Array>;
  readonly #p: WatchParams;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #abort = new AbortController();
  #ended = false;
  #stalled: boolean;
  #held: Uint8Array[] = [];
  #closeAfter: number | undefined;
  #timedOut = false;
  #first = true;

  /** Open a watch: queue initial or replayed events, then subscribe. */
  constructor(p: WatchParams) {
    this.#p = p;
    this.#stalled = p.stalled;
    this.#closeAfter = p.closeAfter;
    this.body = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.#controller = c;
      },
      cancel: () => this.#finish(false),
    });
    if (p.initial) this.#sendInitial();
    for (const ev of p.replay) this.event(ev);
    if (this.#ended) return;
    if (!p.silent) p.table.sinks.add(this);
    if (p.bookmarks && !p.silent) this.#bookmarkLoop();
    if (p.timeoutMs !== undefined) this.#timeout(p.timeoutMs);
  }

  /** Whether the stream has ended. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Deliver a change of the table (filtered). */
  event(ev: HistoryEvent): void {
    if (this.#ended) return;
    // The history is global (one RV sequence for every table): a replay
    // must skip other tables' events, or a pods watch sends a Lease.
    if (ev.table !== this.#p.table) return;
    const ns = this.#p.namespace;
    if (ns !== "" && ev.entry.namespace !== ns) return;
    const match = this.#p.match;
    if (!match) {
      this.#emit(ev.type, ev);
      return;
    }
    const now = ev.type !== "DELETED" && match(ev.entry.obj);
    const before = ev.prev !== undefined && match(ev.prev.obj);
    let type: string | undefined;
    if (ev.type === "ADDED") type = now ? "ADDED" : undefined;
    else if (ev.type === "DELETED") type = before ? "DELETED" : undefined;
    else if (now) type = before ? "MODIFIED" : "ADDED";
    else if (before) type = "DELETED";
    if (type !== undefined) this.#emit(type, ev);
  }

  #emit(type: string, ev: HistoryEvent): void {
    if (this.#p.encode) this.#sendEncoded(type, ev.entry);
    else if (type === ev.type) this.#send(eventLine(ev));
    else this.#send(line(type, entryJson(ev.entry)));
  }

  // An object the encoder cannot convert ends the stream, as in
  // kube-apiserver (it logs the error and closes the watch).
  #sendEncoded(type: string, e: Entry): void {
    const first = this.#first;
    this.#first = false;
    const json = this.#p.encode!(e, first);
    if (json === null) this.close();
    else this.#send(line(type, json));
  }

  /** Stall (hold every event, send nothing) or resume (flush what was held). */
  setStalled(on: boolean): void {
    if (this.#ended || on === this.#stalled) return;
    this.#stalled = on;
    if (on) return;
    const held = this.#held;
    this.#held = [];
    for (const b of held) this.#send(b);
    if (this.#timedOut) this.#onTimeout();
  }

  /** End after `n` more events (0: now). */
  closeAfter(n: number): void {
    this.#closeAfter = n;
    if (n <= 0) this.close();
  }

  /** End the stream cleanly (the client sees the body end). */
  close(): void {
    this.#finish(true);
  }

  #sendInitial(): void {
    const { table, namespace, match } = this.#p;
    const arr = table.sorted();
    const [start, end] = namespaceRange(arr, namespace);
    // Batched for speed, one by one when a fault counts events.
    const size = this.#closeAfter === undefined ? INITIAL_BATCH : 1;
    let batch: string[] = [];
    for (let i = start; i < end && !this.#ended; i++) {
      const e: Entry = arr[i];
      if (match && !match(e.obj)) continue;
      if (this.#p.encode) {
        this.#sendEncoded("ADDED", e);
        continue;
      }
      batch.push(`{"type":"ADDED","object":${entryJson(e)}}\n`);
      if (batch.length >= size) {
        this.#send(encoder.encode(batch.join("")), batch.length);
        batch = [];
      }
    }
    if (batch.length > 0) {
      this.#send(encoder.encode(batch.join("")), batch.length);
    }
    if (this.#p.initialEventsEnd && !this.#ended) {
      this.#send(this.#bookmark(this.#p.currentRV(), true));
    }
  }

  #bookmark(rv: number, initialEnd = false): Uint8Array {
    const metadata: Record<string, unknown> = {
      resourceVersion: String(rv),
      creationTimestamp: null,
    };
    if (initialEnd) {
      metadata.annotations = { "k8s.io/initial-events-end": "true" };
    }
    const obj = {
      kind: this.#p.table.type.kind,
      apiVersion: this.#p.table.apiVersion,
      metadata,
    };
    return line("BOOKMARK", JSON.stringify(obj));
  }

  async #bookmarkLoop(): Promise<void> {
    const { clock, bookmarkInterval } = this.#p;
    const signal = this.#abort.signal;
    try {
      for (;;) {
        await clock.sleep(bookmarkInterval, signal);
        if (this.#ended) return;
        if (!this.#stalled) {
          this.#send(this.#bookmark(this.#p.currentRV()));
        }
      }
    } catch {
      // Aborted: the watch ended.
    }
  }

  async #timeout(ms: number): Promise<void> {
    try {
      await this.#p.clock.sleep(ms, this.#abort.signal);
    } catch {
      return; // Aborted: the watch ended first.
    }
    this.#timedOut = true;
    if (!this.#stalled) this.#onTimeout();
  }

  #onTimeout(): void {
    // Like the watch cache, a bookmark-enabled watch gets the latest RV
    // just before the server ends it, if it moved since the watch began.
    const rv = this.#p.currentRV();
    if (
      this.#p.bookmarks && !this.#p.silent && rv > this.#p.startRV &&
      !this.#ended
    ) {
      this.#send(this.#bookmark(rv));
    }
    this.close();
  }

  #send(bytes: Uint8Array, events = 1): void {
    if (this.#ended) return;
    if (this.#stalled) {
      this.#held.push(bytes);
      return;
    }
    this.#controller.enqueue(bytes);
    if (this.#closeAfter !== undefined) {
      this.#closeAfter -= events;
      if (this.#closeAfter <= 0) this.close();
    }
  }

  #finish(closeStream: boolean): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#abort.abort();
    this.#p.table.sinks.delete(this);
    if (closeStream) {
      try {
        this.#controller.close();
      } catch {
        // Already closed or cancelled by the client.
      }
    }
    this.#p.onEnd(this);
  }
}

function line(type: string, objectJson: string): Uint8Array {
  return encoder.encode(`{"type":"${type}","object":${objectJson}}\n`);
}

/** A single-event stream body (an ERROR event, then the end). */
export function errorEventBody(status: object): string {
  return `{"type":"ERROR","object":${JSON.stringify(status)}}\n`;
}
