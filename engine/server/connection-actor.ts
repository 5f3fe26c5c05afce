// Audit from the connection, not the client: the actor a request names is free text, so a client
// could sign its changes as anyone ("webhook from 10.0.0.7"). A transport that authenticated its
// client (the API token, a signed-in UI session) knows who it is; every actor parameter is
// replaced by that identity, and what the client wrote is kept apart as the entry's note (its own
// audit column), never in the identity's place.
import type { Principal } from '../api/access.ts';
import type { Actor } from '../api/actor.ts';
import type { ApiMethod } from '../api/engine-api.ts';

/** where each method's actor is: a parameter index, or a field of the parameter at that index */
const ACTOR_AT: Partial<Record<ApiMethod, number | [number, 'actor']>> = {
  apply: 1,
  applyMany: 1,
  importCrontab: 1,
  setEnabled: 2,
  removeWorkflow: 1,
  runWorkflow: [1, 'actor'],
  rerunTask: 2,
  rerunFailed: 1,
  cancelRun: [1, 'actor'],
  backfill: 1,
  cancelBackfill: 1,
  rerunBackfillFailed: 1,
  trigger: 2,
  setSchedulingPaused: 1,
  drainWorker: 1,
  testAlertChannel: 1,
  addUser: 1,
  updateUser: 2,
  removeUser: 1,
  changePassword: 2,
  setGroup: 1,
  createToken: 1,
  listTokens: 1,
  revokeToken: 2,
  signOutEverywhere: 1,
  setTeamSecret: 1,
  removeTeamSecret: 1,
};

const MAX_NOTE = 200;

/** what the client said about who it is: its name unless that is this identity, and its note */
function claimedText(claimed: unknown, known: string[]): string {
  const parts =
    typeof claimed === 'string'
      ? [claimed]
      : typeof claimed === 'object' && claimed !== null
        ? [(claimed as { name?: unknown }).name, (claimed as { note?: unknown }).note]
        : [];
  return parts
    .map((p) => (typeof p === 'string' ? p.trim() : ''))
    .filter((p) => p !== '' && !known.includes(p))
    .join('; ');
}

/** the identity, with what the client claimed as its note when it says something else */
export function recordedActor(identity: string, claimed: unknown, alsoKnownAs: string[] = []): Actor {
  const note = claimedText(claimed, [identity, ...alsoKnownAs]);
  return note === '' ? identity : { name: identity, note: note.slice(0, MAX_NOTE) };
}

/**
 * team mode: the signed-in user, with the role they were admitted with and their address, for the
 * audit, and their groups, for the group rules the engine checks itself (a team secret's group)
 */
export function principalActor(principal: Principal, claimed: unknown, alsoKnownAs: string[] = []): Actor {
  const recorded = recordedActor(principal.user, claimed, alsoKnownAs);
  return {
    ...(typeof recorded === 'string' ? { name: recorded } : recorded),
    role: principal.role,
    groups: principal.groups,
    ...(principal.address !== undefined && { address: principal.address }),
  };
}

/** The checked parameters with every actor replaced by the connection's identity (see recordedActor). */
export function withConnectionActor(
  method: ApiMethod,
  params: unknown[],
  identity: { name: string; alsoKnownAs?: string[]; principal?: Principal },
): unknown[] {
  const at = ACTOR_AT[method];
  if (at === undefined) return params;
  const actor = (claimed: unknown) =>
    identity.principal
      ? principalActor(identity.principal, claimed, identity.alsoKnownAs)
      : recordedActor(identity.name, claimed, identity.alsoKnownAs);
  const out = [...params];
  if (typeof at === 'number') out[at] = actor(out[at]);
  else {
    const options = { ...(out[at[0]] as Record<string, unknown>) };
    options.actor = actor(options.actor);
    out[at[0]] = options;
  }
  return out;
}
