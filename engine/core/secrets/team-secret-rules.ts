// Who may change a team secret, and which workflows may use one (issue 25 part 9). The API's
// authorizer checks the role and the group a request names (method-rules.ts METHOD_RULES); what it
// cannot see is the group a secret already belongs to, which these rules check in the engine:
// an editor may not replace, remove or move out a secret of a group they are not in.
import { type Role, roleAtLeast } from '../../api/access.ts';
import type { Actor } from '../../api/actor.ts';

const quoteList = (groups: readonly string[]) =>
  groups.length === 0 ? 'none' : groups.map((g) => `"${g}"`).join(', ');

/**
 * Why this caller may not change (set or remove) secret `name`, now in group `current` (null: no
 * group; undefined: no such secret yet), to group `next` (undefined for a removal); undefined
 * when they may. A caller with no role is the node itself (a solo host, a CLI with the data
 * dir's credentials): an admin.
 */
export function changeRefusal(
  actor: Actor,
  name: string,
  current: string | null | undefined,
  next: string | null | undefined,
): string | undefined {
  if (typeof actor === 'string' || actor.role === undefined) return undefined;
  const role = actor.role as Role;
  if (role === 'admin') return undefined;
  if (!roleAtLeast(role, 'editor'))
    return `changing team secrets needs the editor role (in the secret's group) or admin; ${actor.name} is ${role}`;
  const groups = actor.groups ?? [];
  if (current && !groups.includes(current))
    return `team secret "${name}" belongs to group "${current}": only admins and editors in "${current}" may replace, move or remove it (${actor.name}'s groups: ${quoteList(groups)})`;
  if (next && !groups.includes(next))
    return `only admins and editors in group "${next}" may set its secrets (${actor.name}'s groups: ${quoteList(groups)})`;
  return undefined;
}

/**
 * Why workflow `workflow` (owned by `owner`) may not use team secret `name` of group `group`;
 * undefined when it may: a secret of no group serves every workflow, a group's only its own.
 */
export function useRefusal(
  name: string,
  group: string | null,
  workflow: string,
  owner: string | null | undefined,
): string | undefined {
  if (group === null || owner === group) return undefined;
  const owned = owner ? `is owned by group "${owner}"` : 'has no owner group';
  return `team secret "${name}" belongs to group "${group}" and workflow "${workflow}" ${owned}: only workflows owned by "${group}" may use it (give the workflow owner: ${group}, or use a secret of its own group)`;
}
