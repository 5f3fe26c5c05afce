// Real crontabs (test/fixtures/crontabs: Debian's /etc/crontab and cron.d files, the man page's
// example, edge cases): what each line becomes or why it is refused, its next fires against
// croner, and every written file read back by the workflow file parser as the same spec.
import { readFileSync } from 'node:fs';
import { Cron } from 'croner';
import { describe, expect, test } from 'vitest';
import { parseSchedule } from '../../engine/core/import/crontab-grammar.ts';
import { importCrontab } from '../../engine/core/import/crontab-import.ts';
import type { ImportReport } from '../../engine/core/import/import-types.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';

const NOW = Date.UTC(2027, 5, 10, 7, 13);
const ZONE = 'Europe/Berlin';
const USERS: Record<string, { name: string; home: string }> = { root: { name: 'root', home: '/root' } };

function load(name: string, system: boolean): ImportReport {
  const text = readFileSync(new URL(`../fixtures/crontabs/${name}`, import.meta.url), 'utf8');
  return importCrontab(text, name, {
    now: NOW,
    hostZone: ZONE,
    system,
    taskUser: 'root',
    user: { name: 'alice', home: '/home/alice' },
    lookupUser: (n) => USERS[n],
  });
}

/** [line, workflow, AX cron (undefined: @reboot)] of every imported job, and the skipped lines. */
const TABLE: [string, boolean, [number, string, string | undefined][], number[]][] = [
  [
    'etc-crontab',
    true,
    [
      [18, 'run-parts-cron.hourly', '17 * * * *'],
      [19, 'run-parts-cron.daily', '25 6 * * *'],
      [20, 'run-parts-cron.weekly', '47 6 * * 7'],
      [21, 'run-parts-cron.monthly', '52 6 1 * *'],
    ],
    [],
  ],
  [
    'e2scrub_all',
    true,
    [
      [1, 'e2scrub_all_cron', '30 3 * * 0'],
      [2, 'e2scrub_all', '10 3 * * *'],
    ],
    [],
  ],
  ['anacron', true, [[6, 'invoke-rc.d', '30 7-23 * * *']], []],
  ['certbot', true, [[17, 'certbot', '0 */12 * * *']], []],
  ['mdadm', true, [[12, 'checkarray', '57 0 * * 0']], []],
  ['ntpsec', true, [[1, 'rotate-stats', '25 6 * * *']], []],
  ['php', true, [[14, 'sessionclean', '09,39 * * * *']], []],
  [
    'sysstat',
    true,
    [
      [6, 'debian-sa1-df2469', '5-55/10 * * * *'],
      [9, 'debian-sa1-7d9040', '59 23 * * *'],
    ],
    [],
  ],
  [
    'man5-example',
    false,
    [
      [7, 'daily.job', '5 0 * * *'],
      [9, 'monthly', '15 14 1 * *'],
      [11, 'mail', '0 22 * * 1-5'],
      [12, 'echo-dd8d9a', '23 0-23/2 * * *'],
      [13, 'echo-6847e0', '5 4 * * sun'],
      [15, 'echo-cfa24a', '33 22 * * *'],
    ],
    [],
  ],
  [
    'edge-cases',
    false,
    [
      [9, 'tabs-job', '0 3 * * *'],
      [11, 'names-job', '0 9 * JAN-Mar Mon-FRI'],
      [13, 'sunday-job', '15 6 * * 7'],
      [15, 'either-job', '30 4 1,15 * 5'],
      [23, 'mail', '0 22 * * 1-5'],
      [24, 'date', '5 0 * * *'],
      [26, 'kolkata-job', '0 9 * * *'],
      [28, 'new-york-job', '30 1 * * *'],
      [30, 'quiet-job', '0 0 * * *'],
      [32, 'bash-job', '0 * * * *'],
      [33, 'at-boot', undefined],
    ],
    [17, 19, 21],
  ],
];

describe.each(TABLE)('%s', (name, system, jobs, skipped) => {
  const report = load(name, system);

  test('each line becomes its workflow with the AX cron that means the same, or is skipped', () => {
    expect(report.jobs.map((j) => [j.line, j.workflow, j.cron])).toEqual(jobs);
    expect(report.skipped.map((s) => s.line)).toEqual(skipped);
    for (const s of report.skipped) expect(s.reason.length).toBeGreaterThan(40);
  });

  test("cron's next fires are croner's, and AX's are the same", () => {
    for (const job of report.jobs) {
      if (job.cron === undefined) continue;
      const parsed = importLineSets(report, job.line);
      const c = new Cron(job.cron, {
        timezone: job.timezone,
        domAndDow: parsed.domStar || parsed.dowStar,
        fixedTimeRule: 'no-wildcard',
        mode: '5-part',
      });
      expect(job.sourceFires).toHaveLength(5);
      expect(job.sourceFires).toEqual(c.nextRuns(5, new Date(NOW)).map((d) => d.getTime()));
      expect(job.axFires).toEqual(job.sourceFires);
    }
  });

  test('every file parses back to its spec', () => {
    for (const file of report.files.filter((f) => !f.spec.onEngineStart)) {
      const back = parseWorkflowFile(file.yaml, { defaultTimezone: 'UTC' }).spec;
      expect(back).toEqual(file.spec);
      expect(file.fileName).toBe(`${file.workflow}.yaml`);
    }
  });
});

/** The star flags of a job's source fields (the fixture line read again). */
function importLineSets(report: ImportReport, line: number) {
  const job = report.jobs.find((j) => j.line === line);
  const fields = (job?.text ?? '').trim().split(/\s+/).slice(0, 5);
  const nick: Record<string, string> = { '@daily': '0 0 * * *', '@hourly': '0 * * * *' };
  const s = parseSchedule(nick[fields[0] ?? ''] ? (nick[fields[0] as string] as string).split(' ') : fields);
  if (typeof s === 'string') throw new Error(s);
  return s;
}

test('the edge cases: zones from CRON_TZ in effect at each line, MAILTO="" silences, SHELL is honoured', () => {
  const report = load('edge-cases', false);
  const byLine = new Map(report.jobs.map((j) => [j.line, j]));
  expect(byLine.get(24)?.timezone).toBe(ZONE);
  expect(byLine.get(26)?.timezone).toBe('Asia/Kolkata');
  expect(byLine.get(28)?.timezone).toBe('America/New_York');
  const spec = (line: number) => report.files.find((f) => f.lines.includes(line))?.spec;
  expect(spec(24)?.alerts).toBeUndefined();
  expect(spec(30)?.alerts).toBeUndefined();
  expect(spec(32)?.tasks[0]?.command).toBe("exec /bin/bash -c '/usr/bin/bash-job --flag'");
  expect(spec(32)?.tasks[0]?.env.SHELL).toBe('/bin/bash');
  expect(spec(9)?.tasks[0]?.env).toMatchObject({
    GREETING: 'hello world',
    QUOTED: '  two spaces kept  ',
    SINGLE: 'it is = "fine"',
    URL: 'https://example.com/a?b=c&d=e',
    EMPTY: '',
  });
  expect(spec(24)?.tasks[0]?.command).toBe('date +%Y-%m-%d >> /tmp/dated.log 2>&1');
  expect(report.skipped.find((s) => s.line === 21)?.reason).toContain('February 30');
  expect(report.skipped.find((s) => s.line === 19)?.reason).toContain('a step must be 1 or more');
  expect(report.skipped.find((s) => s.line === 17)?.reason).toContain('both day-of-month "*/2" and day-of-week "1"');
});

// Waits for `on: engine_start` in the workflow file's reader and writer (branch wt-systemd).
test("the @reboot line's file parses back to its spec, on: engine_start included", () => {
  const file = load('edge-cases', false).files.find((f) => f.lines.includes(33));
  expect(file?.spec).toMatchObject({ onEngineStart: true });
  expect(file?.spec.schedule).toBeUndefined();
  expect(parseWorkflowFile(file?.yaml ?? '', { defaultTimezone: 'UTC' }).spec).toEqual(file?.spec);
});

test('re-importing a fixture gives the same names and files', () => {
  const a = load('sysstat', true);
  const b = load('sysstat', true);
  expect(b.files.map((f) => f.yaml)).toEqual(a.files.map((f) => f.yaml));
});
