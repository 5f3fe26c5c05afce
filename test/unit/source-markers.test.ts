// Marking imported crontab lines off and putting them back: every other byte kept (CRLF, tabs,
// no last newline), a restore exact, and refused where it would not be safe.
import { describe, expect, it } from 'vitest';
import { importCrontab } from '../../engine/core/import/crontab-import.ts';
import { disableLines, hasMarkers, restoreLines } from '../../engine/core/import/source-markers.ts';

const SOURCE =
  'SHELL=/bin/sh\r\n# backups\r\n0 2 * * *\ttar czf /b.tgz /home\r\n\n*/5 * * * * echo "a%b"\n@daily  run-parts /x';

describe('disableLines / restoreLines', () => {
  it('comments the lines out with the marker, keeping each line ending, and restores byte for byte', () => {
    const off = disableLines(SOURCE, [
      { line: 3, workflow: 'tar' },
      { line: 6, workflow: 'daily' },
    ]);
    expect(off).toBe(
      'SHELL=/bin/sh\r\n# backups\r\n#ax-imported(tar): 0 2 * * *\ttar czf /b.tgz /home\r\n\n*/5 * * * * echo "a%b"\n#ax-imported(daily): @daily  run-parts /x',
    );
    expect(hasMarkers(off)).toBe(true);
    const back = restoreLines(off, {});
    expect(back.problems).toEqual([]);
    expect(back.text).toBe(SOURCE);
    expect(back.restored.map((r) => [r.line, r.workflow, r.text])).toEqual([
      [3, 'tar', '0 2 * * *\ttar czf /b.tgz /home'],
      [6, 'daily', '@daily  run-parts /x'],
    ]);
  });

  it('a wrapped line goes below its marker and is taken out again on restore', () => {
    const wrapped = '*/5 * * * * ax wrap echo -- /bin/sh -c \'echo "a\\%b"\'';
    const off = disableLines(SOURCE, [{ line: 3, workflow: 'tar', wrappedLine: wrapped }]);
    expect(off.split('\n').slice(2, 4)).toEqual([
      `#ax-wrapped(tar): 0 2 * * *\ttar czf /b.tgz /home\r`,
      `${wrapped}\r`,
    ]);
    expect(restoreLines(off, { tar: wrapped })).toMatchObject({ text: SOURCE, problems: [] });
  });

  it('refuses a wrapped line changed since, or without a record of it, and a job active again elsewhere', () => {
    const wrapped = '0 2 * * * ax wrap tar -- /bin/sh -c x';
    const off = disableLines(SOURCE, [{ line: 3, workflow: 'tar', wrappedLine: wrapped }]);
    expect(restoreLines(off.replace('ax wrap tar', 'ax wrap other'), { tar: wrapped }).problems[0]).toMatch(
      /^line 4: the ax wrap line of tar below the marker was changed or removed/,
    );
    expect(restoreLines(off, {}).problems[0]).toMatch(/AX has no record of the ax wrap line/);
    const readded = `${disableLines(SOURCE, [{ line: 5, workflow: 'echo' }])}\n*/5 * * * * echo "a%b"\n`;
    expect(restoreLines(readded, {}).problems).toEqual([
      'the job of echo is active again at line 7: restoring its marked line would run it twice; remove one of them first',
    ]);
  });

  it('refuses to mark a line twice or a line that is not there', () => {
    const off = disableLines(SOURCE, [{ line: 3, workflow: 'tar' }]);
    expect(() => disableLines(off, [{ line: 3, workflow: 'tar' }])).toThrow(/already marked/);
    expect(() => disableLines(SOURCE, [{ line: 9, workflow: 'x' }])).toThrow(/not in the source/);
  });
});

describe('importing a source AX marked', () => {
  it('a marked line is neither imported nor the description of the job below it', () => {
    const off = disableLines('# the first\n0 1 * * * echo one\n0 2 * * * /usr/bin/two\n', [
      { line: 2, workflow: 'one' },
    ]);
    const report = importCrontab(off, 'test', { now: Date.UTC(2026, 0, 1), hostZone: 'UTC' });
    expect(report.jobs.map((j) => j.line)).toEqual([3]);
    expect(report.files[0]?.spec.description).toBeUndefined();
  });
});
