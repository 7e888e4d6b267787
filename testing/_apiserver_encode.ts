/**
 * Content negotiation of the fake API server, in one place: the `Accept`
 * header picks an encoder (plain JSON, a meta.k8s.io Table for kubectl's
 * server-side printing, or PartialObjectMetadata for metadata-only
 * clients), and GET, LIST and WATCH write their objects through it (kube-apiserver's `negotiation` and
 * `handlers/response.go` transformers). Internal to `FakeApiServer`.
 *
 * @module
 */

import type { StatusError } from "../api/errors.ts";
import { jsonResponse } from "./_apiserver_context.ts";
import { badRequest, failure, statusError } from "./_apiserver_status.ts";
import { entryJson, type Table } from "./_apiserver_store.ts";
import {
  type IncludeObject,
  partialMetadata,
  tableDoc,
  type TableOptions,
} from "./_apiserver_table.ts";
import type { Entry } from "./_apiserver_types.ts";

/** How a response writes objects. */
export interface Encoder {
  /** The body of a GET of one object. */
  object(table: Table, e: Entry): string;
  /** A LIST response of a page of objects with the list metadata. */
  list(table: Table, items: readonly Entry[], meta: ListMeta): Response;
  /**
   * The object JSON of a watch event; null ends the stream (a conversion
   * that fails). Unset for plain JSON: the watch then shares each event's
   * cached line. `first` is true for the stream's first event.
   */
  watchObject?(table: Table, e: Entry, first: boolean): string | null;
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

/** meta.k8s.io Table (`as=Table`): the kind's columns, a row per object. */
function tableEncoder(opts: Omit<TableOptions, "now">, now: () => number) {
  const at = (): TableOptions => ({ ...opts, now: now() });
  return {
    object: (table, e) =>
      JSON.stringify(
        tableDoc(table, [e], { resourceVersion: String(e.rv) }, at()),
      ),
    list: (table, items, meta) =>
      jsonResponse(200, JSON.stringify(tableDoc(table, items, meta, at()))),
    // Like kube-apiserver, only a watch's first Table has column definitions.
    watchObject: (table, e, first) =>
      JSON.stringify(
        tableDoc(table, [e], { resourceVersion: String(e.rv) }, at(), first),
      ),
  } satisfies Encoder;
}

/** `as=PartialObjectMetadata` (GET, WATCH) and `as=PartialObjectMetadataList` (LIST). */
function metadataEncoder(version: string, asList: boolean): Encoder {
  const one = (e: Entry) => JSON.stringify(partialMetadata(e.obj, version));
  return {
    object(table, e) {
      if (asList) throw notAList(table, "PartialObjectMetadataList", false);
      return one(e);
    },
    list(table, items, meta) {
      if (!asList) throw notAList(table, "PartialObjectMetadata", true);
      // v1.24 leaves remainingItemCount out here (a Table keeps it).
      const { remainingItemCount: _, ...rest } = meta;
      return jsonResponse(
        200,
        `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/${version}","metadata":${
          JSON.stringify(rest)
        },"items":[${items.map(one).join(",")}]}`,
      );
    },
    // A list conversion of a watch event fails: the stream just ends.
    watchObject: (_table, e) => asList ? null : one(e),
  };
}

function notAList(table: Table, as: string, isList: boolean): StatusError {
  const g = table.type.group === "" ? "core" : table.type.group.split(".")[0];
  const type = `*${g}.${table.type.kind}${isList ? "List" : ""}`;
  return statusError(
    failure(
      406,
      "NotAcceptable",
      `you requested ${as}, but the requested object is ${
        isList ? "a list" : "not a list"
      } (${type})`,
    ),
  );
}

const META_VERSIONS = new Set(["v1", "v1beta1"]);

/**
 * The encoder the `Accept` header asks for: the first acceptable media
 * range wins (kube-apiserver's `NegotiateOutputMediaType`). A range with
 * `as=Table`, `as=PartialObjectMetadata` or `as=PartialObjectMetadataList`
 * (`g=meta.k8s.io`, `v=v1` or `v1beta1`) picks that conversion; one with
 * another `as=` is skipped; one without `as=` is plain JSON (YAML and
 * protobuf are answered as JSON too).
 * @param q the query (`includeObject` for Tables)
 * @param now the server's clock (Table ages)
 * @throws {StatusError} 406 NotAcceptable when no range is acceptable
 */
export function negotiate(
  accept: string | null,
  q: URLSearchParams,
  now: () => number,
): Encoder {
  if (!accept || !accept.includes("as=")) return JSON_ENCODER;
  for (const range of accept.split(",")) {
    const [, ...params] = range.split(";").map((p) => p.trim());
    const p = new Map(
      params.map((kv) => {
        const i = kv.indexOf("=");
        return [kv.slice(0, i).trim(), kv.slice(i + 1).trim()] as const;
      }),
    );
    const as = p.get("as");
    if (as === undefined) return JSON_ENCODER;
    const version = p.get("v") ?? "";
    if (p.get("g") !== "meta.k8s.io" || !META_VERSIONS.has(version)) continue;
    if (as === "Table") {
      return tableEncoder(
        { version, includeObject: includeObject(q) },
        now,
      );
    }
    if (as === "PartialObjectMetadata") return metadataEncoder(version, false);
    if (as === "PartialObjectMetadataList") {
      return metadataEncoder(version, true);
    }
  }
  throw statusError(
    failure(
      406,
      "NotAcceptable",
      "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    ),
  );
}

function includeObject(q: URLSearchParams): IncludeObject {
  const v = q.get("includeObject");
  if (v === null || v === "" || v === "Metadata") return "Metadata";
  if (v === "None" || v === "Object") return v;
  throw badRequest(
    `includeObject: Unsupported value: "${v}": supported values: "Metadata", "None", "Object"`,
  );
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
  if (table.strategy.unstructured) return unstructuredList(table, items, meta);
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

/**
 * A custom resource list as the unstructured codec writes it: sorted keys,
 * items with kind and apiVersion, and `continue` always in the metadata.
 */
function unstructuredList(
  table: Table,
  items: readonly Entry[],
  meta: ListMeta,
): Response {
  const m: ListMeta = { continue: meta.continue ?? "" };
  if (meta.remainingItemCount !== undefined) {
    m.remainingItemCount = meta.remainingItemCount;
  }
  m.resourceVersion = meta.resourceVersion;
  return jsonResponse(
    200,
    `{"apiVersion":${JSON.stringify(table.apiVersion)},"items":[${
      items.map(entryJson).join(",")
    }],"kind":${JSON.stringify(table.type.kind + "List")},"metadata":${
      JSON.stringify(m)
    }}`,
  );
}
