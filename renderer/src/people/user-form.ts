// The rules the people forms check before sending, the same the accounts service enforces
// (engine/api/access.ts): names, passwords of at least MIN_PASSWORD_LENGTH, groups, token names.
import type { TFunction } from 'i18next';
import type { Rule } from 'antd/es/form';
import {
  MIN_PASSWORD_LENGTH,
  ROLES,
  scopesOfRole,
  TOKEN_SCOPES,
  type Role,
  type TokenScope,
} from '../../../engine/api/access.ts';

/** names as the accounts service accepts them (core/access/access-rules.ts) */
export const NAME_PATTERNS = {
  user: /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$/,
  group: /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/,
  token: /^[A-Za-z0-9][A-Za-z0-9._@:+-]{0,99}$/,
} as const;
export type NameKind = keyof typeof NAME_PATTERNS;
/** the characters each kind allows besides letters and digits, for the message */
export const NAME_EXTRA_CHARS: Record<NameKind, string> = { user: '. _ @ + -', group: '. _ -', token: '. _ @ : + -' };

export function nameProblem(name: string, kind: NameKind): 'required' | 'pattern' | undefined {
  if (!name.trim()) return 'required';
  return NAME_PATTERNS[kind].test(name.trim()) ? undefined : 'pattern';
}

export function passwordProblem(password: string): 'required' | 'short' | undefined {
  if (!password) return 'required';
  return password.length < MIN_PASSWORD_LENGTH ? 'short' : undefined;
}

export function passwordRules(t: TFunction): Rule[] {
  return [
    {
      validator: (_, value: string | undefined) => {
        const problem = passwordProblem(value ?? '');
        return problem
          ? Promise.reject(new Error(t(`password.${problem}`, { min: MIN_PASSWORD_LENGTH })))
          : Promise.resolve();
      },
    },
  ];
}

export function nameRules(t: TFunction, field: NameKind): Rule[] {
  return [
    {
      validator: (_, value: string | undefined) => {
        const problem = nameProblem(value ?? '', field);
        return problem
          ? Promise.reject(
              new Error(t(`name.${problem}`, { what: t(`name.${field}`), chars: NAME_EXTRA_CHARS[field] })),
            )
          : Promise.resolve();
      },
    },
  ];
}

/** "data-team, billing " → ['data-team', 'billing']; bad: those that are not group names */
export function parseNames(text: string | string[] | undefined): { names: string[]; bad: string[] } {
  const parts = (Array.isArray(text) ? text : (text ?? '').split(',')).map((s) => s.trim()).filter(Boolean);
  const names = [...new Set(parts)];
  return { names, bad: names.filter((n) => !NAME_PATTERNS.group.test(n)) };
}

export const ALL_ROLES: readonly Role[] = ROLES;

/**
 * The scopes a token of a person of `role` may carry (the service refuses more): their role's API
 * scopes, plus metrics, events and worker for operators and up; worker tokens are made by admins.
 */
export function scopesAllowed(role: Role, callerRole: Role): TokenScope[] {
  const scopes: TokenScope[] = scopesOfRole(role);
  if (role !== 'viewer') scopes.push('metrics', 'events');
  if (role !== 'viewer' && callerRole === 'admin') scopes.push('worker');
  return TOKEN_SCOPES.filter((s) => scopes.includes(s));
}

/** the lifetimes offered for a token, in days (the service allows at most 366) */
export const TOKEN_LIFETIMES_DAYS = [7, 30, 90, 366] as const;
export const DAY_MS = 24 * 60 * 60 * 1000;
