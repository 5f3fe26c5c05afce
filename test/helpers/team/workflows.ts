// Workflow specs the team tests run, every task traced (trace.ts), written as objects for
// Team.apply.
import type { MisfirePolicy } from '../../../engine/api/types.ts';
import type { Team } from './harness.ts';
import { traced } from './trace.ts';

/** A layered DAG: `layers` × `width` tasks, each depending on two tasks of the layer before. */
export function layeredWorkflow(
  name: string,
  layers: number,
  width: number,
  body: string,
): { spec: object; tasks: string[] } {
  const tasks: Record<string, object> = {};
  const names: string[] = [];
  const id = (l: number, w: number) => `l${l}t${w}`;
  for (let l = 0; l < layers; l++) {
    for (let w = 0; w < width; w++) {
      const upstream = l === 0 ? [] : [...new Set([id(l - 1, w), id(l - 1, (w + 1) % width)])];
      tasks[id(l, w)] = { command: traced(body), timeout: '60s', ...(upstream.length && { upstream }) };
      names.push(id(l, w));
    }
  }
  return { spec: { workflow: name, tasks }, tasks: names };
}

/**
 * `count` independent tasks that run until the test opens their gate: work that is running
 * while a fault comes and goes, however slow the machine. Their timeout is far away.
 */
export async function gatedWorkflow(
  name: string,
  team: Team,
  count: number,
): Promise<{ spec: object; tasks: string[]; open(): Promise<void> }> {
  const gate = await team.gate(name);
  const names = Array.from({ length: count }, (_, k) => `gated${k}`);
  const command = traced(gate.wait);
  return {
    spec: { workflow: name, tasks: Object.fromEntries(names.map((n) => [n, { command, timeout: '300s' }])) },
    tasks: names,
    open: () => gate.open(),
  };
}

/** A workflow on an every-second cron (6 fields), runs in parallel, one traced task `true`. */
export function everySecondWorkflow(
  name: string,
  misfire: MisfirePolicy = 'run_once',
): { spec: object; tasks: string[] } {
  return cronWorkflow(name, '* * * * * *', misfire);
}

/** A workflow on a cron, runs in parallel, one traced task `true`. */
export function cronWorkflow(name: string, cron: string, misfire: MisfirePolicy): { spec: object; tasks: string[] } {
  return {
    spec: {
      workflow: name,
      schedule: { cron, timezone: 'UTC', misfire, overlap: 'parallel' },
      tasks: { tick: { command: traced('true'), timeout: '60s' } },
    },
    tasks: ['tick'],
  };
}

/**
 * `chains` independent chains of `length` tasks each (c0t0 → c0t1 → …), every task with the given
 * `simulate:` (file syntax): work for simulated workers (ax serve --simulate), which spawn nothing.
 */
export function simulatedChains(
  name: string,
  chains: number,
  length: number,
  simulate: Record<string, string | number>,
): { spec: object; tasks: string[] } {
  const tasks: Record<string, object> = {};
  for (let c = 0; c < chains; c++)
    for (let k = 0; k < length; k++)
      tasks[`c${c}t${k}`] = {
        command: 'echo a simulated worker never runs this',
        timeout: '60s',
        simulate,
        ...(k > 0 && { upstream: [`c${c}t${k - 1}`] }),
      };
  return { spec: { workflow: name, tasks }, tasks: Object.keys(tasks) };
}
