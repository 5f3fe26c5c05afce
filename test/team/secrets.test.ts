// Team mode: each worker resolves task secrets from its own node (its data dir), never from the
// team's MySQL or Redis. A worker that has the secret runs the task with it (masked in the log);
// a worker that lacks it fails the task at start, naming the secret and how to set it there; and
// the value is in no table of the team's database and no key of its Redis prefix.
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SecretsFile } from '../../engine/hosts/node/secrets-file.ts';
import { Team, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import { teamServicesAvailable } from '../helpers/services.ts';

const available = await teamServicesAvailable();
// Short enough that Redis would not compress it in a DUMP (strings over 20 bytes may be).
const VALUE = 'tm-secret-7f2c91';

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)('team: task secrets stay on the worker', () => {
  let team: Team;

  beforeAll(async () => {
    // MariaDB always (also under AX_TEST_TEAM_DATABASE=postgres): the test reads every table
    // through mysql2 to find no plaintext (not checked this way on PostgreSQL).
    team = await Team.open('secrets', { database: 'mysql' });
  });
  afterEach(async () => {
    await team?.killAll();
  });
  afterAll(async () => {
    await team?.close();
  });

  it(
    'a worker with the secret runs the task with it; one without fails it with the reason; MySQL and Redis never hold the value',
    async () => {
      const has = path.join(team.dir, 'node-has');
      const lacks = path.join(team.dir, 'node-lacks');
      new SecretsFile(has).set('api-token', VALUE, 'test');
      fs.mkdirSync(lacks);
      const worker = (id: string, dataDir: string) => {
        const p = team.spawn(
          id,
          ['serve', '--role', 'worker', '--worker-id', id, '--labels', id],
          { AX_DATA_DIR: dataDir, AXT_WORKER: id },
          { role: 'worker', workerId: id },
        );
        return p.waitForLine(/^ax serve: team /, 90_000);
      };
      await Promise.all([
        team.serve({ role: 'scheduler', name: 'scheduler', noWork: true }),
        worker('w-has', has),
        worker('w-lacks', lacks),
      ]);
      await team.waitWorkersOnline(['w-has', 'w-lacks']);
      team.writeWorkflow(
        'secret.yaml',
        `workflow: secret
tasks:
  good:
    command: echo "t=$API_TOKEN"
    labels: [w-has]
    env: { API_TOKEN: { secret: api-token } }
  bad:
    command: echo should-not-run
    labels: [w-lacks]
    env: { API_TOKEN: { secret: api-token } }
`,
      );
      const runId = await team.startRun('./secret.yaml');
      await team.waitRun(runId);
      const instances = await team.instances([runId]);
      const good = instances.find((i) => i.taskName === 'good');
      const bad = instances.find((i) => i.taskName === 'bad');
      expect(good?.state).toBe('SUCCESS');
      expect(good?.workerId).toBe('w-has');
      expect((await team.store.readLogs(good!.id, 0, 100)).map((l) => l.line)).toContain('t=***');
      expect(bad?.state).toBe('FAILED');
      expect(bad?.workerId).toBe('w-lacks');
      expect(bad?.reason).toBe(
        `could not start: secret "api-token" (env API_TOKEN) is not set on this worker: run "ax secrets set api-token" on this worker (data dir ${lacks}), or set it for the whole team with "ax secrets set api-token --team"`,
      );

      // Every row of every table of the team's database.
      const db = await mysql.createConnection(team.mysqlUrl);
      try {
        const [tables] = await db.query<mysql.RowDataPacket[]>('SHOW TABLES');
        expect(tables.length).toBeGreaterThan(5);
        for (const t of tables) {
          const name = String(Object.values(t)[0]);
          const [rows] = await db.query<mysql.RowDataPacket[]>(`SELECT * FROM \`${name}\``);
          expect(JSON.stringify(rows), name).not.toContain(VALUE);
        }
      } finally {
        await db.end();
      }
      // Every key under the team's Redis prefix, serialized whole.
      const redis = new Redis(team.redisUrl);
      try {
        const keys = await redis.keys(`${team.prefix}*`);
        expect(keys.length).toBeGreaterThan(0);
        for (const key of keys)
          expect((await redis.dumpBuffer(key))?.includes(Buffer.from(VALUE)) ?? false, key).toBe(false);
      } finally {
        redis.disconnect();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
