// `ax apply` of several files and directories (what an import writes): all or nothing, each
// problem named with its file; one file keeps its one-line output, several give a list with --json.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApplyOutcome, WorkflowListing } from '../../engine/api/engine-api.ts';
import { ax, axJson, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-apply-dir-');
// Each test starts several `ax` processes one after the other (about a second each on an idle
// machine, many more on a busy one): the default 60 s is not the point here.
const LONG = 240_000;
const opts = () => box.opts();

const wf = (name: string, command = `echo ${name}`) =>
  `workflow: ${name}\nschedule:\n  cron: "0 3 * * *"\n  timezone: UTC\ntasks:\n  main:\n    command: ${command}\n`;

/** writeFile into a directory made first */
const put = (dir: string, name: string, text: string): string => {
  fs.mkdirSync(dir, { recursive: true });
  return writeFile(dir, name, text);
};

const names = async (): Promise<string[]> =>
  (await axJson<WorkflowListing[]>(['ls'], opts())).map((w) => w.name).sort();

describe('ax apply FILE… and DIR', () => {
  it(
    'a directory: its workflow files in name order, not its subdirectories or other files; again: unchanged',
    async () => {
      const dir = path.join(box.root, 'good');
      put(dir, 'b-second.yaml', wf('second'));
      put(dir, 'a-first.yml', wf('first'));
      put(dir, 'c-third.json', JSON.stringify({ workflow: 'third', tasks: { main: { command: 'echo 3' } } }));
      put(dir, 'README.md', 'not a workflow');
      put(path.join(dir, 'nested'), 'deeper.yaml', wf('deeper'));
      const r = await ax(['apply', 'good'], opts());
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(
        [
          `applied first (version 1): ${path.join('good', 'a-first.yml')}`,
          `applied second (version 1): ${path.join('good', 'b-second.yaml')}`,
          `applied third (version 1): ${path.join('good', 'c-third.json')}`,
          '',
        ].join('\n'),
      );
      expect(await names()).toEqual(['first', 'second', 'third']);
      const again = await axJson<(ApplyOutcome & { file: string })[]>(['apply', 'good'], opts());
      expect(again.map((o) => [o.file, o.workflow, o.changed, o.version])).toEqual([
        [path.join('good', 'a-first.yml'), 'first', false, 1],
        [path.join('good', 'b-second.yaml'), 'second', false, 1],
        [path.join('good', 'c-third.json'), 'third', false, 1],
      ]);
    },
    LONG,
  );

  it(
    'one bad file among several: nothing is applied, and every problem names its file',
    async () => {
      const dir = path.join(box.root, 'mixed');
      put(dir, '1-ok.yaml', wf('mixed-ok'));
      put(dir, '2-bad.yaml', 'workflow: mixed-bad\ntasks:\n  main:\n    command: echo x\n    upstream: [ghost]\n');
      put(
        dir,
        '3-worse.yaml',
        'workflow: mixed-worse\nschedule:\n  cron: "61 * * * *"\ntasks:\n  a:\n    command: x\n',
      );
      writeFile(box.root, 'changed.yaml', wf('first', 'echo changed'));
      const r = await ax(['apply', 'changed.yaml', 'mixed'], opts());
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`${path.join('mixed', '2-bad.yaml')}: tasks.main.upstream`);
      expect(r.stderr).toContain(`${path.join('mixed', '3-worse.yaml')}: schedule.cron`);
      expect(r.stderr).not.toContain('1-ok.yaml');
      // neither the good new one nor the change to an existing one went in
      expect(await names()).toEqual(['first', 'second', 'third']);
      const exported = await axJson<{ tasks: { command: string }[] }>(['export', 'first'], opts());
      expect(exported.tasks[0]?.command).toBe('echo first');
    },
    LONG,
  );

  it(
    'one workflow in two files is refused naming both',
    async () => {
      writeFile(box.root, 'twice-a.yaml', wf('twice'));
      writeFile(box.root, 'twice-b.yaml', wf('twice', 'echo other'));
      const r = await ax(['apply', 'twice-a.yaml', 'twice-b.yaml'], opts());
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('twice-b.yaml: name: workflow "twice" is also in twice-a.yaml');
      expect(await names()).not.toContain('twice');
    },
    LONG,
  );

  it(
    'a cycle across two files of the batch is refused before anything is written, naming the file',
    async () => {
      writeFile(
        box.root,
        'cyc-a.yaml',
        'workflow: cyc-a\ntasks:\n  t:\n    command: echo a\n    upstream: [cyc-b.t]\n',
      );
      writeFile(
        box.root,
        'cyc-b.yaml',
        'workflow: cyc-b\ntasks:\n  t:\n    command: echo b\n    upstream: [cyc-a.t]\n',
      );
      const r = await ax(['apply', 'cyc-a.yaml', 'cyc-b.yaml'], opts());
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/cyc-[ab]\.yaml: tasks: cycle across workflows: cyc-/);
      expect(await names()).not.toContain('cyc-a');
    },
    LONG,
  );

  it(
    'two files referring to each other one way: no "not there yet" warning, both applied',
    async () => {
      writeFile(box.root, 'down.yaml', 'workflow: down\ntasks:\n  t:\n    command: echo d\n    upstream: [up.t]\n');
      writeFile(box.root, 'up.yaml', 'workflow: up\ntasks:\n  t:\n    command: echo u\n');
      const r = await ax(['apply', 'down.yaml', 'up.yaml'], opts());
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('warning');
      expect(await names()).toEqual(expect.arrayContaining(['down', 'up']));
    },
    LONG,
  );

  it(
    'an empty directory says what it looks for; one file keeps its single-line output',
    async () => {
      fs.mkdirSync(path.join(box.root, 'empty'));
      const empty = await ax(['apply', 'empty'], opts());
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain('empty: no workflow files in this directory');
      writeFile(box.root, 'single.yaml', wf('single'));
      expect(await ax(['apply', 'single.yaml'], opts())).toMatchObject({
        code: 0,
        stdout: 'applied single (version 1)\n',
      });
    },
    LONG,
  );
});
