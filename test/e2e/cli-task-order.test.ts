// Tasks in topological order, ties by name: `ax export` lists them so whatever
// order the file had, the export round trip stays a no-op (export → apply changes nothing, and
// exports the same text again), and `ax runs RUN` lists a run's tasks in the same order.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ax, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-task-order-');

// as a newcomer adds them: the last step first, a root added at the end
const FILE = `workflow: etl
tasks:
  report:
    command: echo report
    upstream: [load]
  load:
    command: echo load
    upstream: [clean, fx]
  clean:
    command: echo clean
    upstream: [extract]
  extract:
    command: echo extract
  fx:
    command: echo fx
`;

const taskNames = (yaml: string) => [...yaml.matchAll(/^ {2}([a-z]+):$/gm)].map((m) => m[1]);

describe('the order of tasks', () => {
  it('ax export writes them in topological order; export → apply → export is a no-op', async () => {
    writeFile(box.root, 'etl.yaml', FILE);
    expect((await ax(['apply', 'etl.yaml'], box.opts())).code).toBe(0);
    const first = await ax(['export', 'etl'], box.opts());
    expect(first.code, first.stderr).toBe(0);
    expect(taskNames(first.stdout)).toEqual(['extract', 'fx', 'clean', 'load', 'report']);

    expect((await ax(['export', 'etl', '-o', 'exported.yaml'], box.opts())).code).toBe(0);
    expect(fs.readFileSync(path.join(box.root, 'exported.yaml'), 'utf8')).toBe(first.stdout);
    expect(await ax(['apply', 'exported.yaml'], box.opts())).toMatchObject({
      code: 0,
      stdout: 'etl unchanged (version 1)\n',
    });
    // the hand-written file, applied again, is the same workflow too
    expect(await ax(['apply', 'etl.yaml'], box.opts())).toMatchObject({
      code: 0,
      stdout: 'etl unchanged (version 1)\n',
    });
    expect((await ax(['export', 'etl'], box.opts())).stdout).toBe(first.stdout);
  });

  it("ax runs RUN lists the run's tasks in the same order", async () => {
    expect((await ax(['run', 'etl', '--wait'], box.opts())).code).toBe(0);
    const shown = await ax(['runs', '1'], box.opts());
    const order = shown.stdout
      .split('\n')
      .slice(1)
      .map((l) => /^\s*\d+\s+([a-z]+)\s/.exec(l)?.[1])
      .filter(Boolean);
    expect(order).toEqual(['extract', 'fx', 'clean', 'load', 'report']);
  });
});
