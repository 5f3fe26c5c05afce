// `ax serve` in team mode admits people (hosts/node/local-api.ts gives the team engine's
// accounts to its API server): it says so at start; the data dir's API token is the node's own
// admin, who makes an account; that person signs in with a password and is refused what their
// role may not do, by name.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AxError } from '../../engine/api/errors.ts';
import { connectApi } from '../../engine/server/ws-client.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { SKIP_REASON, Team, TEAM_CONFIG, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';

const available = await teamServicesAvailable();
const PASSWORD = 'correct horse battery staple';

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)(`ax serve with accounts (${SKIP_REASON})`, () => {
  let team: Team;

  beforeAll(async () => {
    team = await Team.open('serve-accounts', { config: TEAM_CONFIG });
  });
  afterAll(async () => {
    await team?.close();
  });

  it(
    'the node token is its admin; a person signs in with a password and gets their role',
    async () => {
      const scheduler = await team.serve({ role: 'scheduler', name: 'sched', noWork: true });
      const line = await scheduler.waitForLine(/^accounts: people sign in at http:\/\/127\.0\.0\.1:\d+\//);
      const port = Number(/127\.0\.0\.1:(\d+)/.exec(line.text)?.[1]);
      const nodeToken = fs.readFileSync(path.join(team.dataDir, 'api-token'), 'utf8').trim();
      const node = await connectApi(`ws://127.0.0.1:${port}/api`, nodeToken);
      expect(await node.whoami()).toMatchObject({ role: 'admin', via: 'node' });
      await node.addUser({ name: 'dana', role: 'viewer', password: PASSWORD }, 'test');
      node.close();

      const login = await fetch(`http://127.0.0.1:${port}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user: 'dana', password: PASSWORD, name: 'laptop' }),
      });
      expect(login.status).toBe(200);
      const { token } = (await login.json()) as { token: string };
      const dana = await connectApi(`ws://127.0.0.1:${port}/api`, token);
      expect(await dana.whoami()).toMatchObject({ user: 'dana', role: 'viewer', via: 'token' });
      const refused = await dana.setSchedulingPaused(true, 'x').catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(AxError);
      expect((refused as AxError).code).toBe('forbidden');
      expect((refused as AxError).message).toBe('setSchedulingPaused needs the operator role (you are viewer)');
      dana.close();
    },
    TEST_TIMEOUT_MS,
  );
});
