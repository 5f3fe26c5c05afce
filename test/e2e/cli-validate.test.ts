// Bad workflow files through the real `ax`: validate and apply refuse them with exit 2 and one
// message per problem naming the file, the field path and the fix; apply changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowListing } from '../../engine/api/engine-api.ts';
import { ax, axJson, cliSandbox, limited } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-validate-');

// Relative file names (cwd = root) so that messages are stable.
const opts = () => box.opts();

const ETL = `workflow: etl
schedule:
  cron: "0 2 * * *"
  timezone: UTC
tasks:
  extract:
    command: echo extracted
  clean:
    command: echo cleaned
    upstream: [extract]
  load:
    command: echo loaded
    upstream: [clean]
`;

describe('bad workflow files: exit 2, one message per problem with file, path and fix', () => {
  const cases: { name: string; text: string; message: string }[] = [
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
      message:
        'bad-duration.yaml: tasks.a.timeout: "5 minutes" is not a duration: write a number with a unit, e.g. "500ms", "90s", "30m", "1h30m", "2d"',
    },
    {
      name: 'bad-zone.yaml',
      text: 'workflow: w\nschedule:\n  cron: "0 2 * * *"\n  timezone: Mars/Olympus\ntasks:\n  a:\n    command: echo\n',
      message:
        'bad-zone.yaml: schedule.timezone: unknown time zone "Mars/Olympus": use an IANA name such as "Europe/Berlin" or "UTC"',
    },
  ];

  beforeAll(async () => {
    for (const c of cases) writeFile(box.root, c.name, c.text);
    const r = await ax(['apply', writeFile(box.root, 'etl.yaml', ETL)], opts());
    expect(r.stdout).toBe('applied etl (version 1)\n');
    expect(r.code).toBe(0);
  });

  it('ax validate names each problem precisely', async () => {
    const results = await limited(cases.map((c) => () => ax(['validate', c.name], opts())));
    results.forEach((r, i) => {
      const c = cases[i] as (typeof cases)[number];
      expect({ file: c.name, code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({
        file: c.name,
        code: 2,
        stderr: `ax: ${c.message}\n`,
        stdout: '',
      });
    });
  });

  it('ax apply reports every problem of a file at once, and a missing file; it changes nothing', async () => {
    // The workflow that exists, "changed" in eight wrong ways at once.
    writeFile(
      box.root,
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
  clean:
    command: echo again
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
    expect(broken.stderr).toContain(
      `etl-broken.yaml: tasks.extract.timout: unknown key "timout": did you mean 'timeout'?`,
    );
    expect(broken.stderr).toContain(
      'etl-broken.yaml: tasks.clean.command: command is empty: write the shell command to run',
    );
    expect(broken.stderr).toContain('etl-broken.yaml: tasks.clean.retry_backoff: "soon" is not a duration');
    expect(broken.stderr).toContain(
      `etl-broken.yaml: tasks.load.upstream: unknown task "extrakt": did you mean 'extract'?`,
    );
    expect(broken.stderr).toContain('etl-broken.yaml: tasks: cycle: extract → clean → load → extract');
    expect(broken.stderr).toContain('etl-broken.yaml: tasks.clean: duplicate task "clean": task names must be unique');
    expect(lines).toHaveLength(8);

    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toMatch(/^ax: missing\.yaml: no such file: check the path/);
    expect(valid).toMatchObject({ code: 0, stdout: 'etl.yaml: ok (workflow etl, 3 tasks)\n', stderr: '' });

    // Nothing was applied: still version 1 with the good file's schedule and no other workflow.
    const list = await axJson<WorkflowListing[]>(['ls'], opts());
    expect(list.map((w) => [w.name, w.version, w.taskCount])).toEqual([['etl', 1, 3]]);
    expect(list[0]?.schedule).toMatchObject({ cron: '0 2 * * *', timezone: 'UTC' });
  });
});
