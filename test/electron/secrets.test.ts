// The desktop app's secrets (team connection strings) on the fake safeStorage: stored encrypted
// in <userData>/secrets.json (0600), never in plain text; shown masked; a Linux session with only
// the 'basic_text' backend is reported as plain text; nothing is stored where encryption is not
// available; a changed keyring makes a value unreadable, not wrong. Then the boundary on the real
// engine host (child_process.fork): the decrypted strings arrive in its environment, the engine
// shows them masked, and its tasks never see them.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SecretStore } from '../../electron/secret-store.ts';
import { DESKTOP_SECRETS_ENV } from '../../engine/api/host-protocol.ts';
import { type ForkedEngineHost, forkEngineHost } from '../../engine/hosts/port/fork-host.ts';
import { takeDesktopHostSecrets } from '../../engine/hosts/port/host-secrets.ts';
import { tempDir } from '../helpers/files.ts';
import { killStrays } from '../helpers/processes.ts';
import { FakeSafeStorage } from '../helpers/fake-electron.ts';
import { FAST_CONFIG } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

const MYSQL = 'mysql://ax:s3cr3t-pw@db.example:3306/ax';
const REDIS = 'redis://:r3dis-pw@cache.example:6379';
const TASK_VALUE = 'task-secret-9c1e77';

function store(options: { platform?: NodeJS.Platform; safe?: FakeSafeStorage } = {}) {
  const userData = tempDir('ax-secrets-');
  const safe = options.safe ?? new FakeSafeStorage();
  return {
    userData,
    safe,
    secrets: new SecretStore(safe, userData, options.platform ?? 'linux', path.join(userData, 'data')),
  };
}

describe('secret store', () => {
  it('keeps team connection strings encrypted in <userData>/secrets.json (0600), and shows them masked', () => {
    const { userData, secrets } = store();
    const status = secrets.set('mysql', MYSQL);
    secrets.set('redis', REDIS);
    const file = path.join(userData, 'secrets.json');
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain('s3cr3t-pw');
    expect(text).not.toContain('r3dis-pw');
    expect(text).not.toContain('db.example');
    expect(Object.keys(JSON.parse(text) as object).sort()).toEqual(['mysql', 'redis']);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(status).toMatchObject({
      backend: 'gnome_libsecret',
      plaintext: false,
      available: true,
      stored: { mysql: 'mysql://ax:***@db.example:3306/ax' },
      file,
      dataDir: path.join(userData, 'data'),
    });
    expect(secrets.status().stored).toEqual({
      mysql: 'mysql://ax:***@db.example:3306/ax',
      redis: 'redis://:***@cache.example:6379',
    });
  });

  it('gives the host the decrypted strings in one environment variable, and forgets one on null', () => {
    const { secrets } = store();
    expect(secrets.hostEnv()).toEqual({});
    secrets.set('mysql', MYSQL);
    secrets.set('redis', REDIS);
    expect(JSON.parse(secrets.hostEnv()[DESKTOP_SECRETS_ENV]!)).toEqual({ mysql: MYSQL, redis: REDIS });
    secrets.set('redis', null);
    expect(JSON.parse(secrets.hostEnv()[DESKTOP_SECRETS_ENV]!)).toEqual({ mysql: MYSQL });
    expect(secrets.status().stored).toEqual({ mysql: 'mysql://ax:***@db.example:3306/ax' });
  });

  // Skipped on Windows only: a symbolic link there needs a privilege or Developer Mode, so the
  // planted link cannot be made by a plain test process.
  it.skipIf(process.platform === 'win32')(
    'a secrets.json link (planted by another user) is neither read nor written through: the set replaces the link',
    () => {
      const { userData, secrets } = store();
      const planted = store();
      // Their file holds their own sealed connection string: read through the link, it would be ours.
      planted.secrets.set('mysql', 'mysql://ax:theirs@evil.example:3306/ax');
      const theirs = path.join(planted.userData, 'secrets.json');
      const before = fs.readFileSync(theirs, 'utf8');
      const file = path.join(userData, 'secrets.json');
      fs.symlinkSync(theirs, file);
      expect(secrets.status().stored).toEqual({});
      expect(secrets.hostEnv()).toEqual({});
      secrets.set('mysql', MYSQL);
      expect(fs.lstatSync(file).isFile()).toBe(true);
      expect(fs.readFileSync(theirs, 'utf8')).toBe(before);
      expect(secrets.status().stored).toEqual({ mysql: 'mysql://ax:***@db.example:3306/ax' });
    },
  );

  it("says plainly when Linux has only the 'basic_text' backend (no keyring)", () => {
    const { safe, secrets } = store();
    safe.backend = 'basic_text';
    expect(secrets.set('mysql', MYSQL)).toMatchObject({ backend: 'basic_text', plaintext: true, available: true });
  });

  it('reports the OS keychain on macOS and Windows (where Electron names no backend)', () => {
    for (const platform of ['darwin', 'win32'] as const)
      expect(store({ platform }).secrets.status()).toMatchObject({ backend: 'os', plaintext: false });
  });

  it('stores nothing where encryption is not available, and says what to do instead', () => {
    const { userData, safe, secrets } = store();
    safe.available = false;
    expect(() => secrets.set('mysql', MYSQL)).toThrow(/AX_MYSQL_URL/);
    expect(fs.existsSync(path.join(userData, 'secrets.json'))).toBe(false);
    expect(secrets.status()).toMatchObject({ backend: 'unavailable', available: false, stored: {} });
  });

  it('reports a value it can no longer decrypt (the keyring changed) as unreadable, and passes nothing for it', () => {
    const { safe, secrets } = store();
    secrets.set('mysql', MYSQL);
    safe.key = 0x33;
    secrets.set('redis', REDIS);
    expect(secrets.status()).toMatchObject({
      stored: { redis: 'redis://:***@cache.example:6379' },
      unreadable: ['mysql'],
    });
    expect(JSON.parse(secrets.hostEnv()[DESKTOP_SECRETS_ENV]!)).toEqual({ redis: REDIS });
  });

  it('refuses keys it does not keep', () => {
    const { secrets } = store();
    expect(() => secrets.set('password' as 'mysql', 'x')).toThrow(/unknown secret "password"/);
  });

  it('keeps a join through a server: the address in the clear, the token as its last 4 characters only; refuses what cannot work', () => {
    const { userData, secrets } = store();
    const token = 'axt_0123456789abcdefWXYZ';
    secrets.set('server', 'https://scheduler.example:8443');
    const status = secrets.set('token', token);
    expect(status.stored).toEqual({ server: 'https://scheduler.example:8443', token: '••••WXYZ' });
    expect(JSON.stringify(status)).not.toContain('0123456789');
    expect(fs.readFileSync(path.join(userData, 'secrets.json'), 'utf8')).not.toContain(token);
    expect(secrets.teamValues()).toEqual({ server: 'https://scheduler.example:8443', token });
    expect(JSON.parse(secrets.hostEnv()[DESKTOP_SECRETS_ENV]!)).toEqual({
      server: 'https://scheduler.example:8443',
      token,
    });
    expect(() => secrets.set('server', 'scheduler.example:8443')).toThrow(
      /^the server's address starts with https:\/\//,
    );
    expect(() => secrets.set('server', 'not a url')).toThrow(/is not a URL: give the team node's address/);
    expect(() => secrets.set('server', 'https://me:pw@scheduler.example')).toThrow(/carries no user or password/);
    expect(() => secrets.set('token', 'axt_a b')).toThrow(/a token has no spaces/);
    expect(() => secrets.set('caFile', 'team-ca.pem')).toThrow(/by its full path/);
    // nothing refused was stored
    expect(secrets.status().stored).toEqual({ server: 'https://scheduler.example:8443', token: '••••WXYZ' });
    expect(secrets.set('token', null).stored).toEqual({ server: 'https://scheduler.example:8443' });
  });

  it('keeps task secrets encrypted beside the connection strings, lists names only, and hands the values to the host', () => {
    const { userData, safe, secrets } = store();
    secrets.set('mysql', MYSQL);
    const status = secrets.setTask('api-token', TASK_VALUE, 1_000);
    const text = fs.readFileSync(path.join(userData, 'secrets.json'), 'utf8');
    expect(text).not.toContain(TASK_VALUE);
    expect(status.taskSecrets).toEqual([{ name: 'api-token', setAt: 1_000 }]);
    expect(JSON.stringify(status)).not.toContain(TASK_VALUE);
    expect(secrets.taskValues()).toEqual({ 'api-token': TASK_VALUE });
    expect(JSON.parse(secrets.hostEnv()[DESKTOP_SECRETS_ENV]!)).toEqual({
      mysql: MYSQL,
      tasks: { 'api-token': TASK_VALUE },
    });
    expect(() => secrets.setTask('bad name', 'x')).toThrow(/not a valid secret name/);
    // A changed keyring: listed as unreadable, not passed on.
    safe.key = 0x33;
    expect(secrets.status().taskSecrets).toEqual([{ name: 'api-token', setAt: 1_000, unreadable: true }]);
    expect(secrets.taskValues()).toEqual({});
    safe.key = 0x5a;
    expect(secrets.setTask('api-token', null).taskSecrets).toEqual([]);
    expect(Object.keys(JSON.parse(fs.readFileSync(path.join(userData, 'secrets.json'), 'utf8')) as object)).toEqual([
      'mysql',
    ]);
    safe.available = false;
    expect(() => secrets.setTask('api-token', 'x')).toThrow(/ax --data-dir .* secrets set api-token/);
    // The node's secrets audit log (the one `ax secrets` writes): names and actions, no value.
    const audit = fs.readFileSync(path.join(userData, 'data', 'task-secrets.audit.log'), 'utf8');
    expect(audit).not.toContain(TASK_VALUE);
    expect(
      audit
        .trim()
        .split('\n')
        .map((l) => {
          const e = JSON.parse(l) as { action: string; name: string; actor: string };
          return [e.action, e.name, e.actor.endsWith('(desktop app)')];
        }),
    ).toEqual([
      ['secret.set', 'api-token', true],
      ['secret.remove', 'api-token', true],
    ]);
  });
});

describe("the engine host's side", () => {
  it('takes the variable out of the environment, keeping only the connection strings', () => {
    const env: NodeJS.ProcessEnv = {
      [DESKTOP_SECRETS_ENV]: JSON.stringify({ mysql: MYSQL, redis: '', token: 'x' }),
      PATH: '/bin',
    };
    expect(takeDesktopHostSecrets({ ...env }).settings).toEqual({ mysql: MYSQL });
    expect(takeDesktopHostSecrets(env).team).toEqual({ mysql: MYSQL, token: 'x' });
    expect(env).toEqual({ PATH: '/bin' });
    expect(takeDesktopHostSecrets({ [DESKTOP_SECRETS_ENV]: 'not json' }).settings).toEqual({});
    expect(takeDesktopHostSecrets({}).settings).toEqual({});
    const withTasks: NodeJS.ProcessEnv = {
      [DESKTOP_SECRETS_ENV]: JSON.stringify({ tasks: { 'api-token': 'v', 'bad name': 'x', n: 1 } }),
    };
    expect(takeDesktopHostSecrets(withTasks)).toEqual({ settings: {}, team: {}, tasks: { 'api-token': 'v' } });
    // a join through a server: the address and token for the team, never settings of the solo engine
    const viaServer: NodeJS.ProcessEnv = {
      [DESKTOP_SECRETS_ENV]: JSON.stringify({ server: 'https://s.example', token: 't', caFile: 7, other: 'x' }),
    };
    expect(takeDesktopHostSecrets(viaServer)).toEqual({
      settings: {},
      team: { server: 'https://s.example', token: 't' },
      tasks: {},
    });
    expect(withTasks).toEqual({});
  });

  const root = tempDir('ax-secrets-host-');
  let host: ForkedEngineHost | undefined;
  afterAll(async () => {
    if (host && host.child.exitCode === null && host.child.signalCode === null) {
      host.child.kill('SIGKILL');
      await host.exited;
    }
    killStrays(root);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('receives the decrypted strings, shows them masked, and its tasks never see them', async () => {
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const { secrets } = store();
    secrets.set('mysql', MYSQL);
    secrets.setTask('api-token', TASK_VALUE);
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
    // AX_DATA_DIR: tasks inherit it, so killStrays finds them.
    host = forkEngineHost({
      dataDir,
      env: { ...env, AX_DATA_DIR: root, AX_ENGINE_CONFIG: JSON.stringify(FAST_CONFIG), ...secrets.hostEnv() },
    });
    await host.ready;
    const api = host.connect();
    const info = await api.engineInfo();
    expect(info.settings).toMatchObject({ mysql: 'mysql://ax:***@db.example:3306/ax' });
    expect(JSON.stringify(info)).not.toContain('s3cr3t-pw');

    const out = path.join(root, 'task-env.txt');
    const report = await api.validate({
      text: `workflow: show-env\ntasks:\n  env:\n    command: env > "${out}.tmp" && mv "${out}.tmp" "${out}"\n`,
    });
    expect(report.problems).toEqual([]);
    await api.apply(report.spec!, 'test');
    await api.runWorkflow('show-env', { actor: 'test' });
    const seen = await waitFor(() => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : undefined), {
      timeoutMs: 60_000,
      message: 'the task wrote its environment',
    });
    expect(seen).toContain('PATH=');
    expect(seen).not.toContain(DESKTOP_SECRETS_ENV);
    expect(seen).not.toContain('s3cr3t-pw');
    expect(host.stderr()).not.toContain('s3cr3t-pw');

    // A task secret from the shell: in the task's env (never the host's), masked in its log; a
    // changed value reaches the running host in a 'task-secrets' message.
    const got = path.join(root, 'task-secret.txt');
    const uses = await api.validate({
      text: `workflow: uses-secret\ntasks:\n  call:\n    command: echo "t=$API_TOKEN" && printf %s "$API_TOKEN" > "${got}.tmp" && mv "${got}.tmp" "${got}"\n    env:\n      API_TOKEN: { secret: api-token }\n`,
    });
    expect(uses.problems).toEqual([]);
    await api.apply(uses.spec!, 'test');
    const first = await api.runWorkflow('uses-secret', { actor: 'test' });
    expect(
      await waitFor(() => (fs.existsSync(got) ? fs.readFileSync(got, 'utf8') : undefined), {
        timeoutMs: 60_000,
        message: 'the task wrote its secret',
      }),
    ).toBe(TASK_VALUE);
    const inst = await waitFor(async () => (await api.getRun(first.id)).instances.find((i) => i.state === 'SUCCESS'), {
      timeoutMs: 30_000,
      message: 'the task succeeded',
    });
    const lines = (await api.readLogs(inst.id, 0, 100)).map((l) => l.line);
    expect(lines).toContain('t=***');
    expect(seen).not.toContain(TASK_VALUE);
    fs.rmSync(got);
    host.child.send({ type: 'task-secrets', values: { 'api-token': 'rotated-value' } });
    await api.runWorkflow('uses-secret', { actor: 'test' });
    expect(
      await waitFor(() => (fs.existsSync(got) ? fs.readFileSync(got, 'utf8') : undefined), {
        timeoutMs: 60_000,
        message: 'the task wrote its new secret',
      }),
    ).toBe('rotated-value');
    api.close();
    expect(await host.stop(5_000)).toEqual({ code: 0, signal: null });
  });
});
