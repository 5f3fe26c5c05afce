// Workflow files through the real `ax`: validate/apply refuse bad input with a message naming
// the file, the field path and the fix (exit 2) and apply nothing; export → apply is a no-op;
// ls shows the schedule in words, the next fire and the last run; enable/disable/rm; unknown
// names exit 3.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowListing } from '../../engine/api/engine-api.ts';
import type { RunRecord } from '../../engine/api/types.ts';
import { ax, axJson, killAllAx, writeFile } from '../helpers/cli.ts';
import { tempDir } from '../helpers/solo-engine.ts';

let root: string;
let dataDir: string;

beforeAll(() => {
  root = tempDir('ax-cli-workflows-');
  dataDir = path.join(root, 'data');
});

afterEach(async () => {
  await killAllAx();
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

// Relative file names (cwd = root) so that messages are stable.
const opts = () => ({ dataDir, cwd: root });

/** Runs jobs with at most `limit` at a time: each `ax` start-up costs a core for a second. */
async function limited<T extends unknown[]>(jobs: [...{ [K in keyof T]: () => Promise<T[K]> }], limit = 3): Promise<T> {
  const list = jobs as (() => Promise<unknown>)[];
  const out: unknown[] = new Array(list.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < list.length; i = next++) out[i] = await (list[i] as () => Promise<unknown>)();
  };
  await Promise.all(Array.from({ length: Math.min(limit, list.length) }, lane));
  return out as T;
}

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

/** The next 02:00 UTC strictly after t. */
function nextTwoAm(t: number): number {
  const d = new Date(t);
  let next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 2);
  if (next <= t) next += 86_400_000;
  return next;
}

const utcText = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

describe('bad workflow files: exit 2, one message per problem with file, path and fix', () => {
  const cases: { name: string; text?: string; message: string }[] = [
    {
      name: 'unknown-key.yaml',
      text: 'workflow: w\ntasks:\n  a:\n    command: echo\n    retires: 2\n',
      message: `unknown-key.yaml: tasks.a.retires: unknown key "retires": did you mean 'retries'?`,
    },
    {
      name: 'bad-cron.yaml',
      text: 'workflow: w\nschedule:\n  cron: "0 25 * * *"\n  timezone: UTC\ntasks:\n  a:\n    command: echo\n',
      message: 'bad-cron.yaml: schedule.cron: hour field "25" is out of range: use 0-23',
    },
    {
      name: 'cycle.yaml',
      text: 'workflow: w\ntasks:\n  extract:\n    command: echo\n    upstream: [clean]\n  clean:\n    command: echo\n    upstream: [extract]\n',
      message: 'cycle.yaml: tasks: cycle: extract → clean → extract',
    },
    {
      name: 'unknown-upstream.yaml',
      text: 'workflow: w\ntasks:\n  extract:\n    command: echo\n  load:\n    command: echo\n    upstream: [extrct]\n',
      message: `unknown-upstream.yaml: tasks.load.upstream: unknown task "extrct": did you mean 'extract'?`,
    },
    {
      name: 'duplicate.yaml',
      text: 'workflow: w\ntasks:\n  a:\n    command: echo 1\n  a:\n    command: echo 2\n',
      message: 'duplicate.yaml: tasks.a: duplicate task "a": task names must be unique',
    },
    {
      name: 'empty-command.yaml',
      text: 'workflow: w\ntasks:\n  a:\n    command: "  "\n',
      message: 'empty-command.yaml: tasks.a.command: command is empty: write the shell command to run',
    },
    {
      name: 'bad-duration.yaml',
      text: 'workflow: w\ntasks:\n  a:\n    command: echo\n    timeout: 5 minutes\n',
      message: 'bad-duration.yaml: tasks.a.timeout: "5 minutes" is not a duration: write a number with a unit, e.g. "500ms", "90s", "30m", "1h30m", "2d"',
    },
    {
      name: 'bad-zone.yaml',
      text: 'workflow: w\nschedule:\n  cron: "0 2 * * *"\n  timezone: Mars/Olympus\ntasks:\n  a:\n    command: echo\n',
      message: 'bad-zone.yaml: schedule.timezone: unknown time zone "Mars/Olympus": use an IANA name such as "Europe/Berlin" or "UTC"',
    },
    { name: 'missing.yaml', message: 'missing.yaml: no such file' },
  ];

  beforeAll(async () => {
    for (const c of cases) if (c.text !== undefined) writeFile(root, c.name, c.text);
    const r = await ax(['apply', writeFile(root, 'etl.yaml', ETL)], opts());
    expect(r.stdout).toBe('applied etl (version 1)\n');
    expect(r.code).toBe(0);
  });

  it('ax validate names each problem precisely', async () => {
    const results = await limited(cases.map((c) => () => ax(['validate', c.name], opts())));
    results.forEach((r, i) => {
      const c = cases[i] as (typeof cases)[number];
      expect({ file: c.name, code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({ file: c.name, code: 2, stderr: `ax: ${c.message}\n`, stdout: '' });
    });
  });

  it('ax apply reports every problem of a file at once and changes nothing', async () => {
    // The workflow that exists, "changed" in seven wrong ways at once.
    writeFile(
      root,
      'etl-broken.yaml',
      `workflow: etl
schedule:
  cron: "0 2 * 13 *"
  timezone: Europe/Berlinn
tasks:
  extract:
    command: echo new
    timout: 5m
    upstream: [load]
  clean:
    command: ""
    retry_backoff: soon
    upstream: [extract]
  load:
    command: echo loaded
    upstream: [clean, extrakt]
`,
    );
    const [broken, missing, valid] = await limited([
      () => ax(['apply', 'etl-broken.yaml'], opts()),
      () => ax(['apply', 'missing.yaml'], opts()),
      () => ax(['validate', 'etl.yaml'], opts()),
    ]);
    expect(broken.code).toBe(2);
    expect(broken.stdout).toBe('');
    const lines = broken.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ax: etl-broken\.yaml: /);
    expect(lines.slice(1).every((l) => l.startsWith('etl-broken.yaml: '))).toBe(true);
    expect(broken.stderr).toContain('etl-broken.yaml: schedule.cron: month field "13" is out of range: use 1-12');
    expect(broken.stderr).toContain('etl-broken.yaml: schedule.timezone: unknown time zone "Europe/Berlinn"');
    expect(broken.stderr).toContain(`etl-broken.yaml: tasks.extract.timout: unknown key "timout": did you mean 'timeout'?`);
    expect(broken.stderr).toContain('etl-broken.yaml: tasks.clean.command: command is empty: write the shell command to run');
    expect(broken.stderr).toContain('etl-broken.yaml: tasks.clean.retry_backoff: "soon" is not a duration');
    expect(broken.stderr).toContain(`etl-broken.yaml: tasks.load.upstream: unknown task "extrakt": did you mean 'extract'?`);
    expect(broken.stderr).toContain('etl-broken.yaml: tasks: cycle: extract → clean → load → extract');
    expect(lines).toHaveLength(7);

    expect(missing).toMatchObject({ code: 2, stdout: '', stderr: 'ax: missing.yaml: no such file\n' });
    expect(valid).toMatchObject({ code: 0, stdout: 'etl.yaml: ok (workflow etl, 3 tasks)\n', stderr: '' });

    // Nothing was applied: still version 1, and it exports exactly as the good file said.
    const list = await axJson<WorkflowListing[]>(['ls'], opts());
    expect(list.map((w) => [w.name, w.version, w.taskCount])).toEqual([['etl', 1, 3]]);
    expect(list[0]?.schedule).toMatchObject({ cron: '0 2 * * *', timezone: 'UTC' });
  });
});

describe('apply, export, ls, runs, enable, disable, rm', () => {
  it('export then apply is a no-op; a real change makes a new version', async () => {
    // etl (version 1) exists from the block above
    const exported = path.join(root, 'exported.yaml');
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

  it('ls shows the schedule in words, the next fire time and the last run; --json on ls and runs', async () => {
    const run = await ax(['run', 'etl', '--wait'], opts());
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^run #1 SUCCESS/m);

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
    expect(etl).toMatchObject({ name: 'etl', enabled: true, version: 2, taskCount: 3, scheduleText: 'At 02:00 AM (UTC)', lastRun: { id: 1, state: 'SUCCESS' } });
    expect([nextTwoAm(before), nextTwoAm(after)]).toContain(etl.nextFireAt);

    expect(text.code).toBe(0);
    const [header, row, ...rest] = text.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^NAME +TASKS +ENABLED +SCHEDULE +NEXT FIRE +LAST RUN$/);
    expect(rest).toEqual([]);
    // times print in the command's local zone, UTC here (TZ=UTC)
    expect(row).toMatch(new RegExp(`^etl +3 +yes +At 02:00 AM \\(UTC\\) +${utcText(etl.nextFireAt as number)} +#1 SUCCESS$`));

    expect(runs.code).toBe(0);
    const records = JSON.parse(runs.stdout) as RunRecord[];
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ id: 1, workflowName: 'etl', state: 'SUCCESS', trigger: 'manual' });
  });

  it('disable, enable and rm change what ls shows', async () => {
    const off = await ax(['disable', 'etl'], opts());
    expect(off).toMatchObject({ code: 0, stdout: 'etl disabled\n' });
    const lsOff = await ax(['ls'], opts());
    // disabled: no next fire
    expect(lsOff.stdout.split('\n')[1]).toMatch(/^etl +3 +no +At 02:00 AM \(UTC\) +- +#1 SUCCESS$/);

    const on = await ax(['enable', 'etl'], opts());
    expect(on).toMatchObject({ code: 0, stdout: 'etl enabled\n' });
    const [listed] = await axJson<WorkflowListing[]>(['ls'], opts());
    expect(listed).toMatchObject({ name: 'etl', enabled: true });
    expect(listed?.nextFireAt).toBeGreaterThan(Date.now());

    const rm = await ax(['rm', 'etl'], opts());
    expect(rm).toMatchObject({ code: 0, stdout: 'etl removed\n' });
    const empty = await ax(['ls'], opts());
    expect(empty.stdout).toBe('no workflows yet: write a workflow file and "ax apply" it\n');
  });

  it('unknown names and ids exit 3 and say where to look', async () => {
    const jobs: [string[], RegExp][] = [
      [['enable', 'ghost'], /^ax: no workflow named "ghost": see "ax ls" for the workflows there are\n$/],
      [['rm', 'ghost'], /^ax: no workflow named "ghost"/],
      [['export', 'ghost'], /^ax: no workflow named "ghost"/],
      [['run', 'ghost', '--wait'], /^ax: no workflow named "ghost"/],
      [['runs', '99'], /^ax: no run #99\n$/],
      [['logs', '99'], /^ax: no task instance 99: instance ids are shown by "ax runs RUN_ID"\n$/],
    ];
    const results = await limited(jobs.map(([args]) => () => ax(args, opts())));
    results.forEach((r, i) => {
      const [args, re] = jobs[i] as [string[], RegExp];
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 3, stdout: '' });
      expect(r.stderr).toMatch(re);
    });
  });
});
