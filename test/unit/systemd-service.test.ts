// importSystemdTimer on the service side: the command words as the shell will run them (run
// through sh here, as systemd passes them), several commands and their prefixes, Environment= and
// EnvironmentFile=, the user, the directory and the timeout, unit-file syntax, and what is refused.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { ImportOptions } from '../../engine/core/import/import-types.ts';
import { importSystemdTimer, type SystemdUnit } from '../../engine/core/import/systemd-import.ts';
import { OPTS, refused, timer, unit } from '../helpers/systemd-units.ts';

const service = (...lines: string[]) =>
  ['[Unit]', 'Description=Back up', '[Service]', 'Type=oneshot', ...lines].join('\n');
const task = (svc: string, o: Partial<SystemdUnit> = {}, opts: Partial<ImportOptions> = {}) => {
  const r = importSystemdTimer(unit(timer('OnCalendar=daily'), svc, o), { ...OPTS, ...opts });
  return { r, t: r.files[0]?.spec.tasks[0], job: r.jobs[0] };
};

describe('the service', () => {
  it('runs its command words through the shell exactly as systemd passes them: quotes, escapes, %%, $$, ${X} whole, $Y split', () => {
    const { t } = task(
      service(
        `ExecStart=/usr/bin/printf "[%%s]" "a b" 'c"d' x\\ty $$HOME \${X} pre\${X}post $Y ~ *`,
        'Environment="X=1  2" Y="3 4"',
      ),
    );
    expect(t?.command.startsWith('set -f; /usr/bin/printf')).toBe(true);
    const out = execFileSync('/bin/sh', ['-c', t?.command ?? ''], {
      env: { X: '1  2', Y: '3 4' },
      cwd: '/',
    }).toString();
    expect(out).toBe('[a b][c"d][x\ty][$HOME][1  2][pre1  2post][3][4][~][*]');
  });

  it('several ExecStart= of a oneshot run in order, each only after the one before succeeded; "-" ignores a failure', () => {
    const { t, job } = task(
      service(
        'ExecStartPre=-/bin/false',
        'ExecStart=/bin/echo one',
        'ExecStart=/bin/echo two',
        'ExecStartPost=/bin/echo three',
      ),
    );
    expect(t?.command).toBe('{ /bin/false || true; } && /bin/echo one && /bin/echo two && /bin/echo three');
    expect(execFileSync('/bin/sh', ['-c', t?.command ?? '']).toString()).toBe('one\ntwo\nthree\n');
    expect(job?.warnings).toContain('a "-" command\'s failure is ignored, as systemd ignores it');
    const stops = task(service('ExecStart=/bin/false', 'ExecStart=/bin/echo never'));
    expect(() => execFileSync('/bin/sh', ['-c', stops.t?.command ?? ''], { stdio: 'pipe' })).toThrow();
  });

  it('Environment= (quoted, several a line) then EnvironmentFile= (read through readFile, overriding it)', () => {
    const files: Record<string, string> = {
      '/etc/default/backup': '# settings\nTARGET=/mnt/b\nOPTS="--fast \\"x\\""\n; old\nB=\'single $x\'\n',
    };
    const { t, job } = task(
      service(
        'ExecStart=/usr/local/bin/backup',
        'Environment=A=1 "B=two words" TARGET=/tmp',
        'EnvironmentFile=/etc/default/backup',
        'EnvironmentFile=-/etc/default/missing',
      ),
      { readFile: (p) => files[p] },
    );
    expect(t?.env).toEqual({
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin',
      A: '1',
      B: 'single $x',
      TARGET: '/mnt/b',
      OPTS: '--fast "x"',
    });
    expect(job?.warnings.join('\n')).toContain(
      'EnvironmentFile=-/etc/default/missing: /etc/default/missing does not exist or cannot be read; systemd goes on without it',
    );
    expect(job?.warnings.join('\n')).toContain(
      'the values of /etc/default/backup as they are now are written into the workflow',
    );
    const missing = task(service('ExecStart=/x', 'EnvironmentFile=/etc/default/missing'));
    expect(refused(missing.r)[0]).toBe(
      'EnvironmentFile=/etc/default/missing does not exist or cannot be read (without "-" systemd does not start the service) (backup.service line 6: EnvironmentFile=/etc/default/missing)',
    );
  });

  it('WorkingDirectory= becomes cwd (~ the user’s home); User= gives HOME, USER, LOGNAME; TimeoutStartSec= the timeout', () => {
    const { t, job } = task(
      service('ExecStart=/x', 'User=alice', 'WorkingDirectory=~/src', 'TimeoutStartSec=1h 30min'),
      {},
      { taskUser: 'alice' },
    );
    expect(t?.cwd).toBe('/home/alice/src');
    expect(t?.timeoutMs).toBe(90 * 60_000);
    expect(t?.env).toMatchObject({ HOME: '/home/alice', USER: 'alice', LOGNAME: 'alice' });
    expect(job?.user).toBe('alice');
    expect(task(service('ExecStart=/x', 'TimeoutSec=90')).t?.timeoutMs).toBe(90_000);
    // a simple service's TimeoutStartSec= bounds its start only; RuntimeMaxSec= its run
    const simple = (line: string) => task(service('Type=simple', 'ExecStart=/x', line).replace('Type=oneshot\n', '')).t;
    expect(simple('TimeoutStartSec=5min')?.timeoutMs).toBeUndefined();
    expect(simple('RuntimeMaxSec=2h')?.timeoutMs).toBe(7_200_000);
    expect(refused(task(service('ExecStart=/x', 'WorkingDirectory=src')).r)[0]).toMatch(
      /^WorkingDirectory=src is not an absolute path/,
    );
    expect(
      refused(task(service('ExecStart=/x', 'User=nobody-here'), {}, { lookupUser: () => undefined }).r)[0],
    ).toMatch(/^there is no user nobody-here on this machine/);
  });

  it('a user unit runs as the person; a system unit without User= as root', () => {
    const mine = task(
      service('ExecStart=/x'),
      { timerPath: '/home/bob/.config/systemd/user/backup.timer' },
      { user: { name: 'bob', home: '/home/bob' }, taskUser: 'bob' },
    );
    expect(mine.job?.user).toBe('bob');
    expect(mine.t?.env.HOME).toBe('/home/bob');
    expect(refused(task(service('ExecStart=/x'), {}, { taskUser: 'bob' }).r)[0]).toMatch(
      /^it runs as root under systemd/,
    );
  });

  it.each([
    [['ExecStart=/x', 'ExecStop=/y'], /^ExecStop= runs after the command ends, even when it failed/],
    [['ExecStart=/x', 'ExecStopPost=/y'], /^ExecStopPost= runs after the command ends/],
    [['Type=forking', 'ExecStart=/x'], /^Type=forking: only simple, exec, oneshot, idle services/],
    [['Type=simple', 'ExecStart=/x', 'ExecStart=/y'], /^Type=simple takes one ExecStart=/],
    [['ExecStart=@/bin/sh mysh -c x'], /the "@" prefix passes its own argv\[0\]/],
    [['ExecStart=/bin/echo %h'], /the specifier "%h" is not expanded by the importer/],
    [['ExecStart=/bin/echo "open'], /the command line cannot be read: a " is not closed/],
    [['DynamicUser=yes', 'ExecStart=/x'], /^DynamicUser= runs the service as a user made for it/],
    [['Environment=NOEQUALS', 'ExecStart=/x'], /"NOEQUALS" is not an assignment/],
    [[], /has no ExecStart=: there is nothing to run/],
  ])('refuses %j, saying why', (lines, reason) => {
    expect(refused(task(service(...lines)).r)[0]).toMatch(reason);
  });

  it('an empty ExecStart= resets the list; %n, %N, %p, %% are expanded; : turns variables off', () => {
    const { t } = task(
      service('ExecStart=/bin/old', 'ExecStart=', 'ExecStart=/bin/echo %n %N %p 100%%', 'ExecStart=:/bin/echo $HOME'),
    );
    expect(t?.command).toBe("/bin/echo backup.service backup backup 100% && /bin/echo '$HOME'");
  });

  it('reads unit syntax: comments (# ;), a trailing backslash continuing the line (comments inside dropped), bad lines named', () => {
    const svc = [
      '[Unit]',
      'Description=Back up',
      '; a comment',
      '[Service]',
      'Type=oneshot',
      'ExecStart=/bin/echo one \\',
      '# dropped',
      '  two',
      'garbage line',
    ].join('\n');
    const { t, job } = task(svc);
    expect(t?.command).toBe('/bin/echo one two');
    expect(job?.warnings).toContain(
      'line 9 of the service is not a setting and is ignored, as systemd ignores it: garbage line',
    );
  });
});
