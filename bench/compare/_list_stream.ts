/**
 * Prototype: decode a list response while it downloads, one item at a
 * time, instead of reading the whole body as one string and parsing it at
 * once. Parsing then overlaps the transfer, and no string ever holds the
 * whole list (V8 strings stop at 512 MiB, about 120k pods). Used by the
 * `stream-list` variant of the comparison; a candidate for KubeClient.list.
 *
 * @module
 */

/** A decoded list: its metadata and items. */
export interface StreamedList {
  /** List metadata (resourceVersion, continue, remainingItemCount). */
  metadata: { resourceVersion?: string; continue?: string };
  /** The items, parsed one by one. */
  items: unknown[];
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/**
 * Decode `{"kind":..,"metadata":{..},"items":[{..},{..}]}` from a byte
 * stream. Items are the objects at depth 2 of the top-level `items` array;
 * everything else is kept as a skeleton and parsed at the end.
 * @param body the response body
 * @param onItem called with each item as soon as it is parsed
 */
export async function decodeListStream(
  body: ReadableStream<Uint8Array>,
  onItem?: (item: unknown) => void,
): Promise<StreamedList> {
  const decoder = new TextDecoder();
  const items: unknown[] = [];
  const skeleton: string[] = []; // the list without its items
  let recent = ""; // the skeleton's last characters, to spot "items":
  const keep = (piece: string) => {
    skeleton.push(piece);
    recent = (recent + piece).slice(-32);
  };
  let depth = 0;
  let inString = false;
  let escaped = false;
  let inItems = false; // inside the top-level "items" array
  let itemParts: string[] = []; // an item split across chunks
  for await (const bytes of body) {
    const text = decoder.decode(bytes, { stream: true });
    // Where skeleton text and the current item start in this chunk (-1: none).
    let plainStart = inItems ? -1 : 0;
    let itemStart = inItems && depth >= 3 ? 0 : -1;
    let i = 0;
    if (inString && escaped) {
      escaped = false; // the chunk starts with an escaped character
      i = 1;
    }
    for (; i < text.length; i++) {
      if (inString) {
        // Most of a list is string content: jump to its closing quote.
        const end = closingQuote(text, i);
        if (end < 0) {
          escaped = trailingBackslashes(text, i) % 2 === 1;
          break;
        }
        inString = false;
        i = end;
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
        if (inItems) {
          if (depth === 3) itemStart = i;
        } else if (
          c === OPEN_BRACKET && depth === 2 &&
          /"items"\s*:\s*$/.test(recent + text.slice(plainStart, i))
        ) {
          inItems = true;
          keep(text.slice(plainStart, i + 1));
          plainStart = -1;
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (inItems && depth === 2) {
          const piece = text.slice(itemStart, i + 1);
          let item;
          if (itemParts.length === 0) item = JSON.parse(piece);
          else {
            itemParts.push(piece);
            item = JSON.parse(itemParts.join(""));
            itemParts = [];
          }
          itemStart = -1;
          items.push(item);
          onItem?.(item);
        } else if (inItems && depth === 1) {
          inItems = false; // the "]" closing the items goes to the skeleton
          plainStart = i;
        }
      }
    }
    if (inItems && itemStart >= 0) itemParts.push(text.slice(itemStart));
    else if (!inItems && plainStart >= 0) keep(text.slice(plainStart));
  }
  const list = JSON.parse(skeleton.join("")) as StreamedList;
  list.items = items;
  return list;
}

/** Index of the unescaped `"` ending a string that runs from `from`, or -1. */
function closingQuote(text: string, from: number): number {
  let q = text.indexOf('"', from);
  while (q >= 0) {
    let backslashes = 0;
    for (let j = q - 1; j >= from && text.charCodeAt(j) === BACKSLASH; j--) {
      backslashes++;
    }
    if (backslashes % 2 === 0) return q;
    q = text.indexOf('"', q + 1);
  }
  return -1;
}

/** How many backslashes end `text` (not counting before `from`). */
function trailingBackslashes(text: string, from: number): number {
  let n = 0;
  for (
    let j = text.length - 1;
    j >= from && text.charCodeAt(j) === BACKSLASH;
    j--
  ) n++;
  return n;
}
