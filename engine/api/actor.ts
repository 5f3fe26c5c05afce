// Who did something, as the engine's methods take it: a plain name (what every client sends),
// or, on a connection that authenticated its client, that identity with the client's own words
// kept apart as a note. The audit stores them in two columns, so the actor column is always the
// identity alone.

export interface NotedActor {
  /** the identity: what the audit's actor column holds */
  name: string;
  /** what the client said beside it ("webhook from 10.0.0.7"), if anything */
  note?: string;
}

export type Actor = string | NotedActor;

export function actorName(actor: Actor): string {
  return typeof actor === 'string' ? actor : actor.name;
}

/** the note, or null when there is none (the audit column's value) */
export function actorNote(actor: Actor): string | null {
  return typeof actor === 'string' || actor.note === undefined || actor.note === '' ? null : actor.note;
}
