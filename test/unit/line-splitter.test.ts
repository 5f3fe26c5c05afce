import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../engine/core/logs/line-splitter.ts';

const enc = new TextEncoder();

function collect(maxLineBytes = 64 * 1024): {
  splitter: LineSplitter;
  lines: string[];
  bytes: number[];
} {
  const lines: string[] = [];
  const bytes: number[] = [];
  const splitter = new LineSplitter(maxLineBytes, (line, n) => {
    lines.push(line);
    bytes.push(n);
  });
  return { splitter, lines, bytes };
}

describe('LineSplitter', () => {
  it('splits on \\n across and within chunks', () => {
    const { splitter, lines, bytes } = collect();
    splitter.push(enc.encode('one\ntw'));
    splitter.push(enc.encode('o\nthree\n\nfour'));
    expect(lines).toEqual(['one', 'two', 'three', '']);
    splitter.end();
    expect(lines).toEqual(['one', 'two', 'three', '', 'four']);
    expect(bytes).toEqual([3, 3, 5, 0, 4]);
  });

  it('keeps a multi-byte character split across chunks intact', () => {
    const { splitter, lines, bytes } = collect();
    const raw = enc.encode('héllo €uro 😀\n');
    // Feed one byte at a time: every multi-byte character is split.
    for (const b of raw) splitter.push(Uint8Array.of(b));
    expect(lines).toEqual(['héllo €uro 😀']);
    expect(bytes).toEqual([raw.length - 1]);
  });

  it('replaces invalid UTF-8 with U+FFFD', () => {
    const { splitter, lines, bytes } = collect();
    splitter.push(Uint8Array.of(0x61, 0xff, 0x62, 0xc3, 0x0a, 0xe2, 0x82, 0x0a));
    expect(lines).toEqual(['a\ufffdb\ufffd', '\ufffd']);
    expect(bytes).toEqual([4, 2]);
  });

  it('strips the \\r of CRLF, also when the \\r ends a chunk', () => {
    const { splitter, lines, bytes } = collect();
    splitter.push(enc.encode('a\r\nb\r'));
    splitter.push(enc.encode('\nc\r\r\n'));
    expect(lines).toEqual(['a', 'b', 'c']);
    expect(bytes).toEqual([1, 1, 1]);
  });

  it('keeps the last state of a \\r progress line, as a terminal shows it', () => {
    const { splitter, lines, bytes } = collect();
    splitter.push(enc.encode('10%\r20%\r40%\ndone\n'));
    // CRLF after progress; \r at the start; a line of only \r.
    splitter.push(enc.encode('a\rbc\r\n\rlead\n\r\r\n'));
    expect(lines).toEqual(['40%', 'done', 'bc', 'lead', '']);
    expect(bytes).toEqual([3, 4, 2, 4, 0]);
  });

  it('keeps the last non-empty segment when a line ends in \\r, across chunks and at end()', () => {
    const { splitter, lines, bytes } = collect();
    // Byte by byte: every \r arrives without knowing whether \n follows.
    for (const b of enc.encode('5%\r50%\r\r\n')) splitter.push(Uint8Array.of(b));
    splitter.push(enc.encode('x\r'));
    splitter.push(enc.encode('99%\r'));
    splitter.end();
    expect(lines).toEqual(['50%', '99%']);
    expect(bytes).toEqual([3, 3]);
  });

  it('holds one segment, not the whole line, for \\r progress that never writes \\n', () => {
    const max = 64;
    const { splitter, lines, bytes } = collect(max);
    let maxBuffered = 0;
    for (let i = 0; i <= 100_000; i++) {
      splitter.push(enc.encode(`progress ${i}\r`));
      maxBuffered = Math.max(maxBuffered, splitter.bufferedBytes);
    }
    splitter.end();
    expect(maxBuffered).toBeLessThanOrEqual(max + 1);
    expect(lines).toEqual(['progress 100000']);
    expect(bytes).toEqual([15]);
  });

  it('cuts an over-long last segment and counts only that segment', () => {
    const { splitter, lines, bytes } = collect(8);
    splitter.push(enc.encode('short\r0123456789ab\n'));
    expect(lines).toEqual(['01234567 … [line truncated: 12 bytes]']);
    expect(bytes).toEqual([8]);
  });

  it('replaces escape sequences in progress output too', () => {
    const { splitter, lines } = collect();
    splitter.push(enc.encode('\u001b[2K10%\r\u001b[2K\u001b]0;PWNED\u0007100%\n'));
    expect(lines).toEqual(['\ufffd[2K\ufffd]0;PWNED\ufffd100%']);
  });

  it('replaces NUL and other control characters but keeps tabs', () => {
    const { splitter, lines } = collect();
    splitter.push(enc.encode('a\u0000b\tc\u001b[31md\u007f\u0085e\n'));
    expect(lines).toEqual(['a\ufffdb\tc\ufffd[31md\ufffd\ufffde']);
  });

  it('flushes a final line without newline on end(), once', () => {
    const { splitter, lines } = collect();
    splitter.push(enc.encode('first\nlast'));
    splitter.end();
    splitter.end();
    expect(lines).toEqual(['first', 'last']);
  });

  it('emits nothing on end() after a trailing newline', () => {
    const { splitter, lines } = collect();
    splitter.push(enc.encode('only\n'));
    splitter.end();
    expect(lines).toEqual(['only']);
  });

  it('cuts a 1 MB line at maxLineBytes, discards the rest and keeps the next line intact', () => {
    const max = 64 * 1024;
    const { splitter, lines, bytes } = collect(max);
    const long = new Uint8Array(1024 * 1024).fill(0x78);
    for (let i = 0; i < long.length; i += 10_000) splitter.push(long.subarray(i, i + 10_000));
    splitter.push(enc.encode('\r\nnext line\n'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`${'x'.repeat(max)} … [line truncated: ${1024 * 1024} bytes]`);
    expect(bytes[0]).toBe(max);
    expect(lines[1]).toBe('next line');
  });

  it('keeps a line of exactly maxLineBytes whole, also with CRLF', () => {
    const { splitter, lines } = collect(8);
    splitter.push(enc.encode('12345678\r\n12345678\n123456789\n'));
    expect(lines).toEqual(['12345678', '12345678', '12345678 … [line truncated: 9 bytes]']);
  });

  it('cuts on a character boundary', () => {
    // "aaaaaa€" is 6 + 3 bytes; a cut at 8 would split the euro sign.
    const { splitter, lines, bytes } = collect(8);
    splitter.push(enc.encode('aaaaaa€bb\n'));
    expect(lines).toEqual(['aaaaaa … [line truncated: 11 bytes]']);
    expect(bytes).toEqual([6]);
    // The same, byte by byte, and through end() without newline.
    const other = collect(8);
    for (const b of enc.encode('aaaaa😀zz')) other.splitter.push(Uint8Array.of(b));
    other.splitter.end();
    expect(other.lines).toEqual(['aaaaa … [line truncated: 11 bytes]']);
  });

  it('stays bounded by maxLineBytes for a 200 MB line without newline', () => {
    const max = 64 * 1024;
    const { splitter, lines } = collect(max);
    const chunk = new Uint8Array(64 * 1024).fill(0x78);
    const total = 200 * 1024 * 1024;
    let maxBuffered = 0;
    for (let fed = 0; fed < total; fed += chunk.length) {
      splitter.push(chunk);
      maxBuffered = Math.max(maxBuffered, splitter.bufferedBytes);
    }
    expect(maxBuffered).toBeLessThanOrEqual(max + 1);
    expect(lines).toEqual([]);
    splitter.end();
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith(` … [line truncated: ${total} bytes]`)).toBe(true);
    expect(splitter.bufferedBytes).toBe(0);
  });

  it('rejects a nonsensical maxLineBytes', () => {
    expect(() => new LineSplitter(0, () => undefined)).toThrow(/maxLineBytes/);
  });
});
