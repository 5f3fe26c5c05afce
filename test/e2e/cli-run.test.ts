// `ax run FILE --wait` with no server: outcomes printed as they happen, exit code from the run's
// state, --json output; and the help texts. Real `ax` processes on a temp data dir.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import { ax, axStart, cliSandbox } from '../helpers/ax.ts';
import { openDataDirStore, readLockFile, writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-run-');

describe('ax run FILE --wait, no server', () => {
  it('prints each outcome as it happens and exits 0 when the run succeeds', async () => {
    const gate = path.join(box.root, 'gate-ok');
    // "slow" waits for a gate that the test opens only after it has seen "extract"'s outcome:
    // the outcome must be printed while the run is still going, not at its end.
    const file = writeFile(
      box.root,
      'etl.yaml',
      `workflow: etl
tasks:
  extract:
    command: echo extracted
  slow:
    command: 'while [ ! -f "${gate}" ]; do sleep 0.05; done; echo slow done'
    timeout: 60s
    upstream: [extract]
  load:
    command: echo loaded
    upstream: [slow]
`,
    );
    const run = axStart(['run', file, '--wait'], box.opts());
    const extractDone = await run.waitForLine(/✓ extract SUCCESS/, 30_000, 'stdout');
    expect(run.running).toBe(true);
    expect(run.stdout).not.toMatch(/slow SUCCESS|load/);
    fs.writeFileSync(gate, '');
    const r = await run.result();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = r.stdout.split('\n');
    expect(out[0]).toMatch(/^run #1 of etl$/);
    const order = ['✓ extract SUCCESS', '✓ slow SUCCESS', '✓ load SUCCESS', 'run #1 SUCCESS'].map((s) =>
      out.findIndex((l) => l.startsWith(s)),
    );
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // each outcome names its instance, so "ax logs N" can follow
    expect(r.stdout).toMatch(/✓ extract SUCCESS \S+ {2}\[instance \d+\]/);
    const slowDone = run.lines.find((l) => l.text.startsWith('✓ slow SUCCESS'));
    expect(slowDone && slowDone.at >= extractDone.at).toBe(true);
    // the embedded engine let go of the data dir
    expect(readLockFile(box.dataDir)).toBeUndefined();
  });

  it('exits 1 when a task fails, naming the failure and what did not run', async () => {
    const file = writeFile(
      box.root,
      'broken.yaml',
      `workflow: broken
tasks:
  extract:
    command: echo ok
  transform:
    command: 'echo "bad row" >&2; exit 3'
    upstream: [extract]
  load:
    command: echo never
    upstream: [transform]
`,
    );
    const r = await ax(['run', file, '--wait'], box.opts());
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✓ extract SUCCESS/);
    expect(r.stdout).toMatch(/✗ transform FAILED .*\[instance \d+\] — exit code 3/);
    expect(r.stdout).toMatch(/↯ load UPSTREAM_FAILED .*— upstream "transform" ended FAILED/);
    expect(r.stdout).not.toMatch(/load SUCCESS/);
    expect(r.stdout).toMatch(/^run #\d+ FAILED/m);
    expect(readLockFile(box.dataDir)).toBeUndefined();
  });

  it('--json prints the finished run as one JSON document, exit code still from the run', async () => {
    const ok = writeFile(box.root, 'json-ok.yaml', 'workflow: json-ok\ntasks:\n  only:\n    command: echo fine\n');
    const bad = writeFile(box.root, 'json-bad.yaml', 'workflow: json-bad\ntasks:\n  only:\n    command: exit 7\n');
    // One flag before the command, one after: both are the global --json. One after the other:
    // each holds the data dir while it runs.
    const good = await ax(['--json', 'run', ok, '--wait'], box.opts());
    const failed = await ax(['run', bad, '--wait', '--json'], box.opts());

    expect(good.code).toBe(0);
    const g = JSON.parse(good.stdout) as RunDetail;
    expect(g.run).toMatchObject({ workflowName: 'json-ok', state: 'SUCCESS', trigger: 'manual' });
    expect(g.instances).toHaveLength(1);
    expect(g.instances[0]).toMatchObject({ taskName: 'only', state: 'SUCCESS', exitCode: 0, attempt: 1 });

    expect(failed.code).toBe(1);
    const f = JSON.parse(failed.stdout) as RunDetail;
    expect(f.run).toMatchObject({ workflowName: 'json-bad', state: 'FAILED' });
    expect(f.instances[0]).toMatchObject({ taskName: 'only', state: 'FAILED', exitCode: 7, reason: 'exit code 7' });
  });

  it("runs only its own workflow: other workflows' schedules wait for ax serve", async () => {
    // A schedule that fires every second, applied to the same data dir...
    const fired = path.join(box.root, 'cron-fired');
    writeFile(
      box.root,
      'every.yaml',
      `workflow: every-second\nschedule:\n  cron: "* * * * * *"\n  timezone: UTC\ntasks:\n  tick:\n    command: 'touch "${fired}"; sleep 5'\n`,
    );
    const applied = await ax(['apply', 'every.yaml'], box.opts());
    expect(applied.code).toBe(0);
    // ...then a one-shot run of another workflow that lasts past a few of its fire times.
    const one = writeFile(box.root, 'one.yaml', 'workflow: one-shot\ntasks:\n  nap:\n    command: sleep 2\n');
    const r = await ax(['run', one, '--wait'], box.opts());
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/every-second|tick/);
    expect(r.stderr).toBe('');
    // The one-shot engine must not fire (or catch up) cron schedules: it would start runs that it
    // then kills at exit when its drain time runs out.
    const db = await openDataDirStore(box.dataDir);
    try {
      expect(await db.listRuns({ workflowName: 'every-second', limit: 10 })).toEqual([]);
      expect((await db.listRuns({ workflowName: 'one-shot', limit: 10 })).map((x) => x.state)).toEqual(['SUCCESS']);
    } finally {
      await db.close();
    }
    expect(fs.existsSync(fired)).toBe(false);
  });

  it('a file that does not exist is bad input (exit 2), and no run happens', async () => {
    const r = await ax(['run', './nope.yaml', '--wait'], box.opts());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^ax: \.\/nope\.yaml: no such file: check the path \(it is read relative to .+\)\n$/);
    expect(r.stdout).toBe('');
  });
});

describe('help', () => {
  it('the top level and "run" show examples; an unknown command is a usage error (exit 2)', async () => {
    const [top, run, unknown] = await Promise.all([
      ax(['--help'], box.opts()),
      ax(['run', '--help'], box.opts()),
      ax(['frobnicate'], box.opts()),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'frobnicate'/);

    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^Usage: ax /);
    for (const cmd of ['serve', 'apply', 'export', 'validate', 'ls', 'run', 'runs', 'logs', 'trigger', 'workers']) {
      expect(top.stdout).toMatch(new RegExp(`^  ${cmd}\\b`, 'm'));
    }
    expect(top.stdout).toMatch(/Examples:\n {2}\$ ax run \.\/etl\.yaml --wait/);

    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: ax run \[options\] <target>/);
    expect(run.stdout).toMatch(/--wait/);
    expect(run.stdout).toMatch(/Examples:\n(?: {2}\$ ax run .*\n){2,}/);
    expect(run.stdout).toMatch(/\$ ax run \.\/etl\.yaml --wait/);
  });
});
