// The log limit as people write it: sizes ("50MB", "512KB", bytes) parsed and printed back the
// same; a task's log_limit in a workflow file, refused with the fix when it is no size, kept
// through export and apply's API check.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError, type ValidationProblem } from '../../engine/api/errors.ts';
import { checkParams } from '../../engine/api/schemas.ts';
import { formatSize, parseSize, readableSize } from '../../engine/api/size.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';
import { nodeLogLimit, readSettings, writeSetting } from '../../engine/hosts/node/settings.ts';

const parse = (text: string) => parseWorkflowFile(text, { defaultTimezone: 'UTC' }).spec;
const file = (limit: string) => `workflow: w\ntasks:\n  a:\n    command: ./a.sh\n    log_limit: ${limit}\n`;

function problems(text: string): ValidationProblem[] {
  try {
    parseWorkflowFile(text, { defaultTimezone: 'UTC' });
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).problems;
  }
  throw new Error('expected a ValidationError');
}

describe('parseSize', () => {
  it('reads binary units in any case, with or without a space, and whole bytes', () => {
    expect(parseSize('50MB')).toEqual({ bytes: 50 * 1024 * 1024 });
    expect(parseSize('512 kb')).toEqual({ bytes: 512 * 1024 });
    expect(parseSize('1.5GB')).toEqual({ bytes: 1.5 * 1024 ** 3 });
    expect(parseSize('2MiB')).toEqual({ bytes: 2 * 1024 ** 2 });
    expect(parseSize(' 4096 ')).toEqual({ bytes: 4096 });
    expect(parseSize(4096)).toEqual({ bytes: 4096 });
  });

  it('refuses what is no size, or out of range, saying what to write', () => {
    expect(parseSize('lots')).toEqual({
      error: '"lots" is not a size: write a number of bytes or a number with KB, MB or GB, e.g. "50MB"',
    });
    expect(parseSize('50 MBs')).toHaveProperty('error', expect.stringContaining('is not a size'));
    expect(parseSize('-5MB')).toHaveProperty('error', expect.stringContaining('is not a size'));
    expect(parseSize(10.5)).toHaveProperty('error', expect.stringContaining('a number alone is whole bytes'));
    expect(parseSize(true)).toHaveProperty('error', expect.stringContaining('true is not a size'));
    expect(parseSize('100')).toEqual({ error: '"100" is below the smallest log limit, 1KB' });
    expect(parseSize('2048TB')).toEqual({ error: '"2048TB" is over the largest log limit, 1024TB' });
  });

  it('formatSize prints the largest whole unit, and what it prints parses back to the same bytes', () => {
    expect(formatSize(50 * 1024 * 1024)).toBe('50MB');
    expect(formatSize(1536 * 1024)).toBe('1536KB');
    expect(formatSize(3 * 1024 ** 3)).toBe('3GB');
    expect(formatSize(1500)).toBe('1500');
    for (const bytes of [1024, 1500, 1536 * 1024, 50 * 1024 ** 2, 7 * 1024 ** 4])
      expect(parseSize(formatSize(bytes))).toEqual({ bytes });
    expect(readableSize(877_692)).toBe('857.1 KB');
  });
});

describe('log_limit in a workflow file', () => {
  it('is the task logLimitBytes, from a size or a number of bytes; none when left out', () => {
    expect(parse(file('10MB')).tasks[0]?.logLimitBytes).toBe(10 * 1024 * 1024);
    expect(parse(file('"256 KB"')).tasks[0]?.logLimitBytes).toBe(256 * 1024);
    expect(parse(file('65536')).tasks[0]?.logLimitBytes).toBe(65536);
    expect(parse('workflow: w\ntasks:\n  a:\n    command: ./a.sh\n').tasks[0]).not.toHaveProperty('logLimitBytes');
  });

  it('a bad size is refused at its path, with the fix', () => {
    expect(problems(file('huge'))).toEqual([
      {
        path: 'tasks.a.log_limit',
        message: `"huge" is not a size: write a number of bytes or a number with KB, MB or GB, e.g. "50MB"; leave log_limit out for the node's (50MB unless "ax settings set log-limit")`,
      },
    ]);
    expect(problems(file('12'))[0]).toMatchObject({
      path: 'tasks.a.log_limit',
      message: expect.stringContaining('12 is below the smallest log limit, 1KB'),
    });
    expect(problems(file('[1, 2]'))[0]?.path).toBe('tasks.a.log_limit');
  });

  it('goes through export and back unchanged, as a size or as bytes', () => {
    for (const [written, exported] of [
      ['10MB', 'log_limit: 10MB'],
      ['1024KB', 'log_limit: 1MB'],
      ['1500', 'log_limit: 1500'],
    ]) {
      const spec = parse(file(written as string));
      const text = serializeWorkflow(spec);
      expect(text).toContain(exported);
      expect(parse(text)).toEqual(spec);
    }
  });

  it('over the API, logLimitBytes is whole bytes within the range', () => {
    const spec = { name: 'w', tasks: [{ name: 'a', command: 'x', logLimitBytes: 4096 }] };
    expect(checkParams('apply', [spec, 'alice']).ok).toBe(true);
    const bad = checkParams('apply', [{ ...spec, tasks: [{ name: 'a', command: 'x', logLimitBytes: 10 }] }, 'alice']);
    expect(bad).toMatchObject({ ok: false, problems: [{ path: 'apply(param 1.tasks.0.logLimitBytes)' }] });
  });
});

describe("the node's log-limit setting", () => {
  it('is 50MB by default, settings.json (a size, or a number of bytes) else, AX_LOG_LIMIT over both; a bad one is named with its source', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ax-log-limit-'));
    try {
      expect(nodeLogLimit(dir, {})).toBe(50 * 1024 * 1024);
      writeSetting(dir, 'log-limit', '10MB');
      expect(nodeLogLimit(dir, {})).toBe(10 * 1024 * 1024);
      expect(nodeLogLimit(dir, { AX_LOG_LIMIT: '1MB' })).toBe(1024 * 1024);
      expect(() => nodeLogLimit(dir, { AX_LOG_LIMIT: 'big' })).toThrow(
        'log-limit (from AX_LOG_LIMIT): "big" is not a size',
      );
      expect(() => writeSetting(dir, 'log-limit', '5')).toThrow('log-limit: "5" is below the smallest log limit, 1KB');
      expect(readSettings(dir)['log-limit']).toBe('10MB');
      fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ 'log-limit': 65536 }));
      expect(nodeLogLimit(dir, {})).toBe(65536);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
