// A team-mode API server in the test process for the people tests: a real team engine (a fresh
// MariaDB database, its own Redis prefix) with its accounts service, served by startApiServer with
// accounts on; the node's own API token gives an admin client to make users, groups and tokens.
import fs from 'node:fs';
import type { Role, TokenScope } from '../../../engine/api/access.ts';
import type { Engine } from '../../../engine/core/engine.ts';
import { openTeamEngine } from '../../../engine/hosts/node/team.ts';
import { connectApi, type RemoteApi } from '../../../engine/server/ws-client.ts';
import { type ApiServer, type ApiServerOptions, startApiServer } from '../../../engine/server/ws-server.ts';
import { tempDir } from '../files.ts';
import { createTestDatabase, deleteRedisPrefix, REDIS_URL, uniqueName } from '../services.ts';
import { TEAM_CONFIG } from './harness.ts';

export const NODE_TOKEN = 'node-api-token-0123456789abcdef012345';
export const WEBHOOK_TOKEN = 'webhook-file-token-0123456789abcdef';
export const METRICS_TOKEN = 'metrics-file-token-0123456789abcdef';
/** every test account's password */
export const PASSWORD = 'correct horse battery staple';

export interface AuthServer {
  engine: Engine;
  server: ApiServer;
  base: string;
  wsUrl: string;
  /** the team database */
  mysqlUrl: string;
  /** the server node's data dir (its team secret key goes here) */
  dataDir: string;
  /** the node's own admin over the API (the data dir's token) */
  admin: RemoteApi;
  /** makes a user and a token with the scopes of their role (or the given ones); answers the token */
  person(name: string, role: Role, groups?: string[], scopes?: TokenScope[], workflow?: string): Promise<string>;
  close(): Promise<void>;
}

export async function openAuthServer(name: string, extra: Partial<ApiServerOptions> = {}): Promise<AuthServer> {
  const database = await createTestDatabase(`axt_${name.replace(/\W/g, '_')}`);
  const dataDir = tempDir(`ax-auth-${name}-`);
  const prefix = `${uniqueName(`axt_${name}`)}:`;
  let engine: Engine | undefined;
  let server: ApiServer | undefined;
  try {
    engine = await openTeamEngine({
      mysqlUrl: database.url,
      redisUrl: REDIS_URL,
      redisPrefix: prefix,
      // a scheduler that runs no task: runs get their instances, nothing runs them
      role: 'scheduler',
      schedulerWorks: false,
      dataDir,
      config: TEAM_CONFIG,
    });
    await engine.start();
    if (!engine.authenticator) throw new Error('a team engine without an authenticator: accounts are not wired');
    const live = engine;
    server = await startApiServer({
      api: live,
      token: NODE_TOKEN,
      accounts: live.authenticator,
      webhookToken: () => WEBHOOK_TOKEN,
      metrics: { metrics: live.metrics, auth: () => ({ token: METRICS_TOKEN }) },
      ...extra,
    });
    const s = server;
    const base = `http://127.0.0.1:${s.port}`;
    const wsUrl = `ws://127.0.0.1:${s.port}/api`;
    const admin = await connectApi(wsUrl, NODE_TOKEN);
    return {
      engine: live,
      server: s,
      base,
      wsUrl,
      mysqlUrl: database.url,
      dataDir,
      admin,
      async person(user, role, groups = [], scopes, workflow) {
        const known = (await admin.listUsers()).some((u) => u.name === user);
        if (!known) await admin.addUser({ name: user, role, groups, password: PASSWORD }, 'test');
        const all: TokenScope[] = (['read', 'run', 'edit', 'admin'] as const).slice(
          0,
          ['viewer', 'operator', 'editor', 'admin'].indexOf(role) + 1,
        );
        const made = await admin.createToken(
          {
            name: `t-${uniqueName('tok').slice(-8)}`,
            user,
            scopes: scopes ?? all,
            ...(workflow !== undefined && { workflow }),
          },
          'test',
        );
        return made.token;
      },
      async close() {
        admin.close();
        await s.close();
        await live.stop(0);
        await live.dispose();
        await database.drop();
        await deleteRedisPrefix(prefix);
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await server?.close();
    await engine?.dispose();
    await database.drop();
    throw err;
  }
}
