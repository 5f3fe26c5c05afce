// Workflows through the real `ax`: export → apply is a no-op; ls shows the schedule in words,
// the next fire and the last run; --json on ls and runs; enable/disable/rm; unknown names exit 3.
// (Bad workflow files: cli-validate.test.ts.)
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowListing } from '../../engine/api/engine-api.ts';
import type { RunRecord } from '../../engine/api/types.ts';
import { ax, cliSandbox, limited } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-workflows-');

// Relative file names (cwd = root) so that messages are stable.
const opts = () => box.opts();

const ETL = `workflow: etl
description: nightly extract, clean, load
schedule:
  cron: "0 2 * * *"
  timezone: UTC
tasks:
  extract:
    command: echo extracted
    env:
      SOURCE: crm
      VERSION: "1.10"
    timeout: 5m
  clean:
    command: echo cleaned
    retries: 2
    retry_backoff: 30s
    upstream: [extract]
  load:
    command: echo loaded
    upstream: [clean]
`;

beforeAll(async () => {
  const r = await ax(['apply', writeFile(box.root, 'etl.yaml', ETL)], opts());
  expect(r).toMatchObject({ code: 0, stdout: 'applied etl (version 1)\n', stderr: '' });
});

/** The next 02:00 UTC strictly after t. */
function nextTwoAm(t: number): number {
  const d = new Date(t);
  let next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 2);
  if (next <= t) next += 86_400_000;
  return next;
}

const utcText = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

describe('apply, export, ls, runs, enable, disable, rm', () => {
  it('export then apply is a no-op; a real change makes a new version', async () => {
    // etl (version 1) was applied in beforeAll
    const exported = path.join(box.root, 'exported.yaml');
    const exp = await ax(['export', 'etl', '-o', 'exported.yaml'], opts());
    expect(exp).toMatchObject({ code: 0, stdout: '' });
    const text = fs.readFileSync(exported, 'utf8');
    expect(text).toMatch(/^workflow: etl\n/);
    expect(text).toContain('VERSION: "1.10"');

    const again = await ax(['apply', 'exported.yaml'], opts());
    expect(again).toMatchObject({ code: 0, stdout: 'etl unchanged (version 1)\n', stderr: '' });

    fs.writeFileSync(exported, text.replace('echo loaded', 'echo loaded again'));
    const changed = await ax(['--json', 'apply', 'exported.yaml'], opts());
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout)).toEqual({ workflow: 'etl', version: 2, changed: true });
  });

  it('ls shows the schedule in words, the next fire and the last run; disable and enable; --json on ls and runs', async () => {
    const run = await ax(['run', 'etl', '--wait'], opts());
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^run #1 SUCCESS/m);

    const off = await ax(['disable', 'etl'], opts());
    expect(off).toMatchObject({ code: 0, stdout: 'etl disabled\n' });
    const lsOff = await ax(['ls'], opts());
    // disabled: no next fire
    expect(lsOff.stdout.split('\n')[1]).toMatch(/^etl +3 +no +At 02:00 \(UTC\) +- +#1 SUCCESS$/);

    const on = await ax(['enable', 'etl'], opts());
    expect(on).toMatchObject({ code: 0, stdout: 'etl enabled\n' });
    const before = Date.now();
    const [text, json, runs] = await limited([
      () => ax(['ls'], opts()),
      () => ax(['--json', 'ls'], opts()),
      () => ax(['--json', 'runs'], opts()),
    ]);
    const after = Date.now();

    expect(json.code).toBe(0);
    const list = JSON.parse(json.stdout) as WorkflowListing[];
    expect(list).toHaveLength(1);
    const etl = list[0] as WorkflowListing;
    expect(etl).toMatchObject({
      name: 'etl',
      enabled: true,
      version: 2,
      taskCount: 3,
      scheduleText: 'At 02:00 (UTC)',
      lastRun: { id: 1, state: 'SUCCESS' },
    });
    expect([nextTwoAm(before), nextTwoAm(after)]).toContain(etl.nextFireAt);

    expect(text.code).toBe(0);
    const [header, row, ...rest] = text.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^NAME +TASKS +ENABLED +SCHEDULE +NEXT FIRE +LAST RUN$/);
    expect(rest).toEqual([]);
    // the next fire prints in the schedule's zone, named beside it
    expect(row).toMatch(
      new RegExp(
        `^etl +3 +yes +At 02:00 \\(UTC\\) +${utcText(etl.nextFireAt as number).slice(0, 16)} UTC +#1 SUCCESS$`,
      ),
    );

    expect(runs.code).toBe(0);
    const records = JSON.parse(runs.stdout) as RunRecord[];
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ id: 1, workflowName: 'etl', state: 'SUCCESS', trigger: 'manual' });
  });

  it('rm removes the workflow', async () => {
    const rm = await ax(['rm', 'etl', '--yes'], opts());
    expect(rm).toMatchObject({ code: 0, stdout: 'etl removed\n' });
    const empty = await ax(['ls'], opts());
    expect(empty.stdout).toBe('no workflows yet: write a workflow file and "ax apply" it\n');
  });

  it('unknown names and ids exit 3 and say where to look', async () => {
    const jobs: [string[], RegExp][] = [
      [['enable', 'ghost'], /^ax: no workflow named "ghost": see "ax ls" for the workflows there are\n$/],
      [['rm', 'ghost'], /^ax: no workflow named "ghost"/],
      [['run', 'ghost', '--wait'], /^ax: no workflow named "ghost"/],
      [['runs', '99'], /^ax: no run #99\n$/],
      [['logs', '99'], /^ax: no task instance 99: for a run, write "ax logs RUN TASK"/],
    ];
    const results = await limited(
      jobs.map(
        ([args]) =>
          () =>
            ax(args, opts()),
      ),
    );
    results.forEach((r, i) => {
      const [args, re] = jobs[i] as [string[], RegExp];
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 3, stdout: '' });
      expect(r.stderr).toMatch(re);
    });
  });
});

describe('a schedule whose file has no timezone', () => {
  it("runs in the applying machine's zone, written into the stored workflow; applied again from another zone, it stays put", async () => {
    const dir = path.join(box.root, 'tz-data');
    const o = (tz: string) => ({ dataDir: dir, cwd: box.root, env: { TZ: tz } });
    writeFile(box.root, 'notz.yaml', 'workflow: notz\nschedule: "0 2 * * *"\ntasks:\n  a:\n    command: "true"\n');
    const first = await ax(['apply', './notz.yaml'], o('Asia/Tokyo'));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe(
      'note: ./notz.yaml: schedule.timezone is not in the file: using this machine\'s Asia/Tokyo, stored with the workflow (see "ax export")\n',
    );
    expect((await ax(['export', 'notz'], o('UTC'))).stdout).toContain('  timezone: Asia/Tokyo\n');

    // The same file from a machine in New York (a teammate, or this one after a move): nothing moves.
    const again = await ax(['apply', './notz.yaml'], o('America/New_York'));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('notz unchanged (version 1)\n');
    expect(again.stderr).toBe(
      'note: ./notz.yaml: schedule.timezone is not in the file: keeping the stored Asia/Tokyo (this machine is in America/New_York); write timezone into the file to change it\n',
    );
    const listed = JSON.parse((await ax(['--json', 'ls'], o('UTC'))).stdout) as WorkflowListing[];
    expect(listed.find((w) => w.name === 'notz')?.schedule?.timezone).toBe('Asia/Tokyo');
  });
});
