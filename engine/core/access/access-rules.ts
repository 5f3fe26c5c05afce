// The checks of the people API's input (core/access/access-service.ts): names, passwords, token
// scopes against the user's role, token lifetimes. Pure; each refusal says what to fix.
import {
  MIN_PASSWORD_LENGTH,
  ROLES,
  type Role,
  roleAtLeast,
  scopesOfRole,
  TOKEN_SCOPES,
  type TokenScope,
} from '../../api/access.ts';
import { AxError } from '../../api/errors.ts';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$/;
const GROUP = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._@:+-]{0,99}$/;

export const DAY_MS = 24 * 60 * 60 * 1000;
/** a token's lifetime when none is asked for, and the longest one */
export const DEFAULT_TOKEN_LIFE_MS = 90 * DAY_MS;
export const MAX_TOKEN_LIFE_MS = 366 * DAY_MS;
/** a token's last use is written at most this often */
export const TOKEN_TOUCH_MS = 60_000;

export function checkUserName(name: string): void {
  if (!NAME.test(name)) {
    throw new AxError(
      'validation',
      `user name "${name.slice(0, 100)}": use 1 to 100 letters, digits and . _ @ + - (starting with a letter or digit)`,
    );
  }
}

export function checkRole(role: string): asserts role is Role {
  if (!(ROLES as readonly string[]).includes(role)) {
    throw new AxError('validation', `role "${role}": the roles are ${ROLES.join(', ')}`);
  }
}

export function checkGroups(groups: readonly string[]): string[] {
  for (const g of groups) {
    if (!GROUP.test(g)) {
      throw new AxError(
        'validation',
        `group "${g.slice(0, 100)}": use 1 to 100 letters, digits and . _ - (starting with a letter or digit)`,
      );
    }
  }
  return [...new Set(groups)].sort();
}

export function checkPassword(password: string | undefined): string {
  if (password === undefined || password.length < MIN_PASSWORD_LENGTH) {
    throw new AxError('validation', `a password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (password.length > 1024) throw new AxError('validation', 'a password may have at most 1024 characters');
  return password;
}

export function checkTokenName(name: string): void {
  if (!TOKEN_NAME.test(name)) {
    throw new AxError(
      'validation',
      `token name "${name.slice(0, 100)}": use 1 to 100 letters, digits and . _ @ : + - (starting with a letter or digit)`,
    );
  }
}

/**
 * The scopes a token of a user with `role` may carry, asked for by a caller who is an admin or
 * not: read/run/edit/admin up to the role; metrics and events for operators and up; worker for
 * operators and up, and only an admin creates one.
 */
export function checkScopes(scopes: readonly string[], role: Role, callerIsAdmin: boolean): TokenScope[] {
  if (scopes.length === 0) {
    throw new AxError('validation', `a token needs at least one scope: ${TOKEN_SCOPES.join(', ')}`);
  }
  for (const scope of scopes) {
    if (!(TOKEN_SCOPES as readonly string[]).includes(scope)) {
      throw new AxError('validation', `scope "${scope}": the scopes are ${TOKEN_SCOPES.join(', ')}`);
    }
  }
  const allowed: string[] = scopesOfRole(role);
  for (const scope of scopes) {
    if (scope === 'worker' && !callerIsAdmin) {
      throw new AxError('forbidden', 'only an admin creates a token with the worker scope');
    }
    const special = scope === 'worker' || scope === 'metrics' || scope === 'events';
    const ok = special ? roleAtLeast(role, 'operator') : allowed.includes(scope);
    if (!ok) {
      const needs = special ? 'operator' : ROLES[['read', 'run', 'edit', 'admin'].indexOf(scope)];
      throw new AxError(
        'forbidden',
        `scope ${scope} needs the role ${needs} or higher; the token's user is ${role} (a token never does more than its user)`,
      );
    }
  }
  return [...new Set(scopes)] as TokenScope[];
}

export function tokenExpiry(now: number, expiresInMs: number | undefined): number {
  const life = expiresInMs ?? DEFAULT_TOKEN_LIFE_MS;
  if (!Number.isFinite(life) || life <= 0 || life > MAX_TOKEN_LIFE_MS) {
    throw new AxError('validation', 'a token lasts more than 0 and at most 366 days: give --expires e.g. 30d');
  }
  return now + life;
}

export function utcDay(ms: number): number {
  return Math.floor(ms / DAY_MS);
}
