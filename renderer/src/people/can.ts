// What the signed-in person may do, decided the way the server decides it (engine/api/access.ts
// METHOD_RULES): the weakest role a method needs, a token's scopes, and for a workflow change
// the workflow's owner group. Pure, so the same table the server enforces greys out the buttons;
// the server still checks every request (this only spares a person a refusal).
import type { ApiMethod } from '../../../engine/api/engine-api.ts';
import { roleAtLeast, type Principal, type Role, type TokenScope } from '../../../engine/api/access.ts';
import { METHOD_RULES } from '../../../engine/api/method-rules.ts';

export type Verdict =
  | { ok: true }
  | { ok: false; need: 'role'; role: Role; have: Role }
  | { ok: false; need: 'scope'; scope: TokenScope }
  | { ok: false; need: 'group'; group: string; groups: string[] };

const OK: Verdict = { ok: true };

/**
 * `owner`: the owner group of the workflow the call would change (its `owner`), for the methods
 * whose rule says ownerGroup; a workflow without one may be changed by any editor.
 */
export function canCall(principal: Principal | undefined, method: ApiMethod, owner?: string): Verdict {
  // not known yet (or solo's answer still on its way): the server decides
  if (!principal) return OK;
  const rule = METHOD_RULES[method];
  if (principal.role === 'admin' && principal.via !== 'token') return OK;
  if (!roleAtLeast(principal.role, rule.role))
    return { ok: false, need: 'role', role: rule.role, have: principal.role };
  if (principal.via === 'token' && principal.token && !principal.token.scopes.includes(rule.scope))
    return { ok: false, need: 'scope', scope: rule.scope };
  if (principal.role === 'admin') return OK;
  if (rule.ownerGroup && owner && !principal.groups.includes(owner))
    return { ok: false, need: 'group', group: owner, groups: principal.groups };
  return OK;
}

/** Known to be an admin (the Users page, everyone's tokens); false while not known yet. */
export function isAdmin(principal: Principal | undefined): boolean {
  return principal?.role === 'admin';
}

/** Known not to be an admin (admin-only screens are hidden); false while not known yet. */
export function knownNotAdmin(principal: Principal | undefined): boolean {
  return principal !== undefined && principal.role !== 'admin';
}

/** Whether this server has accounts: a person signed in (or a token), not solo's one local user. */
export function hasAccounts(principal: Principal | undefined): boolean {
  return principal !== undefined && principal.via !== 'local';
}
