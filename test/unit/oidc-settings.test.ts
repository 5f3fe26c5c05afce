// The SSO configuration from the settings: all or nothing, the secret only from a private file,
// plain http only to a provider on this machine.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { oidcConfig } from '../../engine/hosts/node/oidc-settings.ts';
import { tempDir } from '../helpers/files.ts';

const dir = tempDir('ax-oidc-settings-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const settings = (values: Record<string, string>) => Object.entries(values).map(([key, value]) => ({ key, value }));
const base = {
  'oidc-issuer': 'https://sso.example.com/realms/main',
  'oidc-client-id': 'ax',
  'oidc-role-map': 'platform=admin,data-team=editor',
};

describe('oidcConfig', () => {
  it('is undefined without an issuer, with the defaults when set', () => {
    expect(oidcConfig(settings({ 'oidc-groups-claim': 'groups', 'oidc-label': 'Sign in with SSO' }))).toBeUndefined();
    const c = oidcConfig(settings(base));
    expect(c?.issuer.href).toBe('https://sso.example.com/realms/main');
    expect(c).toMatchObject({ clientId: 'ax', groupsClaim: 'groups', label: 'Sign in with SSO' });
    expect(c?.clientSecret).toBeUndefined();
    expect(c?.redirectUrl).toBeUndefined();
    expect([...(c?.roleMap ?? [])]).toEqual([
      ['platform', 'admin'],
      ['data-team', 'editor'],
    ]);
  });

  it('refuses a half configuration, naming what is missing', () => {
    expect(() => oidcConfig(settings({ 'oidc-issuer': base['oidc-issuer'] }))).toThrow(
      /single sign-on needs oidc-client-id and oidc-role-map beside oidc-issuer/,
    );
    expect(() => oidcConfig(settings({ 'oidc-client-id': 'ax' }))).toThrow(
      /oidc-client-id is set but oidc-issuer is not/,
    );
  });

  it('a redirect URL must be the callback path of this server', () => {
    expect(() => oidcConfig(settings({ ...base, 'oidc-redirect-url': 'https://ax.example.com/callback' }))).toThrow(
      /oidc-redirect-url must end in \/auth\/oidc\/callback/,
    );
    expect(
      oidcConfig(settings({ ...base, 'oidc-redirect-url': 'https://ax.example.com/auth/oidc/callback' }))?.redirectUrl
        ?.href,
    ).toBe('https://ax.example.com/auth/oidc/callback');
  });

  it('plain http only for a provider on 127.0.0.1 or localhost', () => {
    expect(oidcConfig(settings({ ...base, 'oidc-issuer': 'http://127.0.0.1:9000/' }))?.issuer.host).toBe(
      '127.0.0.1:9000',
    );
    expect(() => oidcConfig(settings({ ...base, 'oidc-issuer': 'http://sso.internal/' }))).toThrow(
      /oidc-issuer must be https:\/\/ \(plain http is allowed only for a provider on 127.0.0.1 or localhost\)/,
    );
  });

  it('reads the client secret from a private file, and refuses one others can read', () => {
    const file = path.join(dir, 'secret');
    fs.writeFileSync(file, 's3cret\n', { mode: 0o600 });
    expect(oidcConfig(settings({ ...base, 'oidc-client-secret-file': file }))?.clientSecret).toBe('s3cret');
    fs.chmodSync(file, 0o644);
    expect(() => oidcConfig(settings({ ...base, 'oidc-client-secret-file': file }))).toThrow(
      /can be read or written by other users \(mode 0644\): make it private with chmod 600/,
    );
    expect(() => oidcConfig(settings({ ...base, 'oidc-client-secret-file': path.join(dir, 'none') }))).toThrow(
      /does not exist: write the client secret there/,
    );
  });
});
