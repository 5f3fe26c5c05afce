// The database goes away under a running team and comes back (design.md §7–§8): a private mariadbd
// that this file installs, kills with -9 mid-run and starts again on the same port and data (never
// the shared 3306 server); the suite and its checks are in helpers/team/db-restart.ts, shared
// with postgres-restart.test.ts. Redis is the shared one (own prefix).
import { CI, redisAvailable } from '../helpers/services.ts';
import { databaseRestartSuite } from '../helpers/team/db-restart.ts';
import { hasFlock } from '../helpers/team/gate.ts';
import { hasMariadbServer, PrivateMariaDb } from '../helpers/private-servers.ts';

// Off CI a machine without Redis, mariadbd / mariadb-install-db or flock(1) skips this file; under
// CI=true redisAvailable() throws and a missing program fails when it is used.
const runnable = (await redisAvailable()) && ((hasMariadbServer && hasFlock) || CI);

databaseRestartSuite({
  product: 'MariaDB',
  skipWhy: runnable ? undefined : 'needs Redis, flock(1), mariadbd and mariadb-install-db',
  create: (root) => PrivateMariaDb.create(root),
  outageWords: /MySQL|ECONNREFUSED|PROTOCOL_CONNECTION_LOST|connect/i,
});
