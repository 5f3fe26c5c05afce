// The invariants every team scenario keeps (design.md §7–§8), checked over the database, the task
// trace and /proc once runs have ended:
// - nothing lost: the run ended as expected, no instance is left WAITING, DISPATCHED or RUNNING,
//   every outcome is handled; one row per (task, attempt), attempts numbered 1, 2, …;
// - exactly one recorded outcome: one SUCCESS per task, its last attempt, recorded for the worker
//   whose process really ran it to its end;
// - at most one live process per instance: one recorded start each, no attempt started while an
//   earlier attempt of its task still had a live process group (the starting task looks itself,
//   see trace.ts; and one attempt's end is not after the next one's start), nothing of any
//   task's process group left alive;
// - on request: nothing executed twice, no TIMEOUT, no fail-over (a false judgement of a live
//   worker or task).
import fs from 'node:fs';
import { expect } from 'vitest';
import type { InstanceRecord } from '../../../engine/api/types.ts';
import type { Team } from './harness.ts';
import type { Execution } from './trace.ts';

export interface InvariantOptions {
  /** the runs' expected final state; default SUCCESS */
  runState?: string;
  /** the tasks that must each have exactly one SUCCESS; default every task of the run */
  tasks?: string[];
  /** instances whose process may have been alive beside a later attempt (a frozen worker's) */
  overlapAllowed?: number[];
  /** each task ran as exactly one process per run (nothing was executed twice) */
  singleExecution?: boolean;
  /** no instance may end TIMEOUT */
  noTimeout?: boolean;
  /** no instance may have been failed over, and no worker told it lost one */
  noFailover?: boolean;
  /**
   * the tasks ran on simulated workers (ax serve --simulate), which spawn nothing: there is no
   * process trace to hold the outcomes against, and no process group to outlive a task
   */
  simulated?: boolean;
}

const ACTIVE = ['WAITING', 'DISPATCHED', 'RUNNING'];

/**
 * Checks the invariants on ended runs; returns every violation (an empty list when all hold), so
 * that a failure shows all of them at once, and concurrent tests can assert with their own expect.
 */
export async function checkInvariants(team: Team, runIds: number[], o: InvariantOptions = {}): Promise<string[]> {
  const problems: string[] = [];
  const wantState = o.runState ?? 'SUCCESS';
  const allowed = new Set(o.overlapAllowed ?? []);
  const events = team.events();
  const all = team.executions();
  const live = liveGroups();
  if (o.noFailover) {
    // A worker told that it lost an instance it still runs, or whose outcome was refused.
    for (const n of team.nodes)
      for (const line of n.stderr.split('\n'))
        if (/no longer owns|was taken over/.test(line)) problems.push(`${n.name}: ${line}`);
  }
  for (const runId of runIds) {
    const run = await team.store.getRun(runId);
    if (!run) {
      problems.push(`run #${runId} is missing`);
      continue;
    }
    const at = (i: InstanceRecord) => `run #${runId} ${i.taskName}#${i.attempt} (instance ${i.id})`;
    if (run.state !== wantState)
      problems.push(`run #${runId} is ${run.state}${run.reason ? ` (${run.reason})` : ''}, not ${wantState}`);
    const instances = await team.store.listInstances(runId);
    const executions = all.filter((e) => e.runId === runId);
    for (const i of instances) {
      if (ACTIVE.includes(i.state)) problems.push(`${at(i)} is still ${i.state}`);
      else if (!i.handled) problems.push(`${at(i)} ended ${i.state} but was never handled`);
      if (o.noTimeout && i.state === 'TIMEOUT') problems.push(`${at(i)}: false TIMEOUT (${i.reason})`);
      if (o.noFailover && /failed over/.test(i.reason ?? '')) problems.push(`${at(i)}: false fail-over (${i.reason})`);
      const mine = executions.filter((e) => e.instanceId === i.id);
      if (mine.length > 1) problems.push(`${at(i)} started ${mine.length} processes (${describeExecutions(mine)})`);
      if (i.state === 'SUCCESS' && !o.simulated) {
        const e = mine[0];
        if (!e) problems.push(`${at(i)} is SUCCESS but no process ever ran it`);
        else if (e.end === undefined) problems.push(`${at(i)} is SUCCESS but its process never finished`);
        if (e && e.worker !== i.workerId)
          problems.push(`${at(i)} ran on ${e.worker}, but the database says ${i.workerId}`);
      }
    }
    const keys = instances.map((i) => `${i.taskName}#${i.attempt}`);
    if (new Set(keys).size !== keys.length)
      problems.push(`run #${runId}: more than one row per (task, attempt): ${keys.join(' ')}`);
    for (const task of o.tasks ?? [...new Set(instances.map((i) => i.taskName))]) {
      const mine = instances.filter((i) => i.taskName === task).sort((a, b) => a.attempt - b.attempt);
      const attempts = mine.map((i) => i.attempt);
      if (attempts.some((a, n) => a !== n + 1))
        problems.push(`run #${runId} task ${task}: attempts ${attempts.join(', ')}`);
      const runs = executions.filter((e) => e.task === task).sort((a, b) => a.start - b.start);
      if (wantState === 'SUCCESS') {
        const ok = mine.filter((i) => i.state === 'SUCCESS');
        if (ok.length !== 1)
          problems.push(`run #${runId} task ${task}: ${ok.length} SUCCESS outcomes (${describeInstances(mine)})`);
        if (mine[mine.length - 1]?.state !== 'SUCCESS')
          problems.push(`run #${runId} task ${task}: its last attempt is not its SUCCESS (${describeInstances(mine)})`);
        if (runs.length === 0 && !o.simulated) problems.push(`run #${runId} task ${task}: no process ever ran it`);
      }
      if (o.singleExecution && runs.length > 1)
        problems.push(`run #${runId} task ${task}: executed ${runs.length} times (${describeExecutions(runs)})`);
      // An attempt whose end is known must have ended before the next one started; one killed
      // before it could write its end is covered by the next start's own look (overlap events).
      for (let k = 1; k < runs.length; k++) {
        const prev = runs[k - 1] as Execution;
        const next = runs[k] as Execution;
        if (prev.end !== undefined && next.start < prev.end && !allowed.has(prev.instanceId))
          problems.push(`run #${runId} task ${task}: two live processes at once (${describeExecutions([prev, next])})`);
      }
    }
    const allowedGroups = new Set(executions.filter((e) => allowed.has(e.instanceId)).map((e) => e.pgid));
    for (const e of events.filter((x) => x.runId === runId && x.event.startsWith('overlap:'))) {
      const groups = e.event
        .slice('overlap:'.length)
        .split(',')
        .filter((g) => g !== '' && !allowedGroups.has(Number(g)));
      if (groups.length > 0)
        problems.push(
          `run #${runId} ${e.task}#${e.attempt} (instance ${e.instanceId}) started while process groups ${groups.join(', ')} of earlier attempts lived`,
        );
    }
    for (const e of executions) {
      const members = live.get(e.pgid);
      if (members)
        problems.push(
          `run #${runId} ${e.task}#${e.attempt} (instance ${e.instanceId}): processes ${members.join(', ')} of its group ${e.pgid} are left`,
        );
    }
  }
  return problems;
}

/**
 * For a test file that runs one scenario at a time: waits for the run to end, expects every
 * invariant to hold, and returns the run's instances.
 */
export async function expectRunInvariants(
  team: Team,
  runId: number,
  o: InvariantOptions = {},
): Promise<InstanceRecord[]> {
  await team.waitRun(runId);
  expect(await checkInvariants(team, [runId], o)).toEqual([]);
  return team.store.listInstances(runId);
}

/** Live (non-zombie) processes by process group, from one pass over /proc (Linux). */
function liveGroups(): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z' || fields[0] === 'X') continue;
      const pgid = Number(fields[2]);
      groups.set(pgid, [...(groups.get(pgid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  return groups;
}

const describeInstances = (list: InstanceRecord[]) =>
  list.map((i) => `#${i.attempt} ${i.state}${i.reason ? `: ${i.reason}` : ''}`).join('; ') || 'no instances';
const describeExecutions = (list: Execution[]) =>
  list.map((e) => `instance ${e.instanceId} pid ${e.pid} on ${e.worker} ${e.start}–${e.end ?? '?'}`).join(', ');
