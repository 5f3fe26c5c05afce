// What an SSO sign-in asks and where it may go: the return path is one of this server's (an open
// redirect would let a link to this server's sign-in forward a freshly signed-in person anywhere),
// the scopes are the provider's own, and the pages that say why a sign-in ended speak the browser's language.
import { describe, expect, it } from 'vitest';
import { pageLanguage } from '../../engine/server/oidc-pages.ts';
import { safeReturnPath, scopesFor } from '../../engine/server/oidc.ts';

describe('safeReturnPath', () => {
  it('keeps a path of this server, query and fragment included; nothing given is /', () => {
    expect(safeReturnPath('/runs?workflow=etl#last')).toBe('/runs?workflow=etl#last');
    expect(safeReturnPath('/')).toBe('/');
    expect(safeReturnPath(undefined)).toBe('/');
    expect(safeReturnPath(null)).toBe('/');
    expect(safeReturnPath('')).toBe('/');
    expect(safeReturnPath('/a/../b')).toBe('/b');
  });

  it.each([
    'https://evil.example/',
    '//evil.example/path',
    '/\\evil.example',
    '\\\\evil.example',
    'javascript:alert(1)',
    'runs',
    '/\tevil',
    '/ok\r\nSet-Cookie: x=1',
    ' /runs',
  ])('refuses %j', (raw) => {
    expect(safeReturnPath(raw)).toBeUndefined();
  });
});

describe('pageLanguage', () => {
  it('Chinese when asked before English, else English', () => {
    expect(pageLanguage('zh-CN,zh;q=0.9,en;q=0.8')).toBe('zh-CN');
    expect(pageLanguage('zh-TW')).toBe('zh-CN');
    expect(pageLanguage('en-US,zh-CN;q=0.5')).toBe('en');
    expect(pageLanguage('fr-FR')).toBe('en');
    expect(pageLanguage(undefined)).toBe('en');
  });
});

describe('scopesFor', () => {
  it('asks only for the scopes the provider offers (groups only when it says so)', () => {
    expect(scopesFor(['openid', 'profile', 'email', 'groups', 'offline_access'])).toBe('openid profile email groups');
    expect(scopesFor(['openid', 'email'])).toBe('openid email');
    expect(scopesFor(undefined)).toBe('openid profile email');
  });
});
