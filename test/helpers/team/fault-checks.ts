// Checks for a team under a fault (a service killed, flushed, restarted) while work runs: that
// work goes on after it, that running tasks are not misjudged meanwhile, and that they lived
// through it as the processes they started as.
import { TEAM_CONFIG, type Team } from './harness.ts';
import type { Execution } from './trace.ts';

/** How long the scheduler may take to misjudge a live worker or task, were it going to: both windows and a check. */
export const MISJUDGE_WINDOW_MS =
  3 * (TEAM_CONFIG.workerHeartbeatMs as number) +
  2.5 * (TEAM_CONFIG.taskHeartbeatMs as number) +
  2 * (TEAM_CONFIG.workerHeartbeatMs as number);

/** Waits until an instance of the runs starts after `since` (the work goes on after a fault); returns when it started. */
export async function waitForProgressAfter(
  team: Team,
  runIds: number[],
  since: number,
  timeoutMs: number,
): Promise<number> {
  return team.waitFor(
    async () => {
      const started = (await team.instances(runIds)).map((i) => i.startedAt ?? 0).filter((t) => t > since);
      return started.length > 0 ? Math.min(...started) : undefined;
    },
    { timeoutMs, intervalMs: 100, message: 'an instance to start after the fault' },
  );
}

/**
 * Watches for `ms` that check() finds nothing wrong (it returns a problem, or undefined), and
 * fails at the first problem: for claims of the form "nothing happens to them meanwhile".
 */
export async function holdsFor(
  team: Team,
  ms: number,
  what: string,
  check: () => Promise<string | undefined>,
): Promise<void> {
  const until = Date.now() + ms;
  const outcome = await team.waitFor(async () => (await check()) ?? (Date.now() >= until ? 'held' : undefined), {
    timeoutMs: ms + 30_000,
    intervalMs: 200,
    message: `${what} for ${ms} ms`,
  });
  if (outcome !== 'held') throw new Error(`${what}: ${outcome}\n${team.nodeLogs()}`);
}

/** A problem unless the run's instances are exactly its first attempts, all RUNNING. */
export async function stillRunningFirstAttempts(
  team: Team,
  runId: number,
  tasks: string[],
): Promise<string | undefined> {
  const instances = await team.store.listInstances(runId);
  const ok = instances.length === tasks.length && instances.every((i) => i.state === 'RUNNING' && i.attempt === 1);
  return ok
    ? undefined
    : `run #${runId}: ${instances.map((i) => `${i.taskName}#${i.attempt}=${i.state}${i.reason ? ` (${i.reason})` : ''}`).join(', ')}`;
}

/** The executions of a run that were alive over all of [from, to]. */
export function aliveThrough(team: Team, runId: number, from: number, to: number): Execution[] {
  return team.executions().filter((e) => e.runId === runId && e.start < from && (e.end ?? Infinity) > to);
}
