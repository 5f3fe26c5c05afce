// What a task wrote to $AX_OUTPUT, as outputs: KEY=VALUE lines or one JSON object, bad lines
// named and skipped, the limits cutting what does not fit (with a note), secrets masked before a
// value is cut; and the names downstream tasks see them under.
import { describe, expect, it } from 'vitest';
import {
  OUTPUT_MAX_BYTES,
  OUTPUT_MAX_KEYS,
  OUTPUT_MAX_VALUE_BYTES,
  outputEnvName,
  parseOutputs,
  upstreamOutputEnv,
} from '../../engine/core/model/task-outputs.ts';
import { secretMasker } from '../../engine/core/secrets/secret-mask.ts';

const bytes = (s: string): number => new TextEncoder().encode(s).length;

describe('parseOutputs', () => {
  const cases: { name: string; text: string; outputs: Record<string, string>; notes?: RegExp[] }[] = [
    { name: 'an empty file', text: '', outputs: {} },
    { name: 'KEY=VALUE lines', text: 'rows=42\nfile=/tmp/a b.csv\n', outputs: { rows: '42', file: '/tmp/a b.csv' } },
    { name: 'a value keeps its = signs and spaces', text: 'q=a=b = c \n', outputs: { q: 'a=b = c ' } },
    { name: 'an empty value', text: 'empty=\n', outputs: { empty: '' } },
    { name: 'CRLF lines', text: 'a=1\r\nb=2\r\n', outputs: { a: '1', b: '2' } },
    { name: 'no newline at the end', text: 'a=1\nb=2', outputs: { a: '1', b: '2' } },
    { name: 'blank lines and comments', text: '\n# rows found\n  \n  # x=1\nrows=3\n', outputs: { rows: '3' } },
    { name: 'the last of a repeated key wins', text: 'n=1\nn=2\n', outputs: { n: '2' } },
    {
      name: 'a line without =',
      text: 'rows=1\njust text\nok=2\n',
      outputs: { rows: '1', ok: '2' },
      notes: [/line 2 skipped: not KEY=VALUE.*"just text"/],
    },
    {
      name: 'a key that is not a name',
      text: 'row-count=5\n1st=x\n=v\n',
      outputs: {},
      notes: [/line 1 skipped.*row-count=5/, /line 2 skipped/, /line 3 skipped/],
    },
    {
      name: 'a JSON object: strings as is, others as JSON',
      text: ' {"rows": 42, "file": "a.csv", "ok": true, "list": [1,2], "none": null, "obj": {"a":1}}\n',
      outputs: { rows: '42', file: 'a.csv', ok: 'true', list: '[1,2]', none: 'null', obj: '{"a":1}' },
    },
    {
      name: 'a JSON key that is not a name',
      text: '{"row-count": 1, "rows": 2}',
      outputs: { rows: '2' },
      notes: [/key "row-count" skipped/],
    },
    {
      name: 'a JSON array is read as lines',
      text: '[1, 2]\n',
      outputs: {},
      notes: [/line 1 skipped/],
    },
    {
      name: 'broken JSON is read as lines',
      text: '{"rows": 1\nx=2\n',
      outputs: { x: '2' },
      notes: [/line 1 skipped/],
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const got = parseOutputs(c.text, bytes(c.text));
      expect(got.outputs).toEqual(c.outputs);
      expect(got.notes).toHaveLength(c.notes?.length ?? 0);
      for (const [i, re] of (c.notes ?? []).entries()) expect(got.notes[i]).toMatch(re);
    });

  it(`keeps ${OUTPUT_MAX_KEYS} keys and says how many more were cut; a repeated key still updates`, () => {
    const lines = Array.from({ length: OUTPUT_MAX_KEYS + 5 }, (_, i) => `k${i}=${i}`);
    lines.push('k0=again');
    const text = lines.join('\n');
    const got = parseOutputs(text, bytes(text));
    expect(Object.keys(got.outputs)).toHaveLength(OUTPUT_MAX_KEYS);
    expect(got.outputs.k0).toBe('again');
    expect(got.outputs[`k${OUTPUT_MAX_KEYS}`]).toBeUndefined();
    expect(got.notes).toEqual([expect.stringMatching(/only 100 keys are kept.*5 more were cut/)]);
  });

  it('cuts a long value at a character boundary, with a note', () => {
    // 3-byte characters: the limit falls inside one.
    const long = '€'.repeat(OUTPUT_MAX_VALUE_BYTES);
    const text = `big=${long}\nsmall=1\n`;
    const got = parseOutputs(text, bytes(text));
    expect(bytes(got.outputs.big as string)).toBeLessThanOrEqual(OUTPUT_MAX_VALUE_BYTES);
    expect(bytes(got.outputs.big as string)).toBeGreaterThan(OUTPUT_MAX_VALUE_BYTES - 3);
    expect(got.outputs.big).toBe('€'.repeat(Math.floor(OUTPUT_MAX_VALUE_BYTES / 3)));
    expect(got.outputs.small).toBe('1');
    expect(got.notes).toEqual([expect.stringMatching(/value of big was cut to 8192 bytes.*it had 24576/)]);
  });

  it('a file over the limit: its whole lines are kept, the cut line is not, and the note says so', () => {
    // What the runner hands over: the first OUTPUT_MAX_BYTES of a larger file.
    const whole = Array.from({ length: 20_000 }, (_, i) => `k${i % 50}=${'v'.repeat(i % 7)}${i}`).join('\n');
    const read = whole.slice(0, OUTPUT_MAX_BYTES);
    const got = parseOutputs(read, bytes(whole));
    expect(got.notes[0]).toMatch(new RegExp(`holds ${bytes(whole)} bytes: only the first ${OUTPUT_MAX_BYTES}`));
    const lastWhole = read.slice(0, read.lastIndexOf('\n')).split('\n').pop() as string;
    const [key, value] = lastWhole.split('=') as [string, string];
    expect(got.outputs[key]).toBe(value);
    // The cut line's value (a prefix of a longer one) was not taken.
    const cutLine = read.slice(read.lastIndexOf('\n') + 1);
    const cutKey = cutLine.split('=')[0] as string;
    if (cutLine.includes('=')) expect(got.outputs[cutKey]).not.toBe(cutLine.slice(cutKey.length + 1));
  });

  it('masks secret values in values and in a bad line it quotes, before cutting', () => {
    const secret = 'hunter2-very-secret';
    const mask = secretMasker([secret]);
    const text = `url=https://x?token=${secret}\njson_like=${secret}\noops ${secret}\n`;
    const got = parseOutputs(text, bytes(text), mask);
    expect(got.outputs).toEqual({ url: 'https://x?token=***', json_like: '***' });
    expect(got.notes[0]).toContain('oops ***');
    expect(JSON.stringify(got)).not.toContain(secret);
    // A secret straddling the value limit is masked whole, not cut into a first part that shows.
    const straddle = `${'a'.repeat(OUTPUT_MAX_VALUE_BYTES - 5)}${secret}`;
    const cut = parseOutputs(`v=${straddle}`, bytes(straddle) + 2, mask);
    expect(cut.outputs.v).toBe(`${'a'.repeat(OUTPUT_MAX_VALUE_BYTES - 5)}***`);
    expect(cut.notes).toEqual([]);
  });
});

describe('output environment names', () => {
  it.each([
    ['extract', 'rows', 'AX_OUTPUT_EXTRACT_ROWS'],
    ['load-eu', 'fileName', 'AX_OUTPUT_LOAD_EU_FILENAME'],
    ['a.b', 'x_1', 'AX_OUTPUT_A_B_X_1'],
  ])('%s %s → %s', (task, key, name) => expect(outputEnvName(task, key)).toBe(name));

  it('a same-run upstream wins over another workflow’s task of the same name', () => {
    const env = upstreamOutputEnv(
      [{ task: 'extract', outputs: { rows: '1' } }],
      [
        { task: 'extract', outputs: { rows: '2', file: 'f' } },
        { task: 'load', outputs: { n: '3' } },
      ],
    );
    expect(env).toEqual({ AX_OUTPUT_EXTRACT_ROWS: '1', AX_OUTPUT_EXTRACT_FILE: 'f', AX_OUTPUT_LOAD_N: '3' });
  });
});
