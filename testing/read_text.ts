/**
 * Read a child process's output until a marker, for tests that run a CLI or
 * a script: wait for "listening", for the first lines, then stop it.
 *
 * @module
 */

/**
 * What {@link readTextUntil} read.
 *
 * @example What readTextUntil returns
 * ```ts
 * import { type ReadText, readTextUntil } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const reader = ReadableStream.from(["loading...\n", "synced\n", "more"]).getReader();
 * const read: ReadText = await readTextUntil(reader, (text) => text.includes("synced"));
 * assert.equal(read.ended, false);
 * assert.equal(read.text, "loading...\nsynced\n");
 * reader.releaseLock();
 * ```
 */
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

/**
 * What {@link headOf} saw of a child process.
 *
 * @example What headOf returns
 * ```ts
 * import { type HeadResult, headOf } from "@kubecache/core/testing";
 * import assert from "node:assert/strict";
 *
 * const child = new Deno.Command(Deno.execPath(), {
 *   args: ["eval", "for (let i = 0; i < 5; i++) console.log(i)"],
 *   stdout: "piped",
 *   stderr: "piped",
 * }).spawn();
 * const head: HeadResult = await headOf(child, 2);
 * assert.ok(head.text.startsWith("0\n1\n")); // at least the first 2 lines
 * assert.equal(typeof head.code, "number");
 * ```
 */
export interface HeadResult {
  /** The stdout text read: at least `lines` lines unless the child ended first. */
  text: string;
  /** The child's exit code. */
  code: number;
  /** Everything the child wrote to stderr. */
  stderr: string;
}

/**
 * Read `lines` lines of a child's stdout, then close the pipe as
 * `| head -n lines` does, and wait for the child to exit: how a test checks
 * that a CLI ends quietly when its reader goes away. The child must have
 * been spawned with `stdout: "piped"` and `stderr: "piped"`.
 *
 * @param child a spawned `Deno.Command`
 * @param lines how many lines to read before closing stdout
 * @returns the text read, the exit code and stderr
 *
 * @example A child that prints three lines
 * ```ts
 * import assert from "node:assert/strict";
 * import { headOf } from "./read_text.ts";
 *
 * const child = new Deno.Command(Deno.execPath(), {
 *   args: ["eval", "console.log('a\\nb\\nc')"],
 *   stdout: "piped",
 *   stderr: "piped",
 * }).spawn();
 * assert.deepEqual(await headOf(child, 3), {
 *   text: "a\nb\nc\n",
 *   code: 0,
 *   stderr: "",
 * });
 * ```
 */
export async function headOf(
  child: Deno.ChildProcess,
  lines: number,
): Promise<HeadResult> {
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { text } = await readTextUntil(
    reader,
    (t) => t.split("\n").length > lines,
  );
  await reader.cancel();
  const [status, stderr] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
  ]);
  return { text, code: status.code, stderr };
}
