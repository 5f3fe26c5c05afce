// Logs when the store fails (design.md §8). A finished task's outcome is recorded only once
// all of its log is in MySQL, however the writes of twenty finishing tasks interleave with
// failures (the engine's MySQL user loses INSERT on execution_log_chunk as they finish): if the log
// cannot be stored in time, the outcome says so, never a plain SUCCESS without its output. And a
// 200,000-line burst while the database is down (a private mariadbd, killed with -9 and started
// again) keeps the worker alive with bounded memory, the overflow stored as one marker.
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { InstanceRecord } from '../../engine/api/types.ts';
import mysql from 'mysql2/promise';
import { openMysqlStore } from '../../engine/adapters/sql/mysql-store.ts';
import {
  CI,
  createTestDatabase,
  MYSQL_ADMIN_URL,
  mysqlAvailable,
  redisAvailable,
  uniqueName,
} from '../helpers/services.ts';
import { hasFlock } from '../helpers/team/gate.ts';
import { Team } from '../helpers/team/harness.ts';
import { hasMariadbServer, PrivateMariaDb } from '../helpers/private-servers.ts';
import type { TeamProcess } from '../helpers/team/team-process.ts';
import { traced } from '../helpers/team/trace.ts';
import { tempDir } from '../helpers/files.ts';
import { holdsFor } from '../helpers/wait-for.ts';

const redis = await redisAvailable();
const runnable = redis && ((hasMariadbServer && hasFlock) || CI);
const sharedRunnable = redis && (await mysqlAvailable()) && (hasFlock || CI);

/** A buffer bound small enough that the burst overflows it many times over. */
const BUFFER_BYTES = 4 * 1024 * 1024;

/** Peak and current resident memory of a process, in bytes (Linux). */
function memory(pid: number): { peak: number; now: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { peak: kb('VmHWM'), now: kb('VmRSS') };
}

// Skipped only off CI without the shared MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!sharedRunnable)('logs that cannot be stored while tasks finish', () => {
  let team: Team | undefined;
  const cleanups: (() => Promise<void>)[] = [];

  afterAll(async () => {
    await team?.close();
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  }, 60_000);

  it('no task is SUCCESS without its whole log; past the give-up the outcome says the log is incomplete, and the lines follow when the store takes them', async () => {
    // A database migrated by root, used by the engines as a user with rights on each table, so
    // that INSERT on execution_log_chunk alone can be taken away and given back.
    const database = await createTestDatabase('ax_logfail');
    cleanups.push(() => database.drop());
    await (await openMysqlStore({ url: database.url })).close();
    const admin = await mysql.createConnection({ uri: MYSQL_ADMIN_URL.replace(/\/[^/]*$/, `/${database.name}`) });
    cleanups.push(() => admin.end());
    const user = uniqueName('axu').slice(0, 32);
    await admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY 'pw'`);
    cleanups.push(async () => void (await admin.query(`DROP USER '${user}'@'%'`)));
    const tables = (await admin.query('SHOW TABLES'))[0] as Record<string, string>[];
    for (const row of tables)
      await admin.query(`GRANT ALL ON \`${database.name}\`.\`${Object.values(row)[0]}\` TO '${user}'@'%'`);
    const u = new URL(database.url);
    u.username = user;
    u.password = 'pw';
    const t = await Team.open('logfail', { mysqlUrl: u.toString(), config: { logGiveUpMs: 6_000 } });
    team = t;
    await t.serveAll([
      { role: 'scheduler', noWork: true, workerId: 'sched' },
      { role: 'worker', workerId: 'w1', concurrency: 20 },
    ]);
    const store = await openMysqlStore({ url: database.url, connectionLimit: 2 });
    cleanups.push(() => store.close());

    const gate = await t.gate('finish');
    const names = Array.from({ length: 20 }, (_, k) => `t${k}`);
    // Each task: 50 lines, the gate, 50 more lines (these fall into the failure), exit 0.
    const body = (k: number) =>
      `for i in $(seq 1 50); do echo "t${k} before $i"; done; ${gate.wait}; for i in $(seq 1 50); do echo "t${k} after $i"; done`;
    await t.apply({
      workflow: 'finish',
      tasks: Object.fromEntries(names.map((n, k) => [n, { command: traced(body(k)), timeout: '300s' }])),
    });
    const runId = await t.startRunInProcess('finish');
    await t.waitFor(
      async () =>
        (await store.listInstances(runId)).filter((i) => i.state === 'RUNNING').length === 20 &&
        t.executions().filter((e) => e.runId === runId).length === 20,
      { timeoutMs: 60_000, message: 'the twenty tasks to run' },
    );
    await admin.query(`REVOKE INSERT ON \`${database.name}\`.execution_log_chunk FROM '${user}'@'%'`);
    await gate.open();

    // Every instance is checked the moment it is seen SUCCESS: all 100 lines are there, or its
    // reason says that they are not.
    const seen = new Map<number, { lines: number; reason?: string }>();
    await t.waitFor(
      async () => {
        for (const i of (await store.listInstances(runId)).filter(
          (x: InstanceRecord) => x.state === 'SUCCESS' && !seen.has(x.id),
        )) {
          const lines = (await store.readLogs(i.id, 0, 1000)).filter((l) => l.stream === 'stdout').length;
          seen.set(i.id, { lines, reason: i.reason });
        }
        return seen.size === 20;
      },
      { timeoutMs: 120_000, intervalMs: 20, message: 'the twenty instances to be SUCCESS' },
    );
    const silent = [...seen].filter(
      ([, v]) => v.lines !== 100 && !/its log is incomplete: \d+ line\(s\) could not be stored/.test(v.reason ?? ''),
    );
    expect(silent, 'SUCCESS without its log and without saying so').toEqual([]);
    // Alerts reach the audit log on their own write, just after the outcome: wait for them.
    const incomplete = [...seen.values()].filter((v) => v.lines !== 100).length;
    const alertCount = async () =>
      (await store.listAudit(10_000)).filter(
        (a) => a.action === 'alert' && /its log is incomplete/.test(a.detail ?? ''),
      ).length;
    await t
      .waitFor(async () => (await alertCount()) >= incomplete, {
        timeoutMs: 15_000,
        message: `${incomplete} "log is incomplete" alerts`,
      })
      .catch(() => undefined);
    expect(await alertCount()).toBe(incomplete);

    // The store takes the lines again: nothing was lost, each instance's log is whole and in order.
    await admin.query(`GRANT INSERT ON \`${database.name}\`.execution_log_chunk TO '${user}'@'%'`);
    for (const id of seen.keys()) {
      await t.waitFor(async () => (await store.readLogs(id, 0, 1000)).length === 100, {
        timeoutMs: 30_000,
        message: `instance ${id}'s log to be whole`,
      });
      const lines = await store.readLogs(id, 0, 1000);
      expect(lines.map((l) => l.seq)).toEqual(lines.map((_, k) => k + 1));
    }
    expect(t.unexpectedExits()).toBeUndefined();
  }, 300_000);
});

// Skipped only off CI without MariaDB/Redis or a mariadbd binary to start a private one: under CI=true that throws instead.
describe.skipIf(!runnable)('logs while MariaDB is killed and restarted', () => {
  let root: string;
  let mariadb: PrivateMariaDb | undefined;
  let team: Team | undefined;
  let down = false;

  const killDb = async () => {
    down = true;
    await (mariadb as PrivateMariaDb).kill();
  };
  const startDb = async () => {
    await (mariadb as PrivateMariaDb).start();
    down = false;
  };

  beforeAll(async () => {
    root = tempDir('ax-team-logs-');
    mariadb = await PrivateMariaDb.create(root);
  }, 180_000);
  afterEach(async () => {
    await team?.close();
    if (down) await startDb();
    team = undefined;
  }, 60_000);
  afterAll(async () => {
    await mariadb?.destroy();
    fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  async function openTeam(name: string): Promise<{ t: Team; worker: TeamProcess; store: SqlStore }> {
    const db = mariadb as PrivateMariaDb;
    const t = await Team.open(name, {
      mysqlUrl: await db.createDatabase(name),
      config: { logBufferBytes: BUFFER_BYTES },
    });
    team = t;
    const [, worker] = await t.serveAll([
      { role: 'scheduler', noWork: true, workerId: 'sched' },
      { role: 'worker', workerId: 'w1', concurrency: 20 },
    ]);
    return { t, worker: worker as TeamProcess, store: t.store };
  }

  it('a 200,000-line burst while the database is down: the worker lives, memory stays bounded, one marker counts the dropped lines', async () => {
    const { t, worker, store } = await openTeam('ax_logs_burst');
    const gate = await t.gate('burst');
    const line = 'x'.repeat(150);
    const burst = `${gate.wait}; awk 'BEGIN { for (i = 1; i <= 200000; i++) printf "%06d ${line}\\n", i }'`;
    await t.apply({ workflow: 'burst', tasks: { burst: { command: traced(burst), timeout: '300s' } } });
    const runId = await t.startRunInProcess('burst');
    const [inst] = await t.waitFor(
      async () => {
        const list = await store.listInstances(runId);
        return list[0]?.state === 'RUNNING' && list[0].pid !== undefined ? list : undefined;
      },
      { timeoutMs: 60_000, message: 'the burst task to run' },
    );
    const before = memory(worker.pid);

    await killDb();
    await gate.open();
    await t.waitFor(() => t.executions().some((e) => e.runId === runId && e.end !== undefined), {
      timeoutMs: 60_000,
      message: 'the burst to end',
    });
    // the worker lives on for a while after the burst with the database still down, and its
    // memory peak is read after that while
    await holdsFor(() => worker.running, 2_000, {
      message: `the worker to keep running\n${worker.stderr.slice(-3000)}`,
    });
    expect(worker.running, worker.stderr.slice(-3000)).toBe(true);
    const after = memory(worker.pid);
    // The buffer holds 4 MiB; the 31 MB burst (and its ~200,000 line objects) never sat in memory at once.
    expect(after.peak - before.now, `peak ${after.peak} before ${before.now}`).toBeLessThan(48 * 1024 * 1024);

    await startDb();
    const done = await t.waitFor(
      async () => {
        const i = await store.getInstance(inst?.id as number);
        return i?.state === 'SUCCESS' ? i : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100, message: 'the burst task to be SUCCESS' },
    );
    const lines = [];
    for (let after = 0; ;) {
      const page = await store.readLogs(done.id, after, 10_000);
      if (page.length === 0) break;
      lines.push(...page.map((l) => ({ seq: l.seq, stream: l.stream, line: l.line })));
      after = page[page.length - 1]?.seq as number;
    }
    const markers = lines.filter((l) => l.stream === 'system');
    expect(markers).toHaveLength(1);
    const dropped = Number(/^\[(\d+) line\(s\) of output dropped: /.exec(markers[0]?.line ?? '')?.[1]);
    const kept = lines.filter((l) => l.stream === 'stdout');
    expect(dropped).toBeGreaterThan(0);
    expect(kept.length + dropped).toBe(200_000);
    // Lines in order, numbered without gaps; the marker sits where the lines are missing.
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_, k) => k + 1));
    const numbers = kept.map((l) => Number(l.line.slice(0, 6)));
    const at = lines.indexOf(markers[0] as (typeof lines)[number]);
    expect(numbers.slice(0, at)).toEqual(numbers.slice(0, at).map((_, k) => k + 1));
    // whatever was kept after the gap continues right after the dropped lines
    expect(numbers.slice(at)).toEqual(numbers.slice(at).map((_, k) => at + dropped + 1 + k));
    expect(t.unexpectedExits()).toBeUndefined();
  }, 300_000);
});
