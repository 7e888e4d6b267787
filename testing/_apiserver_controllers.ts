/**
 * The controllers a user of an embedded cluster expects besides the bare
 * apiserver (`FakeApiServer.start({ controllers: true })`, the default):
 * the namespace controller (a Terminating namespace's contents are deleted,
 * then its `kubernetes` finalizer goes), the garbage collector (dependents
 * of a removed owner are deleted; `foregroundDeletion` and `orphan` owners
 * are released once their dependents are gone or orphaned) and the
 * kubelet's part of graceful deletion (an object marked with a grace
 * period is removed when it ends, on the server's clock). They watch the
 * store's events and act shortly after (a microtask after the write that
 * triggered them, so a client sees the apiserver's answer first), through
 * the same store calls a client's requests use. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { Clock } from "../api/clock.ts";
import type { KubeObject } from "../api/object.ts";
import type { Cluster } from "./_apiserver_registry.ts";
import type { HistoryEvent, Table } from "./_apiserver_store.ts";
import { namespaceFinalizers } from "./_apiserver_strategy_core.ts";
import type { Entry } from "./_apiserver_types.ts";

const KUBERNETES = "kubernetes";
const FOREGROUND = "foregroundDeletion";
const ORPHAN = "orphan";

/**
 * Run the built-in controllers on a cluster until `signal` aborts.
 * @param cluster the store they watch and write
 * @param clock the server's clock (grace periods)
 * @param signal aborted when the server closes: pending work is dropped
 */
export function startControllers(
  cluster: Cluster,
  clock: Clock,
  signal: AbortSignal,
): void {
  let queued = false;
  const namespaces = new Set<string>();
  const removedOwners = new Set<string>();
  const held = new Map<string, { table: Table; key: string }>();

  const run = () => {
    queued = false;
    if (signal.aborted) return;
    for (const ns of [...namespaces]) {
      if (finishNamespace(cluster, ns)) namespaces.delete(ns);
    }
    if (removedOwners.size > 0) {
      const uids = new Set(removedOwners);
      removedOwners.clear();
      collectDependents(cluster, uids);
    }
    for (const [uid, h] of [...held]) {
      if (releaseOwner(cluster, h.table, h.key, uid)) held.delete(uid);
    }
  };
  const schedule = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(run);
  };

  cluster.observers.add((ev: HistoryEvent) => {
    if (signal.aborted) return;
    const obj = ev.entry.obj;
    const meta = obj.metadata;
    const { group, resource } = ev.table.type;
    if (ev.type === "DELETED") {
      removedOwners.add(meta.uid!);
      held.delete(meta.uid!);
      schedule();
      return;
    }
    if (!meta.deletionTimestamp) return;
    if (
      group === "" && resource === "namespaces" &&
      namespaceFinalizers(obj).includes(KUBERNETES)
    ) {
      namespaces.add(meta.name!);
      schedule();
    }
    const finalizers = meta.finalizers ?? [];
    if (finalizers.includes(FOREGROUND) || finalizers.includes(ORPHAN)) {
      held.set(meta.uid!, { table: ev.table, key: ev.entry.key });
      schedule();
    }
    const grace = meta.deletionGracePeriodSeconds ?? 0;
    if (
      ev.type === "MODIFIED" && grace > 0 && !ev.prev?.obj.metadata
        .deletionTimestamp
    ) {
      removeAfterGrace(cluster, clock, signal, ev.table, ev.entry, grace);
    }
  });
}

/** Delete a namespace's contents; once none is left, drop `kubernetes`. */
function finishNamespace(cluster: Cluster, ns: string): boolean {
  const nsTable = cluster.find("", "v1", "namespaces");
  const current = nsTable?.get(ns);
  if (!nsTable || !current?.obj.metadata.deletionTimestamp) return true;
  const contents = () =>
    cluster.tables.flatMap((t) =>
      t.type.namespaced
        ? t.sorted().filter((x) => x.namespace === ns).map((e) => ({ t, e }))
        : []
    );
  for (const { t, e } of contents()) {
    if (!e.obj.metadata.deletionTimestamp) {
      cluster.delete(t, e.namespace, e.name, { gracePeriodSeconds: 0 });
    }
  }
  // Objects held by finalizers keep the namespace until they go.
  if (contents().length > 0) return false;
  const next = clone(current.obj) as unknown as {
    spec?: { finalizers?: string[] };
  };
  const rest = namespaceFinalizers(current.obj).filter((f) => f !== KUBERNETES);
  if (rest.length > 0) next.spec = { ...next.spec, finalizers: rest };
  else if (next.spec) delete next.spec.finalizers;
  cluster.update(nsTable, next as unknown as KubeObject);
  return true;
}

/** Background deletion of the dependents of removed owners. */
function collectDependents(cluster: Cluster, uids: Set<string>): void {
  for (const t of cluster.tables) {
    for (const e of t.sorted()) {
      const refs = e.obj.metadata.ownerReferences;
      if (!refs?.some((r) => uids.has(r.uid))) continue;
      if (e.obj.metadata.deletionTimestamp) continue;
      // Still owned by a live owner: the GC keeps it (it removes the dead reference).
      const live = refs.filter((r) => !uids.has(r.uid));
      if (live.length > 0) {
        const next = clone(e.obj);
        next.metadata.ownerReferences = live;
        cluster.update(t, next);
        continue;
      }
      cluster.delete(t, e.namespace, e.name);
    }
  }
}

/**
 * A `foregroundDeletion` owner: delete its dependents, then drop the
 * finalizer once none is left. An `orphan` owner: remove the reference
 * from its dependents, then drop the finalizer.
 * @returns whether the owner is released (or gone)
 */
function releaseOwner(
  cluster: Cluster,
  table: Table,
  key: string,
  uid: string,
): boolean {
  const owner = table.get(key);
  if (!owner || owner.obj.metadata.uid !== uid) return true;
  const finalizers = owner.obj.metadata.finalizers ?? [];
  const dependents: { t: Table; e: Entry }[] = [];
  for (const t of cluster.tables) {
    for (const e of t.sorted()) {
      if (e.obj.metadata.ownerReferences?.some((r) => r.uid === uid)) {
        dependents.push({ t, e });
      }
    }
  }
  if (finalizers.includes(ORPHAN)) {
    for (const { t, e } of dependents) {
      const next = clone(e.obj);
      next.metadata.ownerReferences = e.obj.metadata.ownerReferences!.filter(
        (r) => r.uid !== uid,
      );
      cluster.update(t, next);
    }
    dropFinalizer(cluster, table, owner, ORPHAN);
    return true;
  }
  if (!finalizers.includes(FOREGROUND)) return true;
  for (const { t, e } of dependents) {
    if (!e.obj.metadata.deletionTimestamp) {
      cluster.delete(t, e.namespace, e.name, {
        propagationPolicy: "Foreground",
      });
    }
  }
  if (dependents.some(({ t, e }) => t.get(e.key))) return false;
  dropFinalizer(cluster, table, owner, FOREGROUND);
  return true;
}

function dropFinalizer(
  cluster: Cluster,
  table: Table,
  owner: Entry,
  finalizer: string,
): void {
  const next = clone(owner.obj);
  next.metadata.finalizers = next.metadata.finalizers!.filter((f) =>
    f !== finalizer
  );
  cluster.update(table, next);
}

/** The kubelet's part: remove a gracefully deleted object when its grace ends. */
function removeAfterGrace(
  cluster: Cluster,
  clock: Clock,
  signal: AbortSignal,
  table: Table,
  entry: Entry,
  grace: number,
): void {
  clock.sleep(grace * 1000, signal).then(() => {
    const current = table.get(entry.key);
    if (!current || current.obj.metadata.uid !== entry.obj.metadata.uid) {
      return;
    }
    cluster.delete(table, current.namespace, current.name, {
      gracePeriodSeconds: 0,
    });
  }, () => {/* the server closed */});
}

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v));
}
