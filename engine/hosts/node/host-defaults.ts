// What an engine's pure core asks its host for (see core/engine-deps.ts), as a Node process has
// them: every engine a Node host builds, and every test that builds one, takes these.
import os from 'node:os';
import { soloAccess } from '../../core/access/solo-access.ts';
import type { EngineDeps } from '../../core/engine-deps.ts';

/** The machine's zone, as Node reads it (TZ, else the system's); UTC when it has none. */
export const hostZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** After what the event loop has due (timers, I/O): setImmediate, not a microtask. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** `access`: one local admin, the OS user (team.ts puts the team's accounts service over it). */
export function nodeHostDefaults(): Pick<EngineDeps, 'zone' | 'random' | 'nextTurn' | 'access'> {
  return { zone: hostZone, random: Math.random, nextTurn, access: soloAccess(os.userInfo().username) };
}
