/**
 * The generic registry store of the fake API server (kube-apiserver's
 * `genericregistry.Store`): server-set metadata (uid, resourceVersion,
 * creationTimestamp, generation), optimistic concurrency, no-op updates that
 * keep the resourceVersion, finalizers and graceful deletion. Everything
 * kind-specific comes from the table's `ResourceStrategy` hooks. Internal to
 * `FakeApiServer`; both HTTP handlers and the direct state methods use it.
 *
 * @module
 */

import type { KubeObject, ObjectMeta } from "../api/object.ts";
import type { Clock } from "../api/clock.ts";
import type { ResourceType } from "../api/resources.ts";
import type { DeleteOptions } from "./_apiserver_delete_options.ts";
import { strategyFor } from "./_apiserver_strategies.ts";
import type { ResourceStrategy, StoreAccess } from "./_apiserver_types.ts";
import type { Entry } from "./_apiserver_types.ts";
import {
  frozenCopy,
  History,
  type HistoryEvent,
  Table,
} from "./_apiserver_store.ts";
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
  preconditionFailed,
} from "./_apiserver_status.ts";

const NAME_RE =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAME_HELP =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** The key of an object in its table. */
export function keyOf(namespace: string, name: string): string {
  return namespace === "" ? name : `${namespace}/${name}`;
}

let lastSecond = NaN;
let lastText = "";

/** RFC 3339 time with second precision, as metav1.Time marshals. */
export function rfc3339(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    // Bulk creates stamp the same second many times: format it once.
    lastSecond = second;
    lastText = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  }
  return lastText;
}

/** Result of a delete: the deleted (or finalizing) object. */
export interface DeleteResult {
  /** The object as last stored (with the deletion RV when removed). */
  entry: Entry;
  /** False when finalizers keep the object (deletionTimestamp set). */
  removed: boolean;
}

/** The garbage collector's finalizers, set by a DELETE's propagationPolicy. */
const GC_FINALIZERS: Readonly<Record<string, string>> = {
  Foreground: "foregroundDeletion",
  Orphan: "orphan",
};

/** All tables, the global resourceVersion and the event history. */
export class Cluster implements StoreAccess {
  readonly history: History;
  /**
   * Called with every recorded event, after the table's watchers (the
   * built-in controllers of `_apiserver_controllers.ts` listen here).
   */
  readonly observers: Set<(ev: HistoryEvent) => void> = new Set();
  readonly #clock: Clock;
  readonly #tables: Table[] = [];
  #rv = 0;
  #namespaces: Table | undefined;

  constructor(types: readonly ResourceType[], opts: {
    historyLimit: number;
    clock: Clock;
  }) {
    this.history = new History(opts.historyLimit);
    this.#clock = opts.clock;
    for (const t of types) {
      const table = new Table(t, strategyFor(t));
      this.#tables.push(table);
      if (t.group === "" && t.resource === "namespaces") {
        this.#namespaces = table;
      }
    }
  }

  /** Every table, in registration order. */
  get tables(): readonly Table[] {
    return this.#tables;
  }

  /** Current global resourceVersion. */
  get rv(): number {
    return this.#rv;
  }

  /** The table of a type (matched by group, version and resource). */
  table(type: ResourceType): Table {
    const t = this.find(type.group, type.version, type.resource);
    if (!t) {
      throw new TypeError(
        `Cannot use resource type ${type.resource}.${
          type.group || "core"
        }/${type.version}: it is not registered with this FakeApiServer`,
      );
    }
    return t;
  }

  /** The table serving group/version/resource, if any. */
  find(group: string, version: string, resource: string): Table | undefined {
    return this.#tables.find((t) =>
      t.type.group === group && t.type.version === version &&
      t.type.resource === resource
    );
  }

  /**
   * Serve a new resource type (a CustomResourceDefinition's), unless one
   * with its group, version and resource is served already.
   * @returns the new table, or undefined when the type was served
   */
  addTable(type: ResourceType, strategy: ResourceStrategy): Table | undefined {
    if (this.find(type.group, type.version, type.resource)) return undefined;
    const table = new Table(type, strategy);
    this.#tables.push(table);
    return table;
  }

  /** Stop serving a table added by {@link addTable}: its open watches end. */
  removeTable(table: Table): void {
    const i = this.#tables.indexOf(table);
    if (i >= 0) this.#tables.splice(i, 1);
    for (const sink of [...table.sinks]) sink.close?.();
    table.sinks.clear();
  }

  /** Whether a namespace exists (true when namespaces are not served). */
  namespaceExists(name: string): boolean {
    return !this.#namespaces || this.#namespaces.get(name) !== undefined;
  }

  /** Forget all history (and list snapshots). */
  compact(): void {
    this.history.compact(this.#rv);
    for (const t of this.#tables) t.forgetSnapshots();
  }

  /** etcd compaction at the current resourceVersion (watches unaffected). */
  compactStorage(): void {
    this.history.compactStorage(this.#rv);
    for (const t of this.#tables) t.forgetSnapshots();
  }

  /** Restart the watch cache at the current resourceVersion (lists unaffected). */
  resetWatchCache(): void {
    this.history.resetWatchCache(this.#rv);
  }

  /**
   * Create an object. `namespace` (from the URL) wins over the object's;
   * namespaced objects default to "default".
   * @throws {StatusError} AlreadyExists, Invalid
   */
  create(
    table: Table,
    input: KubeObject,
    namespace?: string,
    opts: {
      dryRun?: boolean;
      /**
       * Leave out the given status: a POST of a kind whose status is a
       * subresource (`prepareForCreate` then defaults it).
       */
      dropStatus?: boolean;
    } = {},
  ): Entry {
    // The input is only read: #entry stores a frozen deep copy.
    let src = input;
    if (opts.dropStatus && "status" in src) {
      const { status: _dropped, ...rest } = src as unknown as Record<
        string,
        unknown
      >;
      src = rest as unknown as KubeObject;
    }
    const meta: ObjectMeta = src.metadata ?? {};
    const kind = table.type.kind;
    let name = meta.name ?? "";
    if (name === "" && meta.generateName) {
      name = meta.generateName + randomSuffix();
    }
    if (name === "") {
      throw invalid(kind, "", [{
        field: "metadata.name",
        message: "Required value: name or generateName is required",
        reason: "FieldValueRequired",
      }]);
    }
    validateName(kind, name);
    const ns = table.type.namespaced
      ? (namespace || meta.namespace || "default")
      : "";
    const key = keyOf(ns, name);
    if (table.get(key)) {
      throw alreadyExists(table.type.resource, name, table.type.group);
    }
    table.strategy.validateCreate?.(src);
    if (opts.dryRun) {
      // Checked and defaulted, not stored: no resourceVersion.
      const out: ObjectMeta = { name };
      if (meta.generateName) out.generateName = meta.generateName;
      if (ns !== "") out.namespace = ns;
      out.uid = crypto.randomUUID();
      if (table.strategy.generation) out.generation = 1;
      out.creationTimestamp = rfc3339(this.#clock.now());
      copyUserMeta(meta, out);
      const obj = assemble(table, out, src);
      table.strategy.prepareForCreate?.(obj);
      return this.#entry(table, ns, name, 0, obj);
    }
    const rv = ++this.#rv;
    const out: ObjectMeta = { name };
    if (meta.generateName) out.generateName = meta.generateName;
    if (ns !== "") out.namespace = ns;
    out.uid = crypto.randomUUID();
    out.resourceVersion = String(rv);
    if (table.strategy.generation) out.generation = 1;
    out.creationTimestamp = rfc3339(this.#clock.now());
    copyUserMeta(meta, out);
    const obj = assemble(table, out, src);
    table.strategy.prepareForCreate?.(obj);
    const entry = this.#entry(table, ns, name, rv, obj);
    table.put(entry);
    this.#record(table, "ADDED", entry, undefined);
    table.strategy.afterCreate?.(this, table, entry);
    return entry;
  }

  /**
   * Replace an object (PUT). A set resourceVersion must match the stored one.
   * An update that changes nothing keeps the stored version and emits no event.
   * @throws {StatusError} NotFound, Conflict, BadRequest
   */
  update(
    table: Table,
    input: KubeObject,
    opts: {
      namespace?: string;
      name?: string;
      statusOnly?: boolean;
      /**
       * Keep the stored status whatever the input says: a PUT or PATCH of
       * the object itself when status is a subresource.
       */
      keepStatus?: boolean;
      /**
       * Skip the kind's update validation: pods/binding setting
       * `spec.nodeName`, and the direct state methods (controllers' writes).
       */
      unvalidated?: boolean;
    } = {},
  ): Entry {
    const src = input;
    const meta: ObjectMeta = src.metadata ?? {};
    const name = opts.name ?? meta.name ?? "";
    if (opts.name !== undefined && meta.name && meta.name !== opts.name) {
      throw badRequest(
        `the name of the object (${meta.name}) does not match the name on the URL (${opts.name})`,
      );
    }
    const ns = table.type.namespaced
      ? (opts.namespace || meta.namespace || "default")
      : "";
    const old = table.get(keyOf(ns, name));
    if (!old) throw notFound(table.type.resource, name, table.type.group);
    if (meta.resourceVersion && meta.resourceVersion !== String(old.rv)) {
      throw conflict(table.type.resource, name, table.type.group);
    }
    const oldMeta = old.obj.metadata;
    let body: Record<string, unknown> = src as unknown as Record<
      string,
      unknown
    >;
    let userMeta: ObjectMeta = meta;
    if (opts.statusOnly) {
      // The status subresource changes status only.
      body = { ...(old.obj as unknown as Record<string, unknown>) };
      body.status = (src as unknown as Record<string, unknown>).status;
      userMeta = oldMeta;
    } else if (opts.keepStatus) {
      // The status subresource owns status: a write to the object itself
      // leaves it as stored (PrepareForUpdate copies the old one back).
      body = { ...body };
      const prevStatus = (old.obj as unknown as Record<string, unknown>).status;
      if (prevStatus === undefined) delete body.status;
      else body.status = prevStatus;
    }
    const out: ObjectMeta = { name };
    if (oldMeta.generateName) out.generateName = oldMeta.generateName;
    if (ns !== "") out.namespace = ns;
    out.uid = oldMeta.uid;
    out.resourceVersion = String(old.rv);
    if (oldMeta.generation !== undefined) out.generation = oldMeta.generation;
    out.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp) {
      out.deletionTimestamp = oldMeta.deletionTimestamp;
      out.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    }
    copyUserMeta(userMeta, out);
    const next = assemble(
      table,
      out,
      body as unknown as KubeObject,
    ) as unknown as Record<string, unknown>;
    const prev = old.obj as unknown as Record<string, unknown>;
    // Stored custom resources have sorted keys: compare them sorted.
    const text = table.strategy.unstructured
      ? (o: unknown) => JSON.stringify(sortedKeys(o))
      : (o: unknown) => JSON.stringify(o);
    if (text(next) === text(prev)) return old;
    if (!opts.unvalidated) {
      table.strategy.validateUpdate?.(next as unknown as KubeObject, old.obj);
    }
    if (
      out.generation !== undefined &&
      !sameExceptMetaStatus(next, prev, text)
    ) out.generation++;
    if (
      out.deletionTimestamp && !(out.finalizers?.length) &&
      !table.strategy.holdsDeletion?.(next as unknown as KubeObject)
    ) {
      // The last finalizer is gone: the object goes away. The DELETED
      // event carries the last stored state; the answer is the would-be
      // object at its old resourceVersion (genericregistry.Store).
      this.#remove(table, old, old.obj);
      return this.#entry(
        table,
        ns,
        name,
        old.rv,
        next as unknown as KubeObject,
      );
    }
    const rv = ++this.#rv;
    out.resourceVersion = String(rv);
    const entry = this.#entry(
      table,
      ns,
      name,
      rv,
      next as unknown as KubeObject,
    );
    table.put(entry);
    this.#record(table, "MODIFIED", entry, old);
    table.strategy.afterUpdate?.(this, table, entry);
    return entry;
  }

  /** See {@link StoreAccess.restore}. */
  restore(table: Table, entry: Entry, obj: KubeObject): void {
    if (table.get(entry.key) !== entry) return;
    table.put(this.#entry(table, entry.namespace, entry.name, entry.rv, obj));
  }

  /**
   * Delete an object (the store's `Delete`): preconditions, then graceful
   * deletion when the strategy grants a grace period or finalizers hold
   * the object (only `deletionTimestamp` is set), else removal, running
   * the strategy's `onRemove` (a namespace takes its objects with it).
   * @throws {StatusError} NotFound, Conflict (stale precondition)
   */
  delete(
    table: Table,
    namespace: string,
    name: string,
    options: DeleteOptions = {},
  ): DeleteResult {
    const ns = table.type.namespaced ? namespace : "";
    const old = table.get(keyOf(ns, name));
    if (!old) throw notFound(table.type.resource, name, table.type.group);
    const pre = options.preconditions ?? {};
    const kind = table.type.kind;
    if (pre.uid && pre.uid !== old.obj.metadata.uid) {
      throw preconditionFailed(
        kind,
        name,
        "UID",
        pre.uid,
        old.obj.metadata.uid!,
      );
    }
    if (pre.resourceVersion && pre.resourceVersion !== String(old.rv)) {
      throw preconditionFailed(
        kind,
        name,
        "ResourceVersion",
        pre.resourceVersion,
        String(old.rv),
      );
    }
    // A dry run answers as if removed and changes nothing.
    if (options.dryRun?.length) return { entry: old, removed: true };
    const now = rfc3339(this.#clock.now());
    const result = this.#delete(table, old, options, now);
    table.strategy.afterDelete?.(this, table, result);
    return result;
  }

  #delete(
    table: Table,
    old: Entry,
    options: DeleteOptions,
    now: string,
  ): DeleteResult {
    const grace = table.strategy.gracePeriodSeconds?.(old.obj, options) ?? 0;
    const obj = clone(old.obj);
    const gc = GC_FINALIZERS[options.propagationPolicy ?? ""];
    if (gc && !old.obj.metadata.deletionTimestamp) {
      // The garbage collector's finalizer keeps the object until it has
      // dealt with the dependents (genericregistry deletionFinalizers...).
      const rest = (obj.metadata.finalizers ?? []).filter((f) =>
        !Object.values(GC_FINALIZERS).includes(f)
      );
      obj.metadata.finalizers = [...rest, gc];
    }
    table.strategy.beforeDelete?.(obj, options, now);
    if (table.strategy.gracefulDelete) {
      return this.#gracefulDelete(table, old, obj, grace);
    }
    if (
      obj.metadata.finalizers?.length || grace > 0 ||
      table.strategy.holdsDeletion?.(obj)
    ) {
      if (old.obj.metadata.deletionTimestamp) {
        return { entry: old, removed: false };
      }
      obj.metadata.deletionTimestamp = now;
      if (!table.strategy.ownDelete) {
        obj.metadata.deletionGracePeriodSeconds = grace;
        // BeforeDelete: marking for deletion is a new generation.
        if (obj.metadata.generation !== undefined) obj.metadata.generation++;
      }
      const rv = ++this.#rv;
      obj.metadata.resourceVersion = String(rv);
      const entry = this.#entry(table, old.namespace, old.name, rv, obj);
      table.put(entry);
      this.#record(table, "MODIFIED", entry, old);
      return { entry, removed: false };
    }
    const last = table.strategy.onRemove?.(this, old, now) ?? old.obj;
    return this.#remove(table, old, last);
  }

  /**
   * `rest.BeforeDelete` for a kind with graceful deletion (pods): the
   * object is written with `deletionTimestamp` = now + grace and
   * `deletionGracePeriodSeconds` (MODIFIED), then removed when the grace
   * is 0 and no finalizer holds it (DELETED, that state at a new RV). A
   * second DELETE may only shorten the grace period.
   */
  #gracefulDelete(
    table: Table,
    old: Entry,
    obj: KubeObject,
    grace: number,
  ): DeleteResult {
    const meta = old.obj.metadata;
    if (
      meta.deletionTimestamp && meta.deletionGracePeriodSeconds !== undefined &&
      meta.deletionGracePeriodSeconds <= grace
    ) return { entry: old, removed: false };
    obj.metadata.deletionTimestamp = rfc3339(this.#clock.now() + grace * 1000);
    obj.metadata.deletionGracePeriodSeconds = grace;
    const rv = ++this.#rv;
    obj.metadata.resourceVersion = String(rv);
    const entry = this.#entry(table, old.namespace, old.name, rv, obj);
    table.put(entry);
    this.#record(table, "MODIFIED", entry, old);
    if (grace > 0 || obj.metadata.finalizers?.length) {
      return { entry, removed: false };
    }
    return this.#remove(table, entry, entry.obj);
  }

  /** Remove an object at once (no finalizers, no grace), recording DELETED. */
  removeNow(table: Table, entry: Entry): void {
    this.#remove(table, entry, entry.obj);
  }

  #remove(table: Table, old: Entry, last: KubeObject): DeleteResult {
    const rv = ++this.#rv;
    const obj = clone(last);
    obj.metadata.resourceVersion = String(rv);
    const entry = this.#entry(table, old.namespace, old.name, rv, obj);
    table.remove(old.key);
    this.#record(table, "DELETED", entry, old);
    return { entry, removed: true };
  }

  #entry(
    table: Table,
    ns: string,
    name: string,
    rv: number,
    obj: KubeObject,
  ): Entry {
    return {
      key: keyOf(ns, name),
      namespace: ns,
      name,
      rv,
      // Unstructured objects (custom resources) marshal with sorted keys.
      obj: frozenCopy(table.strategy.unstructured ? sortedKeys(obj) : obj),
    };
  }

  #record(
    table: Table,
    type: HistoryEvent["type"],
    entry: Entry,
    prev: Entry | undefined,
  ): void {
    const ev: HistoryEvent = { rv: entry.rv, type, table, entry, prev };
    table.lastRV = entry.rv;
    this.history.push(ev);
    for (const sink of table.sinks) sink.event(ev);
    for (const observe of this.observers) observe(ev);
  }
}

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v));
}

function randomSuffix(): string {
  let s = "";
  for (let i = 0; i < 5; i++) {
    s +=
      GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)];
  }
  return s;
}

function validateName(kind: string, name: string): void {
  if (name.length > 253 || !NAME_RE.test(name)) {
    throw invalid(kind, name, [{
      field: "metadata.name",
      message: `Invalid value: "${name}": ${NAME_HELP}`,
    }]);
  }
}

// User-settable metadata, in the apiserver's field order.
const USER_META: (keyof ObjectMeta)[] = [
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
];

function copyUserMeta(from: ObjectMeta, to: ObjectMeta): void {
  for (const k of USER_META) {
    const v = from[k];
    const empty = v === undefined || v === null ||
      (Array.isArray(v) && v.length === 0) ||
      (typeof v === "object" && !Array.isArray(v) &&
        Object.keys(v as object).length === 0);
    if (!empty) (to as Record<string, unknown>)[k] = v;
  }
}

/** `{kind, apiVersion, metadata, ...rest}` in that key order. */
function assemble(table: Table, meta: ObjectMeta, src: KubeObject): KubeObject {
  const out: Record<string, unknown> = {
    kind: table.type.kind,
    apiVersion: table.apiVersion,
    metadata: meta,
  };
  for (const [k, v] of Object.entries(src)) {
    if (k !== "kind" && k !== "apiVersion" && k !== "metadata") out[k] = v;
  }
  return out as unknown as KubeObject;
}

function sortedKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(sortedKeys) as T;
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    out[k] = sortedKeys((v as Record<string, unknown>)[k]);
  }
  return out as T;
}

function sameExceptMetaStatus(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  text: (o: unknown) => string,
): boolean {
  const strip = (o: Record<string, unknown>) => {
    const { metadata: _m, status: _s, ...rest } = o;
    return text(rest);
  };
  return strip(a) === strip(b);
}
