/**
 * Read a child process's output until a marker, for tests that run a CLI or
 * a script: wait for "listening", for the first lines, then stop it.
 *
 * @module
 */

/** What {@link readTextUntil} read. */
export interface ReadText {
  /** Everything read so far, including the `text` passed in. */
  text: string;
  /** True when the stream ended before `until` held. */
  ended: boolean;
}

/**
 * Read chunks from `reader` and append them to `text` until `until(text)`
 * holds or the stream ends; the reader stays open, so a later call goes on
 * where this one stopped. Without `until` it reads to the end (after a
 * `child.kill()`, say). Mirrors no client-go API: a test aid, like Go's
 * `bufio.Scanner` over a command's stdout.
 *
 * @param reader a reader of decoded text, e.g.
 *   `child.stdout.pipeThrough(new TextDecoderStream()).getReader()`
 * @param until checked before each read, on all the text so far
 * @param text text already read by an earlier call
 * @returns the text so far and whether the stream ended
 *
 * @example Wait for the first line, then read the rest
 * ```ts
 * import assert from "node:assert/strict";
 * import { readTextUntil } from "./read_text.ts";
 *
 * const reader = ReadableStream.from(["list", "ening\nev", "ent 1\n"])
 *   .getReader();
 * const first = await readTextUntil(reader, (t) => t.includes("\n"));
 * assert.deepEqual(first, { text: "listening\nev", ended: false });
 * const rest = await readTextUntil(reader, undefined, first.text);
 * assert.deepEqual(rest, { text: "listening\nevent 1\n", ended: true });
 * ```
 */
export async function readTextUntil(
  reader: ReadableStreamDefaultReader<string>,
  until: (text: string) => boolean = () => false,
  text = "",
): Promise<ReadText> {
  while (!until(text)) {
    const { value, done } = await reader.read();
    if (done) return { text, ended: true };
    text += value;
  }
  return { text, ended: false };
}
