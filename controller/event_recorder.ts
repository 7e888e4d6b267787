/**
 * {@link EventRecorder}: core/v1 Events about your objects, as client-go's
 * `tools/record` writes them — aggregated, deduplicated into a `count`,
 * spam-filtered, and written off the caller's path.
 *
 * @module
 */

import type { Clock } from "../api/clock.ts";
import { realClock } from "../api/clock.ts";
import { isNotFound } from "../api/errors.ts";
import type { KubeObject } from "../api/object.ts";
import type { DeepReadonly } from "../api/readonly.ts";
import { Events } from "../api/resources.ts";
import type { KubeEvent } from "../api/types.ts";
import type { KubeClient } from "../client/rest.ts";
import {
  checkName,
  checkOptionalString,
  checkOptions,
  errorMessage,
  show,
} from "./_check.ts";

/**
 * The type of an Event: `"Normal"` for what went as planned, `"Warning"`
 * for what a person may need to look at.
 *
 * @example
 * ```ts
 * import type { EventType } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const typeOf = (failed: boolean): EventType => failed ? "Warning" : "Normal";
 * assert.equal(typeOf(true), "Warning");
 * ```
 */
export type EventType = "Normal" | "Warning";

/**
 * Options of {@link EventRecorder}.
 *
 * @example A recorder with a small queue on a fake clock
 * ```ts
 * import { EventRecorder, type EventRecorderOptions } from "@kubecache/core/controller";
 * import { KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer, FakeClock } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const opts: EventRecorderOptions = { component: "demo", clock: new FakeClock(0), maxQueued: 10 };
 * await using recorder = new EventRecorder(client, opts);
 * assert.equal(recorder.component, "demo");
 * ```
 */
export interface EventRecorderOptions {
  /** `source.component` and `reportingComponent` of the Events, e.g. `"configmap-controller"`. */
  component: string;
  /** `source.host` and `reportingInstance`. Default none. */
  host?: string;
  /** Clock of the timestamps, the 10-minute windows and the spam filter. Default the real clock. */
  clock?: Clock;
  /** Events waiting to be written before new ones are dropped (client-go `maxQueuedEvents`). Default 1000. */
  maxQueued?: number;
}

/**
 * What an {@link EventRecorder} did with the events it was given.
 *
 * @example
 * ```ts
 * import type { EventRecorderStats } from "@kubecache/core/controller";
 * import assert from "node:assert/strict";
 *
 * const stats: EventRecorderStats = { created: 1, patched: 3, filtered: 0, dropped: 0, queued: 0 };
 * assert.equal(stats.created + stats.patched, 4);
 * ```
 */
export interface EventRecorderStats {
  /** Events created (POST). */
  created: number;
  /** Events whose count was raised (PATCH). */
  patched: number;
  /** Events the spam filter held back. */
  filtered: number;
  /** Events dropped: the queue was full, the server refused, or the recorder was closed. */
  dropped: number;
  /** Events waiting to be written. */
  queued: number;
}

/** client-go `events_cache.go`: LRU size of each cache. */
const MAX_CACHE_ENTRIES = 4096;
/** Same event within this window raises count; 10 distinct messages aggregate. */
const WINDOW_MS = 10 * 60 * 1000;
/** client-go `defaultAggregateMaxEvents`. */
const AGGREGATE_MAX_EVENTS = 10;
/** client-go `defaultSpamBurst` and `defaultSpamQPS` (1 per 5 minutes). */
const SPAM_BURST = 25;
const SPAM_QPS = 1 / 300;

interface Pending {
  event: KubeEvent;
  /** PATCH this event's count instead of creating it. */
  patch: boolean;
}

// The last Event name time handed out in this process (ns): shared by every
// recorder, so names stay unique across recorders (see #uniqueHexTime).
let lastEventNs = 0n;

/**
 * Records core/v1 Events about objects (client-go `record.EventRecorder`
 * with its `EventCorrelator`; controller-runtime's
 * `mgr.GetEventRecorderFor`; kube-rs `Recorder`). Get one from
 * `manager.eventRecorder(component)`, or make one.
 *
 * `event(obj, type, reason, message)` returns at once and never throws;
 * what it does, in client-go's order:
 *
 * 1. **aggregate**: the 10th distinct message with the same (object, type,
 *    reason) within 10 minutes becomes one Event whose message starts
 *    `(combined from similar events): `, and so does each new message
 *    after it; one of the 9 kept since is recorded on its own;
 * 2. **deduplicate**: the same (object, type, reason, message) within 10
 *    minutes of the last one raises `count` and `lastTimestamp` of the
 *    existing Event with a PATCH instead of creating a new one;
 * 3. **spam filter**: per (source, object, type), a token bucket lets 25
 *    events through, then one per 5 minutes; the rest are counted as
 *    `filtered`. client-go keys it by (source, object) alone, where Normal
 *    events can use up the budget and hide a Warning; here Normal and
 *    Warning events have a budget each;
 * 4. **queue**: writes wait in a bounded queue (`maxQueued`, 1000) and go
 *    out one at a time; when it is full, or the server refuses a write,
 *    the event is dropped and counted. A PATCH of an Event the server no
 *    longer has (Events expire after an hour) creates it instead.
 *
 * Events are named `<object name>.<hex of the time in ns>` in the object's
 * namespace (`default` for a cluster-scoped object), with `involvedObject`
 * (kind, apiVersion, namespace, name, uid, resourceVersion), `source`,
 * `reportingComponent`, `firstTimestamp`, `lastTimestamp`, `count`.
 *
 * @example An event, its repeat, and what the server holds
 * ```ts
 * import { EventRecorder } from "@kubecache/core/controller";
 * import { ConfigMaps, Events, KubeClient, KubeConfig } from "@kubecache/core";
 * import { FakeApiServer } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * await using server = await FakeApiServer.start();
 * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
 * const cm = await client.create(ConfigMaps, { metadata: { name: "app", namespace: "default" } });
 * await using recorder = new EventRecorder(client, { component: "demo" });
 * recorder.event(cm, "Normal", "Synced", "config applied");
 * recorder.event(cm, "Normal", "Synced", "config applied");
 * await recorder.flush();
 * const [event] = server.list(Events, "default");
 * assert.equal(event.count, 2);
 * assert.equal(event.involvedObject?.name, "app");
 * assert.deepEqual(recorder.stats(), { created: 1, patched: 1, filtered: 0, dropped: 0, queued: 0 });
 * ```
 */
export class EventRecorder implements AsyncDisposable {
  /** The `source.component` of the Events. */
  readonly component: string;
  readonly #client: Pick<KubeClient, "create" | "patch">;
  readonly #host: string | undefined;
  readonly #clock: Clock;
  readonly #maxQueued: number;
  readonly #aggregates = new Lru<{ messages: Set<string>; at: number }>();
  readonly #observed = new Lru<{
    name: string;
    namespace: string;
    count: number;
    firstTimestamp: string;
    at: number;
  }>();
  readonly #spam = new Lru<{ tokens: number; at: number }>();
  readonly #queue: Pending[] = [];
  #writing = false;
  #closed = false;
  #idle: PromiseWithResolvers<void> | undefined;
  #abort = new AbortController();
  #stats = { created: 0, patched: 0, filtered: 0, dropped: 0 };

  /**
   * Create a recorder.
   * @param client writes the Events (create and patch)
   * @param opts component, host, clock, queue bound
   * @throws {TypeError} when `client` has no create/patch or `opts.component` is not a non-empty string, or `opts.host` is not a string
   * @throws {RangeError} when `opts.maxQueued` is not an integer >= 1
   */
  constructor(
    client: Pick<KubeClient, "create" | "patch">,
    opts: EventRecorderOptions,
  ) {
    const call = "new EventRecorder";
    if (
      typeof client?.create !== "function" ||
      typeof client.patch !== "function"
    ) {
      throw new TypeError(
        `${call}: client must be a KubeClient, got ${show(client)}`,
      );
    }
    checkOptions(call, "opts", opts);
    checkName(call, "opts.component", opts?.component);
    checkOptionalString(call, "opts.host", opts.host);
    const max = opts.maxQueued ?? 1000;
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(
        `${call}: opts.maxQueued must be an integer >= 1, got ${
          show(opts.maxQueued)
        }`,
      );
    }
    this.#client = client;
    this.component = opts.component;
    this.#host = opts.host;
    this.#clock = opts.clock ?? realClock;
    this.#maxQueued = max;
  }

  /**
   * Record an event about `obj` (client-go `Event`). Returns at once; the
   * write happens later, off the caller's path. Never throws: a bad
   * argument is reported with `console.warn` and the event dropped.
   *
   * @param obj the object the event is about (a cached object is fine; it is only read)
   * @param type `"Normal"` or `"Warning"`
   * @param reason short UpperCamelCase reason, e.g. `"Synced"`
   * @param message what happened, for people
   *
   * @example Warn about a failure
   * ```ts
   * import { EventRecorder } from "@kubecache/core/controller";
   * import { ConfigMaps, Events, KubeClient, KubeConfig } from "@kubecache/core";
   * import { FakeApiServer } from "@kubecache/core/testing";
   * import assert from "node:assert/strict";
   *
   * await using server = await FakeApiServer.start();
   * await using client = new KubeClient(KubeConfig.fromOptions({ server: server.url }));
   * const cm = await client.create(ConfigMaps, { metadata: { name: "app", namespace: "default" } });
   * await using recorder = new EventRecorder(client, { component: "demo" });
   * recorder.event(cm, "Warning", "InvalidData", "key x is not valid YAML");
   * await recorder.flush();
   * const [event] = server.list(Events, "default");
   * assert.equal(event.type, "Warning");
   * assert.equal(event.source?.component, "demo");
   * ```
   */
  event(
    obj: DeepReadonly<KubeObject>,
    type: EventType,
    reason: string,
    message: string,
  ): void {
    try {
      this.#record(obj, type, reason, message);
    } catch (err) {
      this.#stats.dropped++;
      let why = "an input could not be read";
      try {
        why = errorMessage(err);
      } catch {
        // a thrown value that cannot be printed: event() still returns
      }
      console.warn(`EventRecorder ${this.component}: event dropped: ${why}`);
    }
  }

  /**
   * Wait until every event recorded so far is written or dropped (for
   * tests, and before exiting).
   * @returns once the queue is empty and no write is in flight
   */
  flush(): Promise<void> {
    if (!this.#writing && this.#queue.length === 0) return Promise.resolve();
    this.#idle ??= Promise.withResolvers<void>();
    return this.#idle.promise;
  }

  /**
   * Counts of what happened to the events so far.
   * @returns created, patched, filtered, dropped, and queued now
   */
  stats(): EventRecorderStats {
    return { ...this.#stats, queued: this.#queue.length };
  }

  /**
   * Stop: later events are dropped, what is queued is dropped (counted),
   * the write in flight is aborted. Call {@link EventRecorder.flush}
   * first to write what is queued.
   * @returns once the write in flight has ended
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stats.dropped += this.#queue.length;
    this.#queue.length = 0;
    this.#abort.abort(new Error(`EventRecorder ${this.component} closed`));
    await this.flush();
  }

  /** Same as {@link EventRecorder.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #record(
    obj: DeepReadonly<KubeObject>,
    type: EventType,
    reason: string,
    message: string,
  ): void {
    if (this.#closed) throw new Error("the recorder is closed");
    const meta = obj?.metadata;
    if (typeof meta?.name !== "string") {
      throw new TypeError(
        `obj must be a Kubernetes object with metadata.name, got ${show(obj)}`,
      );
    }
    if (type !== "Normal" && type !== "Warning") {
      throw new TypeError(
        `type must be "Normal" or "Warning", got ${show(type)}`,
      );
    }
    if (typeof reason !== "string" || typeof message !== "string") {
      throw new TypeError(`reason and message must be strings`);
    }
    const now = this.#clock.now();
    const stamp = new Date(Math.floor(now / 1000) * 1000).toISOString()
      .replace(".000Z", "Z");
    const involvedObject = {
      kind: obj.kind,
      namespace: meta.namespace,
      name: meta.name,
      uid: meta.uid,
      apiVersion: obj.apiVersion,
      resourceVersion: meta.resourceVersion,
    };
    const objectKey = [
      this.component,
      this.#host ?? "",
      obj.kind ?? "",
      meta.namespace ?? "",
      meta.name,
      meta.uid ?? "",
      obj.apiVersion ?? "",
    ].join("\u0000");

    // 1. EventAggregator: many messages for one (object, type, reason).
    const aggregateKey = `${objectKey}\u0000${type}\u0000${reason}`;
    let agg = this.#aggregates.get(aggregateKey);
    if (!agg || now - agg.at > WINDOW_MS) {
      agg = { messages: new Set(), at: now };
    }
    agg.messages.add(message);
    agg.at = now;
    this.#aggregates.set(aggregateKey, agg);
    let key = `${aggregateKey}\u0000${message}`;
    if (agg.messages.size >= AGGREGATE_MAX_EVENTS) {
      // Keep the set below the limit (client-go `localKeys.PopAny`; here
      // the oldest goes): it stays small however many distinct messages
      // come, and a message still in it passes on uncombined.
      agg.messages.delete(agg.messages.values().next().value!);
      key = aggregateKey;
      message = `(combined from similar events): ${message}`;
    }

    // 2. EventLogger: the same event again raises count with a PATCH.
    const namespace = meta.namespace || "default";
    const last = this.#observed.get(key);
    const repeat = last !== undefined && now - last.at <= WINDOW_MS;
    const seen = repeat ? last : {
      name: `${meta.name}.${this.#uniqueHexTime(now)}`,
      namespace,
      count: 0,
      firstTimestamp: stamp,
      at: now,
    };
    seen.count++;
    seen.at = now;
    this.#observed.set(key, seen);

    // 3. Spam filter per (source, object, type): 25, then 1 per 5
    // minutes. client-go keys it by source and object alone, so a
    // controller that records a Normal event per reconcile spends the
    // object's budget and its Warnings are dropped; here Warnings have a
    // budget of their own.
    const spamKey = `${objectKey}\u0000${type}`;
    let bucket = this.#spam.get(spamKey);
    if (!bucket) bucket = { tokens: SPAM_BURST, at: now };
    bucket.tokens = Math.min(
      SPAM_BURST,
      bucket.tokens + (now - bucket.at) / 1000 * SPAM_QPS,
    );
    bucket.at = now;
    this.#spam.set(spamKey, bucket);
    if (bucket.tokens < 1) {
      this.#stats.filtered++;
      return;
    }
    bucket.tokens -= 1;

    // 4. The bounded queue.
    if (this.#queue.length >= this.#maxQueued) {
      this.#stats.dropped++;
      return;
    }
    const event: KubeEvent & Record<string, unknown> = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: seen.name, namespace: seen.namespace },
      involvedObject,
      reason,
      message,
      type,
      count: seen.count,
      firstTimestamp: seen.firstTimestamp,
      lastTimestamp: stamp,
      source: this.#host === undefined
        ? { component: this.component }
        : { component: this.component, host: this.#host },
      reportingComponent: this.component,
      reportingInstance: this.#host ?? "",
    };
    this.#queue.push({ event, patch: repeat });
    if (!this.#writing) {
      this.#writing = true;
      // Later, never on the caller's turn: event() only queues.
      queueMicrotask(() => this.#drain());
    }
  }

  /**
   * Nanosecond time in hex (client-go uses UnixNano), increasing across every
   * recorder of the process: two recorders writing about one object in the
   * same millisecond must not pick the same Event name, or the second write
   * is refused as AlreadyExists and its event lost.
   */
  #uniqueHexTime(now: number): string {
    let ns = BigInt(Math.floor(now)) * 1_000_000n;
    if (ns <= lastEventNs) ns = lastEventNs + 1n;
    lastEventNs = ns;
    return ns.toString(16);
  }

  async #drain(): Promise<void> {
    try {
      for (;;) {
        const next = this.#queue.shift();
        if (!next) break;
        try {
          await this.#write(next);
        } catch {
          // The server refused or is gone: the event is lost, counted.
          this.#stats.dropped++;
        }
      }
    } finally {
      this.#writing = false;
      const idle = this.#idle;
      this.#idle = undefined;
      idle?.resolve();
    }
  }

  async #write({ event, patch }: Pending): Promise<void> {
    const signal = this.#abort.signal;
    const { name, namespace } = event.metadata as {
      name: string;
      namespace: string;
    };
    if (patch) {
      try {
        await this.#client.patch(Events, name, {
          count: event.count,
          lastTimestamp: event.lastTimestamp,
          message: event.message,
        }, { namespace, patchType: "strategic", signal });
        this.#stats.patched++;
        return;
      } catch (err) {
        // Expired or never written: create it, as client-go does.
        if (!isNotFound(err)) throw err;
      }
    }
    await this.#client.create(Events, event, { namespace, signal });
    this.#stats.created++;
  }
}

/** A Map kept to its newest `MAX_CACHE_ENTRIES` keys (groupcache `lru`). */
class Lru<V> {
  readonly #map = new Map<string, V>();
  get(key: string): V | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }
  set(key: string, v: V): void {
    this.#map.delete(key);
    this.#map.set(key, v);
    if (this.#map.size > MAX_CACHE_ENTRIES) {
      this.#map.delete(this.#map.keys().next().value!);
    }
  }
}
