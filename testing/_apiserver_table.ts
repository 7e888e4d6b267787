/**
 * meta.k8s.io/v1 Tables, the server-side printing `kubectl get` asks for
 * (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), with the
 * default columns kube-apiserver uses for kinds without a printer (Name,
 * Created At) and PartialObjectMetadata rows. Internal to `FakeApiServer`.
 *
 * @module
 */

import type { Entry, Table } from "./_apiserver_store.ts";

const COLUMNS = [
  {
    name: "Name",
    type: "string",
    format: "name",
    description:
      "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
    priority: 0,
  },
  {
    name: "Created At",
    type: "date",
    format: "",
    description:
      "CreationTimestamp is a timestamp representing the server time when this object was created.",
    priority: 0,
  },
];

/** A meta.k8s.io/v1 Table (what `kubectl get` asks for). */
export function tableDoc(
  _table: Table,
  items: readonly Entry[],
  meta: Record<string, unknown>,
  withColumns = true,
): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: meta,
  };
  if (withColumns) doc.columnDefinitions = COLUMNS;
  doc.rows = items.map((e) => ({
    cells: [e.name, e.obj.metadata.creationTimestamp ?? ""],
    object: {
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: e.obj.metadata,
    },
  }));
  return doc;
}
