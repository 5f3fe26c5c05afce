// Team mode: a node whose start hangs says where. The worker table is locked by another session
// (as a long migration or a stuck transaction would hold it), so a worker's claim of its id waits:
// after 15 s its `ax serve` says on stderr that it is still starting, and on what; once the lock
// goes it starts as usual. (CI once saw a worker print nothing for 90 s at start, cause unknown.)
import mysql from 'mysql2/promise';
import { afterAll, describe, expect, it } from 'vitest';
import { teamServicesAvailable } from '../helpers/services.ts';
import { Team, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';

const available = await teamServicesAvailable();

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)('a team node whose start waits', () => {
  let team: Team | undefined;
  afterAll(async () => {
    await team?.close();
  }, 60_000);

  it(
    'says every 15 s what it still waits for, then starts once the wait is over',
    async () => {
      const t = await Team.open('start-watch');
      team = t;
      const locker = await mysql.createConnection(t.mysqlUrl);
      try {
        await locker.query('LOCK TABLES worker WRITE');
        const worker = t.spawn('w1', ['serve', '--role', 'worker', '--worker-id', 'w1'], { AXT_WORKER: 'w1' });
        const said = await worker.waitForLine(/^ax serve: still starting after \d+s: /, 60_000);
        expect(said.text).toMatch(/^ax serve: still starting after 15s: claiming the worker id in the database$/);
        expect(worker.stdout).not.toMatch(/^ax serve: team /m);
        await locker.query('UNLOCK TABLES');
        await worker.waitForLine(/^ax serve: team worker, worker id w1 /, 60_000);
        await t.waitWorkersOnline(['w1']);
      } finally {
        await locker.end();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
