// The fault half of the team-sim benchmark (bench/team-sim.ts, `--sim-kill worker|leader|both`):
// while runs are being offered, kill -9 the process simulating the workers (and start it again,
// the same identities) and/or the scheduler holding the leader lease (found through the
// coordinator's lease, "<worker id>:<pid>"); the other scheduler must take over. The figures come
// from the database once every run has ended: lost and duplicated tasks, extra attempts (those of
// tasks whose worker was killed are expected, any other is a bug), the takeover time, the gap in
// dispatching, and throughput before and after.
import { REASONS } from '../engine/api/reasons.ts';
import { FAILOVER_PREFIX } from '../engine/core/model/backstops.ts';
import { type BenchOptions, fmt } from './util.ts';
import { sleep } from './team-load-common.ts';
import type { AxProcess } from './team-load-process.ts';
import type { BenchDb } from './team-load-db.ts';
import type { Team } from './team-load-team.ts';

export type Fault = 'worker' | 'leader';

const KILLS: Record<string, Fault[]> = { none: [], worker: ['worker'], leader: ['leader'], both: ['worker', 'leader'] };

/** The faults `--sim-kill` names: none (default), worker, leader or both. */
export function faultsOf(value: string | undefined): Fault[] {
  const faults = KILLS[value ?? 'none'];
  if (!faults) throw new Error(`--sim-kill must be none, worker, leader or both, got "${value}"`);
  return faults;
}

/** When each fault happened during one offered rate (epoch ms). */
export interface FaultEvents {
  workerKilledAt?: number;
  workerBackAt?: number;
  leaderKilledAt?: number;
  oldLeader?: string;
  newLeader?: string;
  /** the lease seen held by another scheduler */
  takeoverAt?: number;
}

/** The simulating process, replaced when it is killed and started again. */
export interface SimSlot {
  current: AxProcess;
}

async function killNine(p: AxProcess): Promise<void> {
  p.child.kill('SIGKILL');
  await p.exited;
}

async function killSimulator(t: Team, sim: SimSlot, events: FaultEvents, options: BenchOptions): Promise<void> {
  await killNine(sim.current);
  events.workerKilledAt = Date.now();
  const next = sim.current.respawn();
  t.workers.push(next); // stopped with the team
  sim.current = next;
  options.progress('team-sim: killed -9 the simulating worker process; starting it again (the same identities)');
  await next.waitForLine(/^ax serve: team /, 120_000);
  events.workerBackAt = Date.now();
}

async function killLeader(t: Team, events: FaultEvents, options: BenchOptions): Promise<void> {
  const holder = await t.client.coordinator.leaseHolder('scheduler');
  const pid = Number(holder?.split(':').pop());
  const index = t.schedulers.findIndex((s) => s.running && s.pid === pid);
  const leader = t.schedulers[index];
  if (!holder || !leader)
    throw new Error(
      `the leader lease is held by "${holder}", none of the schedulers (pids ${t.schedulers.map((s) => s.pid).join(', ')})`,
    );
  await killNine(leader);
  events.leaderKilledAt = Date.now();
  events.oldLeader = holder;
  options.progress(`team-sim: killed -9 the leader ${leader.name} (lease ${holder}); waiting for another to lead`);
  for (;;) {
    const now = await t.client.coordinator.leaseHolder('scheduler');
    if (now && now !== holder) {
      events.takeoverAt = Date.now();
      events.newLeader = now;
      break;
    }
    if (Date.now() - events.leaderKilledAt > 5 * 60_000) throw new Error('no scheduler took the lease in 5 minutes');
    await sleep(100);
  }
  // The killed scheduler comes back as a standby, so the next rate has as many as the first.
  const again = leader.respawn();
  t.schedulers[index] = again;
  await again.waitForLine(/^ax serve: team /, 120_000);
}

/**
 * Runs the faults during [start, start + spanMs) (the time runs are offered): evenly spread,
 * the worker first. Resolves once every killed process is back.
 */
export async function runFaults(
  t: Team,
  sim: SimSlot,
  faults: Fault[],
  start: number,
  spanMs: number,
  options: BenchOptions,
): Promise<FaultEvents> {
  const events: FaultEvents = {};
  for (const [k, fault] of faults.entries()) {
    const at = start + (spanMs * (k + 1)) / (faults.length + 1);
    if (at > Date.now()) await sleep(at - Date.now());
    if (fault === 'worker') await killSimulator(t, sim, events, options);
    else await killLeader(t, events, options);
  }
  return events;
}

interface Row {
  run_id: number;
  task_id: number;
  attempt: number;
  state: string;
  worker_id: string | null;
  reason: string | null;
  dispatched_at: number | null;
  finished_at: number | null;
}

/** Seconds over which throughput is counted before the first fault and after the last recovery. */
const WINDOW_S = 10;

/** What the faults did to the rate's runs, read from the database once they have all ended. */
export async function faultFigures(
  db: BenchDb,
  runIds: number[],
  e: FaultEvents,
): Promise<{ lines: string[]; unexplained: number }> {
  const result = await db.rows(
    `select run_id, task_id, attempt, state, worker_id, reason, dispatched_at, finished_at from task_instance where run_id in (${runIds.join(',')})`,
  );
  const rows = result as Row[];
  const byTask = new Map(rows.map((r) => [`${r.run_id}:${r.task_id}:${r.attempt}`, r]));
  const extra = rows.filter((r) => r.attempt > 1);
  // An attempt after one the killed worker was running is expected: failed over (the worker
  // judged lost), or failed by its restarted process ("engine restarted") and retried.
  const failedOver = (r: Row) => {
    const before = byTask.get(`${r.run_id}:${r.task_id}:${r.attempt - 1}`);
    const reason = before?.reason ?? '';
    return (
      e.workerKilledAt !== undefined &&
      before?.state === 'FAILED' &&
      (reason.startsWith(FAILOVER_PREFIX) || reason.startsWith(REASONS.engine_restarted)) &&
      (before.dispatched_at ?? Infinity) < e.workerKilledAt
    );
  };
  const unexplained = extra.filter((r) => !failedOver(r));
  const finishedIn = (from: number, to: number) =>
    rows.filter((r) => r.state === 'SUCCESS' && r.finished_at !== null && r.finished_at >= from && r.finished_at < to)
      .length /
    ((to - from) / 1000);
  const firstFault = Math.min(e.workerKilledAt ?? Infinity, e.leaderKilledAt ?? Infinity);
  const recovered = Math.max(e.workerBackAt ?? 0, e.takeoverAt ?? 0);
  const out = [
    `extra attempts ${extra.length}: ${extra.length - unexplained.length} of tasks the killed worker was running (failed over, or failed by its restart and retried), ${unexplained.length} otherwise`,
  ];
  if (e.workerKilledAt !== undefined && e.workerBackAt !== undefined)
    out.push(
      `worker process back (its start line) ${fmt((e.workerBackAt - e.workerKilledAt) / 1000, 1)} s after its kill`,
    );
  if (e.leaderKilledAt !== undefined && e.takeoverAt !== undefined) {
    const nextDispatch = Math.min(
      ...rows.map((r) => r.dispatched_at ?? Infinity).filter((d) => d > (e.leaderKilledAt as number)),
    );
    out.push(
      `leader ${e.oldLeader} killed; ${e.newLeader} held the lease ${fmt((e.takeoverAt - e.leaderKilledAt) / 1000, 1)} s later; first dispatch after the kill ${Number.isFinite(nextDispatch) ? `${fmt((nextDispatch - e.leaderKilledAt) / 1000, 1)} s` : 'none'}`,
    );
  }
  if (Number.isFinite(firstFault) && recovered > 0)
    out.push(
      `SUCCESS/s over ${WINDOW_S} s: ${fmt(finishedIn(firstFault - WINDOW_S * 1000, firstFault), 1)} before the first kill, ${fmt(finishedIn(firstFault, recovered), 1)} between it and the recovery (${fmt((recovered - firstFault) / 1000, 1)} s), ${fmt(finishedIn(recovered, recovered + WINDOW_S * 1000), 1)} after`,
    );
  return { lines: out, unexplained: unexplained.length };
}
