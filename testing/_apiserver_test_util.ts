/**
 * Helpers shared by the FakeApiServer tests: JSON requests and an
 * incremental reader of watch streams. Test-only.
 *
 * @module
 */

import type { KubeObject } from "../api/object.ts";
import type { FakeApiServer } from "./fake_api_server.ts";

/** A decoded watch event. */
export interface RawEvent {
  type: string;
  object: Record<string, unknown> & {
    metadata: Record<string, unknown> & {
      name?: string;
      resourceVersion?: string;
    };
  };
}

/** GET (or any method) a path and decode the JSON answer. */
export async function getJson(
  server: FakeApiServer,
  path: string,
  init?: RequestInit,
): Promise<
  { status: number; headers: Headers; body: Record<string, unknown> }
> {
  const res = await fetch(server.url + path, init);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** Send a JSON body. */
export function send(
  server: FakeApiServer,
  method: string,
  path: string,
  body: unknown,
  contentType = "application/json",
): Promise<
  { status: number; headers: Headers; body: Record<string, unknown> }
> {
  return getJson(server, path, {
    method,
    headers: { "content-type": contentType },
    body: JSON.stringify(body),
  });
}

/** Names of the items of a list body. */
export function itemNames(body: Record<string, unknown>): string[] {
  return (body.items as { metadata: { name: string } }[]).map((i) =>
    i.metadata.name
  );
}

/** Reads a watch response event by event. */
export class WatchReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buf = "";
  #done = false;

  /** Wrap a watch response. */
  constructor(res: Response) {
    this.#reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Open a watch on `path` (query included). */
  static async open(server: FakeApiServer, path: string): Promise<WatchReader> {
    const res = await fetch(server.url + path);
    if (res.status !== 200) {
      throw new Error(`Cannot open watch ${path}: status ${res.status}`);
    }
    return new WatchReader(res);
  }

  /** The next event, or undefined when the stream ended. */
  async next(): Promise<RawEvent | undefined> {
    for (;;) {
      const nl = this.#buf.indexOf("\n");
      if (nl !== -1) {
        const line = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        return JSON.parse(line);
      }
      if (this.#done) return undefined;
      const { value, done } = await this.#reader.read();
      if (done) this.#done = true;
      else this.#buf += value;
    }
  }

  /** The next `n` events (fewer if the stream ends). */
  async take(n: number): Promise<RawEvent[]> {
    const out: RawEvent[] = [];
    while (out.length < n) {
      const e = await this.next();
      if (!e) break;
      out.push(e);
    }
    return out;
  }

  /** Every remaining event, up to the end of the stream. */
  async rest(): Promise<RawEvent[]> {
    return await this.take(Infinity);
  }

  /** Whether the stream has ended (reads what is left first). */
  async ended(): Promise<boolean> {
    return (await this.next()) === undefined;
  }

  /** Stop reading (closes the connection). */
  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }
}

/**
 * The `widgets.example.test` CustomResourceDefinition the CRD tests create
 * (namespaced, one served storage version v1), with the given
 * additionalPrinterColumns if any.
 */
export function widgetCrd(
  additionalPrinterColumns?: { name: string; type: string; jsonPath: string }[],
): KubeObject & { metadata: { name: string } } {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.test" },
    spec: {
      group: "example.test",
      names: { kind: "Widget", plural: "widgets", singular: "widget" },
      scope: "Namespaced",
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        // Kept as written: a bare `type: object` would prune spec and
        // status, as a real server does.
        schema: {
          openAPIV3Schema: {
            type: "object",
            "x-kubernetes-preserve-unknown-fields": true,
          },
        },
        ...(additionalPrinterColumns ? { additionalPrinterColumns } : {}),
      }],
    },
  };
}

/**
 * A batch/v1 Job (in the default namespace) whose `completions` pods ran
 * from `start` to `end` (RFC 3339 times): Complete.
 */
export function completedJob(
  name: string,
  completions: number,
  [start, end]: [string, string],
  spec: Record<string, unknown> = {},
): KubeObject {
  return {
    metadata: { name },
    spec: { completions, ...spec },
    status: {
      succeeded: completions,
      startTime: start,
      completionTime: end,
      conditions: [{ type: "Complete", status: "True" }],
    },
  } as KubeObject;
}
