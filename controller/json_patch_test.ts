import assert from "node:assert/strict";
import { jsonPatchOf } from "./json_patch.ts";

Deno.test("jsonPatchOf: equal documents give no operation", () => {
  const doc = { a: 1, b: [1, { c: "x" }], d: null };
  assert.deepEqual(jsonPatchOf(doc, structuredClone(doc)), []);
});

Deno.test("jsonPatchOf: add, remove and replace of members, nested", () => {
  assert.deepEqual(
    jsonPatchOf(
      { spec: { a: 1, gone: true, same: "s" }, status: {} },
      { spec: { a: 2, same: "s", added: { x: 1 } }, status: {} },
    ),
    [
      { op: "remove", path: "/spec/gone" },
      { op: "replace", path: "/spec/a", value: 2 },
      { op: "add", path: "/spec/added", value: { x: 1 } },
    ],
  );
});

Deno.test("jsonPatchOf: a value of another type is replaced whole", () => {
  assert.deepEqual(jsonPatchOf({ a: { b: 1 } }, { a: [1] }), [
    { op: "replace", path: "/a", value: [1] },
  ]);
  assert.deepEqual(jsonPatchOf({ a: "1" }, { a: 1 }), [
    { op: "replace", path: "/a", value: 1 },
  ]);
  assert.deepEqual(jsonPatchOf({ a: null }, { a: {} }), [
    { op: "replace", path: "/a", value: {} },
  ]);
});

Deno.test("jsonPatchOf: keys with / and ~ are escaped as RFC 6901 says", () => {
  assert.deepEqual(
    jsonPatchOf(
      { metadata: { labels: {} } },
      { metadata: { labels: { "example.com/a~b": "1" } } },
    ),
    [{ op: "add", path: "/metadata/labels/example.com~1a~0b", value: "1" }],
  );
});

Deno.test("jsonPatchOf: arrays index by index; removals from the last one back", () => {
  assert.deepEqual(jsonPatchOf({ l: [1, 2] }, { l: [1, 3, 4, 5] }), [
    { op: "replace", path: "/l/1", value: 3 },
    { op: "add", path: "/l/2", value: 4 },
    { op: "add", path: "/l/3", value: 5 },
  ]);
  assert.deepEqual(jsonPatchOf({ l: [1, 2, 3, 4] }, { l: [9] }), [
    { op: "replace", path: "/l/0", value: 9 },
    { op: "remove", path: "/l/3" },
    { op: "remove", path: "/l/2" },
    { op: "remove", path: "/l/1" },
  ]);
});

Deno.test("jsonPatchOf: both sides are taken as JSON (undefined members absent)", () => {
  assert.deepEqual(jsonPatchOf({ a: 1 }, { a: 1, b: undefined }), []);
  const when = new Date(0);
  assert.deepEqual(jsonPatchOf({}, { t: when }), [
    { op: "add", path: "/t", value: "1970-01-01T00:00:00.000Z" },
  ]);
});

Deno.test("jsonPatchOf: a value that is not JSON is a TypeError naming the call", () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(() => jsonPatchOf({}, cyclic), {
    name: "TypeError",
    message: /^jsonPatchOf: to must be a JSON value, got /,
  });
  assert.throws(() => jsonPatchOf(undefined, {}), {
    name: "TypeError",
    message: /^jsonPatchOf: from must be a JSON value, got undefined/,
  });
});
