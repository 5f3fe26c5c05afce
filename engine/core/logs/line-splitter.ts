// Turns a byte stream (a child's stdout or stderr) into text lines that are safe to store in
// SQLite TEXT and to print in a terminal.
//
// - Lines end at \n; the \r of a CRLF is dropped.
// - A \r inside a line (progress output: `10%\r20%\r40%`) returns to the start of the line, as
//   on a terminal: the line keeps only its last segment, `40%`. A line whose last segment is empty
//   (`40%\r\r\n`, or a last line ending in \r) keeps its last non-empty segment. Earlier segments
//   are dropped as they end, so a progress bar that never writes \n costs no memory; a terminal
//   would also show what is left of a longer earlier segment (`abcdef\rxy` as `xycdef`), which
//   progress output pads away, so only the last segment is kept.
// - Bytes are decoded per complete segment, never per chunk, so a multi-byte character split
//   across chunks stays intact. Invalid UTF-8 becomes U+FFFD.
// - Control characters are replaced by U+FFFD (replaceControls): C0 (U+0000–U+001F) except \t,
//   DEL (U+007F) and C1 (U+0080–U+009F). That covers NUL (which SQLite TEXT and C strings handle
//   badly) and ESC (terminal escape sequences, which could rewrite a viewer's screen); colour
//   codes therefore show as "�[31m" rather than as colour. The engine's own `[ax]` lines in a
//   task log (which quote user text: a cwd, a command's error) get the same treatment.
// - A segment longer than maxLineBytes is cut at maxLineBytes, moved back to a character
//   boundary, and ` … [line truncated: N bytes]` is appended, N being the segment's full length
//   in bytes. The rest is counted but not kept, so memory stays at about twice maxLineBytes (the
//   segment being read and the last one kept) however long the line is. The line is emitted when
//   its \n (or end()) arrives, because N is known only then.
// - `bytes` passed to onLine is the number of raw input bytes the emitted text carries (the kept
//   segment, without \r, the line terminator and the marker): what is stored, so what an output
//   cap should count. Overwritten progress states are not counted.
// - With a LineMask (secret-mask.ts), secret values are masked BEFORE the cut: the splitter keeps
//   slackBytes more than maxLineBytes, so a value that straddles the cut is seen whole and becomes
//   *** whole, instead of its first part showing before the marker.

import type { LineMask } from '../../ports/process-runner.ts';

const NL = 0x0a;
const CR = 0x0d;
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;
const INITIAL_CAPACITY = 256;
/** a buffer grown past this by one long line is dropped afterwards */
const SHRINK_ABOVE = 16 * 1024;

/** Text safe to store and show: control characters but \t become U+FFFD (see the header). */
export function replaceControls(text: string): string {
  return text.replace(CONTROL, '\ufffd');
}

interface Segment {
  text: string;
  bytes: number;
}

export class LineSplitter {
  private readonly decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  /** the segment being read (never a \r in it) */
  private buf: Uint8Array;
  private len = 0;
  /** true while the rest of an over-long segment is being skipped */
  private discarding = false;
  /** full length of the over-long segment seen so far */
  private discardedTotal = 0;
  /** a \r was read last: the end of a segment, or the \r of a CRLF if \n comes next */
  private crPending = false;
  /** the last non-empty segment of this line that a \r ended */
  private previous: Segment | undefined;
  /** bytes kept of a segment before the rest is only counted: maxLineBytes, plus the mask's slack */
  private readonly keepBytes: number;

  /**
   * @param maxLineBytes longest line kept whole, in bytes (at least 4, so a character always fits)
   * @param onLine called once per line, in order
   * @param mask secret values to mask in every line, before the cut
   */
  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string, bytes: number) => void,
    private readonly mask?: LineMask,
  ) {
    if (!Number.isInteger(maxLineBytes) || maxLineBytes < 4) {
      throw new Error(`maxLineBytes must be an integer >= 4, got ${maxLineBytes}`);
    }
    this.keepBytes = maxLineBytes + (mask?.slackBytes ?? 0);
    this.buf = new Uint8Array(Math.min(INITIAL_CAPACITY, this.keepBytes + 1));
  }

  /** Bytes held for the current unfinished segment; never more than maxLineBytes + 1 (+ the mask's slack). */
  get bufferedBytes(): number {
    return this.len;
  }

  push(chunk: Uint8Array): void {
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(NL, pos);
      const end = nl === -1 ? chunk.length : nl;
      const part = chunk.subarray(pos, end);
      if (nl !== -1 && this.idle() && part.length <= this.keepBytes + 1 && !hasInnerCr(part)) {
        // Fast path: a whole line inside this chunk, decoded without copying.
        this.emit(this.segment(part, part.length > 0 && part[part.length - 1] === CR ? part.length - 1 : part.length));
        pos = nl + 1;
        continue;
      }
      this.feed(part);
      if (nl === -1) return;
      this.crPending = false; // it was the \r of a CRLF
      this.finishLine();
      pos = nl + 1;
    }
  }

  /** Flushes a last line that has no newline. */
  end(): void {
    if (this.crPending) {
      this.crPending = false;
      this.endSegment();
    }
    if (this.len > 0 || this.discarding || this.previous) this.finishLine();
  }

  private idle(): boolean {
    return this.len === 0 && !this.discarding && !this.crPending && this.previous === undefined;
  }

  /** Bytes of the current line without \n: each \r (not known to be a CRLF's) ends a segment. */
  private feed(part: Uint8Array): void {
    let p = 0;
    while (p < part.length) {
      if (this.crPending) {
        this.crPending = false;
        this.endSegment();
      }
      const cr = part.indexOf(CR, p);
      const stop = cr === -1 ? part.length : cr;
      if (stop > p) this.append(part.subarray(p, stop));
      if (cr === -1) return;
      this.crPending = true;
      p = cr + 1;
    }
  }

  /** Keeps up to keepBytes + 1 bytes (one more than fits says "too long"); counts the rest. */
  private append(part: Uint8Array): void {
    if (this.discarding) {
      this.discardedTotal += part.length;
      return;
    }
    const room = this.keepBytes + 1 - this.len;
    const keep = Math.min(room, part.length);
    this.ensureCapacity(this.len + keep);
    this.buf.set(part.subarray(0, keep), this.len);
    this.len += keep;
    if (keep < part.length) {
      this.discarding = true;
      this.discardedTotal = this.len + (part.length - keep);
    }
  }

  private ensureCapacity(needed: number): void {
    if (needed <= this.buf.length) return;
    let size = this.buf.length;
    while (size < needed) size *= 2;
    const grown = new Uint8Array(Math.min(size, this.keepBytes + 1));
    grown.set(this.buf.subarray(0, this.len));
    this.buf = grown;
  }

  /** A \r ended the current segment: a non-empty one becomes the line's text so far. */
  private endSegment(): void {
    if (this.len === 0 && !this.discarding) return;
    this.previous = this.current();
    this.resetSegment();
  }

  private finishLine(): void {
    const last = this.len > 0 || this.discarding ? this.current() : (this.previous ?? { text: '', bytes: 0 });
    this.resetSegment();
    this.previous = undefined;
    this.emit(last);
  }

  private current(): Segment {
    return this.segment(this.buf.subarray(0, this.len), this.discarding ? this.discardedTotal : this.len);
  }

  private resetSegment(): void {
    this.len = 0;
    this.discarding = false;
    this.discardedTotal = 0;
    // Drop a buffer grown by one long line, so idle processes hold little memory.
    if (this.buf.length > SHRINK_ABOVE) this.buf = new Uint8Array(INITIAL_CAPACITY);
  }

  private emit(s: Segment): void {
    this.onLine(s.text, s.bytes);
  }

  /** `kept` holds the first bytes (all, if it fits) of a segment whose full length is `total`. */
  private segment(kept: Uint8Array, total: number): Segment {
    if (total <= this.maxLineBytes) {
      const text = this.decode(kept.subarray(0, total));
      return { text: this.mask ? this.mask.mask(text) : text, bytes: total };
    }
    const cut = this.charBoundary(kept, this.maxLineBytes);
    let text = this.decode(kept.subarray(0, cut));
    if (this.mask) {
      // The bytes past the cut that a value starting before it may reach, decoded with it.
      const window = this.decode(kept.subarray(0, Math.min(kept.length, this.keepBytes)));
      text = this.mask.maskPrefix(window, text.length);
    }
    return { text: `${text} … [line truncated: ${total} bytes]`, bytes: cut };
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
    return replaceControls(this.decoder.decode(raw));
  }
}

/** A \r anywhere but as the last byte (a CRLF's). */
function hasInnerCr(part: Uint8Array): boolean {
  const cr = part.indexOf(CR);
  return cr !== -1 && cr < part.length - 1;
}
