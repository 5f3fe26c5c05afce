// `ax run`'s choices beyond the workflow: params (-p NAME=VALUE, repeatable), the logical time
// (--logical-time ISO) and a task's downstream (--task T --downstream); and how `ax runs RUN`
// shows a run's params. The values go to the engine as text: it checks them against the
// workflow's params, whichever door they came through.
import { AxError } from '../../api/errors.ts';
import { paramText } from '../../api/params.ts';
import type { RunRecord } from '../../api/types.ts';

/** A commander collector for `-p NAME=VALUE`: each one into the map, a name given twice refused. */
export function collectParam(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0)
    throw new AxError('validation', `-p ${value}: write NAME=VALUE, e.g. -p region=eu (an empty value is -p name=)`);
  const name = value.slice(0, at);
  if (Object.hasOwn(previous, name))
    throw new AxError(
      'validation',
      `-p ${name}: given twice ("${previous[name]}" and "${value.slice(at + 1)}"): give it once`,
    );
  return { ...previous, [name]: value.slice(at + 1) };
}

// an ISO 8601 date, or date and time with its offset (a time without one would mean a different moment per machine)
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** `--logical-time`: epoch ms of an ISO 8601 date (midnight UTC) or date and time with its offset. */
export function logicalTimeArg(value: string): number {
  const ms = ISO_TIME.test(value) ? Date.parse(value) : NaN;
  if (Number.isFinite(ms) && ms >= 0) return ms;
  throw new AxError(
    'validation',
    `--logical-time must be an ISO 8601 time with its offset, e.g. 2026-11-30T02:00:00Z or 2026-11-30 (midnight UTC), got "${value}"`,
  );
}

/** `--downstream` without `--task` has nothing to start from. */
export function checkDownstream(opts: { task?: string; downstream?: boolean }): void {
  if (opts.downstream && opts.task === undefined)
    throw new AxError('validation', '--downstream runs a task and its downstream: name the task with --task TASK');
}

/** The run's params on one line (`region=eu day=2026-11-30`), or nothing. */
export function paramsLine(run: RunRecord): string | undefined {
  const entries = Object.entries(run.params ?? {});
  if (entries.length === 0) return undefined;
  return `params: ${entries.map(([k, v]) => `${k}=${typeof v === 'string' && /[\s"']/.test(v) ? JSON.stringify(v) : paramText(v)}`).join(' ')}`;
}
