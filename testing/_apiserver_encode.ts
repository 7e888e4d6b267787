/**
 * Content negotiation of the fake API server, in one place: the `Accept`
 * header picks an encoder (plain JSON, or a meta.k8s.io Table for
 * kubectl's server-side printing), and GET, LIST and WATCH write their
 * objects through it (kube-apiserver's `negotiation` and
 * `handlers/response.go` transformers). Internal to `FakeApiServer`.
 *
 * @module
 */

import { jsonResponse } from "./_apiserver_context.ts";
import { type Entry, entryJson, type Table } from "./_apiserver_store.ts";
import { tableDoc } from "./_apiserver_table.ts";

/** How a response writes objects. */
export interface Encoder {
  /** The body of a GET of one object. */
  object(table: Table, e: Entry): string;
  /** A LIST response of a page of objects with the list metadata. */
  list(table: Table, items: readonly Entry[], meta: ListMeta): Response;
  /**
   * The object JSON of a watch event; undefined for plain JSON (the watch
   * then shares each event's cached line). `first` is true for the
   * stream's first event.
   */
  watchObject?(table: Table, e: Entry, first: boolean): string;
}

/** List metadata: resourceVersion, and continue / remainingItemCount on a page. */
export type ListMeta = Record<string, unknown>;

const STREAM_THRESHOLD = 1000;
const STREAM_BATCH = 1000;
const encoder = new TextEncoder();

/** Plain JSON: objects as stored, list items without kind and apiVersion. */
export const JSON_ENCODER: Encoder = {
  object: (_table, e) => entryJson(e),
  list: listResponse,
};

/** meta.k8s.io/v1 Table (`as=Table`): the kind's columns, a row per object. */
export const TABLE_ENCODER: Encoder = {
  object: (table, e) =>
    JSON.stringify(
      tableDoc(table, [e], { resourceVersion: String(e.rv) }, true),
    ),
  list: (table, items, meta) =>
    jsonResponse(200, JSON.stringify(tableDoc(table, items, meta, true))),
  watchObject: (table, e, first) =>
    JSON.stringify(
      tableDoc(table, [e], { resourceVersion: String(e.rv) }, first),
    ),
};

/** The encoder an `Accept` header asks for. */
export function negotiate(accept: string | null): Encoder {
  return (accept ?? "").includes("as=Table") ? TABLE_ENCODER : JSON_ENCODER;
}

function itemPrefixLength(table: Table): number {
  return JSON.stringify({ kind: table.type.kind, apiVersion: table.apiVersion })
    .length;
}

/** JSON of a list item: the object without kind and apiVersion. */
function itemJson(e: Entry, prefix: number): string {
  return "{" + entryJson(e).slice(prefix);
}

/** A `<Kind>List` response; big lists are streamed in batches. */
export function listResponse(
  table: Table,
  items: readonly Entry[],
  meta: ListMeta,
): Response {
  const head = `{"kind":${
    JSON.stringify(table.type.kind + "List")
  },"apiVersion":${JSON.stringify(table.apiVersion)},"metadata":${
    JSON.stringify(meta)
  },"items":[`;
  const prefix = itemPrefixLength(table);
  if (items.length <= STREAM_THRESHOLD) {
    const parts = items.map((e) => itemJson(e, prefix));
    return jsonResponse(200, head + parts.join(",") + "]}");
  }
  // Big lists are streamed in batches so the first bytes leave early and
  // the whole body never sits in memory twice.
  let i = 0;
  let first = true;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (first) {
        first = false;
        controller.enqueue(encoder.encode(head));
      }
      if (i >= items.length) {
        controller.enqueue(encoder.encode("]}"));
        controller.close();
        return;
      }
      const end = Math.min(items.length, i + STREAM_BATCH);
      const parts: string[] = [];
      for (let j = i; j < end; j++) parts.push(itemJson(items[j], prefix));
      controller.enqueue(
        encoder.encode((i === 0 ? "" : ",") + parts.join(",")),
      );
      i = end;
    },
  });
  return jsonResponse(200, body);
}
