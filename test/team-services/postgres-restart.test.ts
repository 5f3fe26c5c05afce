// The PostgreSQL team database goes away under a running team and comes back: a private
// PostgreSQL 15 cluster that this file makes with initdb, whose postmaster it kills with -9
// mid-run and starts again on the same port and data (never the shared 5432 server); the suite
// and its checks are mariadb-restart.test.ts's (helpers/team/db-restart.ts). Redis is the shared
// one (own prefix).
import { hasPostgresServer, NO_POSTGRES_REASON, PrivatePostgres } from '../helpers/private-postgres.ts';
import { CI, redisAvailable } from '../helpers/services.ts';
import { databaseRestartSuite } from '../helpers/team/db-restart.ts';
import { hasFlock } from '../helpers/team/gate.ts';

// Off CI a machine without Redis, PostgreSQL 15's initdb / postgres or flock(1) skips this file;
// under CI=true redisAvailable() throws and a missing binary fails in PrivatePostgres.create.
const skipWhy = !(await redisAvailable())
  ? 'no Redis at the shared address'
  : CI || (hasPostgresServer && hasFlock)
    ? undefined
    : hasPostgresServer
      ? 'no flock(1)'
      : NO_POSTGRES_REASON;

databaseRestartSuite({
  product: 'PostgreSQL',
  skipWhy,
  create: (root) => PrivatePostgres.create(root),
  outageWords: /PostgreSQL|ECONNREFUSED|terminat|connect/i,
});
