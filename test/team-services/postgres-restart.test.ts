// The PostgreSQL team database goes away under a running team and comes back: a private
// PostgreSQL 15 cluster that this file makes with initdb, whose postmaster it kills with -9
// mid-run and starts again on the same port and data (never the shared 5432 server); the
// scenario and its checks are mariadb-restart.test.ts's (helpers/team/db-restart.ts). Redis is
// the shared one (own prefix).
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { tempDir } from '../helpers/files.ts';
import { hasPostgresServer, NO_POSTGRES_REASON, PrivatePostgres } from '../helpers/private-postgres.ts';
import { CI, redisAvailable } from '../helpers/services.ts';
import { databaseRestartScenario } from '../helpers/team/db-restart.ts';
import { hasFlock } from '../helpers/team/gate.ts';
import { Team } from '../helpers/team/harness.ts';

// Off CI a machine without Redis, PostgreSQL 15's initdb / postgres or flock(1) skips this file;
// under CI=true redisAvailable() throws and a missing program fails when it is used.
const skipWhy = !(await redisAvailable())
  ? 'no Redis at the shared address'
  : CI || (hasPostgresServer && hasFlock)
    ? undefined
    : hasPostgresServer
      ? 'no flock(1)'
      : NO_POSTGRES_REASON;

// Skipped only off CI: under CI=true the availability check throws, and a missing binary fails in beforeAll.
const title = 'a team whose PostgreSQL is killed and restarted mid-run';
describe.skipIf(skipWhy !== undefined)(skipWhy ? `${title} (skipped: ${skipWhy})` : title, () => {
  let root: string;
  let postgres: PrivatePostgres | undefined;
  let team: Team | undefined;

  beforeAll(async () => {
    root = tempDir('ax-team-postgres-');
    postgres = await PrivatePostgres.create(root);
  }, 180_000);
  afterEach(async () => {
    await team?.close();
    team = undefined;
  }, 60_000);
  afterAll(async () => {
    await postgres?.destroy();
    fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('reconnects and finishes every run: no instance lost, none run twice, no worker judged lost', async () => {
    const db = postgres as PrivatePostgres;
    team = await Team.open('pg_restart', { mysqlUrl: await db.createDatabase('ax_restart') });
    await databaseRestartScenario(team, db, /PostgreSQL|ECONNREFUSED|terminat|Connection terminated|connect/i);
  }, 360_000);
});
