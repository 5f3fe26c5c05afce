// The UI's crontab import on the engine side (core/import/crontab-service.ts): what is applied is
// the text converted again, only the chosen lines, and every refusal names the line to fix.
import { describe, expect, it } from 'vitest';
import { AxError } from '../../engine/api/errors.ts';
import { MAX_CRONTAB_BYTES } from '../../engine/api/import-report.ts';
import { chosenCrontabSpecs, previewCrontabImport } from '../../engine/core/import/crontab-service.ts';

const context = {
  now: Date.UTC(2026, 11, 1, 12),
  zone: 'Europe/Berlin',
  taskUser: { name: 'alice', home: '/home/alice' },
};

// 1 comment, 2 job, 3 job, 4 never fires, 5 job with the same schedule as 2
const TEXT = [
  '# backups',
  '0 2 * * * /usr/bin/backup',
  '*/5 * * * * echo tick',
  '0 0 30 2 * echo never',
  '0 2 * * * echo two',
].join('\n');

function problemsOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof AxError) return err.problems.length ? err.problems : [{ path: '', message: err.message }];
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('the crontab import service', () => {
  it('previews with the engine zone and task user', () => {
    const report = previewCrontabImport({ text: TEXT }, context);
    expect(report.jobs.map((j) => j.line)).toEqual([2, 3, 5]);
    expect(report.skipped.map((s) => s.line)).toEqual([4]);
    expect(report.jobs[0]?.timezone).toBe('Europe/Berlin');
    expect(report.files[0]?.spec.tasks[0]?.env).toMatchObject({ HOME: '/home/alice', LOGNAME: 'alice' });
  });

  it('applies only the chosen lines, under the names typed for them', () => {
    const { specs } = chosenCrontabSpecs({ text: TEXT, lines: [5, 2], names: { 2: 'backup' } }, context);
    expect(specs.map((s) => s.name)).toHaveLength(2);
    expect(specs[0]?.name).toBe('backup');
    expect(specs.map((s) => s.tasks[0]?.command).join('\n')).not.toContain('tick');
  });

  it('grouped, keeps only the chosen lines as tasks of the one workflow', () => {
    const all = chosenCrontabSpecs({ text: TEXT, group: 'nightly', lines: [2, 5] }, context).specs;
    expect(all).toHaveLength(1);
    expect(all[0]?.tasks).toHaveLength(2);
    const one = chosenCrontabSpecs({ text: TEXT, group: 'nightly', lines: [5] }, context).specs;
    expect(one[0]?.name).toBe('nightly');
    expect(one[0]?.tasks.map((t) => t.command).join()).toContain('two');
    expect(one[0]?.tasks).toHaveLength(1);
  });

  it('names the line for a line that cannot import, one that is no job, and two lines given one name', () => {
    expect(problemsOf(() => chosenCrontabSpecs({ text: TEXT, lines: [4, 1] }, context))).toEqual([
      { path: 'lines.1', message: expect.stringMatching(/^line 1 is no job of this crontab.*untick it$/) },
      { path: 'lines.4', message: expect.stringMatching(/^line 4 cannot be imported: .*30/) },
    ]);
    expect(
      problemsOf(() => chosenCrontabSpecs({ text: TEXT, lines: [2, 3], names: { 2: 'x', 3: 'x' } }, context)),
    ).toEqual([
      { path: 'names.3', message: 'lines 2 and 3 would both be workflow "x": give one of them another name' },
    ]);
  });

  it('refuses a name that is not valid, no line chosen, and a text over 1 MiB, saying what to do', () => {
    expect(problemsOf(() => previewCrontabImport({ text: TEXT, names: { 3: 'my job' } }, context))).toEqual([
      { path: 'names.3', message: expect.stringMatching(/^line 3: "my job" is not a valid name: use letters/) },
    ]);
    expect(problemsOf(() => previewCrontabImport({ text: TEXT, group: '-' }, context))[0]?.path).toBe('group');
    expect(problemsOf(() => chosenCrontabSpecs({ text: TEXT, lines: [] }, context))[0]?.message).toMatch(
      /no line is chosen: tick the lines to import/,
    );
    // multi-byte text: the limit is in bytes
    const big = `# ${'é'.repeat(MAX_CRONTAB_BYTES / 2)}\n`;
    expect(problemsOf(() => previewCrontabImport({ text: big }, context))[0]?.message).toMatch(
      /over the limit of 1048576 bytes \(1 MiB\): import it in parts/,
    );
  });
});
