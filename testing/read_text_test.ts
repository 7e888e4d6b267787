import assert from "node:assert/strict";
import { readTextUntil } from "./read_text.ts";

Deno.test("readTextUntil() reads nothing when `until` already holds, and says when the stream ended first", async () => {
  const reader = ReadableStream.from(["a\n", "b"]).getReader();
  assert.deepEqual(await readTextUntil(reader, () => true, "x"), {
    text: "x",
    ended: false,
  });
  assert.deepEqual(await readTextUntil(reader, (t) => t.includes("c")), {
    text: "a\nb",
    ended: true,
  });
});
