// Checks of a valid workflow against where it would run, which its file alone cannot tell: labels
// that no known worker offers, a cwd that does not exist on this machine, a secret not set on this
// machine. Warnings, not errors: a worker may join, a directory be created, a secret be set later. `ax apply` refuses them unless --force;
// the designer shows them.
import type { ValidationProblem } from '../../api/errors.ts';
import { secretNames } from '../../api/secrets.ts';
import type { WorkerRecord, WorkflowSpec } from '../../api/types.ts';
import type { SecretSource } from '../../ports/secrets.ts';

/** Why a task's cwd cannot be entered on this machine, or undefined when it can. */
export type CwdCheck = (cwd: string) => string | undefined;

const SHOWN_WORKERS = 8;

/** "etl-1 [gpu, ssd], laptop [no labels]", at most a few. */
export function describeWorkers(workers: WorkerRecord[]): string {
  if (workers.length === 0) return 'none has registered yet';
  const shown = workers.slice(0, SHOWN_WORKERS).map((w) => `${w.id} [${w.labels.join(', ') || 'no labels'}]`);
  const more = workers.length - shown.length;
  return `${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/** Workers that offer every label of a task (or all of them, for a task without labels). */
export const offering = (labels: string[], workers: WorkerRecord[]): WorkerRecord[] =>
  workers.filter((w) => labels.every((label) => w.labels.includes(label)));

/**
 * `workers`: every worker known (registered, whatever its status now). `checkCwd`: given only
 * where tasks run on this machine (solo mode); a team's tasks run on other machines.
 */
export function environmentWarnings(
  spec: WorkflowSpec,
  workers: WorkerRecord[],
  mode: 'solo' | 'team',
  checkCwd?: CwdCheck,
  file?: string,
  /** this machine's secrets: given only where tasks run here (solo mode) */
  secrets?: SecretSource,
  /** the alert channels of this machine: given only where alerts are sent from here (solo mode) */
  alertChannels?: string[],
): ValidationProblem[] {
  const out: ValidationProblem[] = [];
  const add = (path: string, message: string) =>
    out.push(file === undefined ? { path, message } : { file, path, message });
  const unknown = alertChannels ? (spec.alerts?.channels ?? []).filter((c) => !alertChannels.includes(c)) : [];
  if (unknown.length > 0) {
    add(
      'alerts.channels',
      `${unknown.map((c) => `"${c}"`).join(', ')} is not an alert channel on this machine (${alertChannels?.length ? `channels: ${alertChannels.join(', ')}` : 'none is defined'}): its alerts would be recorded as failed; define it in settings.json "alerts.channels"`,
    );
  }
  for (const task of spec.tasks) {
    const at = `tasks.${task.name}`;
    if (task.labels.length > 0 && offering(task.labels, workers).length === 0) {
      const labels = `[${task.labels.join(', ')}]`;
      add(
        `${at}.labels`,
        mode === 'solo'
          ? `no worker offers labels ${labels}: the solo worker offers none, so the task would wait forever; remove the labels, or run the workflow in team mode on a worker started with --labels ${task.labels.join(',')}`
          : `no known worker offers labels ${labels} (workers: ${describeWorkers(workers)}): the task would wait until one joins; start one with "ax serve --role worker --labels ${task.labels.join(',')}"`,
      );
    }
    const problem = task.cwd !== undefined && checkCwd ? checkCwd(task.cwd) : undefined;
    if (problem) add(`${at}.cwd`, `"${task.cwd}" ${problem}: the task would fail to start; create it or fix the path`);
    for (const name of secrets ? secretNames(task.env) : []) {
      if (secrets?.get(name) !== undefined) continue;
      const key = Object.entries(task.env).find(([, v]) => typeof v !== 'string' && v.secret === name)?.[0] ?? name;
      add(
        `${at}.env.${key}`,
        `secret "${name}" is not set on this machine: the task would fail to start; ${secrets?.howToSet(name)}`,
      );
    }
  }
  return out;
}
