// The SSO settings of a team server (settings.json keys oidc-*, or AX_OIDC_* variables): which
// OpenID provider, which client, how its groups become roles. The client secret is never a
// setting: oidc-client-secret-file names a private file (mode 0600, this user's, no link:
// private-file.ts) that holds it, so it is in no settings.json, argv or `ax settings` output.
import { AxError } from '../../api/errors.ts';
import { parseRoleMap, type RoleMap } from '../../core/access/sso-claims.ts';
import type { OidcConfig } from '../../server/oidc.ts';
import { readPrivateFile } from './private-file.ts';

export type { OidcConfig };

export const OIDC_KEYS = [
  'oidc-issuer',
  'oidc-client-id',
  'oidc-client-secret-file',
  'oidc-role-map',
  'oidc-groups-claim',
  'oidc-username-claim',
  'oidc-label',
  'oidc-redirect-url',
] as const;
export type OidcKey = (typeof OIDC_KEYS)[number];

export const OIDC_DEFAULTS = { 'oidc-groups-claim': 'groups', 'oidc-label': 'Sign in with SSO' } as const;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Plain http is allowed only to a provider on this machine (a test, a local provider): elsewhere it is https. */
export function isLoopbackUrl(url: URL): boolean {
  return LOOPBACK.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}

function url(key: OidcKey, value: string, issuer: boolean): URL {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new AxError(
      'validation',
      `${key} must be an absolute URL such as https://sso.example.com/realms/main, not "${value}"`,
    );
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new AxError('validation', `${key} must be an https:// URL, not "${value}"`);
  if (issuer && parsed.protocol === 'http:' && !isLoopbackUrl(parsed))
    throw new AxError(
      'validation',
      `${key} must be https:// (plain http is allowed only for a provider on 127.0.0.1 or localhost): "${value}"`,
    );
  if (parsed.hash || (issuer && parsed.search))
    throw new AxError('validation', `${key} must have no ${parsed.hash ? '#fragment' : '?query'}: "${value}"`);
  if (parsed.username || parsed.password)
    throw new AxError('validation', `${key} must hold no user name or password: "${value}"`);
  return parsed;
}

/** Checks one value as `ax settings set` stores it; throws what to fix. */
export function checkOidcSetting(key: OidcKey, value: string): void {
  if (value.trim() === '')
    throw new AxError('validation', `${key} must not be empty: "ax settings unset ${key}" removes it`);
  if (key === 'oidc-issuer') url(key, value, true);
  if (key === 'oidc-redirect-url') {
    const u = url(key, value, false);
    if (u.pathname !== '/auth/oidc/callback')
      throw new AxError(
        'validation',
        `oidc-redirect-url must end in /auth/oidc/callback (the path this server answers), e.g. https://scheduler.example.com/auth/oidc/callback: "${value}"`,
      );
  }
  if (key === 'oidc-role-map') parseRoleOrThrow(value);
  if (key === 'oidc-client-secret-file' && !value.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(value))
    throw new AxError('validation', `oidc-client-secret-file must be an absolute path, not "${value}"`);
}

function parseRoleOrThrow(value: string): RoleMap {
  try {
    return parseRoleMap(value);
  } catch (err) {
    throw new AxError('validation', (err as Error).message);
  }
}

/**
 * The SSO configuration from the effective settings (flag, environment, file, default), or
 * undefined when oidc-issuer is not set. Something half set is refused, naming what is missing.
 */
export function oidcConfig(
  settings: ReadonlyArray<{ key: string; value: string | undefined }>,
): OidcConfig | undefined {
  const get = (key: OidcKey): string | undefined => {
    const value = settings.find((s) => s.key === key)?.value;
    if (value !== undefined) checkOidcSetting(key, value);
    return value;
  };
  const issuer = get('oidc-issuer');
  if (issuer === undefined) {
    const stray = OIDC_KEYS.filter((k) => k !== 'oidc-issuer' && !(k in OIDC_DEFAULTS) && get(k) !== undefined);
    if (stray.length > 0)
      throw new AxError(
        'validation',
        `${stray.join(', ')} ${stray.length > 1 ? 'are' : 'is'} set but oidc-issuer is not: set it ("ax settings set oidc-issuer https://sso.example.com/realms/main") or unset ${stray.join(', ')}`,
      );
    return undefined;
  }
  const clientId = get('oidc-client-id');
  const roleMap = get('oidc-role-map');
  const missing = [!clientId && 'oidc-client-id', !roleMap && 'oidc-role-map'].filter(Boolean);
  if (missing.length > 0)
    throw new AxError(
      'validation',
      `single sign-on needs ${missing.join(' and ')} beside oidc-issuer: e.g. "ax settings set oidc-client-id ax-scheduler", "ax settings set oidc-role-map platform=admin,data-team=editor" (README "Single sign-on")`,
    );
  const secretFile = get('oidc-client-secret-file');
  let clientSecret: string | undefined;
  if (secretFile !== undefined) {
    const text = readPrivateFile(secretFile);
    if (text === undefined)
      throw new AxError(
        'storage',
        `oidc-client-secret-file ${secretFile} does not exist: write the client secret there (umask 077; printf %s "$SECRET" > ${secretFile})`,
      );
    clientSecret = text.trim();
    if (clientSecret === '') throw new AxError('validation', `oidc-client-secret-file ${secretFile} is empty`);
  }
  const redirect = get('oidc-redirect-url');
  return {
    issuer: url('oidc-issuer', issuer, true),
    clientId: clientId as string,
    ...(clientSecret !== undefined && { clientSecret }),
    roleMap: parseRoleOrThrow(roleMap as string),
    groupsClaim: get('oidc-groups-claim') ?? OIDC_DEFAULTS['oidc-groups-claim'],
    ...(get('oidc-username-claim') !== undefined && { usernameClaim: get('oidc-username-claim') }),
    label: get('oidc-label') ?? OIDC_DEFAULTS['oidc-label'],
    ...(redirect !== undefined && { redirectUrl: url('oidc-redirect-url', redirect, false) }),
  };
}
