// The CLI against a team server (issue 25, parts 4 and 6), with real processes: a team scheduler
// `ax serve --listen 127.0.0.1:0 --tls-cert --tls-key` (a CA made by the test) on MariaDB + Redis;
// people with accounts sign in from config homes of their own, with NO MySQL or Redis settings:
// `ax login URL --ca-file --password-stdin`, `ax whoami`, `ax ls`, `ax run`, a refusal for a
// viewer (exit 8, with the role it needs), `ax logout` revoking the token on the server (exit 9
// after it). The solo version and the plain-HTTP refusal: test/e2e/cli-login-tls.test.ts.
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/core/engine.ts';
import { openTeamEngine } from '../../engine/hosts/node/team.ts';
import { type AxOptions, type AxResult, childEnv, killAllAx } from '../helpers/ax.ts';
import { SpawnedProcess } from '../helpers/processes.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { SKIP_REASON, Team, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import { buildBundle } from '../helpers/team/team-process.ts';
import { makeCertificates, type TestCertificates } from '../helpers/tls-certs.ts';

const available = await teamServicesAvailable();
const PASSWORD = 'correct horse battery staple';
/** the sources bundled once: an `ax` of it starts in a fraction of the time tsx takes */
let bundle: string;

/** `ax ARGS` of the bundle, in the background, with the environment of AxOptions (no team settings) */
function axStart(args: string[], o: AxOptions): SpawnedProcess {
  return new SpawnedProcess(process.execPath, [bundle, ...args], {
    cwd: o.cwd ?? o.dataDir,
    env: childEnv(o),
    ...(o.input !== undefined && { input: o.input }),
    label: `ax ${args.join(' ')}`,
  });
}
const ax = (args: string[], o: AxOptions): Promise<AxResult> => axStart(args, o).result(120_000);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** What a browser does at the server: an https request trusting the test's CA. */
function browse(
  url: string,
  o: { ca: string; method?: string; cookie?: string; origin?: string; form?: string; json?: unknown },
): Promise<Answer> {
  const body = o.form ?? (o.json === undefined ? undefined : JSON.stringify(o.json));
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: o.method ?? 'GET',
        ca: fs.readFileSync(o.ca),
        headers: {
          ...(o.cookie && { cookie: o.cookie }),
          ...(o.origin && { origin: o.origin }),
          ...(body !== undefined && {
            'content-type': o.form !== undefined ? 'application/x-www-form-urlencoded' : 'application/json',
          }),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += String(c)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// Skipped only off CI without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)(`ax login against a team server over TLS (${available ? 'runs' : SKIP_REASON})`, () => {
  let team: Team;
  let certs: TestCertificates;
  let origin: string;
  let admin: Engine;

  /** a person on another machine: a data dir and config home of their own, and no AX_* of the team */
  const person = (name: string) => {
    const home = path.join(team.dir, `home-${name}`);
    fs.mkdirSync(path.join(home, 'data'), { recursive: true, mode: 0o700 });
    return { dataDir: path.join(home, 'data'), cwd: home, env: { XDG_CONFIG_HOME: path.join(home, 'config') } };
  };
  const login = (name: string, password = PASSWORD) =>
    ax(['login', origin, '--ca-file', certs.ca, '--user', name, '--password-stdin'], {
      ...person(name),
      input: password,
    });

  beforeAll(async () => {
    bundle = await buildBundle();
    team = await Team.open('cli-login');
    certs = makeCertificates(path.join(team.dir, 'certs'));
    const node = team.spawn(
      'scheduler',
      ['serve', '--role', 'scheduler', '--listen', '127.0.0.1:0', '--tls-cert', certs.cert, '--tls-key', certs.key],
      { AXT_WORKER: 'scheduler' },
      { role: 'scheduler' },
    );
    const line = await node.waitForLine(/^ax serve: team .* API wss:\/\/127\.0\.0\.1:(\d+)\/api/, 90_000);
    origin = `https://127.0.0.1:${/:(\d+)\/api/.exec(line.text)?.[1]}`;
    admin = await openTeamEngine({
      mysqlUrl: team.mysqlUrl,
      redisUrl: team.redisUrl,
      redisPrefix: team.prefix,
      role: 'client',
      dataDir: team.dataDir,
    });
    // on the node, with the database's credentials: `ax users add` (the others in-process, faster)
    const added = await ax(['users', 'add', 'anna', '--role', 'operator', '--password-stdin'], {
      dataDir: team.dataDir,
      cwd: team.dir,
      env: { AX_MODE: 'team', ...team.databaseEnv(), AX_REDIS_URL: team.redisUrl, AX_REDIS_PREFIX: team.prefix },
      input: `${PASSWORD}\n`,
    });
    expect(added.code, added.stderr).toBe(0);
    await admin.addUser({ name: 'vic', role: 'viewer', password: PASSWORD }, 'cli-login test');
    await team.apply({ workflow: 'nightly', tasks: { hello: { command: 'echo hello from the team' } } });
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await killAllAx();
    await admin?.dispose().catch(() => undefined);
    await team?.close();
    if (bundle) fs.rmSync(bundle, { force: true });
  });

  it(
    'an operator signs in with a password, works through the server, and signs out (the token revoked)',
    async () => {
      const me = person('anna');
      const wrong = await login('anna', 'not the password at all');
      expect(wrong.code).toBe(9);
      expect(wrong.stderr).toMatch(/wrong user name or password/);

      const signed = await login('anna');
      expect(signed.stderr).toBe('');
      expect(signed.code).toBe(0);
      expect(signed.stdout).toContain(`signed in to ${origin} as anna (operator)`);
      const file = path.join(me.env.XDG_CONFIG_HOME, 'ax', 'servers.json');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const token = (JSON.parse(fs.readFileSync(file, 'utf8')) as { servers: Record<string, { token: string }> })
        .servers[origin]?.token as string;
      expect(token).toMatch(/^axt_/);

      const who = await ax(['--json', 'whoami'], me);
      expect(who.code).toBe(0);
      expect(JSON.parse(who.stdout)).toMatchObject({
        server: origin,
        user: 'anna',
        role: 'operator',
        token: `cli@${os.hostname()}`,
        expiresAt: expect.stringMatching(/^\d{4}-/),
      });

      const listed = await ax(['ls'], me);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain('nightly');
      const run = await ax(['run', 'nightly', '--wait'], me);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      // the audit names her, as the server saw her
      const audit = await team.store.listAudit(50);
      expect(audit).toContainEqual(
        expect.objectContaining({ actor: expect.stringMatching(/^anna\b/), role: 'operator', address: '127.0.0.1' }),
      );

      // an editor's change is refused, saying what it needs (exit 8)
      const spec = path.join(me.cwd, 'nightly.yaml');
      fs.writeFileSync(spec, "workflow: nightly\ntasks:\n  hello:\n    command: 'echo changed'\n");
      const apply = await ax(['apply', spec], me);
      expect(apply.code).toBe(8);
      expect(apply.stderr).toMatch(/editor/);

      const out = await ax(['logout'], me);
      expect(out.code).toBe(0);
      expect(out.stdout).toContain('its token was revoked on the server');
      const after = await ax(['ls', '--server', origin], me);
      expect(after.code).toBe(9);
      expect(after.stderr).toMatch(/not signed in to .*ax login/);
      // the server refuses the old token too: it was revoked, not only forgotten here
      // (no profile keeps the CA now: Node's NODE_EXTRA_CA_CERTS trusts it for this one)
      const revoked = await ax(['ls', '--server', origin], {
        ...me,
        env: { ...me.env, AX_TOKEN: token, NODE_EXTRA_CA_CERTS: certs.ca },
      });
      expect(revoked.code).toBe(9);
      expect(revoked.stderr).toContain(`sign in again: ax login ${origin}`);
    },
    TEST_TIMEOUT_MS * 2,
  );

  it(
    'a viewer reads but is refused a run with the role it needs (exit 8)',
    async () => {
      const me = person('vic');
      expect((await login('vic')).code).toBe(0);
      expect((await ax(['ls'], me)).code).toBe(0);
      const run = await ax(['run', 'nightly'], me);
      expect(run.code).toBe(8);
      expect(run.stderr).toMatch(/^ax: .*operator/m);
      expect(run.stderr).toMatch(/viewer/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a browser sign-in: the person approves the code on the server page (signed in there), once',
    async () => {
      const me = person('bea');
      await admin.addUser({ name: 'bea', role: 'editor', password: PASSWORD }, 'cli-login test');
      const cli = axStart(['login', origin, '--ca-file', certs.ca, '--browser', '--no-open'], me);
      const shown = await cli.waitForLine(/^To sign in, open (\S+)$/, 60_000, 'stderr');
      const link = /open (\S+)$/.exec(shown.text)?.[1] as string;
      expect(link).toMatch(new RegExp(`^${origin}/auth/device\\?code=[A-Z2-9]{4}-[A-Z2-9]{4}$`));
      const code = new URL(link).searchParams.get('code') as string;

      // not signed in in this browser: told to sign in first, nothing approved
      const anonymous = await browse(link, { ca: certs.ca });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toContain('Sign in first');
      // signed in with a password (the UI's own sign-in)
      const signIn = await browse(`${origin}/auth/login`, {
        ca: certs.ca,
        method: 'POST',
        origin,
        json: { user: 'bea', password: PASSWORD },
      });
      expect(signIn.status).toBe(204);
      const cookie = String(signIn.headers['set-cookie']).split(';')[0] as string;
      const shownPage = await browse(link, { ca: certs.ca, cookie });
      expect(shownPage.status).toBe(200);
      expect(shownPage.body).toContain(code);
      expect(shownPage.body).toContain('<b>bea</b> (editor)');
      // an approval from another site's page is refused (CSRF), and changes nothing
      const form = `code=${code}&decision=approve`;
      const forged = await browse(`${origin}/auth/device/approve`, {
        ca: certs.ca,
        method: 'POST',
        cookie,
        origin: 'https://evil.example',
        form,
      });
      expect(forged.status).toBe(403);
      const approved = await browse(`${origin}/auth/device/approve`, {
        ca: certs.ca,
        method: 'POST',
        cookie,
        origin,
        form,
      });
      expect(approved.status).toBe(200);
      expect(approved.body).toContain('Approved');

      const done = await cli.result(60_000);
      expect(done.code).toBe(0);
      expect(done.stdout).toContain(`signed in to ${origin} as bea (editor)`);
      const who = await ax(['--json', 'whoami'], me);
      expect(JSON.parse(who.stdout)).toMatchObject({ user: 'bea', role: 'editor', token: `cli@${os.hostname()}` });
      // single use: the code is gone
      const again = await browse(link, { ca: certs.ca, cookie });
      expect(again.status).toBe(410);
    },
    TEST_TIMEOUT_MS,
  );
});
