// importSystemdTimer on real timer/service pairs that Debian packages ship (test/fixtures/systemd)
// and on the timer's edge cases: the cron, zone and misfire each becomes, what is refused and why,
// what is named in the warnings; every file written parses back as a workflow file, and the next
// fires under systemd's rules and under the AX cron are the same. The service: systemd-service.test.ts.
import { describe, expect, it } from 'vitest';
import { importSystemdTimer } from '../../engine/core/import/systemd-import.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { fixture, one, OPTS, refused, SERVICE, timer, unit } from '../helpers/systemd-units.ts';

describe('Debian packages’ timers', () => {
  it.each([
    // unit, cron, misfire, command, user
    ['logrotate', '0 0 * * *', 'run_once', '/usr/sbin/logrotate /etc/logrotate.conf', 'root'],
    ['dpkg-db-backup', '0 0 * * *', 'skip', '/usr/libexec/dpkg/dpkg-db-backup', 'root'],
    [
      'fstrim',
      '0 0 * * 1',
      'run_once',
      '/sbin/fstrim --listed-in /etc/fstab:/proc/self/mountinfo --verbose --quiet-unsupported',
      'root',
    ],
    [
      'apt-daily',
      '0 6,18 * * *',
      'run_once',
      '{ /usr/lib/apt/apt-helper wait-online || true; } && /usr/lib/apt/apt.systemd.daily update',
      'root',
    ],
    [
      'apt-daily-upgrade',
      '0 6 * * *',
      'run_once',
      '{ /usr/lib/apt/apt-helper wait-online || true; } && /usr/lib/apt/apt.systemd.daily install',
      'root',
    ],
    ['e2scrub_all', '10 3 * * 0', 'run_once', '/sbin/e2scrub_all', 'root'],
    [
      'man-db',
      '0 0 * * *',
      'run_once',
      "/usr/bin/install -d -o man -g man -m 0755 /var/cache/man && /usr/bin/find /var/cache/man -type f -name '*.gz' -atime +6 -delete && /usr/bin/mandb --quiet",
      'man',
    ],
  ])('%s → %s, misfire %s', (name, cron, misfire, command, user) => {
    const r = importSystemdTimer(fixture(name), OPTS);
    expect(r.skipped).toEqual([]);
    expect(r.jobs).toHaveLength(1);
    const [job] = r.jobs;
    const [file] = r.files;
    expect(job?.cron).toBe(cron);
    expect(job?.timezone).toBe('Europe/Berlin');
    expect(job?.user).toBe(user);
    expect(job?.workflow).toBe(name);
    expect(job?.sourceFires).toHaveLength(5);
    expect(job?.axFires).toEqual(job?.sourceFires);
    expect(file?.fileName).toBe(`${name}.yaml`);
    const { spec } = parseWorkflowFile(file?.yaml ?? '', { defaultTimezone: 'UTC' });
    expect(spec).toEqual(file?.spec);
    expect(spec.schedule).toEqual({ cron, timezone: 'Europe/Berlin', misfire, overlap: 'skip' });
    expect(spec.tasks[0]?.command).toBe(command);
    expect(spec.tasks[0]?.env.PATH).toBe('/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin');
    expect(spec.description).toBeTruthy();
    expect(r.notes).toContain(`${name}.timer starts ${name}.service: that service's command is the task`);
  });

  it('names what AX does not apply: the random delay, the accuracy, hardening and conditions', () => {
    const [job] = importSystemdTimer(fixture('man-db'), OPTS).jobs;
    const w = job?.warnings.join('\n') ?? '';
    expect(w).toContain('RandomizedDelaySec=12h: systemd starts it at a random moment up to 12h after the time');
    expect(w).toContain('AccuracySec=1min (the default)');
    expect(w).toContain(
      'a "+" or "!" command runs as root under systemd; AX runs it as the task\'s user, with the others',
    );
    expect(w).toMatch(
      /not carried over from the service \(AX does not apply them\): .*\[Unit\] ConditionACPower=true.*\[Service\] ProtectSystem=full/,
    );
    const fstrim = importSystemdTimer(fixture('fstrim'), OPTS).jobs[0]?.warnings.join('\n');
    expect(fstrim).toContain('up to 6000 seconds after the time');
    expect(fstrim).toContain('AccuracySec=1h');
  });

  it('man-db runs as man: not imported where AX’s tasks run as someone else, saying so', () => {
    const r = importSystemdTimer(fixture('man-db'), { ...OPTS, taskUser: 'alice' });
    expect(r.jobs).toEqual([]);
    expect(r.files).toEqual([]);
    expect(r.skipped).toEqual([
      {
        line: 6,
        text: 'OnCalendar=daily',
        reason:
          "it runs as man under systemd, and AX's tasks here run as alice: import it where tasks run as man (man-db.service line 14: User=man)",
      },
    ]);
    // as man, its "+" command still runs as root
    expect(importSystemdTimer(fixture('man-db'), { ...OPTS, taskUser: 'man' }).skipped[0]?.reason).toMatch(
      /^it runs as root under systemd \(a "\+" or "!" command\)/,
    );
  });
});

describe('the timer', () => {
  it('a zone after the time becomes the schedule’s zone; seconds give a 6-field cron', () => {
    const { job, spec } = one(
      importSystemdTimer(unit(timer('OnCalendar=Mon..Fri 09:00:30 America/New_York'), SERVICE), OPTS),
    );
    expect(spec.schedule).toMatchObject({ cron: '30 0 9 * * 1-5', timezone: 'America/New_York' });
    expect(job?.sourceFires[0]).toBe(Date.parse('2026-05-04T13:00:30Z'));
    expect(job?.axFires).toEqual(job?.sourceFires);
    expect(spec.description).toBe('Nightly backup');
  });

  it('several OnCalendar= lines give one workflow each, NAME and NAME-2, and say why', () => {
    const r = importSystemdTimer(
      unit(timer('OnCalendar=*-*-* 02:00', 'OnCalendar=Sat 12:00', 'Persistent=true'), SERVICE),
      OPTS,
    );
    expect(r.skipped).toEqual([]);
    expect(r.jobs.map((j) => [j.workflow, j.cron, j.line, j.text])).toEqual([
      ['backup', '0 2 * * *', 4, 'OnCalendar=*-*-* 02:00'],
      ['backup-2', '0 12 * * 6', 5, 'OnCalendar=Sat 12:00'],
    ]);
    expect(r.files.map((f) => f.fileName)).toEqual(['backup.yaml', 'backup-2.yaml']);
    expect(r.notes.join('\n')).toContain('2 OnCalendar= lines: one workflow each');
  });

  it('an empty OnCalendar= drops the lines before it', () => {
    const r = importSystemdTimer(unit(timer('OnCalendar=hourly', 'OnCalendar=', 'OnCalendar=weekly'), SERVICE), OPTS);
    expect(r.jobs.map((j) => j.cron)).toEqual(['0 0 * * 1']);
  });

  it('the names the person chose, by line, win', () => {
    const r = importSystemdTimer(unit(timer('OnCalendar=daily'), SERVICE), { ...OPTS, names: { 4: 'home-backup' } });
    expect(r.files[0]?.spec.name).toBe('home-backup');
  });

  it('--group names the workflow of a one-schedule unit (its task keeps the service’s name); several schedules cannot share one', () => {
    const single = importSystemdTimer(unit(timer('OnCalendar=daily'), SERVICE), { ...OPTS, group: 'nightly' });
    expect(single.files.map((f) => [f.spec.name, f.spec.tasks[0]?.name])).toEqual([['nightly', 'backup']]);
    const two = importSystemdTimer(unit(timer('OnCalendar=daily', 'OnCalendar=hourly'), SERVICE), {
      ...OPTS,
      group: 'nightly',
    });
    expect(two.files.map((f) => f.spec.name)).toEqual(['backup', 'backup-2']);
    expect(two.notes).toContain('not grouped into "nightly": each of the 2 schedules needs a workflow of its own');
  });

  it('says the task gets systemd’s environment, not the shell’s', () => {
    const r = importSystemdTimer(unit(timer('OnCalendar=daily'), SERVICE), OPTS);
    expect(r.notes).toContain(
      "the task gets systemd's environment, not your shell's: PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin, then Environment= and EnvironmentFile=",
    );
  });

  it('Persistent= decides the misfire policy; --ax-defaults gives run_once, and the notes say which', () => {
    expect(
      one(importSystemdTimer(unit(timer('OnCalendar=daily', 'Persistent=yes'), SERVICE), OPTS)).spec.schedule?.misfire,
    ).toBe('run_once');
    const plain = importSystemdTimer(unit(timer('OnCalendar=daily'), SERVICE), OPTS);
    expect(one(plain).spec.schedule?.misfire).toBe('skip');
    expect(plain.notes.join('\n')).toContain('without Persistent=true systemd does not run a fire missed');
    const ax = importSystemdTimer(unit(timer('OnCalendar=daily'), SERVICE), { ...OPTS, axDefaults: true });
    expect(one(ax).spec.schedule?.misfire).toBe('run_once');
    expect(ax.notes.join('\n')).toContain('with --ax-defaults the workflow gets misfire "run_once"');
  });

  it.each([
    [
      ['OnBootSec=15min', 'OnUnitActiveSec=1d'],
      /^OnBootSec= counts from boot or from the service's last run \(a monotonic timer\)/,
    ],
    [['OnCalendar=daily', 'OnUnitActiveSec=1d'], /^OnUnitActiveSec= counts from boot/],
    [['OnCalendar=*-02~03 00:00'], /^OnCalendar=\*-02~03 00:00: "02~03" counts days from the end of the month/],
    [['OnCalendar=2027-*-* 00:00'], /names years \(2027\)/],
    [['OnCalendar=Mon *-*-1..7 08:00'], /both weekdays and days of the month/],
    [
      ['OnCalendar=daily', 'OnClockChange=true'],
      /^OnClockChange=true also starts the service when the clock or the zone changes/,
    ],
    [['Persistent=true'], /has no OnCalendar=: there is no schedule to import/],
  ])('refuses %j with the reason', (lines, reason) => {
    const reasons = refused(importSystemdTimer(unit(timer(...lines), SERVICE), OPTS));
    expect(reasons.length).toBeGreaterThan(0);
    for (const r of reasons) expect(r).toMatch(reason);
  });

  it('one schedule that cannot be expressed refuses the whole unit, on each of its lines', () => {
    const r = importSystemdTimer(unit(timer('OnCalendar=daily', 'OnCalendar=*-*~01 00:00'), SERVICE), OPTS);
    expect(r.files).toEqual([]);
    expect(r.skipped.map((s) => s.line)).toEqual([4, 5]);
    expect(r.notes).toEqual(["backup.timer starts backup.service: that service's command is the task"]);
  });

  it('a wall time a DST change skips: refused, since AX fires it an hour later and systemd not at all, naming the fire', () => {
    // Berlin, 2026-03-29: 02:00 → 03:00; systemd skips 02:30 that day
    const r = importSystemdTimer(unit(timer('OnCalendar=*-*-* 02:30'), SERVICE), {
      ...OPTS,
      now: Date.parse('2026-03-27T12:00:00Z'),
    });
    // AX's cron-walk moves the missing 02:30 to 03:30 (cron-walk.ts); systemd does not fire that day
    expect(refused(r)[0]).toBe(
      'OnCalendar=*-*-* 02:30 and the cron "30 2 * * *" (Europe/Berlin) do not fire alike: fire 2 is 2026-03-30T00:30:00.000Z under systemd, 2026-03-29T01:30:00.000Z under AX',
    );
    // away from the change the same line imports
    expect(one(importSystemdTimer(unit(timer('OnCalendar=*-*-* 02:30'), SERVICE), OPTS)).spec.schedule?.cron).toBe(
      '30 2 * * *',
    );
  });

  it('Unit= names the service: that one must be given, and the notes say it was used', () => {
    const t = timer('OnCalendar=daily', 'Unit=rsync-home.service');
    const wrong = refused(importSystemdTimer(unit(t, SERVICE), OPTS));
    expect(wrong[0]).toBe(
      'the timer starts rsync-home.service (its Unit=), but backup.service was given: pass rsync-home.service',
    );
    const right = importSystemdTimer(unit(t, SERVICE, { servicePath: '/etc/systemd/system/rsync-home.service' }), OPTS);
    expect(one(right).spec.tasks[0]?.name).toBe('rsync-home');
    expect(right.notes[0]).toBe(
      "backup.timer starts rsync-home.service (its Unit=): that service's command is the task",
    );
  });

  it('a template is refused; --monitor is refused, for now, saying what to do', () => {
    expect(
      refused(importSystemdTimer(unit(timer('OnCalendar=daily'), SERVICE, { timerPath: '/x/pg@.timer' }), OPTS))[0],
    ).toMatch(/is a template/);
    expect(
      refused(importSystemdTimer(unit(timer('OnCalendar=daily'), SERVICE), { ...OPTS, monitor: true }))[0],
    ).toMatch(/--monitor\) is not available yet/);
  });
});
