/**
 * Limits on what the client decodes from a server (private to client/):
 * the longest watch line or list item, and the deepest JSON nesting.
 *
 * @module
 */

/**
 * Default longest watch line, list item or JSON body element, in
 * characters of decoded text (its bytes for ASCII JSON): 16 MiB, client-go's
 * streaming decoder's frame limit.
 */
export const DEFAULT_MAX_OBJECT_BYTES: number = 16 * 1024 * 1024;

/** Default deepest JSON nesting accepted: client-go's decoder stops at 10,000. */
export const DEFAULT_MAX_JSON_DEPTH = 10_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether `text` (JSON, or JSON about to be parsed) nests objects and
 * arrays deeper than `maxDepth`. Cheap by construction: valid JSON nested
 * deeper than d holds more than 2·d brackets, so shorter text is not looked
 * at (most watch lines), nor text with at most d opening brackets (counted
 * with the native `indexOf`); other text is scanned for brackets with
 * strings skipped by `indexOf`, so the loop visits only the characters
 * between strings. Text that is not JSON may give any answer: `JSON.parse`
 * rejects it anyway.
 */
export function tooDeep(text: string, maxDepth: number): boolean {
  const n = text.length;
  if (n <= 2 * maxDepth) return false;
  // Fewer opening brackets than the limit, strings included: not too deep.
  let opens = 0;
  for (
    let i = text.indexOf("{");
    i >= 0 && opens <= maxDepth;
    i = text.indexOf("{", i + 1)
  ) opens++;
  for (
    let i = text.indexOf("[");
    i >= 0 && opens <= maxDepth;
    i = text.indexOf("[", i + 1)
  ) opens++;
  if (opens <= maxDepth) return false;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let j = text.indexOf('"', i + 1);
      while (
        j > 0 && text.charCodeAt(j - 1) === BACKSLASH && escaped(text, j)
      ) {
        j = text.indexOf('"', j + 1);
      }
      if (j < 0) return false;
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Whether the quote at `at` is escaped (an odd run of backslashes before it). */
function escaped(text: string, at: number): boolean {
  let k = at - 1;
  while (k >= 0 && text.charCodeAt(k) === BACKSLASH) k--;
  return (at - 1 - k) % 2 === 1;
}
