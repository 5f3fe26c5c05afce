// Who did something, as the engine's methods take it: a plain name (what every client sends),
// or, on a connection that authenticated its client, that identity with the client's own words
// kept apart as a note. The audit stores them in two columns, so the actor column is always the
// identity alone.

export interface NotedActor {
  /** the identity: what the audit's actor column holds */
  name: string;
  /** what the client said beside it ("webhook from 10.0.0.7"), if anything */
  note?: string;
  /** the role the server admitted the caller with (team mode), for the audit */
  role?: string;
  /** the caller's source address, for the audit */
  address?: string;
  /**
   * the groups the server admitted the caller with (team mode): what the engine's own group
   * rules check (a team secret's group); absent with `role` absent: the node itself (admin)
   */
  groups?: string[];
}

export type Actor = string | NotedActor;

export function actorName(actor: Actor): string {
  return typeof actor === 'string' ? actor : actor.name;
}

/** the note, or null when there is none (the audit column's value) */
export function actorNote(actor: Actor): string | null {
  return typeof actor === 'string' || actor.note === undefined || actor.note === '' ? null : actor.note;
}

/** the audit's who-columns of an actor: identity, note, role and source address (null when unknown) */
export function actorColumns(actor: Actor): {
  actor: string;
  note: string | null;
  role: string | null;
  address: string | null;
} {
  const role = typeof actor === 'string' ? undefined : actor.role;
  const address = typeof actor === 'string' ? undefined : actor.address;
  return { actor: actorName(actor), note: actorNote(actor), role: role || null, address: address || null };
}
