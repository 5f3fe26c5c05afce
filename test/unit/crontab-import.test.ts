// importCrontab's choices: cron's environment, names that survive a re-import, --group, MAILTO,
// redirects, the system crontab's users, @reboot, --ax-defaults, and what it refuses and why.
import { describe, expect, test } from 'vitest';
import { importCrontab } from '../../engine/core/import/crontab-import.ts';
import type { ImportOptions } from '../../engine/core/import/import-types.ts';
import { disableLines } from '../../engine/core/import/source-markers.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';

const NOW = Date.UTC(2027, 5, 10, 7, 13);
const alice = { name: 'alice', home: '/home/alice' };
const base: ImportOptions = { now: NOW, hostZone: 'Europe/Berlin', user: alice };
const run = (text: string, opts: Partial<ImportOptions> & { system?: boolean } = {}) =>
  importCrontab(text, 'crontab of alice', { ...base, ...opts });
const only = (text: string, opts: Partial<ImportOptions> & { system?: boolean } = {}) => {
  const report = run(text, opts);
  const [file] = report.files;
  if (!file || report.files.length !== 1) throw new Error(`expected one file: ${JSON.stringify(report.skipped)}`);
  return { report, file, spec: file.spec, task: file.spec.tasks[0], job: report.jobs[0] };
};

describe("cron's environment", () => {
  test('SHELL, PATH, HOME and LOGNAME as cron sets them, the job starting in HOME', () => {
    const { task } = only('0 2 * * * /usr/bin/backup\n');
    expect(task?.env).toEqual({ SHELL: '/bin/sh', PATH: '/usr/bin:/bin', HOME: '/home/alice', LOGNAME: 'alice' });
    expect(task?.cwd).toBe('/home/alice');
    expect(task?.command).toBe('/usr/bin/backup');
  });

  test('the crontab overrides SHELL, PATH and HOME, not LOGNAME; assignments count from their line on', () => {
    const report = run(
      '0 1 * * * /bin/first\nPATH=/opt/bin:/usr/bin\nHOME=/srv/data\nLOGNAME=mallory\nFOO = a b\n0 2 * * * /bin/second\nFOO=c\n0 3 * * * /bin/third\n',
    );
    const env = report.files.map((f) => f.spec.tasks[0]?.env);
    expect(env[0]).toEqual({ SHELL: '/bin/sh', PATH: '/usr/bin:/bin', HOME: '/home/alice', LOGNAME: 'alice' });
    expect(env[1]).toMatchObject({ PATH: '/opt/bin:/usr/bin', HOME: '/srv/data', LOGNAME: 'alice', FOO: 'a b' });
    expect(env[2]).toMatchObject({ FOO: 'c' });
    expect(report.files[1]?.spec.tasks[0]?.cwd).toBe('/srv/data');
  });

  test('without a user: no HOME, LOGNAME or cwd, and a note saying so', () => {
    const report = importCrontab('0 2 * * * /usr/bin/backup\n', '-', { now: NOW, hostZone: 'UTC' });
    expect(report.files[0]?.spec.tasks[0]?.env).toEqual({ SHELL: '/bin/sh', PATH: '/usr/bin:/bin' });
    expect(report.files[0]?.spec.tasks[0]?.cwd).toBeUndefined();
    expect(report.notes.join('\n')).toContain('HOME and LOGNAME');
  });

  test('CRON_TZ is the zone from its line on; TZ alone only sets the environment', () => {
    const report = run('CRON_TZ=Asia/Kolkata\n0 9 * * * /bin/a\nCRON_TZ=UTC\nTZ=Asia/Tokyo\n0 9 * * * /bin/b\n');
    expect(report.files.map((f) => f.spec.schedule?.timezone)).toEqual(['Asia/Kolkata', 'UTC']);
    const tzOnly = only('TZ=Asia/Tokyo\n0 9 * * * /bin/b\n');
    expect(tzOnly.spec.schedule?.timezone).toBe('Europe/Berlin');
    expect(tzOnly.job?.warnings.join('\n')).toContain('TZ=Asia/Tokyo sets the job');
    expect(run('CRON_TZ=Mars/Olympus\n0 9 * * * /bin/a\n').skipped[0]?.reason).toContain(
      'unknown time zone "Mars/Olympus"',
    );
  });
});

describe('names', () => {
  test('from the command, the same on re-import with lines added above, and valid workflow names', () => {
    const a = run('0 2 * * * /usr/local/bin/Backup_Home.sh --all\n');
    const b = run('# new\nMAILTO=""\n5 5 * * * /usr/bin/other\n0 2 * * * /usr/local/bin/Backup_Home.sh --all\n');
    expect(a.jobs[0]?.workflow).toBe('backup_home.sh');
    expect(b.jobs.find((j) => j.text.includes('Backup'))?.workflow).toBe('backup_home.sh');
  });

  test('two jobs with one name get suffixes from their own lines, whatever their order', () => {
    const lines = ['0 1 * * * debian-sa1 1 1', '0 2 * * * debian-sa1 60 2'];
    const one = run(`${lines.join('\n')}\n`).jobs.map((j) => j.workflow);
    const two = run(`${[...lines].reverse().join('\n')}\n`).jobs.map((j) => j.workflow);
    expect(new Set(one).size).toBe(2);
    expect([...two].reverse()).toEqual(one);
    for (const n of one) expect(n).toMatch(/^debian-sa1-[0-9a-f]{6}$/);
    const same = run('0 1 * * * /bin/x\n0 1 * * * /bin/x\n').jobs.map((j) => j.workflow);
    expect(new Set(same).size).toBe(2);
  });

  test('a job sharing its command with one already marked off keeps its name on re-import, never the other one', () => {
    const text = '0 1 * * * debian-sa1 1 1\n0 2 * * * debian-sa1 60 2\n';
    const first = run(text);
    const [a, b] = first.jobs;
    // the first job moved to AX and marked off; the second stays on cron, then is imported later
    const marked = disableLines(text, [{ line: 1, workflow: a?.workflow ?? '' }]);
    const again = run(marked).jobs;
    expect(again.map((j) => j.workflow)).toEqual([b?.workflow]);
    expect(again[0]?.workflow).not.toBe('debian-sa1');
  });

  test("a monitor's ax wrap line below its marker is AX's own, not a job to import", () => {
    const text = '*/5 * * * * /bin/check\n';
    const monitored = run(text, { monitor: true });
    const job = monitored.jobs[0];
    const wrapped = disableLines(text, [{ line: 1, workflow: job?.workflow ?? '', wrappedLine: job?.wrappedLine }]);
    const again = run(wrapped);
    expect(again.jobs).toEqual([]);
    expect(again.skipped).toEqual([
      expect.objectContaining({ line: 2, reason: expect.stringContaining(`monitor ${job?.workflow}`) }),
    ]);
  });

  test("the person's names win; one that is no valid name is refused with the rule", () => {
    const report = run('0 1 * * * /bin/a\n0 2 * * * /bin/b\n', { names: { 1: 'nightly-a', 2: 'bad name' } });
    expect(report.jobs.map((j) => j.workflow)).toEqual(['nightly-a']);
    expect(report.skipped[0]).toMatchObject({ line: 2, reason: expect.stringContaining('is not a valid name') });
    const twice = run('0 1 * * * /bin/a\n0 2 * * * /bin/b\n', { names: { 1: 'same', 2: 'same' } });
    expect(twice.jobs.map((j) => j.workflow)).toEqual(['same']);
    expect(twice.skipped[0]).toMatchObject({ line: 2, reason: expect.stringContaining('given to another line') });
  });

  test('the comment lines just above a job are its description; a blank line ends them', () => {
    const { spec } = only('# not this\n\n# Back up home\n# every night\n0 2 * * * /bin/backup\n');
    expect(spec.description).toBe('Back up home\nevery night');
  });
});

describe('the workflows', () => {
  test("cron's misfire and overlap behaviour written and named; --ax-defaults gives AX's", () => {
    const kept = only('0 2 * * * /bin/x\n');
    expect(kept.spec.schedule).toMatchObject({ misfire: 'skip', overlap: 'parallel' });
    expect(kept.file.yaml).toContain('misfire: skip');
    expect(kept.report.notes.join('\n')).toContain('--ax-defaults');
    const ax = only('0 2 * * * /bin/x\n', { axDefaults: true });
    expect(ax.spec.schedule).toMatchObject({ misfire: 'run_once', overlap: 'skip' });
  });

  test('--group: one workflow, each job an independent task; a job with another schedule is refused', () => {
    const report = run('0 2 * * * /bin/a\n0 2 * * * /bin/b\n0 3 * * * /bin/c\n', { group: 'nightly' });
    expect(report.files).toHaveLength(1);
    const spec = report.files[0]?.spec;
    expect(spec?.name).toBe('nightly');
    expect(spec?.tasks.map((t) => [t.name, t.upstream])).toEqual([
      ['a', []],
      ['b', []],
    ]);
    expect(report.jobs.map((j) => [j.workflow, j.task])).toEqual([
      ['nightly', 'a'],
      ['nightly', 'b'],
    ]);
    expect(report.skipped[0]).toMatchObject({
      line: 3,
      reason: expect.stringContaining('a workflow has one schedule'),
    });
    expect(parseWorkflowFile(report.files[0]?.yaml ?? '', { defaultTimezone: 'UTC' }).spec).toEqual(spec);
  });

  test('MAILTO routes alerts to an email channel named after the address, with a note saying how to define it', () => {
    const { spec, report } = only('MAILTO=ops@example.com\n0 2 * * * /bin/x\n');
    expect(spec.alerts?.channels).toEqual(['mail-ops']);
    const note = report.notes.find((n) => n.includes('mail-ops')) ?? '';
    expect(note).toContain('"type": "email"');
    expect(note).toContain('"to": ["ops@example.com"]');
    expect(only('MAILTO=ops@a.example,ops@b.example dev\n0 2 * * * /bin/x\n').spec.alerts?.channels).toEqual([
      'mail-ops',
      'mail-dev',
    ]);
    const quiet = only('MAILTO=""\n0 2 * * * /bin/x\n');
    expect(quiet.spec.alerts).toBeUndefined();
    expect(quiet.report.notes.join('\n')).not.toContain('mail-');
  });

  test('a trailing redirection is kept with a warning, or dropped with --strip-redirects', () => {
    const kept = only('0 2 * * * /bin/x --y >> /var/log/x.log 2>&1\n');
    expect(kept.task?.command).toBe('/bin/x --y >> /var/log/x.log 2>&1');
    expect(kept.job?.warnings.join('\n')).toContain("not to AX's log");
    const dropped = only('0 2 * * * /bin/x --y >> /var/log/x.log 2>&1\n', { stripRedirects: true });
    expect(dropped.task?.command).toBe('/bin/x --y');
    const quoted = only('0 2 * * * echo "a > b"\n', { stripRedirects: true });
    expect(quoted.task?.command).toBe('echo "a > b"');
  });

  test('@reboot runs when the engine starts, with no schedule', () => {
    const { spec, job } = only('@reboot /usr/bin/start-thing\n');
    expect(spec.onEngineStart).toBe(true);
    expect(spec.schedule).toBeUndefined();
    expect(job).toMatchObject({ scheduleText: 'when the engine starts', sourceFires: [], axFires: [] });
  });

  test('the report: schedule in words (24-hour), both fires, a warning on DST days where cron and AX differ', () => {
    const { job } = only('30 2 * * * /bin/x\n', { now: Date.UTC(2027, 2, 1) });
    expect(job?.scheduleText).toBe('At 02:30 (Europe/Berlin)');
    expect(job?.sourceFires).toEqual(job?.axFires);
    expect(job?.sourceFires[0]).toBe(Date.UTC(2027, 2, 1, 1, 30));
    expect(job?.warnings.join('\n')).toContain('clock change of 2027-03-28');
    expect(only('15 14 * * *  /bin/x\n').job?.scheduleText).toBe('At 14:15 (Europe/Berlin)');
    const three = only('0 * * * * /bin/x\n', { fires: 3 }).job;
    expect(three?.sourceFires).toEqual([1, 2, 3].map((h) => Date.UTC(2027, 5, 10, 7 + h)));
    expect(three?.axFires).toEqual(three?.sourceFires);
  });
});

describe('refused lines', () => {
  test.each([
    ['0 0 */2 * 1 /bin/x', 'both day-of-month "*/2" and day-of-week "1"'],
    ['0 0 31 4 * /bin/x', 'no date has day-of-month "31" in month "4"'],
    ['0 0 30 2 * /bin/x', 'February 30'],
    ['*/0 * * * * /bin/x', 'a step must be 1 or more'],
    ['0 0 * * * ', 'no command'],
  ])('%s', (line, reason) => {
    const report = run(`${line}\n`);
    expect(report.files).toEqual([]);
    expect(report.skipped).toEqual([{ line: 1, text: line, reason: expect.stringContaining(reason) }]);
  });

  test('faithful rewrites instead: */1 and a full day field', () => {
    expect(only('0 0 */1 * 1 /bin/x\n').spec.schedule?.cron).toBe('0 0 * * 1');
    expect(only('0 0 1-31 * 1 /bin/x\n').spec.schedule?.cron).toBe('0 0 * * *');
    expect(only('0 0 */2 * */1 /bin/x\n').spec.schedule?.cron).toBe('0 0 */2 * *');
  });

  test("a system crontab job of another user than AX's tasks run as, with how to import it", () => {
    const lookupUser = (n: string) => ({ name: n, home: `/home/${n}` });
    const report = run('0 2 * * * postgres /usr/bin/vacuumdb --all\n0 3 * * * root /bin/x\n', {
      system: true,
      taskUser: 'root',
      lookupUser,
    });
    expect(report.jobs.map((j) => [j.line, j.user])).toEqual([[2, 'root']]);
    expect(report.skipped[0]?.reason).toContain('ax settings set run-as postgres');
    expect(report.files[0]?.spec.tasks[0]?.env).toMatchObject({ HOME: '/home/root', LOGNAME: 'root' });
    const unknown = run('0 2 * * * nobody2 /bin/x\n', { system: true, lookupUser: () => undefined });
    expect(unknown.skipped[0]?.reason).toContain('no such user');
  });
});
