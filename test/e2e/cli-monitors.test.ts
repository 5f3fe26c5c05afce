// Monitors through the real `ax` (design.md §13): `ax ping` with and without `ax serve`, POST
// /ping/NAME[/start|/fail|/N] with the webhook token and its body as the log, `ax wrap` recording
// the command's output and exit code and exiting with it, and `ax wrap` running the command even
// when AX cannot be reached.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { PingAnswer } from '../../engine/api/monitors.ts';
import { ax, axJson, cliSandbox } from '../helpers/ax.ts';
import { openDataDirStore, writeFile } from '../helpers/files.ts';
import { serveFixture } from '../helpers/serve.ts';

const WEBHOOK_TOKEN = 'hook-secret-monitors-0123';
const MONITOR = 'workflow: backup\nschedule: "0 3 * * *"\nmonitor: { grace: 10m }\n';

const logOf = async (db: SqlStore, instanceId: number) => (await db.readLogs(instanceId, 0, 1000)).map((l) => l.line);

describe('ax ping and ax wrap without a server', () => {
  const box = cliSandbox('ax-cli-monitors-solo-');

  it('ax ping start then ax ping 0 make one SUCCESS external run; ax wrap records output and exit code, and exits with it', async () => {
    writeFile(box.root, 'backup.yaml', MONITOR);
    expect((await ax(['apply', './backup.yaml'], box.opts())).code).toBe(0);
    const start = await axJson<PingAnswer>(['--json', 'ping', 'backup', 'start'], box.opts());
    expect(start.run).toMatchObject({ state: 'RUNNING', trigger: 'external' });
    expect(start.run.triggeredBy).toMatch(/^ax ping by .+@.+/);
    const end = await ax(['ping', 'backup', '0'], box.opts());
    expect(end.stdout.trim()).toBe(`run #${start.run.id} of backup succeeded`);

    const wrapped = await ax(['wrap', 'backup', '--', 'sh', '-c', 'echo hi; echo oops >&2; exit 3'], box.opts());
    expect(wrapped.code).toBe(3);
    // passed through, as cron would see it
    expect(wrapped.stdout).toBe('hi\n');
    expect(wrapped.stderr).toBe('oops\n');
    const db = await openDataDirStore(box.dataDir);
    try {
      const [last] = await db.listRuns({ workflowName: 'backup', limit: 1 });
      expect(last).toMatchObject({ state: 'FAILED', trigger: 'external' });
      expect(last?.triggeredBy).toMatch(/^ax wrap by /);
      const [inst] = await db.listInstances(last?.id as number);
      expect(inst).toMatchObject({ state: 'FAILED', exitCode: 3 });
      expect(await logOf(db, inst?.id as number)).toEqual(['hi', 'oops']);
    } finally {
      await db.close();
    }
  });

  it('ax wrap runs the command and exits with its code when AX cannot be reached, saying so on stderr', async () => {
    const notADir = path.join(box.root, 'not-a-dir');
    fs.writeFileSync(notADir, 'a file where the data dir should be');
    const marker = path.join(box.root, 'ran');
    const wrapped = await ax(['wrap', 'backup', '--', 'sh', '-c', `touch ${marker}; echo still here; exit 4`], {
      ...box.opts(),
      dataDir: notADir,
    });
    expect(wrapped.code).toBe(4);
    expect(fs.existsSync(marker)).toBe(true);
    expect(wrapped.stdout).toBe('still here\n');
    expect(wrapped.stderr).toMatch(
      /ax wrap: could not report the start of backup to AX: .+\nax wrap: the command runs anyway\n/,
    );
    expect(wrapped.stderr).toMatch(/ax wrap: could not report the end \(exit code 4\) of backup to AX: /);
  });

  it('says what a ping may say, and that a workflow with tasks is no monitor', async () => {
    const bad = await ax(['ping', 'backup', 'done'], box.opts());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"done" is not something a ping says: use start, success, fail or an exit code');
    writeFile(box.root, 'etl.yaml', 'workflow: etl\ntasks:\n  a: { command: "true" }\n');
    expect((await ax(['apply', './etl.yaml'], box.opts())).code).toBe(0);
    const notMonitor = await ax(['ping', 'etl'], box.opts());
    expect(notMonitor.code).toBe(2);
    expect(notMonitor.stderr).toContain('"etl" is not a monitor');
  });

  it("a monitor's file round-trips through ax export", async () => {
    const exported = await ax(['export', 'backup'], box.opts());
    expect(exported.stdout).toBe(
      'workflow: backup\nschedule:\n  cron: 0 3 * * *\n  timezone: UTC\nmonitor:\n  grace: 10m\n',
    );
  });
});

describe('monitors through ax serve', () => {
  let db: SqlStore;
  const served = serveFixture('ax-cli-monitors-serve-', {
    prepare: async ({ root, dataDir, opts }) => {
      fs.writeFileSync(path.join(dataDir, 'webhook-token'), WEBHOOK_TOKEN, { mode: 0o600 });
      writeFile(root, 'backup.yaml', MONITOR);
      expect((await ax(['apply', './backup.yaml'], opts())).code).toBe(0);
    },
  });
  beforeAll(async () => {
    db = await openDataDirStore(served.dataDir);
  });
  afterAll(async () => {
    await db?.close();
  });
  const post = (pathname: string, body = '', token = WEBHOOK_TOKEN) =>
    fetch(`http://127.0.0.1:${served.serve.port}${pathname}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      body,
    });

  it('POST /ping/NAME/start, then /ping/NAME/N with a body: one FAILED run with the code and the body as its log', async () => {
    const start = await post('/ping/backup/start');
    expect(start.status, await start.clone().text()).toBe(200);
    const { run } = (await start.json()) as { run: number };
    const end = await post(`/ping/backup/2?run=${run}`, 'rsync: connection refused\n');
    expect(await end.json()).toEqual({ run, state: 'FAILED' });
    const [inst] = await db.listInstances(run);
    expect(inst).toMatchObject({ exitCode: 2, state: 'FAILED' });
    expect(await logOf(db, inst?.id as number)).toEqual(['rsync: connection refused']);
    expect((await db.getRun(run))?.triggeredBy).toMatch(/^POST \/ping from (::ffff:)?127\.0\.0\.1$/);
  });

  it('POST /ping/NAME is a success, /fail a failure; a wrong token, a body over the limit or no monitor are refused', async () => {
    expect(await (await post('/api/v1/ping/backup', 'ok')).json()).toMatchObject({ state: 'SUCCESS' });
    expect(await (await post('/ping/backup/fail')).json()).toMatchObject({ state: 'FAILED' });
    expect((await post('/ping/backup', '', 'wrong-token-wrong-token')).status).toBe(401);
    const big = await post('/ping/backup', 'x'.repeat(1024 * 1024 + 1));
    expect(big.status).toBe(413);
    const none = await post('/ping/nothing');
    expect(none.status).toBe(404);
    expect(((await none.json()) as { error: string }).error).toContain('no workflow "nothing"');
  });

  it('ax ping and ax wrap go through the running serve', async () => {
    const answer = await axJson<PingAnswer>(['--json', 'ping', 'backup', 'success'], served.opts());
    expect(answer.run.state).toBe('SUCCESS');
    const wrapped = await ax(['wrap', 'backup', '--', 'sh', '-c', 'echo served; exit 0'], served.opts());
    expect(wrapped.code).toBe(0);
    const [last] = await db.listRuns({ workflowName: 'backup', limit: 1 });
    expect(last?.state).toBe('SUCCESS');
    const [inst] = await db.listInstances(last?.id as number);
    expect(await logOf(db, inst?.id as number)).toEqual(['served']);
    // counted like any run, by its trigger
    const metrics = await (await fetch(`http://127.0.0.1:${served.serve.port}/metrics`)).text();
    const count = (state: string) =>
      Number(
        new RegExp(`^ax_runs_finished_by_trigger_total\\{trigger="external",state="${state}"\\} (\\d+)$`, 'm').exec(
          metrics,
        )?.[1] ?? 0,
      );
    expect(count('SUCCESS')).toBeGreaterThanOrEqual(2);
    expect(count('FAILED')).toBeGreaterThanOrEqual(1);
  });
});
