// The unit-file syntax the systemd importer reads (systemd.syntax(7)) and its value syntaxes:
// repeated keys as lists (an empty assignment resets), continued lines, command words with quotes
// and C escapes, EnvironmentFile= lines, time spans.
import { describe, expect, it } from 'vitest';
import {
  lastOf,
  listOf,
  parseEnvironmentFile,
  parseTimespan,
  parseUnitFile,
  splitWords,
} from '../../engine/core/import/systemd-unit-file.ts';

describe('unit files', () => {
  const unit = parseUnitFile(
    [
      '# head comment',
      '[Timer]',
      'OnCalendar = daily',
      '  ; indented comment',
      'OnCalendar=weekly',
      'OnCalendar=',
      'OnCalendar=monthly',
      'Persistent=false',
      'Persistent=true',
      '[Service]',
      'ExecStart=/bin/echo a \\',
      '  b \\',
      '# inside',
      '  c',
      'no equals here',
    ].join('\r\n'),
  );

  it('keeps a key’s entries as a list, an empty assignment dropping those before it; the last wins for one value', () => {
    expect(listOf(unit, 'Timer', 'OnCalendar').map((e) => [e.value, e.line])).toEqual([['monthly', 7]]);
    expect(lastOf(unit, 'Timer', 'Persistent')?.value).toBe('true');
    expect(lastOf(unit, 'Service', 'Persistent')).toBeUndefined();
  });

  it('joins continued lines (dropping comments inside), keeps where the entry began, and names lines that are no setting', () => {
    const e = lastOf(unit, 'Service', 'ExecStart');
    expect(e?.value).toBe('/bin/echo a    b    c');
    expect(e?.line).toBe(11);
    expect(unit.bad).toEqual([{ line: 15, text: 'no equals here' }]);
  });
});

describe('words', () => {
  it.each([
    ['/bin/echo one  two', ['/bin/echo', 'one', 'two']],
    [`a "b c" 'd e' f"g h"i`, ['a', 'b c', 'd e', 'fg hi']],
    ['x\\ty \\x41\\\\ "q\\"q"', ['x\ty', 'A\\', 'q"q']],
    ['', []],
  ])('%j → %j', (text, words) => {
    expect(splitWords(text)).toEqual(words);
  });

  it.each([
    ['"open', 'a " is not closed'],
    ['end\\', 'a backslash ends the line'],
    ['\\q', '"\\q" is an escape the importer does not know: write the character itself'],
  ])('%j is refused: %s', (text, problem) => {
    expect(splitWords(text)).toBe(problem);
  });
});

describe('environment files', () => {
  it('reads NAME=value lines: comments, quotes, escapes, continued unquoted values; names bad lines', () => {
    const r = parseEnvironmentFile(
      [
        '# comment',
        '; comment',
        'A=1',
        'B = spaced  ',
        'C="say \\"hi\\" \\$x"',
        "D='$raw \\n'",
        'E=long\\',
        'er',
        '',
        'bad line',
        '9X=1',
      ].join('\n'),
    );
    expect(r.env).toEqual([
      ['A', '1'],
      ['B', 'spaced'],
      ['C', 'say "hi" $x'],
      ['D', '$raw \\n'],
      ['E', 'longer'],
    ]);
    expect(r.bad).toEqual([10, 11]);
  });
});

describe('time spans', () => {
  it.each([
    ['90', 90_000],
    ['5min', 300_000],
    ['1h 30min', 5_400_000],
    ['1h30m', 5_400_000],
    ['2 days', 172_800_000],
    ['500ms', 500],
    ['infinity', Infinity],
    ['soon', undefined],
    ['5 parsecs', undefined],
    ['', undefined],
  ])('%j → %s ms', (text, ms) => {
    expect(parseTimespan(text)).toBe(ms);
  });
});
