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
  if (boundedBy(text, maxDepth)) return false;
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
 * (V8's parser is iterative, so deep JSON parses safely). Before either,
 * {@link boundedBy} tries to prove the text shallow from its brackets alone
 * (what it does for any list of real objects); only text it cannot prove
 * shallow takes the exact paths. Text whose opening brackets are dense
 * from the start (what deep nesting looks like) is scanned before it is
 * parsed, so it is refused before it is parsed.
 */
export function parseWithin(text: string, maxDepth: number): unknown {
  if (text.length <= 2 * maxDepth) return JSON.parse(text);
  const at = nthOpening(text, maxDepth + 1);
  if (at < 0 || boundedBy(text, maxDepth)) return JSON.parse(text);
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

/** log2 of the stretch of text {@link boundedBy} counts brackets in at a time. */
const STRETCH_BITS = 10;

/**
 * Whether JSON `text` provably nests no deeper than `maxDepth`, told from
 * its brackets without walking its strings: `true` is a proof, `false`
 * means "not proven" (the caller then measures exactly). Text that is not
 * JSON may give any answer: `JSON.parse` rejects it anyway.
 *
 * The depth at any point is the real opening brackets before it minus the
 * real closing ones, "real" meaning outside strings. The bound counts more
 * openings and fewer closings than that, so it is never below the depth:
 *
 * - every `[`, and every `{` followed by what can follow a real one (`"`,
 *   `}` or whitespace); a `{` followed by anything else (`{\"` in a
 *   managedFields key) is inside a string;
 * - only closings whose few preceding characters prove them outside a
 *   string: after a closing quote (a `"` whose preceding character is
 *   neither a backslash nor one that can precede an opening quote), after
 *   a proven closing, after an empty `{}`/`[]` that follows `":`, or after
 *   a number or literal that follows `":`.
 *
 * The openings and proven closings are counted per stretch of 1 KiB with
 * the native `indexOf`; the running bound at the start of each stretch plus
 * the openings inside it bounds the depth anywhere in the stretch.
 */
export function boundedBy(text: string, maxDepth: number): boolean {
  const n = text.length;
  const stretches = (n >>> STRETCH_BITS) + 1;
  const opened = new Int32Array(stretches);
  const closed = new Int32Array(stretches);
  for (let i = text.indexOf("{"); i >= 0; i = text.indexOf("{", i + 1)) {
    const c = text.charCodeAt(i + 1);
    if (c === QUOTE || c === 0x7d || isSpace(c)) opened[i >>> STRETCH_BITS]++;
  }
  for (let i = text.indexOf("["); i >= 0; i = text.indexOf("[", i + 1)) {
    opened[i >>> STRETCH_BITS]++;
  }
  // Closings in text order, so a closing right after a proven one is proven.
  let brace = text.indexOf("}");
  let bracket = text.indexOf("]");
  let proven = -2;
  for (;;) {
    let i: number;
    if (brace >= 0 && (bracket < 0 || brace < bracket)) {
      i = brace;
      brace = text.indexOf("}", i + 1);
    } else if (bracket >= 0) {
      i = bracket;
      bracket = text.indexOf("]", i + 1);
    } else break;
    const p = text.charCodeAt(i - 1);
    let real: boolean;
    if (p === QUOTE) real = afterClosingQuote(text, i - 1);
    else if (p === 0x7d || p === 0x5d) real = proven === i - 1;
    else if (p === 0x7b || p === 0x5b) real = afterKey(text, i - 2);
    else if (isTokenChar(p)) {
      // A number, true, false or null: back to the character before it.
      let j = i - 2;
      while (j > i - 40 && j >= 0 && isTokenChar(text.charCodeAt(j))) j--;
      real = afterKey(text, j);
    } else real = false;
    if (real) {
      proven = i;
      closed[i >>> STRETCH_BITS]++;
    }
  }
  let bound = 0;
  for (let k = 0; k < stretches; k++) {
    if (bound + opened[k] > maxDepth) return false;
    bound += opened[k] - closed[k];
  }
  return true;
}

/**
 * Whether the character after `q` is outside any string because `q` holds
 * a closing quote: an unescaped `"` (no backslash before it) that is not an
 * opening one (those follow `{`, `[`, `,`, `:` or whitespace).
 */
function afterClosingQuote(text: string, q: number): boolean {
  if (q < 1 || text.charCodeAt(q) !== QUOTE) return false;
  const c = text.charCodeAt(q - 1);
  return !(c === 0x7b || c === 0x5b || c === 0x2c || c === 0x3a ||
    c === BACKSLASH || isSpace(c));
}

/** Whether `at` holds the `:` of `"key":`, proven outside a string. */
function afterKey(text: string, at: number): boolean {
  return text.charCodeAt(at) === 0x3a && afterClosingQuote(text, at - 1);
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** A character of a number, `true`, `false` or `null` (or of a word in a string). */
function isTokenChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) || c === 0x2e || c === 0x2b || c === 0x2d;
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
