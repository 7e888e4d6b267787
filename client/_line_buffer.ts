/**
 * Line splitting for the watch decoder (private to client/).
 *
 * @module
 */

/**
 * Incremental line splitting without a stream around it: feed text with
 * {@link LineBuffer.push}, get each complete line (without the `\n`, a
 * trailing `\r` removed) through the callback. Partial input is kept as
 * pieces and joined only when a newline arrives, so a long line split into
 * many chunks stays linear. Used by the watch decoder,
 * which calls it directly to avoid a stream hop per line.
 */
export class LineBuffer {
  #pending: string[] = [];
  /** Characters held in `#pending`. */
  #pendingLength = 0;
  readonly #max: number;
  readonly #tooLong: (length: number) => never;

  /**
   * @param maxLine the longest line accepted, in characters
   * @param tooLong throws the error for a line longer than that (called as
   *   soon as the unterminated text passes it, so it never grows further)
   */
  constructor(
    maxLine = Infinity,
    tooLong: (length: number) => never = (length) => {
      throw new RangeError(`a line of ${length} characters`);
    },
  ) {
    this.#max = maxLine;
    this.#tooLong = tooLong;
  }

  /**
   * Split `chunk`, calling `onLine` for every line it completes.
   * @param chunk the next piece of text
   * @param onLine receives each complete line
   */
  push(chunk: string, onLine: (line: string) => void): void {
    let start = 0;
    let nl = chunk.indexOf("\n");
    while (nl !== -1) {
      let line = chunk.slice(start, nl);
      if (this.#pending.length > 0) {
        this.#pending.push(line);
        line = this.#pending.join("");
        this.#pending = [];
        this.#pendingLength = 0;
      }
      if (line.length > this.#max) this.#tooLong(line.length);
      if (line.endsWith("\r")) line = line.slice(0, -1);
      onLine(line);
      start = nl + 1;
      nl = chunk.indexOf("\n", start);
    }
    if (start < chunk.length) {
      this.#pendingLength += chunk.length - start;
      if (this.#pendingLength > this.#max) {
        const length = this.#pendingLength;
        this.#pending = [];
        this.#pendingLength = 0;
        this.#tooLong(length);
      }
      this.#pending.push(chunk.slice(start));
    }
  }

  /** The unterminated text received since the last newline (and forget it). */
  takeTail(): string {
    const tail = this.#pending.join("");
    this.#pending = [];
    this.#pendingLength = 0;
    return tail;
  }
}
