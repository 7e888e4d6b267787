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
      }
      if (line.endsWith("\r")) line = line.slice(0, -1);
      onLine(line);
      start = nl + 1;
      nl = chunk.indexOf("\n", start);
    }
    if (start < chunk.length) this.#pending.push(chunk.slice(start));
  }

  /** The unterminated text received since the last newline (and forget it). */
  takeTail(): string {
    const tail = this.#pending.join("");
    this.#pending = [];
    return tail;
  }
}
