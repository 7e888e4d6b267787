/**
 * Incremental decoder of a list response (`{"kind":..,"metadata":{..},
 * "items":[{..},..]}`): it scans the body's bytes as they arrive, cuts out
 * each item of the top-level `items` array and `JSON.parse`s it on the
 * spot. No string ever holds the whole body (V8 strings stop at 512 MiB,
 * about 120k pods), and parsing overlaps the transfer. Everything but the
 * items (kind, apiVersion, metadata) is kept as a small skeleton and parsed
 * at the end. Internal to `KubeClient.list`.
 *
 * @module
 */

import {
  DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_MAX_OBJECT_BYTES,
  parseWithin,
  TOO_DEEP,
} from "./_json_limits.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** Bytes that matter inside an item: quotes and brackets (1), others 0. */
const STRUCTURE = new Uint8Array(256);
for (const c of [QUOTE, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET]) {
  STRUCTURE[c] = 1;
}
/** Bytes that end a run of string content: `"` and `\\` (1), others 0. */
const STRING_END = new Uint8Array(256);
STRING_END[QUOTE] = STRING_END[BACKSLASH] = 1;
/** `"items"` as bytes: the key whose array is streamed. */
const ITEMS_KEY = [0x22, 0x69, 0x74, 0x65, 0x6d, 0x73, 0x22];

// Where the scanner is between two items of the array: after `[` (an item
// or `]` may follow), after an item (`,` or `]`), after `,` (an item).
const Between = { Start: 0, Item: 1, Comma: 2 } as const;

/**
 * Bytes buffered per unscanned cut by default. A block is held as read
 * chunks, joined, decoded to text and parsed together, so its size is what
 * the decoder keeps beyond the items themselves: 64 KiB (a socket read, a
 * dozen pods) costs no more CPU per item than a 1 MiB block did, and a
 * 10k-pod list then peaked about 25 MB lower.
 */
const BLOCK_BYTES = 64 * 1024;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Push the body's chunks in order with {@link ListDecoder.push}, then call
 * {@link ListDecoder.end} for the decoded list. Items are parsed as soon as
 * their closing brace arrives; bytes of an item split across chunks
 * (multi-byte characters and escapes included) are joined before decoding.
 * Malformed or truncated input throws a `SyntaxError`.
 *
 * It scans bytes, not decoded text: item boundaries are ASCII brackets, so
 * a multi-byte character can never be cut, and only complete items are
 * decoded. The complete items of a chunk are parsed with one `JSON.parse`.
 *
 * Scanning costs about a third of parsing, so once the first item is known
 * the decoder skips the scan: it buffers `blockBytes`, finds the last
 * `},` followed by the first item's opening bytes (e.g. `{"metadata":`)
 * and parses everything before it as one array. The cut is right exactly
 * when that parse succeeds (the run starts at an item and objects end where
 * they end), so a wrong guess only costs the parse: the decoder then scans
 * the block and stops guessing.
 */
export class ListDecoder {
  #utf8 = new TextDecoder();
  #items: unknown[] = [];
  #depth = 0;
  #inString = false;
  /** The string's next byte is escaped (a `\` ended the previous chunk). */
  #escaped = false;
  #inItems = false;
  #sawItems = false;
  #between: number = Between.Start;
  /** Pieces of an item that started in an earlier chunk. */
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** The list without its items' contents. */
  #skeleton = new Uint8Array(256);
  #skeletonBytes = 0;
  #topIsObject = false;
  /** Skeleton offsets of the last string at depth 1 (a key candidate). */
  #keyStart = -1;
  #keyEnd = -1;
  #colonAfterKey = false;
  #what: string;
  /** Applied to each item as it is decoded (before the next is read). */
  #map: ((item: unknown) => unknown) | undefined;
  /** The first item's bytes up to its first `:`, once known. */
  #prefix: Uint8Array | undefined;
  /** Whether cutting blocks without a scan is still allowed. */
  #guess = true;
  /** Whether a guessed run is parsed in pieces too short to nest too deep. */
  #pieces = true;
  /** `},` and {@link #prefix} as text, once needed. */
  #separator: string | undefined;
  /** Guessing: buffered bytes, starting at an item's `{`. */
  #block: Uint8Array[] | undefined;
  #blockBytes = 0;
  #blockSize: number;
  /** The longest item accepted, in bytes. */
  #maxItem: number;
  /** The deepest nesting accepted, the list's own two levels included. */
  #maxDepth: number;

  /**
   * Create a decoder.
   * @param what what is decoded, for error messages
   * @param opts `blockBytes`: bytes buffered per unscanned cut (default 64 KiB; 0 always scans)
   */
  constructor(
    what = "the list",
    opts: {
      blockBytes?: number;
      mapItem?: (item: unknown) => unknown;
      maxObjectBytes?: number;
      maxJsonDepth?: number;
    } = {},
  ) {
    this.#what = what;
    this.#map = opts.mapItem;
    this.#maxItem = opts.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
    this.#maxDepth = opts.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
    // A run cut without a scan holds at most a block: within the item limit.
    this.#blockSize = Math.min(opts.blockBytes ?? BLOCK_BYTES, this.#maxItem);
    if (this.#blockSize <= 0) this.#guess = false;
  }

  #add(run: unknown[]): void {
    const map = this.#map;
    if (map) { for (const item of run) this.#items.push(map(item)); }
    else for (const item of run) this.#items.push(item);
  }

  /** Items decoded so far. */
  get itemCount(): number {
    return this.#items.length;
  }

  /**
   * Decode the next chunk of the body.
   * @param chunk bytes in body order; may be kept until decoded, so the
   *   caller must not reuse its buffer
   * @throws {SyntaxError} when the bytes cannot be a list
   */
  push(chunk: Uint8Array): void {
    if (this.#block) {
      this.#block.push(chunk);
      this.#blockBytes += chunk.length;
      if (this.#blockBytes >= this.#blockSize) this.#cut();
      return;
    }
    this.#scan(chunk);
    // Inside an item at the end of a chunk: the pending bytes start at an
    // item, which is where guessing can begin.
    if (this.#guess && this.#prefix && this.#inItems && this.#depth > 2) {
      this.#block = this.#pending;
      this.#blockBytes = this.#pendingBytes;
      this.#pending = [];
      this.#pendingBytes = 0;
    }
  }

  /** Cut the block after its last likely item end and parse before that. */
  #cut(): void {
    let block = this.#block!;
    // The cut is looked for in the last piece, so the run can be copied
    // from the pieces straight into its bracketed buffer (one copy); when
    // the last piece has none (it is short, or a separator straddles two
    // pieces), in the whole block.
    let comma = lastSeparator(block[block.length - 1], this.#prefix!);
    if (comma < 0 && block.length > 1) {
      block = this.#block = [concat(block, this.#blockBytes)];
      comma = lastSeparator(block[0], this.#prefix!);
    }
    const last = block.length - 1;
    if (comma < 0) {
      // No cut found (an item longer than a piece, a separator across
      // pieces, or spaces between items): scan rather than buffer more.
      this.#scanBlock();
      return;
    }
    const runBytes = this.#blockBytes - block[last].length + comma;
    // A chunk longer than the block can make a run longer than an item may
    // be: scan it, which measures each item.
    if (runBytes > this.#maxItem) {
      this.#scanBlock();
      return;
    }
    const pieces = this.#parseCut(asArray(block, last, comma, runBytes));
    if (pieces === undefined) {
      this.#scanBlock();
      return;
    }
    for (const piece of pieces) this.#add(piece);
    this.#between = Between.Comma;
    const rest = block[last].subarray(comma + 1);
    this.#block = [rest];
    this.#blockBytes = rest.length;
  }

  /**
   * Parse a run cut without a scan (`[` items `]`, as {@link asArray}
   * makes it) into arrays of its items, or undefined when it does not
   * parse (the cut was wrong) or holds an item that is not an object.
   *
   * The run's `[` stands for the items array, one level below the top: its
   * items may nest one level less than the list. Text of 2·d characters or
   * fewer cannot nest deeper than d (each level takes an opening and a
   * closing bracket), so the run's text is parsed in pieces that short,
   * cut again before the last `},` + the first item's opening text that
   * fits (one native `lastIndexOf` per piece), and no piece needs a depth
   * check. The check it saves is a count of each 64 KiB run's brackets
   * (an `indexOf` call per bracket, a pod has about 120), run in V8's
   * interpreter while a fresh process's first list is decoded; the pieces
   * cost one `lastIndexOf` and a short concatenation each. A piece that does not parse where
   * the whole run would (that text inside an item, e.g. a list of
   * templates) sends this run, and the runs after it, to the whole run's
   * depth check.
   */
  #parseCut(bytes: Uint8Array): unknown[][] | undefined {
    const text = this.#utf8.decode(bytes);
    const limit = 2 * (this.#maxDepth - 1);
    let pieces: unknown[][] | undefined;
    if (this.#pieces && text.length > limit) {
      // `},` then the first item's opening text: a likely item boundary.
      const sep = this.#separator ??= "}," + this.#utf8.decode(this.#prefix!);
      pieces = [];
      // `from` is the `[` or the `,` before the piece's first item.
      for (let from = 0; from < text.length - 1;) {
        let piece: string;
        let next = text.length - 1;
        if (text.length - from > limit) {
          // The last boundary whose piece, bracketed, is at most `limit`.
          const at = text.lastIndexOf(sep, from + limit - 2);
          if (at > from) next = at + 1;
        }
        if (from === 0 && next === text.length - 1) piece = text;
        else piece = "[" + text.slice(from + 1, next) + "]";
        const value = this.#parsePiece(piece);
        if (value === undefined) {
          // Not a boundary after all: the run whole, checked.
          this.#pieces = false;
          pieces = undefined;
          break;
        }
        pieces.push(value);
        from = next;
      }
    }
    if (pieces === undefined) {
      const run = this.#parsePiece(text);
      if (run === undefined) return undefined;
      pieces = [run];
    }
    // A parse proves the cut, not that every item is an object (`},1,{`):
    // the scan says which one is not.
    for (const piece of pieces) if (!piece.every(isObject)) return undefined;
    return pieces;
  }

  /** `[` items `]` parsed within the depth limit, or undefined when not JSON. */
  #parsePiece(text: string): unknown[] | undefined {
    let value: unknown;
    try {
      value = parseWithin(text, this.#maxDepth - 1);
    } catch {
      return undefined;
    }
    if (value === TOO_DEEP) this.#tooDeep();
    return value as unknown[];
  }

  /** Stop guessing: scan the buffered block from its item's `{`. */
  #scanBlock(): void {
    const block = this.#block;
    if (!block) return;
    this.#guess = false;
    this.#block = undefined;
    this.#depth = 2;
    this.#inString = false;
    this.#escaped = false;
    this.#scan(concat(block, this.#blockBytes));
    this.#blockBytes = 0;
  }

  #scan(chunk: Uint8Array): void {
    const n = chunk.length;
    let depth = this.#depth;
    let inString = this.#inString;
    let inItems = this.#inItems;
    // Start of this chunk's skeleton bytes, of the open item, and of the run
    // of complete items that start and end in this chunk (-1: none).
    let plain = inItems ? -1 : 0;
    let itemStart = -1;
    let runStart = -1;
    let runEnd = -1;
    let i = 0;
    if (inString && this.#escaped && n > 0) {
      this.#escaped = false;
      i = 1;
    }
    while (i < n) {
      if (inString) {
        // Most of a list is string content: a tight loop to its end.
        while (i < n) {
          while (i < n && STRING_END[chunk[i]] === 0) i++;
          if (i >= n || chunk[i] === QUOTE) break;
          i += 2; // a backslash and the character it escapes
        }
        if (i >= n) {
          // Past the end: the chunk ended with a backslash.
          if (i > n) this.#escaped = true;
          break;
        }
        inString = false;
        if (depth === 1 && !inItems) {
          this.#keyEnd = this.#skeletonBytes + i + 1 - plain;
          this.#colonAfterKey = false;
        }
        i++;
        continue;
      }
      // Inside an item only quotes and brackets matter: skip to the next.
      if (depth > 2 && inItems) {
        while (i < n && STRUCTURE[chunk[i]] === 0) i++;
        if (i === n) break;
      }
      const c = chunk[i];
      if (c === QUOTE) {
        if (inItems && depth === 2) this.#fail("an item is not an object");
        inString = true;
        if (depth === 1 && !inItems) {
          this.#keyStart = this.#skeletonBytes + i - plain;
        }
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (inItems && depth === 2) {
          if (c !== OPEN_BRACE) this.#fail("an item is not an object");
          if (this.#between === Between.Item) this.#fail("a comma is missing");
          itemStart = i;
          if (runStart < 0) runStart = i;
        }
        if (++depth > this.#maxDepth) this.#tooDeep();
        if (depth === 1) this.#topIsObject = c === OPEN_BRACE;
        else if (depth === 2 && c === OPEN_BRACKET && !inItems) {
          // Keep the bytes up to "[" first: the key may be among them.
          this.#keep(chunk.subarray(plain, i + 1));
          plain = i + 1;
          if (this.#isItemsKey()) {
            plain = -1;
            inItems = true;
            // A repeated key: the last one's value is the list's, as with
            // JSON.parse (and Go's decoder).
            if (this.#sawItems) this.#items = [];
            this.#sawItems = true;
            this.#between = Between.Start;
          }
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth < 0) this.#fail("a bracket closes nothing");
        if (inItems && depth === 2) {
          if (itemStart < 0) this.#finishPending(chunk.subarray(0, i + 1));
          else {
            if (i + 1 - itemStart > this.#maxItem) {
              this.#tooLong(i + 1 - itemStart);
            }
            runEnd = i + 1;
          }
          itemStart = -1;
          this.#between = Between.Item;
        } else if (inItems && depth === 1) {
          if (c !== CLOSE_BRACKET || this.#between === Between.Comma) {
            this.#fail("the items array ends badly");
          }
          this.#parseRun(chunk, runStart, runEnd);
          runStart = runEnd = -1;
          inItems = false;
          plain = i;
        }
      } else if (inItems && depth === 2) {
        if (c === COMMA) {
          if (this.#between !== Between.Item) {
            this.#fail("a comma is misplaced");
          }
          this.#between = Between.Comma;
        } else if (!isSpace(c)) this.#fail("a value is not an item");
      } else if (c === COLON && depth === 1) this.#colonAfterKey = true;
      i++;
    }
    this.#parseRun(chunk, runStart, runEnd);
    if (inItems && depth >= 3) {
      // The open item continues in the next chunk; copy its bytes so the
      // caller's buffer is not retained.
      const tail = chunk.slice(itemStart < 0 ? 0 : itemStart);
      this.#pending.push(tail);
      this.#pendingBytes += tail.length;
      if (this.#pendingBytes > this.#maxItem) {
        const bytes = this.#pendingBytes;
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#tooLong(bytes);
      }
    } else if (plain >= 0) this.#keep(chunk.subarray(plain));
    this.#depth = depth;
    this.#inString = inString;
    this.#inItems = inItems;
  }

  /**
   * Finish decoding: the list as parsed, with the streamed items as its
   * `items` (or the body's own `items` value when it was not an array, e.g.
   * `null`).
   * @returns the decoded value
   * @throws {SyntaxError} when the body is truncated or not JSON
   */
  end(): unknown {
    this.#scanBlock();
    if (this.#inString || this.#depth !== 0 || this.#pending.length > 0) {
      this.#fail(`the body ends after ${this.#items.length} items (truncated)`);
    }
    const value = parseJson(
      this.#skeleton.subarray(0, this.#skeletonBytes),
      this.#what,
    );
    // The streamed items are the list's when its last `items` key holds an
    // array (an earlier one's may be followed by `"items":null`).
    if (
      this.#sawItems &&
      Array.isArray((value as { items?: unknown } | null)?.items)
    ) {
      (value as { items: unknown[] }).items = this.#items;
    }
    return value;
  }

  #tooLong(bytes: number): never {
    this.#fail(
      `an item is longer than ${this.#maxItem} bytes (maxObjectBytes), ${bytes} so far`,
    );
  }

  #tooDeep(): never {
    this.#fail(
      `JSON nested deeper than ${this.#maxDepth} levels (maxJsonDepth)`,
    );
  }

  #fail(why: string): never {
    throw new SyntaxError(
      `Cannot decode ${this.#what}: ${why} (after item ${this.#items.length})`,
    );
  }

  /** Whether the last depth-1 string was the key `"items"` followed by `:`. */
  #isItemsKey(): boolean {
    if (!this.#topIsObject || !this.#colonAfterKey) return false;
    const key = this.#skeleton.subarray(this.#keyStart, this.#keyEnd);
    if (key.length === ITEMS_KEY.length) {
      return key.every((c, k) => c === ITEMS_KEY[k]);
    }
    // Escaped (`"it\u0065ms"`), the key is still `items` to JSON.parse.
    if (!key.includes(BACKSLASH)) return false;
    try {
      return JSON.parse(this.#utf8.decode(key)) === "items";
    } catch {
      return false;
    }
  }

  /**
   * Add to the skeleton. It is bounded like an item: whitespace or a
   * string outside the items (in a gzip answer, a few KB can decompress to
   * gigabytes of either) would otherwise grow it without end.
   */
  #keep(bytes: Uint8Array): void {
    const need = this.#skeletonBytes + bytes.length;
    if (need > this.#maxItem) {
      this.#fail(
        `the list without its items is longer than ${this.#maxItem} bytes (maxObjectBytes), ${need} so far`,
      );
    }
    if (need > this.#skeleton.length) {
      const grown = new Uint8Array(Math.max(need, this.#skeleton.length * 2));
      grown.set(this.#skeleton.subarray(0, this.#skeletonBytes));
      this.#skeleton = grown;
    }
    this.#skeleton.set(bytes, this.#skeletonBytes);
    this.#skeletonBytes = need;
  }

  /** Parse the complete items in `chunk[start, end)` with one JSON.parse. */
  #parseRun(chunk: Uint8Array, start: number, end: number): void {
    if (start < 0 || end < 0) return;
    if (this.#items.length === 0) this.#prefix = itemPrefix(chunk, start, end);
    const text = this.#utf8.decode(
      asArray([chunk.subarray(start, end)], 0, end - start, end - start),
    );
    let run: unknown[];
    try {
      run = JSON.parse(text);
    } catch (cause) {
      throw new SyntaxError(
        `Cannot decode ${this.#what}: an item is not JSON (after item ${this.#items.length}): ${
          (cause as Error).message
        }`,
        { cause },
      );
    }
    this.#add(run);
  }

  /** Join the pieces of an item split across chunks and parse it. */
  #finishPending(last: Uint8Array): void {
    if (this.#pendingBytes + last.length > this.#maxItem) {
      this.#tooLong(this.#pendingBytes + last.length);
    }
    this.#pending.push(last);
    const bytes = concat(this.#pending, this.#pendingBytes + last.length);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#parseRun(bytes, 0, bytes.length);
  }
}

/**
 * The pieces before `pieces[last]`, then `pieces[last]` up to `end`, inside
 * `[` and `]`: `size` bytes of items separated by commas, made one array.
 * Bracketing the bytes rather than the decoded text saves a second string
 * as long as the run: such strings live in V8's large-object space, and
 * twice as many of them brought old-generation GCs sooner.
 */
function asArray(
  pieces: Uint8Array[],
  last: number,
  end: number,
  size: number,
): Uint8Array {
  const out = new Uint8Array(size + 2);
  out[0] = OPEN_BRACKET;
  let at = 1;
  for (let i = 0; i < last; i++) {
    out.set(pieces[i], at);
    at += pieces[i].length;
  }
  out.set(pieces[last].subarray(0, end), at);
  out[out.length - 1] = CLOSE_BRACKET;
  return out;
}

/** `bytes[from, to)` up to the first `:` when short and without spaces. */
function itemPrefix(
  bytes: Uint8Array,
  from: number,
  to: number,
): Uint8Array | undefined {
  const colon = bytes.indexOf(COLON, from);
  if (colon < 0 || colon >= to || colon - from > 64) return undefined;
  const prefix = bytes.slice(from, colon + 1);
  return prefix.some(isSpace) ? undefined : prefix;
}

/**
 * Index of the last `,` in `bytes` that follows a `}` and precedes
 * `prefix` (a likely item boundary), or -1.
 */
function lastSeparator(bytes: Uint8Array, prefix: Uint8Array): number {
  let at = bytes.length - prefix.length;
  while (at >= 2) {
    at = bytes.lastIndexOf(prefix[0], at);
    if (at < 2) return -1;
    if (
      bytes[at - 1] === COMMA && bytes[at - 2] === CLOSE_BRACE &&
      startsWith(bytes, at, prefix)
    ) return at - 1;
    at--;
  }
  return -1;
}

function startsWith(bytes: Uint8Array, at: number, prefix: Uint8Array) {
  for (let k = 1; k < prefix.length; k++) {
    if (bytes[at + k] !== prefix[k]) return false;
  }
  return true;
}

/**
 * Lists up to this many bytes (256 KiB) are read whole and parsed with one
 * `JSON.parse`: for small lists that costs less CPU than finding the items
 * (the decoder takes about 1.5x as long on 20 pods). Longer lists, a
 * 500-item page of pods (2 MB) among them, go to the {@link ListDecoder}:
 * runs of about 64 KiB of items are parsed as they arrive, so no string of
 * the whole body is made (a 2 MB string lives in V8's large-object space
 * until a full collection) and parsing overlaps the transfer. Measured on
 * 10k pods in 500-item pages, that took the sync from 1.30x to 1.21x the
 * raw loop's CPU over TLS and from 1.37x to 1.23x over plain HTTP
 * (docs/performance.md).
 */
export const WHOLE_LIST_BYTES: number = 256 * 1024;

/** Options of {@link readList}. */
export interface ReadListOptions {
  /** What is read, for error messages, e.g. `"the response to GET /api/v1/pods"`. */
  what?: string;
  /** Called after each chunk arrives (e.g. to reset an idle timer). */
  onChunk?: () => void;
  /** Bodies up to this many bytes are parsed whole. Default {@link WHOLE_LIST_BYTES}. */
  wholeBelow?: number;
  /**
   * Applied to each item of the list's `items` as it is decoded, e.g. to
   * drop fields before the whole list is held in memory.
   */
  mapItem?: (item: unknown) => unknown;
  /**
   * Called once with the list's metadata as soon as the body's head holds
   * it, before the items are decoded (see {@link listHead}).
   */
  onListMeta?: (metadata: ListMeta) => void;
  /**
   * The longest item accepted, in bytes; a longer one fails the list with
   * a SyntaxError as soon as it passes the limit. A body longer than this
   * is decoded item by item. Default 16 MiB.
   */
  maxObjectBytes?: number;
  /** The deepest JSON nesting accepted in the body. Default 10,000. */
  maxJsonDepth?: number;
}

/** A list's metadata (apimachinery `ListMeta`). */
type ListMeta = {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
};

/** How far into a body {@link listHead} looks for the items. */
const HEAD_BYTES = 4096;

/**
 * The `metadata` of a list from the first bytes of its body, when they hold
 * everything before the items. The API server writes `kind`, `apiVersion`
 * and `metadata` before `items`, so the bytes before a top-level
 * `,"items"`, closed with `}`, are the list without its items: that cut
 * parses only when the key is at the top level (a key inside `metadata`
 * leaves a brace open; a quote inside a string is escaped). Undefined when
 * the head has not arrived within the first 4 KiB, or has another shape
 * (items first, as the unstructured encoder writes them).
 * @param bytes the first bytes of the body
 * @returns the list's metadata, or undefined
 */
export function listHead(bytes: Uint8Array): ListMeta | undefined {
  const n = Math.min(bytes.length, HEAD_BYTES);
  for (let at = bytes.indexOf(QUOTE); at >= 0 && at < n;) {
    if (startsWith(bytes, at, ITEMS_BYTES) && at + ITEMS_BYTES.length <= n) {
      let end = at - 1;
      while (end > 0 && isSpace(bytes[end])) end--;
      if (end > 0 && bytes[end] === COMMA) {
        const list = parseHead(bytes.subarray(0, end));
        if (list !== undefined) return list;
      }
    }
    at = bytes.indexOf(QUOTE, at + 1);
  }
  return undefined;
}

const ITEMS_BYTES = Uint8Array.from(ITEMS_KEY);

/** The first (at most HEAD_BYTES) bytes of `chunks`, `size` bytes in all. */
function headOf(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(Math.min(size, HEAD_BYTES));
  let at = 0;
  for (const c of chunks) {
    if (at >= out.length) break;
    const part = c.subarray(0, out.length - at);
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** `head` + `}` as a list's metadata, or undefined when that is not a list. */
function parseHead(head: Uint8Array): ListMeta | undefined {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(head) + "}");
  } catch {
    return undefined;
  }
  const meta = (value as { metadata?: unknown } | null)?.metadata;
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
    return undefined;
  }
  return meta as ListMeta;
}

/**
 * Read and decode a list body: whole while it is small, item by item with
 * a {@link ListDecoder} once it passes `wholeBelow` bytes (the chunks read
 * so far are handed to the decoder, then the rest as it arrives).
 * @param body the response body
 * @param opts error label, chunk callback, threshold
 * @returns the decoded value
 * @throws {SyntaxError} when the body is malformed or truncated, an item of
 *   its `items` is not an object, or it passes `maxObjectBytes` or `maxJsonDepth`
 */
export async function readList(
  body: ReadableStream<Uint8Array>,
  opts: ReadListOptions = {},
): Promise<unknown> {
  const {
    what = "the list",
    onChunk,
    mapItem,
    maxObjectBytes = DEFAULT_MAX_OBJECT_BYTES,
    maxJsonDepth = DEFAULT_MAX_JSON_DEPTH,
  } = opts;
  // A body past the item limit is decoded item by item, which checks it.
  const wholeBelow = Math.min(
    opts.wholeBelow ?? WHOLE_LIST_BYTES,
    maxObjectBytes,
  );
  const onListMeta = opts.onListMeta;
  // The first chunks, while the list's head is looked for in them.
  let head: Uint8Array[] | undefined = onListMeta ? [] : undefined;
  let headBytes = 0;
  let chunks: Uint8Array[] = [];
  let size = 0;
  let decoder: ListDecoder | undefined;
  // A small body is decoded to text chunk by chunk as it arrives and
  // joined once: measured cheaper than joining the bytes into one fresh
  // buffer of the body's size and decoding that (docs/performance.md).
  const utf8 = new TextDecoder();
  let text: string[] = [];
  for await (const chunk of body) {
    onChunk?.();
    if (head !== undefined) {
      // Tell the caller the metadata before the items are even read.
      head.push(chunk);
      headBytes += chunk.length;
      const meta = listHead(headOf(head, headBytes));
      if (meta !== undefined) onListMeta!(meta);
      if (meta !== undefined || headBytes >= HEAD_BYTES) head = undefined;
    }
    if (decoder) {
      decoder.push(chunk);
      continue;
    }
    chunks.push(chunk);
    size += chunk.length;
    if (size > wholeBelow) {
      decoder = new ListDecoder(what, {
        mapItem,
        maxObjectBytes,
        maxJsonDepth,
      });
      for (const c of chunks) decoder.push(c);
      chunks = [];
      text = [];
      continue;
    }
    text.push(utf8.decode(chunk, { stream: true }));
  }
  if (decoder) return decoder.end();
  text.push(utf8.decode());
  const value = parseText(text.join(""), what, maxJsonDepth);
  const items = (value as { items?: unknown } | null)?.items;
  if (Array.isArray(items)) {
    // Refused as the ListDecoder refuses them (and client-go's decoder).
    const bad = items.findIndex((item) => !isObject(item));
    if (bad >= 0) {
      throw new SyntaxError(
        `Cannot decode ${what}: an item is not an object (after item ${bad})`,
      );
    }
    if (mapItem) {
      for (let i = 0; i < items.length; i++) items[i] = mapItem(items[i]);
    }
  }
  return value;
}

/** Whether a parsed JSON value is an object (not null, not an array). */
function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Decode UTF-8 bytes and parse them as JSON. */
export function parseJson(
  bytes: Uint8Array,
  what: string,
  maxDepth = DEFAULT_MAX_JSON_DEPTH,
): unknown {
  return parseText(new TextDecoder().decode(bytes), what, maxDepth);
}

/**
 * Parse JSON text; a SyntaxError names `what` and the text's start, or says
 * the text nests deeper than `maxDepth`.
 */
function parseText(
  text: string,
  what: string,
  maxDepth = DEFAULT_MAX_JSON_DEPTH,
): unknown {
  let value: unknown;
  try {
    value = parseWithin(text, maxDepth);
  } catch (cause) {
    throw new SyntaxError(
      `Cannot decode ${what}: not JSON: ${JSON.stringify(text.slice(0, 40))}`,
      { cause },
    );
  }
  if (value === TOO_DEEP) {
    throw new SyntaxError(
      `Cannot decode ${what}: JSON nested deeper than ${maxDepth} levels (maxJsonDepth)`,
    );
  }
  return value;
}

/** Join chunks into one array of `size` bytes. */
export function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
