// `ax rerun RUN --failed` on a real run with no server (it runs here, like `ax run`): a task that
// fails once through a marker file runs again with its downstream, in the same run; what
// succeeded stays; the run ends SUCCESS; the audit names what was re-run. And the task outputs
// that `ax runs RUN` and `ax logs` show. Real `ax` processes on a temp data dir.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import type { AuditEntry } from '../../engine/api/types.ts';
import { ax, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-rerun-failed-');

// POSIX shell commands.
describe.skipIf(process.platform === 'win32')('ax rerun RUN --failed', () => {
  it(
    're-runs the failed task and its downstream in the same run; the outputs show in ax runs and ax logs',
    { timeout: 300_000 },
    async () => {
      const marker = path.join(box.root, 'fixed');
      const file = writeFile(
        box.root,
        'flaky.yaml',
        `workflow: flaky
tasks:
  extract:
    command: 'echo extracting; echo rows=42 >> "$AX_OUTPUT"'
  check:
    command: 'test -f "${marker}" && echo "checked=$AX_OUTPUT_EXTRACT_ROWS" >> "$AX_OUTPUT"'
    upstream: [extract]
  report:
    command: 'echo "report of $AX_OUTPUT_CHECK_CHECKED rows"'
    upstream: [check]
  side:
    command: echo side
`,
      );
      const failed = await ax(['run', file, '--wait'], box.opts());
      expect(failed.code).toBe(1);
      const runId = Number(/^run #(\d+)/m.exec(failed.stdout)?.[1]);

      // Usage: a task or --failed, one of them.
      const neither = await ax(['rerun', String(runId)], box.opts());
      expect([neither.code, neither.stderr]).toEqual([
        2,
        `ax: say what to re-run: a task of run #${runId} ("ax rerun ${runId} TASK") or all its failed tasks ("ax rerun ${runId} --failed")\n`,
      ]);
      const both = await ax(['rerun', String(runId), 'check', '--failed'], box.opts());
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(/give either a task or --failed, not both/);

      // ax runs RUN: the outputs under the table.
      const shown = await ax(['runs', String(runId)], box.opts());
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(/\noutputs:\n {2}extract \(instance \d+, attempt 1\):\n {4}rows=42\n$/);

      fs.writeFileSync(marker, '');
      const r = await ax(['rerun', String(runId), '--failed'], { ...box.opts(), timeoutMs: 30_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^run #${runId}: re-run of the failed tasks: check, report$`, 'm'));
      expect(r.stdout).toMatch(/✓ check \(attempt 2\) SUCCESS/);
      expect(r.stdout).toMatch(/✓ report SUCCESS/);
      expect(r.stdout).toMatch(new RegExp(`^run #${runId} SUCCESS`, 'm'));

      const detail = JSON.parse((await ax(['--json', 'runs', String(runId)], box.opts())).stdout) as RunDetail;
      expect(detail.run.state).toBe('SUCCESS');
      expect(detail.instances.map((i) => [i.taskName, i.attempt, i.state]).sort()).toEqual([
        ['check', 1, 'FAILED'],
        ['check', 2, 'SUCCESS'],
        ['extract', 1, 'SUCCESS'],
        ['report', 1, 'SUCCESS'],
        ['side', 1, 'SUCCESS'],
      ]);
      const check = detail.instances.find((i) => i.taskName === 'check' && i.attempt === 2);
      expect(check?.outputs).toEqual({ checked: '42' });
      const report = detail.instances.find((i) => i.taskName === 'report');
      const reportLog = await ax(['logs', String(report?.id)], box.opts());
      expect(reportLog.stdout).toBe('report of 42 rows\n');

      // ax logs: the log, then the outputs (on stderr, as the engine's own lines).
      const logs = await ax(['logs', String(runId), 'extract'], box.opts());
      expect(logs.code, logs.stderr).toBe(0);
      expect(logs.stdout).toBe('extracting\n');
      expect(logs.stderr).toBe('[ax] outputs:\n[ax]   rows=42\n');

      const audit = JSON.parse((await ax(['--json', 'audit', '-n', '10'], box.opts())).stdout) as AuditEntry[];
      expect(audit.find((e) => e.action === 'run.rerun')).toMatchObject({
        object: `run:${runId}`,
        detail: 're-run of the failed tasks: check, report',
      });

      // Nothing failed any more: a clear refusal.
      const again = await ax(['rerun', String(runId), '--failed'], box.opts());
      expect(again.code).not.toBe(0);
      expect(again.stderr).toBe(`ax: run #${runId} has no failed task: nothing to re-run\n`);
    },
  );
});
