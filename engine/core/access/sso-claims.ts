// What an OpenID provider's claims mean in AX (issue 25, SSO): the configured group → role map
// (settings key oidc-role-map, e.g. "platform=admin,data-team=editor,analysts=viewer"), and the
// claims of one sign-in turned into the SsoIdentity the accounts service signs in.
//
// Rules (README "Single sign-on (OpenID Connect)"):
// - the role is the highest role any of the user's provider groups maps to; none mapped: refused;
// - the user's AX groups are the provider groups that appear in the map (a provider sends many
//   groups of its own, "default-roles-…", "offline_access"; only the ones an admin named count,
//   so an owner group or a private group's membership is always one the admin chose);
// - the name: the claim oidc-username-claim names, else preferred_username, else email, else sub.
import { ROLES, type Role, roleAtLeast } from '../../api/access.ts';
import { checkGroups } from './access-rules.ts';
import type { SsoIdentity } from './authenticator.ts';

export type RoleMap = ReadonlyMap<string, Role>;

/** Parses "group=role,group=role"; a mistake throws a message that says what to fix. */
export function parseRoleMap(text: string): RoleMap {
  const map = new Map<string, Role>();
  const example = 'e.g. "platform=admin,data-team=editor,analysts=viewer"';
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const at = entry.lastIndexOf('=');
    if (at <= 0)
      throw new Error(`oidc-role-map: "${entry}" is not GROUP=ROLE (${example}; roles: ${ROLES.join(', ')})`);
    const group = entry.slice(0, at).trim();
    const role = entry.slice(at + 1).trim();
    if (!(ROLES as readonly string[]).includes(role))
      throw new Error(`oidc-role-map: "${role}" (for group ${group}) is not a role: use one of ${ROLES.join(', ')}`);
    if (map.has(group)) throw new Error(`oidc-role-map: group "${group}" is mapped twice: keep one of its entries`);
    // A mapped group becomes an AX group (a workflow's owner): it must be one AX can name.
    try {
      checkGroups([group]);
    } catch (err) {
      throw new Error(
        `oidc-role-map: ${(err as Error).message}${group.startsWith('/') ? ' (Keycloak: turn "Full group path" off in the groups mapper)' : ''}`,
      );
    }
    map.set(group, role as Role);
  }
  if (map.size === 0) throw new Error(`oidc-role-map is empty: map at least one provider group to a role (${example})`);
  return map;
}

/** The map as written back (for `ax settings` and the refusal page). */
export function formatRoleMap(map: RoleMap): string {
  return [...map].map(([g, r]) => `${g}=${r}`).join(',');
}

export interface ClaimRules {
  roleMap: RoleMap;
  /** the claim holding the groups; a dotted path reaches into an object (Keycloak: realm_access.roles) */
  groupsClaim: string;
  /** the claim holding the account name; undefined: preferred_username, else email, else sub */
  usernameClaim?: string;
}

function claimAt(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  if (name in claims) return claims[name];
  let value: unknown = claims;
  for (const part of name.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Whether the claims hold NAME (a dotted path reaches into objects). */
export function hasClaim(claims: Readonly<Record<string, unknown>>, name: string): boolean {
  return claimAt(claims, name) !== undefined;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** The provider's groups as given: an array of strings, or one string (some providers send one group so). */
export function groupsOf(claims: Readonly<Record<string, unknown>>, groupsClaim: string): string[] {
  const value = claimAt(claims, groupsClaim);
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (!Array.isArray(value)) return [];
  return value.filter((g): g is string => typeof g === 'string' && g !== '');
}

/**
 * The identity one sign-in's claims give; `error` when no name can be found (the configured claim
 * missing). A user whose groups map to no role gets role undefined: the caller refuses them.
 */
export function identityFromClaims(
  claims: Readonly<Record<string, unknown>>,
  rules: ClaimRules,
): { identity: SsoIdentity } | { error: string } {
  let name: string | undefined;
  if (rules.usernameClaim !== undefined) {
    name = text(claimAt(claims, rules.usernameClaim));
    if (name === undefined)
      return {
        error: `the provider sent no "${rules.usernameClaim}" claim (oidc-username-claim): add it to the client's claims at the provider, or change oidc-username-claim`,
      };
  } else {
    name = text(claims.preferred_username) ?? text(claims.email) ?? text(claims.sub);
    if (name === undefined) return { error: 'the provider sent neither preferred_username, email nor sub' };
  }
  const given = groupsOf(claims, rules.groupsClaim);
  const groups = [...new Set(given.filter((g) => rules.roleMap.has(g)))].sort();
  let role: Role | undefined;
  for (const g of groups) {
    const mapped = rules.roleMap.get(g) as Role;
    if (role === undefined || roleAtLeast(mapped, role)) role = mapped;
  }
  return { identity: { name, groups, role } };
}
