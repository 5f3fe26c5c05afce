// `ax serve` in team mode with single sign-on set up the way a user does it (the oidc-* settings,
// the client secret in a private file): its start lines say so, the sign-in page is told, and a
// person signs in through the real provider; a half configuration stops the start with the fix.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, startTestProvider, type TestProvider, throughProvider } from '../helpers/oidc-provider.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { Team, TEAM_CONFIG, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';

const available = await teamServicesAvailable();

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)('ax serve with single sign-on', () => {
  let team: Team;
  let provider: TestProvider;
  let port: number;

  beforeAll(async () => {
    team = await Team.open('oidc_serve', { config: TEAM_CONFIG });
    port = await freePort();
    provider = await startTestProvider([`http://127.0.0.1:${port}/auth/oidc/callback`]);
  });
  afterAll(async () => {
    await team?.close();
    await provider?.close();
  });

  it(
    'reads the oidc-* settings, says so at start, and signs a person in through the provider',
    async () => {
      // The data dir exists once an ax command has run there; the secret file beside it.
      fs.mkdirSync(team.dataDir, { recursive: true, mode: 0o700 });
      const secretFile = path.join(team.dataDir, 'oidc-secret');
      fs.writeFileSync(secretFile, `${provider.clientSecret}\n`, { mode: 0o600 });
      const settings = await team.ax(['settings', 'set', 'oidc-client-secret-file', secretFile]);
      expect(settings.code, settings.stderr).toBe(0);
      const sso = {
        AX_OIDC_ISSUER: provider.issuer,
        AX_OIDC_CLIENT_ID: provider.clientId,
        AX_OIDC_ROLE_MAP: 'ops=operator,platform=admin',
        AX_OIDC_LABEL: 'Sign in with Example',
      };

      // Half set: the start stops and says what is missing.
      const half = await team
        .spawn('half', ['serve', '--role', 'client', '--port', String(port)], { AX_OIDC_ISSUER: provider.issuer })
        .result(60_000);
      expect(half.code).not.toBe(0);
      expect(half.stderr).toContain('single sign-on needs oidc-client-id and oidc-role-map beside oidc-issuer');

      const node = team.spawn('client', ['serve', '--role', 'client', '--port', String(port)], sso);
      await node.waitForLine(/^single sign-on: "Sign in with Example" on the sign-in page/, 90_000);
      const ax = `http://127.0.0.1:${port}`;
      expect(await (await fetch(`${ax}/auth/config`)).json()).toMatchObject({ sso: { label: 'Sign in with Example' } });

      provider.people.set('olga', { groups: ['ops'] });
      const browser = new Browser();
      const start = await browser.fetch(`${ax}/auth/oidc/start?return=/workers`);
      const { res } = await throughProvider(
        browser,
        start.headers.get('location') as string,
        'olga',
        `${ax}/auth/oidc/callback`,
      );
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/workers');
      const session = await browser.fetch(`${ax}/auth/session`);
      expect(await session.json()).toMatchObject({ user: 'olga', role: 'operator', groups: ['ops'], via: 'session' });
    },
    TEST_TIMEOUT_MS,
  );
});
