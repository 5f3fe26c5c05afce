// Hostile and careless input through the real `ax`: what validate can tell from this
// machine (labels no worker offers, a cwd that is not there), what it must refuse (NUL, huge or
// non-UTF-8 files), relative cwds, a run no worker can take, and numeric flags out of range.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunDetail, WorkflowListing } from '../../engine/api/engine-api.ts';
import type { RunRecord } from '../../engine/api/types.ts';
import { ax, axJson, cliSandbox, limited } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { startServe } from '../helpers/serve.ts';

const box = cliSandbox('ax-cli-hostile-');

/** A fresh data dir per test; relative file names (cwd = the sandbox's root) keep messages stable. */
let n = 0;
const fresh = () => ({ dataDir: path.join(box.root, `data-${++n}`), cwd: box.root });

const GPU = 'workflow: gpu\non_event: gpu-ready\ntasks:\n  train:\n    command: echo trained\n    labels: [gpu]\n';
const GPU_WARNING =
  'warning: gpu.yaml: tasks.train.labels: no worker offers labels [gpu]: the solo worker offers none, so the task would wait forever; remove the labels, or run the workflow in team mode on a worker started with --labels gpu\n';

describe('labels that no worker offers (solo)', () => {
  it('validate warns, apply refuses without --force and applies with it', async () => {
    const o = fresh();
    writeFile(box.root, 'gpu.yaml', GPU);
    const validate = await ax(['validate', 'gpu.yaml'], o);
    expect(validate).toMatchObject({ code: 0, stdout: 'gpu.yaml: ok (workflow gpu, 1 task)\n', stderr: GPU_WARNING });

    const refused = await ax(['apply', 'gpu.yaml'], o);
    expect(refused).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `${GPU_WARNING}ax: gpu.yaml: not applied because of the warning above: fix the file, or apply it anyway with --force\n`,
    });
    expect(await axJson<WorkflowListing[]>(['ls'], o)).toEqual([]);

    const forced = await ax(['apply', '--force', 'gpu.yaml'], o);
    expect(forced).toMatchObject({ code: 0, stdout: 'applied gpu (version 1)\n', stderr: GPU_WARNING });
    // `ax run FILE` stores the file too: the same rule
    const run = await ax(['run', 'gpu.yaml', '--wait'], o);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('ax: gpu.yaml: not applied because of the warning above');
  });

  it('run --wait and trigger --wait with no server say why and exit 1 within seconds, the run cancelled instead of hanging', async () => {
    const o = fresh();
    writeFile(box.root, 'gpu.yaml', GPU);
    expect((await ax(['apply', '--force', 'gpu.yaml'], o)).code).toBe(0);
    // a hang fails the ax call at its 30 s deadline; how soon it gives up is no test's business
    const r = await ax(['run', 'gpu', '--wait'], { ...o, timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('run #1 of gpu\n');
    expect(r.stderr).toBe(
      'ax: task "train" needs labels [gpu]; no online worker offers them (workers: local [no labels]) — run #1 cancelled, as nothing here can run it\n',
    );
    // ax trigger --wait (no server: its runs are this process's) does the same
    const t = await ax(['trigger', 'gpu-ready', '--wait'], { ...o, timeoutMs: 30_000 });
    expect({ code: t.code, stdout: t.stdout, stderr: t.stderr }).toEqual({
      code: 1,
      stdout: 'run #2 of gpu\n',
      stderr:
        'ax: task "train" needs labels [gpu]; no online worker offers them (workers: local [no labels]) — run #2 cancelled, as nothing here can run it\n',
    });
    const runs = await axJson<RunRecord[]>(['runs'], o);
    expect(runs.map((r) => [r.id, r.state])).toEqual([
      [2, 'CANCELLED'],
      [1, 'CANCELLED'],
    ]);
  });

  it('run --wait through a server stops waiting and leaves the run queued', async () => {
    const o = fresh();
    writeFile(box.root, 'gpu.yaml', GPU);
    const serve = await startServe(o);
    expect((await ax(['apply', '--force', 'gpu.yaml'], o)).code).toBe(0);
    const r = await ax(['run', 'gpu', '--wait'], { ...o, timeoutMs: 30_000 });
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 1,
      stderr:
        'ax: task "train" needs labels [gpu]; no online worker offers them (workers: local [no labels]) — run #1 stays queued until one joins; stopped waiting\n',
    });
    const detail = await axJson<RunDetail>(['runs', '1'], o);
    expect(detail.run.state).not.toBe('CANCELLED');
    expect(detail.instances.map((i) => i.state)).toEqual(['WAITING']);
    serve.kill('SIGTERM');
    await serve.result();
  });
});

describe('cwd', () => {
  it('one that does not exist here is a warning; apply refuses it without --force', async () => {
    const o = fresh();
    const missing = path.join(box.root, 'no-such-dir');
    writeFile(box.root, 'missing.yaml', `workflow: m\ntasks:\n  a:\n    command: pwd\n    cwd: ${missing}\n`);
    const warning = `warning: missing.yaml: tasks.a.cwd: "${missing}" does not exist on this machine: the task would fail to start; create it or fix the path\n`;
    const [validate, apply] = await limited([
      () => ax(['validate', 'missing.yaml'], o),
      () => ax(['apply', 'missing.yaml'], fresh()),
    ]);
    expect(validate).toMatchObject({ code: 0, stderr: warning });
    expect(apply).toMatchObject({
      code: 2,
      stderr: `${warning}ax: missing.yaml: not applied because of the warning above: fix the file, or apply it anyway with --force\n`,
    });
  });

  it("a relative one is resolved against the file's directory, not the directory ax runs in", async () => {
    const o = fresh();
    const sub = path.join(box.root, 'project');
    fs.mkdirSync(path.join(sub, 'data'), { recursive: true, mode: 0o700 });
    writeFile(sub, 'rel.yaml', 'workflow: rel\ntasks:\n  where:\n    command: pwd\n    cwd: data\n');
    const r = await ax(['--json', 'run', 'project/rel.yaml', '--wait'], o);
    expect(r.stderr).toBe(
      `note: project/rel.yaml: cwd "data" is ${path.join(sub, 'data')} (relative to the file's directory)\n`,
    );
    expect(r.code).toBe(0);
    const detail = JSON.parse(r.stdout) as RunDetail;
    const logs = await ax(['logs', String(detail.instances[0]?.id)], o);
    expect(logs.stdout).toBe(`${path.join(sub, 'data')}\n`);
    // stored absolute, so the workflow means the same wherever it is run or exported
    expect((await ax(['export', 'rel'], o)).stdout).toContain(`    cwd: ${path.join(sub, 'data')}\n`);
  });
});

describe('files that are refused before anything runs', () => {
  const NUL = 'contains a NUL character (\\0), which no command, path or variable can hold: remove it';

  it('NUL in an env value or a command, a file over 5 MB (before parsing), a Latin-1 file (with the byte offset)', async () => {
    const o = fresh();
    writeFile(box.root, 'nul-env.yaml', 'workflow: w\ntasks:\n  a:\n    command: echo $X\n    env: { X: "a\\0b" }\n');
    writeFile(box.root, 'nul-command.yaml', 'workflow: w\ntasks:\n  a:\n    command: "echo a\0b"\n');
    // 6 MB that is neither UTF-8 nor YAML: only the size is reported, so nothing else was looked at
    fs.writeFileSync(
      path.join(box.root, 'huge.yaml'),
      Buffer.concat([Buffer.from('{{{ caf\xe9', 'latin1'), Buffer.alloc(6 * 1024 * 1024, 0x61)]),
    );
    fs.writeFileSync(
      path.join(box.root, 'latin1.yaml'),
      Buffer.from('workflow: w\ntasks:\n  a:\n    command: echo café\n', 'latin1'),
    );
    const [env, command, huge, latin1] = await limited([
      () => ax(['validate', 'nul-env.yaml'], o),
      () => ax(['validate', 'nul-command.yaml'], o),
      () => ax(['apply', 'huge.yaml'], o),
      () => ax(['run', 'latin1.yaml', '--wait'], o),
    ]);
    expect(env).toMatchObject({ code: 2, stdout: '', stderr: `ax: nul-env.yaml: tasks.a.env.X: ${NUL}\n` });
    expect(command).toMatchObject({ code: 2, stdout: '', stderr: `ax: nul-command.yaml: tasks.a.command: ${NUL}\n` });
    expect(huge).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'ax: huge.yaml: the file is 6.0 MB, over the 5 MB limit for a workflow file: split it into several workflows\n',
    });
    expect(latin1).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'ax: latin1.yaml: not UTF-8: byte 0xE9 at offset 45 (line 4, column 22) is not valid UTF-8: save the file as UTF-8 (it may be Latin-1 or UTF-16)\n',
    });
    expect(await axJson<WorkflowListing[]>(['ls'], o)).toEqual([]);
  });
});

describe('numeric flags out of range: the valid range, exit 2, no stack trace', () => {
  it.each([
    [['serve', '--concurrency', '0'], 'ax: --concurrency must be an integer from 1 to 1000, got "0"'],
    [['serve', '--port', '99999'], 'ax: --port must be an integer from 0 to 65535, got "99999"'],
    [['runs', '-n', 'abc'], 'ax: -n/--limit must be an integer from 1 to 1000, got "abc"'],
    [['run', 'x', '--concurrency', '1.5'], 'ax: --concurrency must be an integer from 1 to 1000, got "1.5"'],
    [['serve', '--drain-timeout', '-1'], 'ax: --drain-timeout must be an integer from 0 to 31536000, got "-1"'],
    [
      ['logs', '12abc'],
      'ax: "12abc" is not a run or instance id: write "ax logs RUN TASK" (e.g. "ax logs 42 clean"), "ax logs --run RUN" for the task that failed in a run, or "ax logs INSTANCE"; "ax runs" shows the ids',
    ],
    [['logs', '42', 'clean', '--attempt', '0'], 'ax: --attempt must be a positive integer, got "0"'],
  ])('ax %j', async (args, message) => {
    const r = await ax(args, { ...fresh(), timeoutMs: 20_000 });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr: `${message}\n`,
    });
  });
});
