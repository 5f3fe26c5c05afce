// Events from outside, through a real `ax serve`: a sender that retries with the same
// Idempotency-Key starts one run (also when its retries arrive at once), `ax trigger --key` the
// same; POST /api/v1/events/NAME and the first-published /events/NAME; a wrong token starts
// nothing; a burst of events on a workflow without a schedule gets a run each, in order (overlap
// `queue`); every trigger is audited with where it came from.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { RunRecord } from '../../engine/api/types.ts';
import { ax } from '../helpers/ax.ts';
import { openDataDirStore, writeFile } from '../helpers/files.ts';
import { serveFixture } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

const WEBHOOK_TOKEN = 'hook-secret-events-0123';
let db: SqlStore;

const served = serveFixture('ax-cli-events-', {
  prepare: async ({ root, dataDir, opts }) => {
    fs.writeFileSync(path.join(dataDir, 'webhook-token'), WEBHOOK_TOKEN, { mode: 0o600 });
    writeFile(
      root,
      'deploy.yaml',
      'workflow: deploy\non_event: deployed\ntasks:\n  note:\n    command: echo "deployed $AX_EVENT_PAYLOAD"\n',
    );
    // No schedule: events queue, one run at a time, each after the one before.
    writeFile(
      root,
      'ingest.yaml',
      'workflow: ingest\non_event: file-arrived\ntasks:\n  load:\n    command: sleep 0.05; echo "loaded $AX_EVENT_PAYLOAD"\n',
    );
    for (const file of ['./deploy.yaml', './ingest.yaml']) {
      const applied = await ax(['apply', file], opts());
      expect(applied.code, applied.stderr).toBe(0);
    }
  },
});
const opts = () => served.opts();

beforeAll(async () => {
  db = await openDataDirStore(served.dataDir);
});

afterAll(async () => {
  await db?.close();
});

const post = (pathname: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`http://127.0.0.1:${served.serve.port}${pathname}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${WEBHOOK_TOKEN}`, 'content-type': 'application/json', ...headers },
    body,
  });

const runIds = async (res: Response): Promise<number[]> => {
  expect(res.status, await res.clone().text()).toBe(202);
  return ((await res.json()) as { runs: RunRecord[] }).runs.map((r) => r.id);
};

const runsOf = async (workflow: string) =>
  (await db.listRuns({ workflowName: workflow, limit: 1000 })).sort((a, b) => a.id - b.id);

describe('events from outside', () => {
  it('the same Idempotency-Key twice starts one run; both answers name it; the repeat is audited', async () => {
    const first = await runIds(await post('/api/v1/events/deployed', '{"v":1}', { 'idempotency-key': 'deploy-41' }));
    expect(first).toHaveLength(1);
    const again = await runIds(await post('/events/deployed', '{"v":1}', { 'idempotency-key': 'deploy-41' }));
    expect(again).toEqual(first);
    // Another key is another request.
    const other = await runIds(await post('/api/v1/events/deployed', '{"v":2}', { 'idempotency-key': 'deploy-42' }));
    expect(other).not.toEqual(first);
    expect((await runsOf('deploy')).map((r) => r.id)).toEqual([...first, ...other]);
    const audit = (await db.listAudit(20)).filter((e) => e.object === 'event:deployed');
    expect(audit.map((e) => e.action)).toEqual(['run.event', 'run.event.repeat', 'run.event']);
    expect(audit[1]?.detail).toContain('Idempotency-Key deploy-41 seen before');
    // Where it came from: the webhook's caller.
    expect(
      audit.every((e) => e.actor === 'webhook from 127.0.0.1' || e.actor === 'webhook from ::ffff:127.0.0.1'),
    ).toBe(true);
  });

  it('ten retries of one key arriving at once start one run, and all ten name it', async () => {
    const before = (await runsOf('deploy')).length;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        post('/api/v1/events/deployed', '{}', { 'idempotency-key': 'burst-7' }).then(runIds),
      ),
    );
    expect(new Set(answers.map((a) => a.join(','))).size).toBe(1);
    expect(answers[0]).toHaveLength(1);
    expect((await runsOf('deploy')).length).toBe(before + 1);
  });

  it('ax trigger --key: a retry of the command starts nothing new and prints the first run', async () => {
    const first = await ax(['trigger', 'deployed', '--key', 'cli-1', '--json'], opts());
    expect(first.code, first.stderr).toBe(0);
    const again = await ax(['trigger', 'deployed', '--key', 'cli-1', '--json'], opts());
    expect(again.code, again.stderr).toBe(0);
    const ids = (out: string) => (JSON.parse(out) as RunRecord[]).map((r) => r.id);
    expect(ids(again.stdout)).toEqual(ids(first.stdout));
    const bad = await ax(['trigger', 'deployed', '--key', 'has space'], opts());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Idempotency-Key must be 1 to 191 printable ASCII characters');
  });

  it('a wrong token is 401 and starts nothing', async () => {
    const before = (await runsOf('deploy')).length;
    const res = await fetch(`http://127.0.0.1:${served.serve.port}/api/v1/events/deployed`, {
      method: 'POST',
      headers: { authorization: 'Bearer wrong-token-0000000' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect((await runsOf('deploy')).length).toBe(before);
  });

  it('twenty events in two seconds on a workflow without a schedule: twenty runs, each after the one before', async () => {
    for (let i = 0; i < 20; i++) {
      expect((await runIds(await post('/api/v1/events/file-arrived', JSON.stringify({ n: i })))).length).toBe(1);
      await new Promise((r) => setTimeout(r, 100));
    }
    const runs = await waitFor(
      async () => {
        const all = await runsOf('ingest');
        return all.length === 20 && all.every((r) => r.state === 'SUCCESS') ? all : undefined;
      },
      { timeoutMs: 60_000, message: 'twenty ingest runs to succeed' },
    );
    for (let i = 1; i < runs.length; i++)
      expect(runs[i]?.startedAt ?? 0).toBeGreaterThanOrEqual(runs[i - 1]?.finishedAt ?? Infinity);
    // In the order they came: run i read payload i.
    const payloads = await Promise.all(
      runs.map(async (r) => {
        const [inst] = await db.listInstances(r.id);
        return (await db.readLogs(inst?.id as number, 0, 5)).map((l) => l.line).join(' ');
      }),
    );
    expect(payloads).toEqual(runs.map((_, i) => `loaded {"n":${i}}`));
  });
});
