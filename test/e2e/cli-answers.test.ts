// "Why did my run fail?" answered in one command: `ax run --wait` announces retries and prints
// the failed task's last stderr lines, `ax runs` names the failed task and its reason, and
// `ax logs RUN TASK` / `ax logs --run RUN` find a log without an instance id. Plus the usage
// errors around them and `ax rm` asking first. Real `ax` processes on a temp data dir, no server.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunListing } from '../../engine/api/engine-api.ts';
import { ax, type AxResult, axStart, cliSandbox, limited } from '../helpers/ax.ts';
import { openDataDirStore, writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-answers-');
/** `ax run etl.yaml --wait`: extract succeeds, clean fails twice (one retry), load never runs */
let failedRun: AxResult;

const opts = () => box.opts();

beforeAll(async () => {
  // 15 stderr lines, so the tail (10) shows that it is the tail; stdout too, which it leaves out.
  writeFile(
    box.root,
    'etl.yaml',
    `workflow: etl
tasks:
  extract:
    command: echo extracted
  clean:
    command: 'echo "cleaning, attempt $AX_ATTEMPT"; for i in $(seq 1 15); do echo "bad row $i" >&2; done; exit 3'
    upstream: [extract]
    retries: 1
    retry_backoff: 200ms
  load:
    command: echo loaded
    upstream: [clean]
`,
  );
  writeFile(
    box.root,
    'fine.yaml',
    'workflow: fine\ntasks:\n  a:\n    command: echo a\n  b:\n    command: echo b\n    upstream: [a]\n',
  );
  failedRun = await ax(['run', 'etl.yaml', '--wait'], opts());
}, 60_000);

describe('a failed run, answered in one command', () => {
  it('ax run --wait announces the retry and prints the last stderr lines of the task that failed for good', () => {
    expect(failedRun.code).toBe(1);
    const out = failedRun.stdout.split('\n');
    const at = (re: RegExp) => out.findIndex((l) => re.test(l));
    const first = at(/^✗ clean FAILED .*— exit code 3$/);
    const retry = at(/^↻ clean: retrying in 200ms \(attempt 2 of 2\)$/);
    const second = at(/^✗ clean \(attempt 2\) FAILED /);
    expect(first).toBeGreaterThan(0);
    expect(retry).toBeGreaterThan(first);
    expect(second).toBeGreaterThan(retry);
    // the tail: under a heading, the last 10 of the 15 stderr lines, then the command for the rest
    const heading = at(/^ {2}last 10 lines of clean's stderr \(attempt 2\):$/);
    expect(heading).toBeGreaterThan(second);
    expect(out.slice(heading + 1, heading + 11)).toEqual(Array.from({ length: 10 }, (_, i) => `  │ bad row ${i + 6}`));
    expect(out[heading + 11]).toBe('  the whole log: ax logs 1 clean');
    expect(failedRun.stdout).not.toMatch(/bad row 5$|cleaning, attempt/m);
    // once only, before the run's outcome
    expect(out.filter((l) => l.includes('last 10 lines'))).toHaveLength(1);
    expect(at(/^run #1 FAILED/)).toBeGreaterThan(heading);
  });

  it('ax runs names the failed task and the first line of its reason, in the table and in --json', async () => {
    const [text, json] = await limited([() => ax(['runs'], opts()), () => ax(['--json', 'runs'], opts())], 2);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^1 +etl +✗ FAILED +manual .* {2}clean: exit code 3$/m);
    // times print in this machine's zone (TZ=UTC here), named once in the header
    expect(text.stdout).toMatch(/^RUN +WORKFLOW +STATE +TRIGGER +LOGICAL TIME \(UTC\) +TOOK +REASON$/m);
    const [run] = JSON.parse(json.stdout) as RunListing[];
    expect(run).toMatchObject({
      id: 1,
      state: 'FAILED',
      failure: { task: 'clean', attempt: 2, state: 'FAILED', reason: 'exit code 3' },
    });
  });

  it('ax logs RUN TASK shows the latest attempt, --attempt an earlier one (ending with its retry line), --run the failed task', async () => {
    const [latest, earlier, byRun] = await limited(
      [
        () => ax(['logs', '1', 'clean'], opts()),
        // --follow on a finished attempt that was retried: it ends at once, the retry line included
        () => ax(['logs', '1', 'clean', '--attempt', '1', '--timestamps', '--follow'], opts()),
        () => ax(['logs', '--run', '1'], opts()),
      ],
      3,
    );
    const rows = Array.from({ length: 15 }, (_, i) => `bad row ${i + 1}`);
    expect(latest).toMatchObject({ code: 0, stdout: 'cleaning, attempt 2\n', stderr: `${rows.join('\n')}\n` });
    expect(byRun).toMatchObject({ code: 0, stdout: latest.stdout, stderr: latest.stderr });

    // --timestamps: ISO 8601 with the offset (the tests run with TZ=UTC), then the line as it was
    expect(earlier.code).toBe(0);
    const stamp = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00) /;
    for (const l of [...earlier.stdout.trimEnd().split('\n'), ...earlier.stderr.trimEnd().split('\n')]) {
      const m = stamp.exec(l);
      expect(m, l).not.toBeNull();
      expect(Math.abs(Date.parse(m?.[1] as string) - Date.now())).toBeLessThan(300_000);
    }
    const text = (out: string) =>
      out
        .trimEnd()
        .split('\n')
        .map((l) => l.replace(stamp, ''));
    expect(text(earlier.stdout)).toEqual(['cleaning, attempt 1']);
    expect(text(earlier.stderr)).toEqual([...rows, '[ax] retrying in 200ms (attempt 2 of 2)']);
  });

  it('ax logs RUN TASK --follow follows the task through its retry while the run goes on', async () => {
    const gate = path.join(box.root, 'gate');
    writeFile(
      box.root,
      'flaky.yaml',
      `workflow: flaky
tasks:
  clean:
    command: 'echo "attempt $AX_ATTEMPT"; if [ "$AX_ATTEMPT" = 1 ]; then while [ ! -f "${gate}" ]; do sleep 0.05; done; fi; echo boom >&2; exit 3'
    retries: 1
    retry_backoff: 200ms
`,
    );
    const run = axStart(['run', 'flaky.yaml', '--wait'], opts());
    const runId = Number(
      /^run #(\d+) of flaky$/.exec((await run.waitForLine(/^run #\d+ of flaky$/, 30_000, 'stdout')).text)?.[1],
    );
    await run.waitForLine(/^▶ clean RUNNING/, 30_000, 'stdout');
    const logs = axStart(['logs', String(runId), 'clean', '--follow'], opts());
    await logs.waitForLine(/^attempt 1$/, 30_000, 'stdout');
    fs.writeFileSync(gate, '');
    const followed = await logs.result();
    expect(followed.code).toBe(0);
    expect(followed.stdout).toBe('attempt 1\nattempt 2\n');
    expect(followed.stderr).toBe('boom\n[ax] retrying in 200ms (attempt 2 of 2)\nboom\n');
    expect((await run.result()).code).toBe(1);
  }, 60_000);
});

describe('usage errors say what to write', () => {
  it('a name where an id goes is exit 2; an unknown task, attempt or workflow is exit 3', async () => {
    const ok = await ax(['run', 'fine.yaml', '--wait'], opts());
    expect(ok.code).toBe(0);
    const fine = Number(/^run #(\d+) of fine$/m.exec(ok.stdout)?.[1]);
    const [word, noTask, noAttempt, attemptAlone, noFailure, runsNosuch] = await limited(
      [
        () => ax(['logs', 'clean'], opts()),
        () => ax(['logs', '1', 'nosuch'], opts()),
        () => ax(['logs', '1', 'clean', '--attempt', '9'], opts()),
        () => ax(['logs', '3', '--attempt', '1'], opts()),
        () => ax(['logs', '--run', String(fine)], opts()),
        () => ax(['runs', 'nosuch'], opts()),
      ],
      3,
    );
    expect(word.code).toBe(2);
    expect(word.stderr).toBe(
      'ax: "clean" is not a run or instance id: write "ax logs RUN TASK" (e.g. "ax logs 42 clean"), "ax logs --run RUN" for the task that failed in a run, or "ax logs INSTANCE"; "ax runs" shows the ids\n',
    );
    expect(noTask).toMatchObject({
      code: 3,
      stderr: 'ax: run #1 of etl has no task "nosuch": its tasks are extract, clean, load\n',
    });
    expect(noAttempt).toMatchObject({ code: 3, stderr: 'ax: task "clean" of run #1 has no attempt 9: it has 1, 2\n' });
    expect(attemptAlone.code).toBe(2);
    expect(attemptAlone.stderr).toMatch(/^ax: --attempt goes with a run and a task/);
    expect(noFailure).toMatchObject({
      code: 2,
      stderr: `ax: run #${fine} (SUCCESS) has no failed task: name one, "ax logs ${fine} TASK", of a, b\n`,
    });
    expect(runsNosuch.code).toBe(3);
    expect(runsNosuch.stderr).toMatch(/^ax: no workflow named "nosuch"/);
  });

  it('ax rm with no terminal to ask on refuses without --yes (exit 2) and removes nothing', async () => {
    const refused = await ax(['rm', 'etl'], opts());
    expect(refused).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'ax: ax rm would remove workflow etl with its 1 run and their logs: pass --yes to confirm (there is no terminal to ask on)\n',
    });
    const store = await openDataDirStore(box.dataDir);
    try {
      expect(await store.findWorkflowId('etl')).toBeDefined();
    } finally {
      await store.close();
    }
  });
});
