// Single sign-on for a team server, from this node's settings (oidc-settings.ts): the SSO routes
// and what /auth/config says of them, for startApiServer. undefined when oidc-issuer is not set.
import type { AuthConfig } from '../../api/access.ts';
import type { Authenticator } from '../../core/access/authenticator.ts';
import type { OidcSignIn } from '../../server/oidc.ts';
import type { HttpRoute } from '../../server/ws-server.ts';
import { isLoopbackUrl, oidcConfig } from './oidc-settings.ts';
import { effectiveSettings } from './settings.ts';

export interface SsoServerParts {
  oidc: OidcSignIn;
  routes: HttpRoute[];
  authConfig: () => AuthConfig;
}

/** Before a team node opens its engine: a half or wrong SSO configuration stops the start with the fix. */
export function checkSsoSettings(dataDir: string, env: NodeJS.ProcessEnv = process.env): void {
  oidcConfig(effectiveSettings(dataDir, {}, env));
}

/**
 * Reads the oidc-* settings (a half or wrong configuration throws what to fix, before the server
 * starts) and starts discovering the provider; a provider that cannot be reached is said on `say`
 * and tried again at each sign-in, never a crash.
 */
export async function ssoServer(
  dataDir: string,
  accounts: Authenticator,
  say: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<SsoServerParts | undefined> {
  const config = oidcConfig(effectiveSettings(dataDir, {}, env));
  if (config === undefined) return undefined;
  // Loaded only when SSO is on: openid-client and its JOSE library stay out of every other ax command.
  const { OidcSignIn, oidcRoute } = await import('../../server/oidc.ts');
  const oidc = new OidcSignIn({ config, accounts, allowLoopbackHttp: isLoopbackUrl(config.issuer), log: say });
  void oidc.start();
  return {
    oidc,
    routes: [oidcRoute(oidc)],
    authConfig: () => ({ accounts: true, local: true, sso: oidc.authConfig() }),
  };
}
