// The database goes away under a running team and comes back (design.md §7–§8): a private mariadbd
// that this file installs, kills with -9 mid-run and starts again on the same port and data (never
// the shared 3306 server); the scenario and its checks are in helpers/team/db-restart.ts, shared
// with postgres-restart.test.ts. Redis is the shared one (own prefix).
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { tempDir } from '../helpers/files.ts';
import { CI, redisAvailable } from '../helpers/services.ts';
import { databaseRestartScenario } from '../helpers/team/db-restart.ts';
import { hasFlock } from '../helpers/team/gate.ts';
import { Team } from '../helpers/team/harness.ts';
import { hasMariadbServer, PrivateMariaDb } from '../helpers/private-servers.ts';

// Off CI a machine without Redis, mariadbd / mariadb-install-db or flock(1) skips this file; under
// CI=true redisAvailable() throws and a missing program fails when it is used.
const runnable = (await redisAvailable()) && ((hasMariadbServer && hasFlock) || CI);

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!runnable)('a team whose MariaDB is killed and restarted mid-run', () => {
  let root: string;
  let mariadb: PrivateMariaDb | undefined;
  let team: Team | undefined;

  beforeAll(async () => {
    root = tempDir('ax-team-mariadb-');
    mariadb = await PrivateMariaDb.create(root);
  }, 180_000);
  afterEach(async () => {
    await team?.close();
    team = undefined;
  }, 60_000);
  afterAll(async () => {
    await mariadb?.destroy();
    fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('reconnects and finishes every run: no instance lost, none run twice, no worker judged lost', async () => {
    const db = mariadb as PrivateMariaDb;
    team = await Team.open('restart', { mysqlUrl: await db.createDatabase('ax_restart') });
    await databaseRestartScenario(team, db, /MySQL|ECONNREFUSED|PROTOCOL_CONNECTION_LOST|connect/i);
  }, 360_000);
});
