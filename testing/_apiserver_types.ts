/**
 * The types the fake API server's store, registry and strategies share,
 * at the bottom of their imports: a stored `Entry`, a kind's
 * `ResourceStrategy` and `Subresource`, and the views of the store a hook
 * gets (`StoreAccess`, `StoreTable`; the registry's `Cluster` and the
 * store's `Table` implement them). Types only, and it imports no other
 * `_apiserver_*` file but the one of `DeleteOptions`, so the store, the
 * registry and the strategies all import it and none of them each other
 * in a ring. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import type { ResourceType } from "../api/resources.ts";
import type { TableColumns } from "../client/printers.ts";
import type { DeleteOptions } from "./_apiserver_delete_options.ts";

/** One stored version of an object. */
export interface Entry {
  /** `namespace/name` or `name`. */
  readonly key: string;
  /** Namespace, `""` for cluster-scoped objects. */
  readonly namespace: string;
  /** Object name. */
  readonly name: string;
  /** Resource version of this version of the object. */
  readonly rv: number;
  /** The object, deep-frozen, `kind` and `apiVersion` first. */
  readonly obj: KubeObject;
  /** JSON of `obj` (computed on first use). */
  json?: string;
}

/** A recorded change as a hook sees it (the store's `HistoryEvent`). */
export interface StoreEvent {
  /** Resource version of the change. */
  readonly rv: number;
  /** What happened. */
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  /** The object after the change (for DELETED: the last state at the deletion RV). */
  readonly entry: Entry;
  /** The object before the change (MODIFIED, DELETED). */
  readonly prev?: Entry;
}

/** Receives a table's events as they happen. */
export interface StoreSink {
  /** Called synchronously for every change of the table. */
  event(ev: StoreEvent): void;
  /** The table stops being served (its CustomResourceDefinition is gone). */
  close?(): void;
}

/** A table as a hook sees it (the store's `Table`). */
export interface StoreTable {
  /** The resource type served. */
  readonly type: ResourceType;
  /** The kind's rules. */
  readonly strategy: ResourceStrategy;
  /** Watchers of this table. */
  readonly sinks: Set<StoreSink>;
  /** Number of objects. */
  readonly size: number;
  /** The current version of an object. */
  get(key: string): Entry | undefined;
  /** The current objects, sorted by key. */
  sorted(): readonly Entry[];
}

/** What a hook may do to the cluster (the registry's `Cluster`). */
export interface StoreAccess {
  /** Serve a new resource type; undefined when it is served already. */
  addTable(
    type: ResourceType,
    strategy: ResourceStrategy,
  ): StoreTable | undefined;
  /** Stop serving a table added by `addTable`: its open watches end. */
  removeTable(table: StoreTable): void;
  /** Replace an object (see the registry's `update`). */
  update(
    table: StoreTable,
    input: KubeObject,
    opts?: { statusOnly?: boolean; unvalidated?: boolean },
  ): Entry;
  /**
   * Replace the stored object of an entry without a new resourceVersion
   * or event: what a read from storage decodes to has changed (a CRD's
   * new defaults).
   */
  restore(table: StoreTable, entry: Entry, obj: KubeObject): void;
  /** Delete an object (see the registry's `delete`). */
  delete(
    table: StoreTable,
    namespace: string,
    name: string,
    options?: DeleteOptions,
  ): { entry: Entry; removed: boolean };
}

/**
 * A subresource (`pods/status`, `deployments/scale`, `pods/binding`,
 * `namespaces/finalize`): its discovery entry and how each verb maps to
 * the parent object.
 */
export interface Subresource {
  /** Discovery: the kind served (default: the parent's), group/version when another API's. */
  discovery: { kind?: string; group?: string; version?: string };
  /** Discovery verbs. */
  verbs: readonly string[];
  /** GET (and the base of a PATCH): the subresource's view of the stored object. */
  view?(entry: Entry): Record<string, unknown>;
  /**
   * PUT (and the result of a PATCH): the new parent object from the
   * current one and the request body. The store then updates the parent.
   * @throws {StatusError} for a bad body
   */
  update?(old: Entry, body: unknown): KubeObject;
  /** Whether an update through this subresource changes only `status`. */
  statusOnly?: boolean;
  /**
   * POST (`pods/binding`): act on the stored parent and answer with an
   * HTTP status and a body. @throws {StatusError}
   */
  post?(store: StoreAccess, table: StoreTable, old: Entry, body: unknown): {
    status: number;
    body: unknown;
  };
}

/**
 * One kind's rules. Every member is optional: the default is what
 * kube-apiserver does for a plain kind (ConfigMap).
 */
export interface ResourceStrategy {
  /**
   * Selectable fields besides `metadata.name` and `metadata.namespace`
   * (the registry's `GetAttrs` / `SelectableFields`).
   */
  fields?: readonly string[];
  /**
   * The kind registers a field label conversion (pods, namespaces): exactly
   * these fields are selectable, and another gives 400 "field label not
   * supported: X".
   */
  fieldLabels?: readonly string[];
  /**
   * Selectable fields whose value is computed rather than read at their
   * path (an Event's `source` is `source.component`, else
   * `reportingComponent`), as the kind's `ToSelectableFields` builds them.
   */
  fieldValues?: Readonly<Record<string, (obj: KubeObject) => string>>;
  /** Value of a selectable field that is unset (booleans select as "false"). */
  fieldDefaults?: Readonly<Record<string, string>>;
  /**
   * Whether a change outside metadata and status bumps
   * `metadata.generation` (and a create sets it to 1).
   */
  generation?: boolean;
  /** Defaulting on create (`PrepareForCreate`); mutates the assembled object. */
  prepareForCreate?(obj: KubeObject): void;
  /**
   * Admission of a create, before anything is stored (e.g. 405 while a
   * CRD terminates). @throws {StatusError}
   */
  validateCreate?(obj: KubeObject): void;
  /** Runs after an update is stored and recorded (a CRD's new schema is served). */
  afterUpdate?(store: StoreAccess, table: StoreTable, entry: Entry): void;
  /** Runs after a create is stored and recorded (a CRD registers its resource). */
  afterCreate?(store: StoreAccess, table: StoreTable, entry: Entry): void;
  /**
   * `BeforeDelete`: change the copy of the object a DELETE is about to
   * mark or remove (add finalizers, conditions). Finalizers left on it
   * keep the object, marked with a deletionTimestamp.
   */
  beforeDelete?(obj: KubeObject, options: DeleteOptions, now: string): void;
  /**
   * The registry has its own `Delete` (CRDs): marking sets only
   * `deletionTimestamp`, without `deletionGracePeriodSeconds` or a new
   * generation.
   */
  ownDelete?: boolean;
  /** Runs after a DELETE marked (`removed` false) or removed the object. */
  afterDelete?(
    store: StoreAccess,
    table: StoreTable,
    result: { entry: Entry; removed: boolean },
  ): void;
  /**
   * Custom resources (the unstructured codec): JSON with sorted keys, list
   * items with kind and apiVersion and `continue: ""` in list metadata,
   * 422 for a wrong kind, 415 for a strategic merge patch.
   */
  unstructured?: boolean;
  /**
   * A custom resource's schema (its CRD version's
   * `schema.openAPIV3Schema`): the schema stage prunes, defaults and
   * validates against it. Unset: nothing is pruned (a built-in kind, or a
   * resource type given at start).
   */
  openAPIV3Schema?: Record<string, unknown>;
  /**
   * False: a PUT must carry `metadata.resourceVersion`
   * (`AllowUnconditionalUpdate`, false for custom resources). Default true.
   */
  unconditionalUpdate?: boolean;
  /** Discovery's `storageVersionHash` (custom resources). */
  storageVersionHash?: string;
  /**
   * Validation of an update (`ValidateUpdate`), after the new object is
   * assembled. @throws {StatusError} 422 Invalid
   */
  validateUpdate?(next: KubeObject, old: KubeObject): void;
  /**
   * Graceful deletion (`RESTGracefulDeleteStrategy.CheckGracefulDelete`):
   * the grace period in seconds this DELETE gets, or 0 to delete at once.
   * Unset: deleted at once.
   */
  gracePeriodSeconds?(obj: KubeObject, options: DeleteOptions): number;
  /**
   * Runs as the object is removed (after finalizers): e.g. a namespace's
   * contents go with it. Returns the last state to record, when it
   * differs from the stored one.
   */
  onRemove?(store: StoreAccess, entry: Entry, now: string): KubeObject | void;
  /**
   * Kind-specific finalizers that keep an object being deleted (a
   * namespace's `spec.finalizers`), besides `metadata.finalizers`.
   */
  holdsDeletion?(obj: KubeObject): boolean;
  /**
   * Graceful deletion (`RESTGracefulDeleteStrategy`, pods): a DELETE
   * writes `deletionTimestamp` (now + grace) and
   * `deletionGracePeriodSeconds` before removing the object, even at 0.
   */
  gracefulDelete?: boolean;
  /** Whether DELETE answers with the object instead of a Status (pods, namespaces). */
  deleteReturnsObject?: boolean;
  /**
   * Subresources besides none, keyed by name (`status`, `scale`, ...).
   * With `status` among them, a write to the object itself leaves its
   * status alone: an update or patch keeps the stored status, and a create
   * drops the given one (`PrepareForCreate`/`PrepareForUpdate` of the
   * built-in strategies and of custom resources with the status
   * subresource), unless `statusOnCreate`.
   */
  subresources?: Readonly<Record<string, Subresource>>;
  /**
   * A create keeps the given status although `status` is a subresource
   * (nodes: "Nodes allow *all* fields, including status, to be set on
   * create").
   */
  statusOnCreate?: boolean;
  /** Discovery verbs of the resource (default: all eight). */
  verbs?: readonly string[];
  /** Discovery categories (`all`). */
  categories?: readonly string[];
  /**
   * Server-side printing (`TableConvertor`). Unset: kubectl's printer of
   * a built-in kind (`client/printers.ts`), else Name and Created At.
   */
  columns?: TableColumns;
}
