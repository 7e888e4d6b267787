/**
 * A small YAML parser for the YAML kubeconfig files are written in: block
 * mappings and sequences (including `- key: value` compact mappings and
 * sequences indented at their key's level), plain, single- and
 * double-quoted scalars (folded over lines), `|` and `>` block scalars with
 * chomping and indentation indicators, flow collections (`{}`, `[a, "b"]`,
 * `{a: b}`), comments, anchors, aliases and `<<` merge keys, one document
 * (an optional `---`). Plain scalars resolve with the YAML 1.2 core schema
 * (null, booleans, numbers, strings).
 *
 * Anything else (tags, directives, complex keys, several documents, tabs
 * for indentation) is rejected with a {@link YamlError} naming the line and
 * column. The one YAML reader of the project: kubeconfig files, and the
 * `FakeApiServer`'s apply patches. Not exported from `mod.ts`.
 *
 * @module
 */

/** A YAML syntax error or unsupported construct, at a 1-based line and column. */
export class YamlError extends SyntaxError {
  /** What is wrong, without the position. */
  readonly reason: string;
  /** 1-based line of the offending character. */
  readonly line: number;
  /** 1-based column of the offending character. */
  readonly column: number;

  /**
   * Create an error.
   * @param message what is wrong
   * @param line 1-based line
   * @param column 1-based column
   */
  constructor(message: string, line: number, column: number) {
    super(`${message} at line ${line}, column ${column}`);
    this.name = "YamlError";
    this.reason = message;
    this.line = line;
    this.column = column;
  }
}

/**
 * Parse one YAML document into plain values (objects, arrays, strings,
 * numbers, booleans, null). An empty document is `null`.
 * @param text the YAML text
 * @returns the value
 * @throws {YamlError} on a syntax error or an unsupported construct
 */
export function parseYaml(text: string): unknown {
  return new Parser(text).parseDocument();
}

const NULLS = new Set(["", "~", "null", "Null", "NULL"]);
const TRUES = new Set(["true", "True", "TRUE"]);
const FALSES = new Set(["false", "False", "FALSE"]);
const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

/** Resolve a plain scalar (YAML 1.2 core schema). */
function resolvePlain(s: string): unknown {
  if (NULLS.has(s)) return null;
  if (TRUES.has(s)) return true;
  if (FALSES.has(s)) return false;
  if (INT.test(s)) {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : s;
  }
  if (/^0x[0-9a-fA-F]+$/.test(s)) return parseInt(s.slice(2), 16);
  if (/^0o[0-7]+$/.test(s)) return parseInt(s.slice(2), 8);
  if (FLOAT.test(s)) return Number(s);
  if (/^[-+]?\.(inf|Inf|INF)$/.test(s)) {
    return s.startsWith("-") ? -Infinity : Infinity;
  }
  if (/^\.(nan|NaN|NAN)$/.test(s)) return NaN;
  return s;
}

type Ctx = "map" | "seq" | "doc";

class Parser {
  #src: string;
  #pos = 0;
  #anchors = new Map<string, unknown>();

  constructor(text: string) {
    this.#src = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  }

  // ---- positions and errors ----

  #fail(message: string, at = this.#pos): never {
    const before = this.#src.slice(0, at);
    const line = before.split("\n").length;
    const column = at - (before.lastIndexOf("\n") + 1) + 1;
    throw new YamlError(message, line, column);
  }

  #col(at = this.#pos): number {
    return at - (this.#src.lastIndexOf("\n", at - 1) + 1);
  }

  #ch(at = this.#pos): string {
    return this.#src[at] ?? "";
  }

  #eof(): boolean {
    return this.#pos >= this.#src.length;
  }

  /** Whether the character at `at` ends a plain token (space, newline, EOF). */
  #isBreakOrSpace(at: number): boolean {
    const c = this.#ch(at);
    return c === "" || c === " " || c === "\n" || c === "\t";
  }

  #skipSpaces(): void {
    while (this.#ch() === " " || this.#ch() === "\t") this.#pos++;
  }

  /**
   * Move to the first character of the next line with content, skipping
   * blank and comment-only lines. Returns false at end of input. Rejects
   * tabs used for indentation.
   */
  #skipToContent(): boolean {
    const src = this.#src;
    while (this.#pos < src.length) {
      const c = src[this.#pos];
      if (c === " ") {
        this.#pos++;
      } else if (c === "\n") {
        this.#pos++;
      } else if (c === "#") {
        const nl = src.indexOf("\n", this.#pos);
        this.#pos = nl === -1 ? src.length : nl;
      } else if (c === "\t") {
        // A tab only matters if content follows it on this line.
        let p = this.#pos;
        while (src[p] === "\t" || src[p] === " ") p++;
        if (p < src.length && src[p] !== "\n" && src[p] !== "#") {
          this.#fail("Tabs are not allowed for indentation", this.#pos);
        }
        this.#pos = p;
      } else {
        return true;
      }
    }
    return false;
  }

  /** After a value: only spaces and a comment may remain on the line. */
  #endOfLine(): void {
    const start = this.#pos;
    this.#skipSpaces();
    const c = this.#ch();
    if (
      c === "#" && (this.#pos > start || this.#isBreakOrSpace(this.#pos - 1))
    ) {
      const nl = this.#src.indexOf("\n", this.#pos);
      this.#pos = nl === -1 ? this.#src.length : nl;
    } else if (c !== "\n" && c !== "") {
      this.#fail(`Unexpected "${c}" after a value`);
    }
  }

  // ---- document ----

  parseDocument(): unknown {
    if (!this.#skipToContent()) return null;
    if (this.#ch() === "%") this.#fail("YAML directives are not supported");
    if (this.#atMarker("---")) {
      this.#pos += 3;
      this.#skipSpaces();
      if (this.#ch() !== "\n" && this.#ch() !== "" && this.#ch() !== "#") {
        const value = this.#inlineValue(-1, "doc");
        return this.#finishDocument(value);
      }
      this.#endOfLine();
      if (!this.#skipToContent()) return null;
    }
    if (this.#atMarker("...")) return this.#finishDocument(null);
    const value = this.#blockNode(-1, "doc");
    return this.#finishDocument(value);
  }

  #finishDocument(value: unknown): unknown {
    if (!this.#skipToContent()) return value;
    if (this.#atMarker("...")) {
      this.#pos += 3;
      this.#endOfLine();
      if (!this.#skipToContent()) return value;
    }
    if (this.#atMarker("---")) {
      this.#fail("Several YAML documents in one file are not supported");
    }
    this.#fail(`Unexpected content "${this.#ch()}"`);
  }

  #atMarker(m: string): boolean {
    return this.#col() === 0 && this.#src.startsWith(m, this.#pos) &&
      this.#isBreakOrSpace(this.#pos + 3);
  }

  // ---- block structure ----

  /**
   * Parse the block node whose first character is at the current position
   * (the start of its content line). `parent` is the indentation of the
   * enclosing collection.
   */
  #blockNode(parent: number, ctx: Ctx): unknown {
    const indent = this.#col();
    if (this.#isSeqItem()) return this.#blockSequence(indent);
    const anchor = this.#anchorIfAny();
    if (anchor !== undefined) {
      // "&a" alone on a line: the node follows on the next lines.
      if (this.#ch() === "\n" || this.#ch() === "" || this.#ch() === "#") {
        this.#endOfLine();
        const value = this.#skipToContent() && this.#col() > parent
          ? this.#blockNode(parent, ctx)
          : null;
        this.#anchors.set(anchor, value);
        return value;
      }
      const value = this.#blockNode(parent, ctx);
      this.#anchors.set(anchor, value);
      return value;
    }
    if (this.#keyEnd() !== -1) return this.#blockMapping(this.#col());
    return this.#inlineValue(parent, ctx);
  }

  #isSeqItem(): boolean {
    return this.#ch() === "-" && this.#isBreakOrSpace(this.#pos + 1);
  }

  #blockSequence(indent: number): unknown[] {
    const items: unknown[] = [];
    while (true) {
      this.#pos++; // the "-"
      items.push(this.#valueAfterIndicator(indent, "seq"));
      if (!this.#skipToContent()) break;
      const col = this.#col();
      if (col < indent) break;
      if (col > indent) this.#fail("Unexpected indentation");
      if (!this.#isSeqItem()) {
        // A mapping key at the sequence's level ends a sequence that was
        // the value of a key at that level (`key:\n- a\nnext: b`).
        break;
      }
    }
    return items;
  }

  #blockMapping(indent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    const explicit = new Set<string>();
    while (true) {
      const keyAt = this.#pos;
      const key = this.#mappingKey();
      const value = this.#valueAfterIndicator(indent, "map");
      if (key === "<<") {
        this.#merge(map, value, explicit, keyAt);
      } else {
        if (explicit.has(key)) {
          this.#fail(`Duplicate mapping key "${key}"`, keyAt);
        }
        explicit.add(key);
        map[key] = value;
      }
      if (!this.#skipToContent()) break;
      const col = this.#col();
      if (col < indent) break;
      if (col > indent) this.#fail("Unexpected indentation");
      if (this.#isSeqItem()) {
        this.#fail("Unexpected sequence item where a mapping key was expected");
      }
      if (this.#atMarker("---") || this.#atMarker("...")) break;
    }
    return map;
  }

  #merge(
    map: Record<string, unknown>,
    value: unknown,
    explicit: Set<string>,
    at: number,
  ): void {
    const sources = Array.isArray(value) ? value : [value];
    for (const src of sources) {
      if (src === null || typeof src !== "object" || Array.isArray(src)) {
        this.#fail(
          "A merge key (<<) needs a mapping or a list of mappings",
          at,
        );
      }
      for (const [k, v] of Object.entries(src)) {
        if (!explicit.has(k) && !(k in map)) map[k] = v;
      }
    }
  }

  /**
   * Where the `:` of a block mapping key on this line is, or -1 when the
   * line does not start with a key.
   */
  #keyEnd(): number {
    const src = this.#src;
    const c = this.#ch();
    if (c === '"' || c === "'") {
      const end = this.#quotedEnd(this.#pos);
      let p = end;
      while (src[p] === " ") p++;
      return src[p] === ":" && this.#isBreakOrSpace(p + 1) ? p : -1;
    }
    if ("[{!&*|>?%@`#".includes(c)) return -1;
    for (let p = this.#pos; p < src.length && src[p] !== "\n"; p++) {
      if (src[p] === ":" && this.#isBreakOrSpace(p + 1)) return p;
      if (src[p] === "#" && (src[p - 1] === " " || src[p - 1] === "\t")) {
        return -1;
      }
    }
    return -1;
  }

  /** End (exclusive) of a single-line quoted key starting at `at`, or `at`. */
  #quotedEnd(at: number): number {
    const src = this.#src;
    const q = src[at];
    for (let p = at + 1; p < src.length && src[p] !== "\n"; p++) {
      if (q === '"' && src[p] === "\\") {
        p++;
      } else if (src[p] === q) {
        if (q === "'" && src[p + 1] === "'") {
          p++;
          continue;
        }
        return p + 1;
      }
    }
    return at;
  }

  #mappingKey(): string {
    const c = this.#ch();
    if (c === "?") this.#fail("Complex mapping keys (?) are not supported");
    if ("[{".includes(c)) {
      this.#fail("Flow collections as mapping keys are not supported");
    }
    if ("!&*".includes(c)) {
      this.#fail("Tags, anchors and aliases on mapping keys are not supported");
    }
    const end = this.#keyEnd();
    if (end === -1) this.#fail('Expected a mapping key followed by ": "');
    let key: string;
    if (c === '"' || c === "'") {
      key = this.#quoted(-1);
    } else {
      key = this.#src.slice(this.#pos, end).trimEnd();
    }
    this.#pos = end + 1;
    return key;
  }

  /**
   * The value after `key:` or `- `: inline on this line, or a block node on
   * the following lines (deeper than `indent`; for a mapping, a sequence
   * may also sit at `indent` itself).
   */
  #valueAfterIndicator(indent: number, ctx: Ctx): unknown {
    this.#skipSpaces();
    const c = this.#ch();
    if (c === "\n" || c === "" || c === "#") {
      this.#endOfLine();
      return this.#nextLinesValue(indent, ctx);
    }
    if (ctx === "seq") {
      // Compact forms: "- key: value" and "- - item".
      if (this.#isSeqItem()) return this.#blockSequence(this.#col());
      if (this.#keyEnd() !== -1) return this.#blockMapping(this.#col());
    }
    const anchor = this.#anchorIfAny();
    if (anchor !== undefined) {
      const c2 = this.#ch();
      let value: unknown;
      if (c2 === "\n" || c2 === "" || c2 === "#") {
        this.#endOfLine();
        value = this.#nextLinesValue(indent, ctx);
      } else if (ctx === "seq" && this.#keyEnd() !== -1) {
        value = this.#blockMapping(this.#col());
      } else {
        value = this.#inlineValue(indent, ctx);
      }
      this.#anchors.set(anchor, value);
      return value;
    }
    return this.#inlineValue(indent, ctx);
  }

  #nextLinesValue(indent: number, ctx: Ctx): unknown {
    const save = this.#pos;
    if (!this.#skipToContent()) return null;
    const col = this.#col();
    if (col > indent) return this.#blockNode(indent, ctx);
    if (col === indent && ctx === "map" && this.#isSeqItem()) {
      return this.#blockSequence(col);
    }
    this.#pos = save;
    return null;
  }

  /** `&name ` before a node: returns the name, or undefined when absent. */
  #anchorIfAny(): string | undefined {
    if (this.#ch() !== "&") return undefined;
    const start = ++this.#pos;
    while (!this.#isBreakOrSpace(this.#pos) && !",[]{}".includes(this.#ch())) {
      this.#pos++;
    }
    if (this.#pos === start) this.#fail("Expected an anchor name after &");
    const name = this.#src.slice(start, this.#pos);
    this.#skipSpaces();
    return name;
  }

  #alias(): unknown {
    const at = this.#pos;
    const start = ++this.#pos;
    while (!this.#isBreakOrSpace(this.#pos) && !",[]{}".includes(this.#ch())) {
      this.#pos++;
    }
    const name = this.#src.slice(start, this.#pos);
    if (!this.#anchors.has(name)) this.#fail(`Unknown alias "*${name}"`, at);
    return this.#anchors.get(name);
  }

  /** A scalar, flow collection or alias starting on the current line. */
  #inlineValue(indent: number, ctx: Ctx): unknown {
    const c = this.#ch();
    let value: unknown;
    if (c === "|" || c === ">") return this.#blockScalar(indent);
    if (c === "!") this.#fail("Tags are not supported");
    if (c === "@" || c === "`") this.#fail(`Reserved character "${c}"`);
    if (c === "[" || c === "{") {
      value = this.#flowCollection();
    } else if (c === "*") {
      value = this.#alias();
    } else if (c === '"' || c === "'") {
      value = this.#quoted(indent);
    } else {
      if (c === "-" && this.#isSeqItem()) {
        this.#fail(
          ctx === "map"
            ? "A block sequence cannot start on the line of its key"
            : "Unexpected sequence item",
        );
      }
      if (c === "?" && this.#isBreakOrSpace(this.#pos + 1)) {
        this.#fail("Complex mapping keys (?) are not supported");
      }
      return resolvePlain(this.#plainBlock(indent));
    }
    this.#endOfLine();
    return value;
  }

  /**
   * A plain scalar in block context, folded over continuation lines that
   * are indented deeper than `indent`.
   */
  #plainBlock(indent: number): string {
    const src = this.#src;
    const parts: string[] = [];
    let breaks = 0;
    while (true) {
      let end = this.#pos;
      while (end < src.length && src[end] !== "\n") {
        if (src[end] === ":" && this.#isBreakOrSpace(end + 1)) {
          // On a continuation line this is a key indented too deep.
          if (parts.length > 0) this.#fail("Unexpected indentation");
          this.#fail('Unexpected ": " in a plain value (quote the value)', end);
        }
        if (
          src[end] === "#" && (src[end - 1] === " " || src[end - 1] === "\t")
        ) {
          break;
        }
        end++;
      }
      const text = src.slice(this.#pos, end).trim();
      if (parts.length > 0) parts.push(breaks > 0 ? "\n".repeat(breaks) : " ");
      parts.push(text);
      this.#pos = end;
      if (src[end] === "#") {
        this.#endOfLine();
        break; // a comment ends a plain scalar
      }
      // Look ahead for a continuation line.
      let p = end;
      breaks = 0;
      let next = -1;
      while (p < src.length) {
        p++; // past "\n"
        let q = p;
        while (src[q] === " ") q++;
        if (src[q] === "\n") {
          breaks++;
          p = q;
          continue;
        }
        if (q < src.length && q - p > indent && src[q] !== "#") next = q;
        break;
      }
      if (next === -1) break;
      if (
        this.#col(next) === 0 &&
        (src.startsWith("---", next) || src.startsWith("...", next))
      ) {
        break;
      }
      this.#pos = next;
    }
    return parts.join("");
  }

  // ---- quoted scalars ----

  /** A single- or double-quoted scalar, possibly folded over lines. */
  #quoted(_indent: number): string {
    const src = this.#src;
    const open = this.#pos;
    const q = src[open];
    let out = "";
    let p = open + 1;
    while (true) {
      if (p >= src.length) this.#fail("Unterminated quoted string", open);
      const c = src[p];
      if (c === q) {
        if (q === "'" && src[p + 1] === "'") {
          out += "'";
          p += 2;
          continue;
        }
        this.#pos = p + 1;
        return out;
      }
      if (c === "\n") {
        // Fold: trailing spaces dropped, one break → space, n+1 breaks → n newlines.
        out = out.replace(/[ \t]+$/, "");
        let breaks = 0;
        while (src[p] === "\n") {
          breaks++;
          p++;
          while (src[p] === " " || src[p] === "\t") p++;
        }
        out += breaks === 1 ? " " : "\n".repeat(breaks - 1);
        continue;
      }
      if (q === '"' && c === "\\") {
        const [text, next] = this.#escape(p);
        out += text;
        p = next;
        continue;
      }
      out += c;
      p++;
    }
  }

  /** A double-quoted escape at `at` (the backslash): its text and the next position. */
  #escape(at: number): [string, number] {
    const src = this.#src;
    const e = src[at + 1];
    const simple: Record<string, string> = {
      "0": "\0",
      a: "\x07",
      b: "\b",
      t: "\t",
      "\t": "\t",
      n: "\n",
      v: "\v",
      f: "\f",
      r: "\r",
      e: "\x1b",
      " ": " ",
      '"': '"',
      "/": "/",
      "\\": "\\",
      N: "\x85",
      _: "\xa0",
      L: "\u2028",
      P: "\u2029",
    };
    if (e in simple) return [simple[e], at + 2];
    if (e === "\n") {
      // Escaped line break: join without a space, skip the next indentation.
      let p = at + 2;
      while (src[p] === " " || src[p] === "\t") p++;
      return ["", p];
    }
    const width = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    const hex = src.slice(at + 2, at + 2 + width);
    if (width === 0 || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) {
      this.#fail(`Invalid escape "\\${e ?? ""}" in a double-quoted string`, at);
    }
    return [String.fromCodePoint(parseInt(hex, 16)), at + 2 + width];
  }

  // ---- block scalars ----

  #blockScalar(parentIndent: number): string {
    const src = this.#src;
    const folded = src[this.#pos] === ">";
    this.#pos++;
    let chomp: "clip" | "strip" | "keep" = "clip";
    let explicit = 0;
    for (let i = 0; i < 2; i++) {
      const c = this.#ch();
      if (c === "-" || c === "+") chomp = c === "-" ? "strip" : "keep";
      else if (c >= "1" && c <= "9") explicit = Number(c);
      else break;
      this.#pos++;
    }
    const header = this.#pos;
    if (!this.#isBreakOrSpace(header)) {
      this.#fail(`Invalid block scalar header "${this.#ch()}"`);
    }
    this.#endOfLine();
    // Collect raw lines until one is indented at or below the parent.
    const lines: string[] = [];
    let contentIndent = explicit > 0
      ? Math.max(parentIndent, 0) + explicit
      : -1;
    let p = this.#pos < src.length ? this.#pos + 1 : this.#pos;
    let endedWithBreak = this.#pos < src.length;
    while (p < src.length) {
      const nl = src.indexOf("\n", p);
      const lineEnd = nl === -1 ? src.length : nl;
      const raw = src.slice(p, lineEnd);
      const spaces = raw.length - raw.trimStart().length;
      const blank = raw.trim() === "";
      if (!blank) {
        if (contentIndent === -1) {
          if (spaces <= parentIndent) break;
          contentIndent = spaces;
        }
        if (spaces < contentIndent) break;
      }
      lines.push(
        blank
          ? raw.slice(contentIndent === -1 ? raw.length : contentIndent)
          : raw.slice(contentIndent),
      );
      this.#pos = lineEnd;
      endedWithBreak = nl !== -1;
      p = lineEnd + 1;
    }
    // Trailing blank lines belong to chomping, not content.
    let last = lines.length;
    while (last > 0 && lines[last - 1].trim() === "") last--;
    const content = lines.slice(0, last).map((l, i) =>
      l.trim() === "" && i < last ? "" : l
    );
    let text = folded ? foldLines(content) : content.join("\n");
    if (content.length > 0 || chomp === "keep") {
      const trailing = lines.length - last;
      if (
        chomp === "clip" && content.length > 0 &&
        (endedWithBreak || trailing > 0)
      ) {
        text += "\n";
      } else if (chomp === "keep") {
        text += "\n".repeat(
          trailing +
            (content.length > 0 && (endedWithBreak || trailing > 0) ? 1 : 0),
        );
      }
    }
    // The position is at the end of the last line taken (or at the header).
    return text;
  }

  // ---- flow collections ----

  #flowCollection(): unknown {
    const open = this.#pos;
    const close = this.#ch() === "[" ? "]" : "}";
    const isMap = close === "}";
    this.#pos++;
    const seq: unknown[] = [];
    const map: Record<string, unknown> = {};
    while (true) {
      this.#skipFlowSpace(open);
      if (this.#ch() === close) {
        this.#pos++;
        return isMap ? map : seq;
      }
      if (isMap) {
        const keyAt = this.#pos;
        const key = this.#flowNode(open);
        if (key !== null && typeof key === "object") {
          this.#fail(
            "Flow collections as mapping keys are not supported",
            keyAt,
          );
        }
        this.#skipFlowSpace(open);
        let value: unknown = null;
        if (this.#ch() === ":") {
          this.#pos++;
          this.#skipFlowSpace(open);
          if (this.#ch() !== "," && this.#ch() !== "}") {
            value = this.#flowNode(open);
          }
        }
        const k = String(key);
        if (k in map) this.#fail(`Duplicate mapping key "${k}"`, keyAt);
        map[k] = value;
      } else {
        const itemAt = this.#pos;
        seq.push(this.#flowNode(open));
        this.#skipFlowSpace(open);
        if (this.#ch() === ":") {
          this.#fail(
            "Single-pair mappings inside [ ] are not supported",
            itemAt,
          );
        }
      }
      this.#skipFlowSpace(open);
      if (this.#ch() === ",") {
        this.#pos++;
      } else if (this.#ch() !== close) {
        this.#fail(`Expected "," or "${close}" in a flow collection`);
      }
    }
  }

  #skipFlowSpace(open: number): void {
    const src = this.#src;
    let newLine = false;
    while (this.#pos < src.length) {
      const c = src[this.#pos];
      if (c === "\n") {
        newLine = true;
        this.#pos++;
      } else if (c === " " || c === "\t") {
        this.#pos++;
      } else if (c === "#") {
        const nl = src.indexOf("\n", this.#pos);
        this.#pos = nl === -1 ? src.length : nl;
      } else {
        // Flow content on later lines must be indented deeper than the line
        // the collection opened on (a closing bracket may sit at its level);
        // otherwise the bracket was never closed.
        if (
          newLine && c !== "]" && c !== "}" &&
          this.#col() <= this.#lineIndent(open)
        ) {
          this.#fail(`Unterminated flow collection "${src[open]}"`, open);
        }
        return;
      }
    }
    this.#fail(`Unterminated flow collection "${src[open]}"`, open);
  }

  #lineIndent(at: number): number {
    let p = this.#src.lastIndexOf("\n", at - 1) + 1;
    const start = p;
    while (this.#src[p] === " ") p++;
    return p - start;
  }

  #flowNode(open: number): unknown {
    const anchor = this.#anchorIfAny();
    let value: unknown;
    const c = this.#ch();
    if (c === "[" || c === "{") value = this.#flowCollection();
    else if (c === "*") value = this.#alias();
    else if (c === '"' || c === "'") value = this.#quoted(-1);
    else if (c === "!") this.#fail("Tags are not supported");
    else if (c === "," || c === "]" || c === "}") {
      this.#fail(`Unexpected "${c}" in a flow collection`);
    } else value = resolvePlain(this.#plainFlow(open));
    if (anchor !== undefined) this.#anchors.set(anchor, value);
    return value;
  }

  #plainFlow(open: number): string {
    const src = this.#src;
    const start = this.#pos;
    while (this.#pos < src.length) {
      const c = src[this.#pos];
      if (
        c === "\n" || c === "," || c === "[" || c === "]" || c === "{" ||
        c === "}"
      ) break;
      if (
        c === ":" &&
        (this.#isBreakOrSpace(this.#pos + 1) ||
          ",]}".includes(this.#ch(this.#pos + 1)))
      ) {
        break;
      }
      if (
        c === "#" && (src[this.#pos - 1] === " " || src[this.#pos - 1] === "\t")
      ) break;
      this.#pos++;
    }
    if (this.#pos >= src.length) {
      this.#fail(`Unterminated flow collection "${src[open]}"`, open);
    }
    return src.slice(start, this.#pos).trim();
  }
}

/** Fold the lines of a `>` block scalar (YAML 1.2 §8.1.3). */
function foldLines(lines: string[]): string {
  let out = "";
  let breaks = 0;
  let prevNormal = false;
  let first = true;
  for (const line of lines) {
    if (line === "") {
      breaks++;
      continue;
    }
    const normal = line[0] !== " " && line[0] !== "\t";
    if (first) out += "\n".repeat(breaks);
    else if (prevNormal && normal) {
      out += breaks === 0 ? " " : "\n".repeat(breaks);
    } else out += "\n".repeat(breaks + 1);
    out += line;
    breaks = 0;
    prevNormal = normal;
    first = false;
  }
  return out;
}
