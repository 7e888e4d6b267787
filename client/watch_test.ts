import assert from "node:assert/strict";
import { decodeWatch, WatchDecodeError } from "./watch.ts";
import type { WatchEvent } from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";

const enc = new TextEncoder();

/**
 * A body that hands out exactly the given chunks, one per pull, and records
 * whether it was cancelled. `hang` keeps it open after the last chunk.
 */
function scripted(
  chunks: Uint8Array[],
  opts: { hang?: boolean; failWith?: Error } = {},
) {
  const state = { cancelled: false, reason: undefined as unknown };
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) {
        controller.enqueue(chunks[i++]);
      } else if (opts.failWith) {
        controller.error(opts.failWith);
      } else if (!opts.hang) {
        controller.close();
      }
      // hang: leave the pull pending; only cancel() ends it.
      return opts.hang && i >= chunks.length
        ? new Promise(() => {})
        : undefined;
    },
    cancel(reason) {
      state.cancelled = true;
      state.reason = reason;
    },
  }, { highWaterMark: 0 });
  return { body, state };
}

/** Split `bytes` at the given offsets. */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const o of [...offsets, bytes.length]) {
    out.push(bytes.slice(prev, o));
    prev = o;
  }
  return out;
}

function line(type: string, name: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({ type, object: { metadata: { name }, ...extra } }) +
    "\n";
}

async function collect(
  it: AsyncIterable<WatchEvent<KubeObject>>,
): Promise<{ events: WatchEvent<KubeObject>[]; error?: unknown }> {
  const events: WatchEvent<KubeObject>[] = [];
  try {
    for await (const ev of it) events.push(ev);
  } catch (error) {
    return { events, error };
  }
  return { events };
}

function names(events: WatchEvent<KubeObject>[]): string[] {
  return events.map((e) =>
    `${e.type}:${(e.object as KubeObject).metadata?.name ?? ""}`
  );
}

Deno.test("decodeWatch() joins a line split mid-key", async () => {
  const bytes = enc.encode(line("ADDED", "a") + line("MODIFIED", "a"));
  // Offset 4 is inside "type"; 30 inside the first object.
  const { body, state } = scripted(cut(bytes, [4, 30]));
  const { events, error } = await collect(decodeWatch(body));
  assert.equal(error, undefined);
  assert.deepEqual(names(events), ["ADDED:a", "MODIFIED:a"]);
  assert.equal(state.cancelled, false);
});

Deno.test("decodeWatch() decodes 2-, 3- and 4-byte characters split at every byte", async (t) => {
  for (
    const [label, ch] of [["2-byte", "é"], ["3-byte", "€"], ["4-byte", "😀"]]
  ) {
    await t.step(label, async () => {
      const name = `x${ch}y`;
      const text = line("ADDED", name);
      const bytes = enc.encode(text);
      const start = enc.encode(text.slice(0, text.indexOf(ch))).length;
      const width = enc.encode(ch).length;
      assert.equal(width, Number(label[0]));
      for (let k = 1; k < width; k++) {
        // One chunk ends k bytes into the character; a second split one byte
        // later makes a chunk that holds only a continuation byte.
        const offsets = k + 1 < width
          ? [start + k, start + k + 1]
          : [start + k];
        const { body } = scripted(cut(bytes, offsets));
        const { events, error } = await collect(decodeWatch(body));
        assert.equal(error, undefined, `split at +${k}`);
        assert.deepEqual(names(events), [`ADDED:${name}`], `split at +${k}`);
      }
    });
  }
});

Deno.test("decodeWatch() yields every event of a chunk holding several", async () => {
  const text = line("ADDED", "a") + line("ADDED", "b") + line("DELETED", "a") +
    line("BOOKMARK", "");
  const { body } = scripted([enc.encode(text)]);
  const { events, error } = await collect(decodeWatch(body));
  assert.equal(error, undefined);
  assert.deepEqual(names(events), [
    "ADDED:a",
    "ADDED:b",
    "DELETED:a",
    "BOOKMARK:",
  ]);
});

Deno.test("decodeWatch() handles one byte per chunk and CRLF line ends", async () => {
  const text = line("ADDED", "ü").replace("\n", "\r\n") + line("ADDED", "b");
  const bytes = enc.encode(text);
  const { body } = scripted(cut(bytes, [...bytes.keys()].slice(1)));
  const { events, error } = await collect(decodeWatch(body));
  assert.equal(error, undefined);
  assert.deepEqual(names(events), ["ADDED:ü", "ADDED:b"]);
});

Deno.test("decodeWatch() reports a partial last line at EOF as an unexpected end", async () => {
  const text = line("ADDED", "a") + line("ADDED", "b").slice(0, 20);
  const { body } = scripted(cut(enc.encode(text), [10]));
  const { events, error } = await collect(decodeWatch(body));
  assert.deepEqual(names(events), ["ADDED:a"]);
  assert.ok(error instanceof WatchDecodeError);
  assert.equal(error.kind, "UnexpectedEnd");
  assert.equal(error.line, 2);
  assert.match(error.message, /ended in the middle of line 2/);
});

Deno.test("decodeWatch() reports EOF inside a UTF-8 character as an unexpected end", async () => {
  const bytes = enc.encode(line("ADDED", "a") + '{"type":"ADDED","x":"€');
  const { body } = scripted([bytes.slice(0, bytes.length - 1)]);
  const { events, error } = await collect(decodeWatch(body));
  assert.deepEqual(names(events), ["ADDED:a"]);
  assert.ok(error instanceof WatchDecodeError);
  assert.equal(error.kind, "UnexpectedEnd");
});

Deno.test("decodeWatch() passes ERROR events through with their Status", async () => {
  const status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "too old resource version: 1 (2)",
    reason: "Expired",
    code: 410,
  };
  const text = JSON.stringify({ type: "ERROR", object: status }) + "\n";
  const { body } = scripted([enc.encode(text)]);
  const { events, error } = await collect(decodeWatch(body));
  assert.equal(error, undefined);
  assert.deepEqual(events, [{ type: "ERROR", object: status }]);
});

Deno.test("decodeWatch() gives objects without TypeMeta the typeMeta given, not a Status", async () => {
  const lines = [
    { type: "ADDED", object: { metadata: { name: "a" } } },
    {
      type: "MODIFIED",
      object: { kind: "Other", apiVersion: "x/v1", metadata: { name: "b" } },
    },
    { type: "ERROR", object: { code: 500, message: "boom" } },
  ].map((l) => JSON.stringify(l) + "\n").join("");
  const { body } = scripted([enc.encode(lines)]);
  const { events, error } = await collect(
    decodeWatch(body, {
      typeMeta: { kind: "Deployment", apiVersion: "apps/v1" },
    }),
  );
  assert.equal(error, undefined);
  assert.deepEqual(events.map((e) => e.object), [
    { metadata: { name: "a" }, kind: "Deployment", apiVersion: "apps/v1" },
    { kind: "Other", apiVersion: "x/v1", metadata: { name: "b" } },
    { code: 500, message: "boom" },
  ]);
});

Deno.test("decodeWatch() ends on a malformed line after the events before it, and cancels the body", async () => {
  const text = line("ADDED", "a") + "{not json\n" + line("ADDED", "c");
  const { body, state } = scripted([enc.encode(text)], { hang: true });
  const { events, error } = await collect(decodeWatch(body));
  assert.deepEqual(names(events), ["ADDED:a"]);
  assert.ok(error instanceof WatchDecodeError);
  assert.equal(error.kind, "Malformed");
  assert.equal(error.line, 2);
  assert.match(error.message, /line 2: not JSON: "\{not json"/);
  assert.ok(error.cause instanceof SyntaxError);
  assert.equal(state.cancelled, true);
});

Deno.test("decodeWatch() rejects JSON that is not a watch event", async (t) => {
  for (
    const [label, bad] of [
      ["unknown type", '{"type":"CHANGED","object":{}}'],
      ["missing object", '{"type":"ADDED"}'],
      ["array object", '{"type":"ADDED","object":[]}'],
      ["not an object", "42"],
      ["null", "null"],
    ]
  ) {
    await t.step(label, async () => {
      const { body } = scripted([enc.encode(line("ADDED", "a") + bad + "\n")]);
      const { events, error } = await collect(decodeWatch(body));
      assert.deepEqual(names(events), ["ADDED:a"]);
      assert.ok(error instanceof WatchDecodeError);
      assert.equal(error.kind, "InvalidEvent");
      assert.equal(error.line, 2);
    });
  }
});

Deno.test("decodeWatch() rejects invalid UTF-8", async () => {
  const bytes = new Uint8Array([
    ...enc.encode(line("ADDED", "a")),
    ...enc.encode('{"type":"ADDED","object":{"x":"'),
    0xff,
    ...enc.encode('"}}\n'),
  ]);
  const { body } = scripted([bytes]);
  const { events, error } = await collect(decodeWatch(body));
  assert.deepEqual(names(events), ["ADDED:a"]);
  assert.ok(error instanceof WatchDecodeError);
  assert.equal(error.kind, "InvalidUtf8");
});

Deno.test("decodeWatch() skips blank lines", async () => {
  const { body } = scripted([enc.encode("\n" + line("ADDED", "a") + "  \n")]);
  const { events, error } = await collect(decodeWatch(body));
  assert.equal(error, undefined);
  assert.deepEqual(names(events), ["ADDED:a"]);
});

Deno.test("decodeWatch() wraps a broken stream in an unexpected-end error", async () => {
  const broken = new TypeError("connection reset");
  const { body } = scripted([enc.encode(line("ADDED", "a") + '{"ty')], {
    failWith: broken,
  });
  const { events, error } = await collect(decodeWatch(body));
  assert.deepEqual(names(events), ["ADDED:a"]);
  assert.ok(error instanceof WatchDecodeError);
  assert.equal(error.kind, "UnexpectedEnd");
  assert.equal(error.cause, broken);
});

Deno.test("decodeWatch() cancels the body when the consumer stops early", async () => {
  const { body, state } = scripted(
    [enc.encode(line("ADDED", "a") + line("ADDED", "b"))],
    { hang: true },
  );
  for await (const ev of decodeWatch(body)) {
    assert.equal(ev.type, "ADDED");
    break;
  }
  assert.equal(state.cancelled, true);
});

Deno.test("decodeWatch() rejects with the abort reason and cancels a waiting body", async () => {
  const { body, state } = scripted([enc.encode(line("ADDED", "a"))], {
    hang: true,
  });
  const ctrl = new AbortController();
  const it = decodeWatch(body, { signal: ctrl.signal });
  assert.deepEqual(names([(await it.next()).value!]), ["ADDED:a"]);
  const pending = it.next();
  const reason = new Error("stop");
  ctrl.abort(reason);
  await assert.rejects(pending, (e) => e === reason);
  assert.equal(state.cancelled, true);
});

Deno.test("decodeWatch() rejects at once when the signal is already aborted", async () => {
  const { body } = scripted([]);
  const ctrl = new AbortController();
  ctrl.abort(new Error("early"));
  await assert.rejects(decodeWatch(body, { signal: ctrl.signal }).next(), {
    message: "early",
  });
  await body.cancel();
});

Deno.test("decodeWatch() keeps the events before invalid UTF-8 that follows a split character", async () => {
  const good = enc.encode(line("ADDED", "é") + line("ADDED", "b"));
  const split = good.indexOf(0xc3) + 1;
  const bad = new Uint8Array([...good.slice(split), 0xc3, 0x28, 0x0a]);
  const { body } = scripted([good.slice(0, split), bad]);
  const { events, error } = await collect(decodeWatch(body));
  assert.deepEqual(names(events), ["ADDED:é", "ADDED:b"]);
  assert.ok(error instanceof WatchDecodeError);
  assert.equal(error.kind, "InvalidUtf8");
});

// Later whole-character chunks take the lenient-decoder fast path: it must
// give exactly what the fatal decoder gives.
Deno.test("decodeWatch() strips only a leading BOM and keeps U+FEFF and U+FFFD inside later chunks", async () => {
  const text = "\uFEFF" + line("ADDED", "a") + line("ADDED", "\uFEFFb") +
    line("ADDED", "c\uFFFD");
  const bytes = enc.encode(text);
  const feff = bytes.indexOf(0xef, 3); // the second U+FEFF starts a chunk
  const fffd = bytes.indexOf(0xef, feff + 3) - 1; // so does "c\uFFFD"
  const { body } = scripted(cut(bytes, [feff, fffd]));
  const { events, error } = await collect(decodeWatch(body));
  assert.equal(error, undefined);
  assert.deepEqual(names(events), [
    "ADDED:a",
    "ADDED:\uFEFFb",
    "ADDED:c\uFFFD",
  ]);
});

Deno.test("decodeWatch() rejects invalid UTF-8 in a later whole-character chunk", async () => {
  const bad = new Uint8Array([
    ...enc.encode(line("ADDED", "b")),
    ...enc.encode('{"type":"ADDED","object":{"x":"'),
    0xff,
    ...enc.encode('"}}\n'),
  ]);
  const { body } = scripted([enc.encode(line("ADDED", "a")), bad]);
  const { events, error } = await collect(decodeWatch(body));
  assert.deepEqual(names(events), ["ADDED:a", "ADDED:b"]);
  assert.ok(error instanceof WatchDecodeError);
  assert.equal(error.kind, "InvalidUtf8");
});

Deno.test("decodeWatch() calls onClose once however the iteration ends", async (t) => {
  await t.step("the stream ends", async () => {
    let closed = 0;
    const { body } = scripted([enc.encode(line("ADDED", "a"))]);
    const { error } = await collect(
      decodeWatch(body, { onClose: () => closed++ }),
    );
    assert.equal(error, undefined);
    assert.equal(closed, 1);
  });
  await t.step("the consumer stops early", async () => {
    let closed = 0;
    const { body } = scripted(
      [enc.encode(line("ADDED", "a") + line("ADDED", "b"))],
      { hang: true },
    );
    for await (const _ of decodeWatch(body, { onClose: () => closed++ })) break;
    assert.equal(closed, 1);
  });
  await t.step("a line is malformed", async () => {
    let closed = 0;
    const { body } = scripted([enc.encode("{not json\n")]);
    const { error } = await collect(
      decodeWatch(body, { onClose: () => closed++ }),
    );
    assert.ok(error instanceof WatchDecodeError);
    assert.equal(closed, 1);
  });
  await t.step("the signal aborts, before or during", async () => {
    let closed = 0;
    const early = new AbortController();
    early.abort(new Error("early"));
    const first = scripted([]);
    await assert.rejects(
      decodeWatch(first.body, {
        signal: early.signal,
        onClose: () => closed++,
      }).next(),
      { message: "early" },
    );
    await first.body.cancel();
    const ctrl = new AbortController();
    const { body } = scripted([enc.encode(line("ADDED", "a"))], { hang: true });
    const it = decodeWatch(body, {
      signal: ctrl.signal,
      onClose: () => closed++,
    });
    await it.next();
    const pending = it.next();
    ctrl.abort(new Error("stop"));
    await assert.rejects(pending, { message: "stop" });
    assert.equal(closed, 2);
  });
});

Deno.test("decodeWatch's nextBatch() hands over a chunk's events at once, the rest after next(), then fails after the events before a malformed line", async () => {
  const { body, state } = scripted([
    enc.encode(line("ADDED", "a") + line("ADDED", "b") + line("ADDED", "c")),
    enc.encode(line("DELETED", "a") + '{"type":"ADD'),
    enc.encode('ED","object":{"metadata":{"name":"d"}}}\n' + "{oops\n"),
  ]);
  const it = decodeWatch(body);
  const first = await it.next();
  assert.equal(first.done, false);
  assert.deepEqual(names([first.value as WatchEvent<KubeObject>]), ["ADDED:a"]);
  const rest = await it.nextBatch();
  assert.deepEqual(names(rest.value as WatchEvent<KubeObject>[]), [
    "ADDED:b",
    "ADDED:c",
  ]);
  const second = await it.nextBatch();
  assert.deepEqual(names(second.value as WatchEvent<KubeObject>[]), [
    "DELETED:a",
  ]);
  const third = await it.nextBatch();
  assert.deepEqual(names(third.value as WatchEvent<KubeObject>[]), ["ADDED:d"]);
  await assert.rejects(
    it.nextBatch(),
    (e) => e instanceof WatchDecodeError && e.kind === "Malformed",
  );
  assert.deepEqual(await it.nextBatch(), { done: true, value: undefined });
  assert.equal(state.cancelled, true);
});

Deno.test("decodeWatch's overlapping next() calls get the events in order, as a generator's would", async () => {
  const { body } = scripted([
    enc.encode(line("ADDED", "a") + line("ADDED", "b")),
    enc.encode(line("ADDED", "c")),
  ]);
  const it = decodeWatch(body);
  const rs = await Promise.all([it.next(), it.next(), it.next(), it.next()]);
  assert.deepEqual(rs.map((r) => r.done ? "done" : names([r.value])[0]), [
    "ADDED:a",
    "ADDED:b",
    "ADDED:c",
    "done",
  ]);
});
