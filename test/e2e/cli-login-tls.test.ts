// The CLI against a server over TLS (issue 25, parts 4 and 6), with real processes: `ax serve
// --listen --tls-cert --tls-key` with a certificate of a CA the test makes; a person with a
// config home of their own signs in with `ax login URL --ca-file`, and their commands go through
// that server; `ax logout` forgets the sign-in. Plain HTTP from beyond loopback is refused, and a
// trusted proxy's X-Forwarded-* are believed while nobody else's are. The team version (accounts,
// a viewer refused) is in test/team/cli-login-team.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { apiToken } from '../../engine/hosts/node/data-dir.ts';
import { ax, killAllAx } from '../helpers/ax.ts';
import { tempDir } from '../helpers/files.ts';
import { killStrays } from '../helpers/processes.ts';
import { type ServeProcess, startServe } from '../helpers/serve.ts';
import { makeCertificates, nonLoopbackAddress, type TestCertificates } from '../helpers/tls-certs.ts';

let root: string;
let certs: TestCertificates;
/** each `ax` costs seconds on a loaded two-core machine; a scenario runs up to a dozen */
const SCENARIO_MS = 240_000;

beforeAll(() => {
  root = tempDir('ax-cli-login-tls-');
  certs = makeCertificates(path.join(root, 'certs'));
});

afterAll(async () => {
  await killAllAx();
  killStrays(root);
  fs.rmSync(root, { recursive: true, force: true });
});

/** A data dir for `ax serve` (private, as AX wants it). */
function dataDir(name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { mode: 0o700 });
  return dir;
}

describe('a solo ax serve over TLS, used from another config home', () => {
  let served: string;
  let serve: ServeProcess;
  let origin: string;
  // the person at the other end: their own data dir and config home, and no server's secrets
  const me = () => ({
    dataDir: path.join(root, 'me'),
    cwd: root,
    env: { XDG_CONFIG_HOME: path.join(root, 'me-config') },
  });
  const profileFile = () => path.join(root, 'me-config', 'ax', 'servers.json');

  beforeAll(async () => {
    served = dataDir('served');
    fs.mkdirSync(path.join(root, 'me'), { mode: 0o700 });
    serve = await startServe({ dataDir: served, cwd: root }, [
      '--listen',
      '127.0.0.1:0',
      '--tls-cert',
      certs.cert,
      '--tls-key',
      certs.key,
    ]);
    origin = `https://127.0.0.1:${serve.port}`;
    // with --listen the first "ax serve:" line startServe waits for is the listen note, printed
    // before the API and sign-in lines: wait for the last of those the tests read
    await serve.waitForLine(/^open https:/, 10_000, 'stdout');
  });

  it('serves wss, and the CLI on its own data dir reaches it pinned to the certificate file', async () => {
    expect(serve.stdout).toContain(`API wss://127.0.0.1:${serve.port}/api`);
    expect(serve.stdout).toContain(`open https://127.0.0.1:${serve.port}/#code=`);
    const local = await ax(['ls'], { dataDir: served, cwd: root });
    expect(local.stderr).toBe('');
    expect(local.code).toBe(0);
  });

  it('refuses a sign-in over a certificate it cannot trust, and says --ca-file', async () => {
    const r = await ax(['login', origin, '--token-stdin'], { ...me(), input: apiToken(served) });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/TLS certificate is not trusted .*--ca-file/);
    expect(fs.existsSync(profileFile())).toBe(false);
  });

  it(
    'signs in, works through the server, signs out',
    async () => {
      const login = await ax(['login', `${origin}/`, '--ca-file', certs.ca, '--token-stdin'], {
        ...me(),
        input: `${apiToken(served)}\n`,
      });
      expect(login.stderr).toBe('');
      expect(login.code).toBe(0);
      expect(login.stdout).toMatch(new RegExp(`^signed in to ${origin} as \\S+ \\(admin`));
      // the token is the server's own: kept private, and trusted with the CA given
      expect(fs.statSync(profileFile()).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(profileFile())).mode & 0o777).toBe(0o700);
      const saved = JSON.parse(fs.readFileSync(profileFile(), 'utf8')) as {
        default: string;
        servers: Record<string, { ca?: string }>;
      };
      expect(saved.default).toBe(origin);
      expect(saved.servers[origin]?.ca).toContain('BEGIN CERTIFICATE');

      const who = await ax(['whoami'], me());
      expect(who.code).toBe(0);
      expect(who.stdout).toContain(`server:  ${origin} (the default server`);
      expect(who.stdout).toMatch(/^role: {4}admin$/m);

      const file = path.join(root, 'remote-hello.yaml');
      fs.writeFileSync(file, "workflow: remote-hello\ntasks:\n  hello:\n    command: 'echo hello over tls'\n");
      const applied = await ax(['apply', file], me());
      expect(applied.stderr).toBe('');
      expect(applied.code).toBe(0);
      const run = await ax(['run', 'remote-hello', '--wait'], me());
      expect(run.code).toBe(0);
      // it ran on the server: the served data dir has it, the person's own does not
      const there = await ax(['--json', 'runs', 'remote-hello'], { dataDir: served, cwd: root });
      expect(JSON.parse(there.stdout)).toEqual([
        expect.objectContaining({ workflowName: 'remote-hello', state: 'SUCCESS' }),
      ]);
      const listed = await ax(['ls'], me());
      expect(listed.stdout).toContain('remote-hello');
      expect((await ax(['ls', '--server', 'local'], me())).stdout).not.toContain('remote-hello');

      // a token the server does not take: told to sign in again (exit 9)
      const wrong = await ax(['ls'], { ...me(), env: { ...me().env, AX_TOKEN: 'not-the-token-0123456789abcdef' } });
      expect(wrong.code).toBe(9);
      expect(wrong.stderr).toContain(`sign in again: ax login ${origin}`);

      const out = await ax(['logout'], me());
      expect(out.code).toBe(0);
      expect(out.stdout).toMatch(new RegExp(`^signed out of ${origin}`));
      expect(JSON.parse(fs.readFileSync(profileFile(), 'utf8'))).toEqual({ servers: {} });
      // named, the server now wants a sign-in first
      const after = await ax(['ls', '--server', origin], me());
      expect(after.code).toBe(9);
      expect(after.stderr).toMatch(
        new RegExp(`not signed in to ${origin} \\(--server\\): sign in with "ax login ${origin}"`),
      );
    },
    SCENARIO_MS,
  );

  it(
    're-reads its certificate on SIGHUP: a client trusting only the old CA is then refused',
    async () => {
      const login = await ax(['login', origin, '--ca-file', certs.ca, '--token-stdin'], {
        ...me(),
        input: apiToken(served),
      });
      expect(login.code).toBe(0);
      const next = makeCertificates(path.join(root, 'certs-next'));
      fs.copyFileSync(next.cert, certs.cert);
      fs.copyFileSync(next.key, certs.key);
      serve.kill('SIGHUP');
      await serve.waitForLine(/SIGHUP received: settings reloaded \(.*TLS certificate/, 20_000, 'stdout');
      const old = await ax(['whoami'], me());
      expect(old.code).toBe(5);
      expect(old.stderr).toMatch(/TLS certificate is not trusted/);
      const renewed = await ax(['login', origin, '--ca-file', next.ca, '--token-stdin'], {
        ...me(),
        input: apiToken(served),
      });
      expect(renewed.code).toBe(0);
      expect((await ax(['whoami'], me())).code).toBe(0);
    },
    SCENARIO_MS,
  );
});

describe('ax serve refuses TLS flags it cannot use, before its engine starts', () => {
  it(
    'names the file that is missing or not PEM, and the flag that lacks its pair',
    async () => {
      const dir = dataDir('bad-tls');
      const missing = await ax(
        ['serve', '--listen', '127.0.0.1:0', '--tls-cert', path.join(root, 'nope.pem'), '--tls-key', certs.key],
        {
          dataDir: dir,
          cwd: root,
        },
      );
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/--tls-cert .*nope\.pem: cannot read the certificate \(ENOENT\)/);
      const swapped = await ax(['serve', '--tls-cert', certs.key, '--tls-key', certs.cert], {
        dataDir: dir,
        cwd: root,
      });
      expect(swapped.code).toBe(2);
      expect(swapped.stderr).toMatch(/--tls-cert .*server\.key: holds no "BEGIN CERTIFICATE" block: is it the key\?/);
      const alone = await ax(['serve', '--tls-cert', certs.cert], { dataDir: dir, cwd: root });
      expect(alone.code).toBe(2);
      expect(alone.stderr).toContain('--tls-cert needs --tls-key FILE too');
    },
    SCENARIO_MS,
  );
});

/** The status (and body) of a WebSocket upgrade: 101 when it opened. */
function upgrade(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('open', () => {
      ws.close();
      resolve({ status: 101, body: '' });
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += String(c)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('error', reject);
  });
}

describe('plain HTTP beyond loopback', async () => {
  const address = await nonLoopbackAddress();
  const reason = 'this machine has no non-loopback IPv4 address to reach the server "from elsewhere"';
  if (!address && process.env.CI === 'true')
    throw new Error(`under CI the plain-HTTP refusal must be tested: ${reason}`);
  let port: number;

  beforeAll(async () => {
    if (!address) return;
    const dir = dataDir('plain');
    port = (await startServe({ dataDir: dir, cwd: root }, ['--listen', '0.0.0.0:0', '--trust-proxy', '127.0.0.1/32']))
      .port;
  });

  // Skipped only on a machine with no non-loopback IPv4 address (nowhere to come from but loopback, which is allowed plain HTTP); the reason is in the title.
  it.skipIf(!address)(
    `is refused with what to do, to pages, clients and upgrades (skipped when ${reason})`,
    async () => {
      const json = await fetch(`http://${address}:${port}/auth/config`);
      expect(json.status).toBe(403);
      expect(((await json.json()) as { error: string }).error).toMatch(
        /plain HTTP is answered only on this machine.*ax serve --tls-cert FILE --tls-key FILE.*--trust-proxy/,
      );
      const page = await fetch(`http://${address}:${port}/`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(403);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toContain('<h1>Use https</h1>');
      const ws = await upgrade(`ws://${address}:${port}/api`);
      expect(ws.status).toBe(403);
      expect(ws.body).toContain('--tls-cert');
      // this machine itself is served
      expect((await fetch(`http://127.0.0.1:${port}/auth/config`)).status).toBe(200);
    },
  );

  // Skipped only on a machine with no non-loopback IPv4 address (nowhere to come from but loopback, which is allowed plain HTTP); the reason is in the title.
  it.skipIf(!address)(
    'believes the trusted proxy on 127.0.0.1: plain http it forwards from afar is refused, https passes',
    async () => {
      const via = (proto: string) =>
        fetch(`http://127.0.0.1:${port}/auth/config`, {
          headers: {
            'x-forwarded-for': '203.0.113.9',
            'x-forwarded-proto': proto,
            'x-forwarded-host': 'ax.example.com',
          },
        });
      expect((await via('http')).status).toBe(403);
      expect((await via('https')).status).toBe(200);
    },
  );
});
