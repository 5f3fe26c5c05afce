// Imported commands run as cron ran them: each one is run here by a real /bin/sh, against what cron
// itself would run (SHELL -c COMMAND with the % text as input), and the --monitor line that wraps
// the command in `ax wrap` gives the command the same input and shell.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { nameFromCommand, splitRedirects } from '../../engine/core/import/crontab-command.ts';
import { parseCrontab, splitCommand } from '../../engine/core/import/crontab-grammar.ts';
import { MONITOR_GRACE_MS, importCrontab } from '../../engine/core/import/crontab-import.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';

const opts = { now: Date.UTC(2027, 5, 10), hostZone: 'UTC', user: { name: 'alice', home: '/tmp' } };

/** stdout of `shell -c command` with `input` on stdin (what cron does). */
function sh(command: string, input = '', shell = '/bin/sh'): string {
  const r = spawnSync(shell, ['-c', command], { input, encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
  if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** What cron runs for a crontab line (its % rules applied), under the line's shell. */
function asCron(line: string, shell = '/bin/sh'): string {
  const [job] = parseCrontab(line, false).filter((l) => l.kind === 'job');
  if (job?.kind !== 'job') throw new Error('no job');
  const { command, stdin } = splitCommand(job.command);
  return sh(command, stdin ?? '', shell);
}

const imported = (text: string) => {
  const report = importCrontab(text, 't', opts);
  const task = report.files[0]?.spec.tasks[0];
  if (!task) throw new Error(JSON.stringify(report.skipped));
  return task;
};

describe('the task command does what cron did', () => {
  test.each([
    ['0 1 * * * cat%line one%line two\\%x'],
    ['0 1 * * * cat%'],
    ['0 1 * * * cat; echo "it\'s"%a \'quoted\' "text"%'],
    ['0 1 * * * tr a-z A-Z%shout%'],
    ['0 1 * * * printf "\\%s|" a b'],
    ['0 1 * * * wc -c%  spaces  '],
    ['0 1 * * * echo $((6 * 7)) "$LOGNAME"'],
  ])('%s', (line) => {
    const task = imported(`${line}\n`);
    expect(sh(task.command)).toBe(asCron(line));
  });

  // Runs the command under the bash it names: skipped only on a machine without /bin/bash (Debian has it).
  test.runIf(existsSync('/bin/bash'))('SHELL=/bin/bash: the command runs under bash, input and all', () => {
    const line = '0 1 * * * read -r x; echo "${BASH_VERSION:+bash} ${x^^}"%abc';
    const task = imported(`SHELL=/bin/bash\n${line}\n`);
    expect(task.command).toMatch(/^printf '%s' abc \| \/bin\/bash -c /);
    const out = sh(task.command);
    expect(out).toBe(asCron(line, '/bin/bash'));
    expect(out).toBe('bash ABC\n');
  });
});

describe('--monitor', () => {
  test('a monitor workflow with the line schedule, no tasks, and the line that wraps the command', () => {
    const text = 'MAILTO=ops@example.com\n# nightly dump\n30 2 * * * pg_dump app > /tmp/app.sql%\n';
    const report = importCrontab(text, 't', { ...opts, monitor: true });
    const [file] = report.files;
    expect(file?.spec).toMatchObject({
      name: 'pg_dump',
      description: 'nightly dump',
      // a monitor runs nothing: AX's misfire and overlap, the only ones its file takes
      schedule: { cron: '30 2 * * *', timezone: 'UTC', misfire: 'run_once', overlap: 'skip' },
      monitor: { graceMs: MONITOR_GRACE_MS },
      alerts: { channels: ['mail-ops'] },
      tasks: [],
    });
    expect(report.jobs[0]?.wrappedLine).toBe("30 2 * * * ax wrap pg_dump -- /bin/sh -c 'pg_dump app > /tmp/app.sql'%");
    expect(report.notes.join('\n')).toContain('cron finds `ax` on its PATH');
  });

  test('the monitor file parses back to its spec', () => {
    const report = importCrontab('*/5 * * * * /bin/check\n', 't', { ...opts, monitor: true });
    const file = report.files[0];
    expect(parseWorkflowFile(file?.yaml ?? '', { defaultTimezone: 'UTC' }).spec).toEqual(file?.spec);
  });

  test.each([
    ['0 1 * * * cat%line one%line two\\%x'],
    ["0 1 * * * echo \"it's 100\\% done\" 'single'"],
    ['0 1 * * * date +\\%Y >/dev/null; echo ok'],
    ['0 1 * * * tr a-z A-Z%shout'],
  ])('the wrapped line runs the same command with the same input: %s', (line) => {
    const report = importCrontab(`${line}\n`, 't', { ...opts, monitor: true });
    const wrapped = report.jobs[0]?.wrappedLine ?? '';
    expect(wrapped.startsWith('0 1 * * * ax wrap ')).toBe(true);
    // `ax wrap NAME -- CMD…` runs CMD…: a shell function stands in for it to show what it is handed.
    const [job] = parseCrontab(wrapped, false);
    if (job?.kind !== 'job') throw new Error('no job');
    const { command, stdin } = splitCommand(job.command);
    expect(sh(`ax() { shift 3; "$@"; }; ${command}`, stdin ?? '')).toBe(asCron(line));
  });

  test('@reboot cannot be a monitor (no schedule to be late against): refused with what to do', () => {
    const report = importCrontab('@reboot /bin/start\n', 't', { ...opts, monitor: true });
    expect(report.files).toEqual([]);
    expect(report.skipped[0]?.reason).toContain('no schedule a monitor could be late against');
  });
});

describe('redirections and names', () => {
  test.each([
    ['/bin/x >> /var/log/x.log 2>&1', '/bin/x', ['/var/log/x.log']],
    ['/bin/x > /dev/null 2>&1', '/bin/x', ['/dev/null']],
    ['/bin/x 2>&1 >/tmp/o', '/bin/x', ['/tmp/o']],
    ['/bin/x &> /tmp/o', '/bin/x', ['/tmp/o']],
    ['/bin/x 2>/dev/null', '/bin/x', ['/dev/null']],
    ['echo "a > b"', 'echo "a > b"', []],
    ['/bin/x | tee /tmp/t', '/bin/x | tee /tmp/t', []],
  ])('%s', (command, rest, files) => {
    expect(splitRedirects(command)).toMatchObject({ command: rest, files });
  });

  test.each([
    ['cd / && run-parts --report /etc/cron.daily', 'run-parts-cron.daily'],
    ['test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.weekly; }', 'run-parts-cron.weekly'],
    [
      '[ -x /usr/lib/php/sessionclean ] && if [ ! -d /run/systemd/system ]; then /usr/lib/php/sessionclean; fi',
      'sessionclean',
    ],
    ['command -v debian-sa1 > /dev/null && debian-sa1 1 1', 'debian-sa1'],
    ['pg_dump mydb | gzip > /backup/db.gz', 'pg_dump'],
    ['nice -n 19 ionice -c3 /usr/local/bin/Big Job', 'big'],
    ['/usr/bin/python3 /opt/app/manage.py clearsessions', 'python3-manage.py'],
    ['SERVICE_MODE=1 /sbin/e2scrub_all -A -r', 'e2scrub_all'],
    ['$HOME/bin/daily.job >> $HOME/tmp/out 2>&1', 'daily.job'],
    ['timeout 1h flock -n /tmp/lock /usr/bin/rsync -a /src /dst', 'rsync'],
    ['true', 'cron-job'],
  ])('%s → %s', (command, name) => {
    expect(nameFromCommand(command)).toBe(name);
  });
});
