// Turns a byte stream (a child's stdout or stderr) into text lines that are safe to store in
// SQLite TEXT and to print in a terminal.
//
// - Lines end at \n; one trailing \r is stripped (CRLF output).
// - Bytes are decoded per complete line, never per chunk, so a multi-byte character split across
//   chunks stays intact. Invalid UTF-8 becomes U+FFFD.
// - Control characters are replaced by U+FFFD: C0 (U+0000–U+001F) except \t, DEL (U+007F) and
//   C1 (U+0080–U+009F). That covers NUL (which SQLite TEXT and C strings handle badly) and ESC
//   (terminal escape sequences, which could rewrite a viewer's screen); colour codes therefore
//   show as "�[31m" rather than as colour.
// - A line longer than maxLineBytes is cut at maxLineBytes, moved back to a character boundary,
//   and ` … [line truncated: N bytes]` is appended, N being the line's full length in bytes. The
//   rest of that line is counted but not kept, so memory stays at about maxLineBytes however
//   long the line is. The line is emitted when its \n (or end()) arrives, because N is known only
//   then.
// - `bytes` passed to onLine is the number of raw input bytes the emitted text carries (the kept
//   part, without the line terminator and without the marker): what an output cap should count.

const NL = 0x0a;
const CR = 0x0d;
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;
const INITIAL_CAPACITY = 256;
/** a buffer grown past this by one long line is dropped afterwards */
const SHRINK_ABOVE = 16 * 1024;

export class LineSplitter {
  private readonly decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  private buf: Uint8Array;
  private len = 0;
  /** true while the rest of an over-long line is being skipped */
  private discarding = false;
  /** full length of the over-long line seen so far */
  private discardedTotal = 0;
  private lastDiscardedByte = 0;

  /**
   * @param maxLineBytes longest line kept whole, in bytes (at least 4, so a character always fits)
   * @param onLine called once per line, in order
   */
  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string, bytes: number) => void,
  ) {
    if (!Number.isInteger(maxLineBytes) || maxLineBytes < 4) {
      throw new Error(`maxLineBytes must be an integer >= 4, got ${maxLineBytes}`);
    }
    this.buf = new Uint8Array(Math.min(INITIAL_CAPACITY, maxLineBytes + 1));
  }

  /** Bytes held for the current unfinished line; never more than maxLineBytes + 1. */
  get bufferedBytes(): number {
    return this.len;
  }

  push(chunk: Uint8Array): void {
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(NL, pos);
      const end = nl === -1 ? chunk.length : nl;
      if (this.discarding) {
        if (end > pos) {
          this.discardedTotal += end - pos;
          this.lastDiscardedByte = chunk[end - 1] as number;
        }
      } else if (this.len === 0 && nl !== -1 && end - pos <= this.maxLineBytes + 1) {
        // Fast path: a whole line inside this chunk, decoded without copying.
        this.emitWhole(chunk.subarray(pos, end));
        pos = nl + 1;
        continue;
      } else {
        this.append(chunk.subarray(pos, end));
      }
      if (nl === -1) return;
      this.finishLine();
      pos = nl + 1;
    }
  }

  /** Flushes a last line that has no newline. */
  end(): void {
    if (this.len > 0 || this.discarding) this.finishLine();
  }

  /** Keeps up to maxLineBytes + 1 bytes (the extra byte may be a \r before \n); counts the rest. */
  private append(part: Uint8Array): void {
    const room = this.maxLineBytes + 1 - this.len;
    const keep = Math.min(room, part.length);
    this.ensureCapacity(this.len + keep);
    this.buf.set(part.subarray(0, keep), this.len);
    this.len += keep;
    if (keep < part.length) {
      this.discarding = true;
      this.discardedTotal = this.len + (part.length - keep);
      this.lastDiscardedByte = part[part.length - 1] as number;
    }
  }

  private ensureCapacity(needed: number): void {
    if (needed <= this.buf.length) return;
    let size = this.buf.length;
    while (size < needed) size *= 2;
    const grown = new Uint8Array(Math.min(size, this.maxLineBytes + 1));
    grown.set(this.buf.subarray(0, this.len));
    this.buf = grown;
  }

  private finishLine(): void {
    if (this.discarding) {
      const total = this.discardedTotal - (this.lastDiscardedByte === CR ? 1 : 0);
      this.emitTruncated(this.buf.subarray(0, this.len), total);
    } else {
      this.emitWhole(this.buf.subarray(0, this.len));
    }
    this.len = 0;
    this.discarding = false;
    this.discardedTotal = 0;
    this.lastDiscardedByte = 0;
    // Drop a buffer grown by one long line, so idle processes hold little memory.
    if (this.buf.length > SHRINK_ABOVE) this.buf = new Uint8Array(INITIAL_CAPACITY);
  }

  /** A complete line of at most maxLineBytes + 1 bytes, terminator already removed. */
  private emitWhole(raw: Uint8Array): void {
    let bytes = raw.length;
    if (bytes > 0 && raw[bytes - 1] === CR) bytes -= 1;
    if (bytes > this.maxLineBytes) {
      this.emitTruncated(raw, bytes);
      return;
    }
    this.onLine(this.decode(raw.subarray(0, bytes)), bytes);
  }

  /** `kept` holds more than maxLineBytes bytes of a line whose full length is `total`. */
  private emitTruncated(kept: Uint8Array, total: number): void {
    const cut = this.charBoundary(kept, this.maxLineBytes);
    const text = this.decode(kept.subarray(0, cut));
    this.onLine(`${text} … [line truncated: ${total} bytes]`, cut);
  }

  /**
   * The largest cut <= limit that does not split a UTF-8 character: if the byte at `limit` is a
   * continuation byte, step back to the lead byte of its character (at most 3 steps).
   */
  private charBoundary(bytes: Uint8Array, limit: number): number {
    let cut = limit;
    while (cut > limit - 3 && cut > 0 && ((bytes[cut] as number) & 0xc0) === 0x80) cut -= 1;
    const lead = bytes[cut] as number;
    // Only a real lead byte marks a character to keep whole; stray continuation bytes decode to
    // U+FFFD wherever we cut.
    return lead >= 0xc0 ? cut : limit;
  }

  private decode(raw: Uint8Array): string {
    return this.decoder.decode(raw).replace(CONTROL, '\ufffd');
  }
}
