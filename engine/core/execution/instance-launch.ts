// What the instance page shows of an attempt's start (InstanceRecord.launch): the command, its
// cwd and the variables AX set for it. The worker's own environment (PATH, HOME, …) is left out:
// it is the same for every task, can be large, and is the host's, not the workflow's. Secret
// values are masked where the store is written (masked-store.ts), like every text kept.
import type { InstanceLaunch } from '../../api/types.ts';
import type { TaskDefinition } from '../../ports/store.ts';

export function instanceLaunch(
  task: Pick<TaskDefinition, 'command' | 'cwd' | 'env'>,
  baseEnv: Record<string, string>,
  env: Record<string, string>,
  envFiles: Record<string, string> | undefined,
): InstanceLaunch {
  const set: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    // A variable of the task's own env counts even when it repeats the worker's value.
    if (baseEnv[name] !== value || Object.hasOwn(task.env, name)) set[name] = value;
  }
  // A value too large for the environment goes as a file, made at the spawn: named, not shown.
  for (const name of Object.keys(envFiles ?? {})) set[name] = '(a private file, removed when the task ends)';
  return {
    command: task.command,
    ...(task.cwd !== undefined && { cwd: task.cwd }),
    env: Object.fromEntries(Object.entries(set).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** The launch with every text masked: what the store keeps. */
export function maskLaunch(launch: InstanceLaunch, mask: (text: string) => string): InstanceLaunch {
  return {
    command: mask(launch.command),
    ...(launch.cwd !== undefined && { cwd: mask(launch.cwd) }),
    env: Object.fromEntries(Object.entries(launch.env).map(([name, value]) => [name, mask(value)])),
  };
}
