// ax login's profiles (server-profiles.ts) and which server a command goes through
// (remote-target.ts): the file's modes, its refusal when others can read it, and the precedence
// --server > AX_SERVER > local flags > AX_TOKEN on the default > the default profile > this machine.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { remoteTarget } from '../../engine/hosts/cli/remote-target.ts';
import { configDir, ServerProfiles, serverOrigin } from '../../engine/hosts/node/server-profiles.ts';
import { tempDir } from '../helpers/files.ts';

const root = tempDir('ax-profiles-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
/** a fresh config home per test */
const home = (): NodeJS.ProcessEnv => ({ XDG_CONFIG_HOME: path.join(root, `c${++n}`) });
const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe('server profiles', () => {
  it('keeps each server under its origin, in a 0600 file in a 0700 dir, the last sign-in the default', () => {
    const env = home();
    const profiles = new ServerProfiles(env);
    profiles.save({ url: 'https://A.example.com:8443/ui/', user: 'anna', token: 'axt_one', tokenName: 'cli@box' });
    profiles.save({ url: 'https://b.example.com', user: 'bo', token: 'axt_two' });
    expect(profiles.file).toBe(path.join(configDir(env), 'servers.json'));
    expect(mode(profiles.file)).toBe(0o600);
    expect(mode(configDir(env))).toBe(0o700);
    expect(profiles.defaultUrl()).toBe('https://b.example.com');
    expect(profiles.get('https://a.example.com:8443')?.token).toBe('axt_one');
    expect(profiles.remove('https://b.example.com')).toBe(true);
    expect(profiles.defaultUrl()).toBe('https://a.example.com:8443');
    expect(profiles.remove('https://a.example.com:8443')).toBe(true);
    expect(profiles.defaultUrl()).toBeUndefined();
  });

  it('refuses a file others can read, saying the fix', () => {
    const env = home();
    const profiles = new ServerProfiles(env);
    profiles.save({ url: 'https://a.example.com', user: 'anna', token: 'axt_one' });
    fs.chmodSync(profiles.file, 0o644);
    expect(() => profiles.get()).toThrow(/can be read or written by other users \(mode 0644\).*chmod 600/);
  });

  it('takes https anywhere and plain http only to this machine', () => {
    expect(serverOrigin('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
    expect(() => serverOrigin('http://scheduler:8080')).toThrow(/in the clear: use https:\/\/scheduler:8080/);
    expect(() => serverOrigin('scheduler:8443')).toThrow(/https/);
    expect(() => serverOrigin('not a url')).toThrow(/not a server URL/);
  });
});

describe('remoteTarget', () => {
  const signedIn = () => {
    const env = home();
    new ServerProfiles(env).save({ url: 'https://team.example.com', user: 'anna', token: 'axt_saved', ca: 'PEM' });
    return env;
  };

  it('is this machine when nobody signed in and nothing names a server', () => {
    expect(remoteTarget({}, home())).toBeUndefined();
  });

  it('goes to the default server, unless --data-dir/--mode flags or --server local say this machine', () => {
    const env = signedIn();
    expect(remoteTarget({}, env)).toMatchObject({
      origin: 'https://team.example.com',
      token: 'axt_saved',
      trust: { ca: 'PEM' },
    });
    expect(remoteTarget({ local: true }, env)).toBeUndefined();
    expect(remoteTarget({ server: 'local' }, env)).toBeUndefined();
  });

  it('--server beats AX_SERVER beats the profile; AX_TOKEN beats the stored token', () => {
    const env = { ...signedIn(), AX_SERVER: 'https://other.example.com', AX_TOKEN: 'axt_env' };
    expect(remoteTarget({ server: 'https://team.example.com', local: true }, env)).toMatchObject({
      origin: 'https://team.example.com',
      token: 'axt_env',
      chosenBy: '--server',
    });
    expect(remoteTarget({ local: true }, env)).toMatchObject({
      origin: 'https://other.example.com',
      chosenBy: 'AX_SERVER',
    });
    const tokenOnly = { ...signedIn(), AX_TOKEN: 'axt_env' };
    expect(remoteTarget({}, tokenOnly)).toMatchObject({ origin: 'https://team.example.com', token: 'axt_env' });
  });

  it('says how to sign in when a named server has no token, and that AX_TOKEN alone needs a server', () => {
    expect(() => remoteTarget({ server: 'https://x.example.com' }, home())).toThrow(
      /not signed in to https:\/\/x\.example\.com \(--server\): sign in with "ax login https:\/\/x\.example\.com"/,
    );
    expect(() => remoteTarget({}, { ...home(), AX_TOKEN: 'axt_x' })).toThrow(/AX_TOKEN is set but no server is named/);
  });
});
