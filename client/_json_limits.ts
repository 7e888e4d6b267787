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

/** What {@link parseWithin} returns for text that nests too deep. */
export const TOO_DEEP: unique symbol = Symbol("too deep");

/**
 * `JSON.parse(text)`, or {@link TOO_DEEP} when the text nests objects and
 * arrays deeper than `maxDepth`; throws `JSON.parse`'s SyntaxError for text
 * that is not JSON. The same answer as {@link tooDeep} then `JSON.parse`,
 * cheaper for big lists: text with more opening brackets than the limit
 * (any list page of a few hundred objects) is parsed first and its value
 * walked, containers only, which costs about a third of scanning the text
 * (V8's parser is iterative, so deep JSON parses safely). Text whose
 * opening brackets are dense from the start (what deep nesting looks like)
 * is still scanned first, so it is refused before it is parsed.
 */
export function parseWithin(text: string, maxDepth: number): unknown {
  if (text.length <= 2 * maxDepth) return JSON.parse(text);
  const at = nthOpening(text, maxDepth + 1);
  if (at < 0) return JSON.parse(text);
  if (at < DENSE * maxDepth) {
    return tooDeep(text, maxDepth) ? TOO_DEEP : JSON.parse(text);
  }
  const value = JSON.parse(text);
  return deeperThan(value, maxDepth) ? TOO_DEEP : value;
}

/** Opening brackets within DENSE × the limit from the start: scan the text first. */
const DENSE = 16;

/**
 * Index of the `n`th opening bracket (`{` or `[`, strings included), or -1
 * when there are fewer.
 */
function nthOpening(text: string, n: number): number {
  let brace = text.indexOf("{");
  let bracket = text.indexOf("[");
  for (let k = 1;; k++) {
    let i: number;
    if (brace < 0 && bracket < 0) return -1;
    if (bracket < 0 || (brace >= 0 && brace < bracket)) {
      i = brace;
      brace = text.indexOf("{", brace + 1);
    } else {
      i = bracket;
      bracket = text.indexOf("[", bracket + 1);
    }
    if (k === n) return i;
  }
}

/** Whether a parsed JSON value nests objects and arrays deeper than `maxDepth`. */
export function deeperThan(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== "object") return false;
  // Depth first with an explicit stack: a deep value ends the walk early.
  const stack: object[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const v = stack.pop()!;
    const d = depths.pop()!;
    if (d > maxDepth) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const c = v[i];
        if (c !== null && typeof c === "object") {
          stack.push(c);
          depths.push(d + 1);
        }
      }
    } else {
      const o = v as Record<string, unknown>;
      for (const k in o) {
        const c = o[k];
        if (c !== null && typeof c === "object") {
          stack.push(c);
          depths.push(d + 1);
        }
      }
    }
  }
  return false;
}

/** Whether the quote at `at` is escaped (an odd run of backslashes before it). */
function escaped(text: string, at: number): boolean {
  let k = at - 1;
  while (k >= 0 && text.charCodeAt(k) === BACKSLASH) k--;
  return (at - 1 - k) % 2 === 1;
}
