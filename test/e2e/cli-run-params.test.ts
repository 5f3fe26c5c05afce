// `ax run W -p NAME=VALUE` (repeatable), `--logical-time` and `--task T --downstream` with the real
// `ax` on a temp data dir: params checked before a run is created (a bad one names the param and
// exits 2, leaving no run), shown by `ax runs RUN` (and --json), seen by the task as AX_PARAM_*;
// `ax trigger` gives an event's JSON fields to the params; `ax export` writes params and
// workflow-level settings back as written.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import type { RunRecord } from '../../engine/api/types.ts';
import { ax, axJson, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-run-params-');

// the tests share the file's data dir: each applies its own copy, under its own name and event
const orders = (name: string) =>
  writeFile(box.root, `${name}.yaml`, ORDERS.replace('NAME', name).replace('NAME', name));

const ORDERS = `workflow: NAME
on_event: NAME-ready
params:
  region: { type: enum, choices: [eu, us], default: eu, description: Sales region }
  day: { type: date, required: true }
  limit: { type: number, min: 1, max: 100, default: 10 }
env: { TZ: UTC }
timeout: 1h
tasks:
  show:
    command: env | grep -E '^(AX_PARAM_|TZ=)' | sort
  after:
    command: echo after
    upstream: [show]
    timeout: 5m
`;

// POSIX shell commands (sh -c, exit, echo): skipped on Windows only, where AX runs no tasks.
describe.skipIf(process.platform === 'win32')('ax run -p', () => {
  it('runs with params: in the task env, on the run, in ax runs RUN', async () => {
    const file = orders('o1');
    const r = await ax(['run', file, '-p', 'region=us', '-p', 'day=2026-11-30', '--wait'], box.opts());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [run] = await axJson<RunRecord[]>(['runs', 'o1'], box.opts());
    const detail = await axJson<RunDetail>(['runs', String(run?.id)], box.opts());
    expect(detail.run.params).toEqual({ region: 'us', day: '2026-11-30', limit: 10 });
    const show = detail.instances.find((i) => i.taskName === 'show');
    const log = await ax(['logs', String(show?.id)], box.opts());
    expect(log.stdout.split('\n').filter((l) => /^(AX_PARAM_|TZ=)/.test(l))).toEqual([
      'AX_PARAM_DAY=2026-11-30',
      'AX_PARAM_LIMIT=10',
      'AX_PARAM_REGION=us',
      'TZ=UTC',
    ]);
    const text = await ax(['runs', String(run?.id)], box.opts());
    expect(text.stdout).toContain('params: region=us day=2026-11-30 limit=10');
  });

  it('refuses bad params before creating a run, naming each param, exit 2', async () => {
    const file = orders('o2');
    const bad = await ax(['run', file, '-p', 'region=apac', '-p', 'limit=0', '-p', 'x=1'], box.opts());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('params.region: "apac" is not one of eu, us');
    expect(bad.stderr).toContain('params.day: required: give -p day=YYYY-MM-DD');
    expect(bad.stderr).toContain('params.limit: 0 is below the minimum 1');
    expect(bad.stderr).toContain('no param "x": this workflow takes region, day, limit');
    const malformed = await ax(['run', 'o2', '-p', 'region'], box.opts());
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('-p region: write NAME=VALUE');
    const time = await ax(['run', 'o2', '-p', 'day=2026-11-30', '--logical-time', 'yesterday'], box.opts());
    expect(time.code).toBe(2);
    expect(time.stderr).toContain('--logical-time must be an ISO 8601 time');
    const down = await ax(['run', 'o2', '--downstream'], box.opts());
    expect(down.code).toBe(2);
    expect(down.stderr).toContain('--downstream runs a task and its downstream: name the task with --task TASK');
    expect(await axJson<RunRecord[]>(['runs', 'o2'], box.opts())).toEqual([]);
  });

  it('--task T --downstream at a --logical-time', async () => {
    const file = orders('o3');
    const r = await ax(
      [
        'run',
        file,
        '-p',
        'day=2026-11-30',
        '--task',
        'show',
        '--downstream',
        '--logical-time',
        '2026-11-30T02:00:00Z',
        '--wait',
      ],
      box.opts(),
    );
    expect(r.code).toBe(0);
    const [run] = await axJson<RunRecord[]>(['runs', 'o3'], box.opts());
    const detail = await axJson<RunDetail>(['runs', String(run?.id)], box.opts());
    expect(detail.run).toMatchObject({ onlyTask: 'show', withDownstream: true });
    expect(new Date(detail.run.logicalTime).toISOString()).toBe('2026-11-30T02:00:00.000Z');
    expect(detail.instances.map((i) => `${i.taskName}:${i.state}`)).toEqual(['show:SUCCESS', 'after:SUCCESS']);
  });

  it('ax trigger: the JSON payload gives the declared params; a bad one is refused naming it', async () => {
    expect((await ax(['apply', orders('o4')], box.opts())).code).toBe(0);
    const bad = await ax(['trigger', 'o4-ready', '--payload', '{"day":"30.11.2026"}'], box.opts());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('params.day: "30.11.2026" is not a date as YYYY-MM-DD');
    const good = await ax(
      ['trigger', 'o4-ready', '--payload', '{"day":"2026-12-01","limit":5,"file":"x.csv"}', '--wait'],
      box.opts(),
    );
    expect(good.code).toBe(0);
    const [run] = await axJson<RunRecord[]>(['runs', 'o4'], box.opts());
    expect(run?.params).toEqual({ region: 'eu', day: '2026-12-01', limit: 5 });
  });

  it('ax export writes params and workflow-level settings where they were written; apply of it changes nothing', async () => {
    expect((await ax(['apply', orders('o5')], box.opts())).code).toBe(0);
    const exported = path.join(box.root, 'exported.yaml');
    expect((await ax(['export', 'o5', '-o', exported], box.opts())).code).toBe(0);
    const again = await ax(['apply', exported], box.opts());
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/unchanged/);
    const text = (await ax(['export', 'o5'], box.opts())).stdout;
    expect(text).toContain('params:\n  region:\n    type: enum\n    choices: [eu, us]\n    default: eu\n');
    expect(text).toContain('env:\n  TZ: UTC\ntimeout: 1h\ntasks:\n');
    expect(text).toContain('  after:\n    command: echo after\n    timeout: 5m\n');
    expect(text).not.toMatch(/show:\n[^\n]*\n\s+(env|timeout):/);
  });
});
