// A `call:` task in a workflow file: `call: OTHER_WORKFLOW` with `params: { NAME: value }`. It
// runs no command of its own (the engine starts a child run of the other workflow and takes its
// state), so the fields only a process uses are refused beside it. Read here, written back by
// workflow-serialize.ts; the walk for cycles of calls across workflows is call-cycle.ts.
import type { TaskCall } from '../../api/types.ts';
import { formatDuration } from '../model/duration.ts';
import { join, type Reader, typeName, type YMap } from './workflow-reader.ts';

/** Fields that describe a process: a call starts none. */
const PROCESS_ONLY = ['command', 'cwd', 'env', 'labels', 'log_limit', 'simulate'] as const;

/**
 * The task's call, when it has `call:`; its problems go to the reader. `params:` without `call:`
 * is refused (a command task takes its run's params from the environment).
 */
export function readCall(r: Reader, m: YMap, path: string): TaskCall | undefined {
  if (!m.has('call')) {
    if (m.has('logical_time'))
      r.add(
        `${path}.logical_time`,
        'only a call: task takes logical_time (its child run\'s, moved from this run\'s): add "call: WORKFLOW", or remove logical_time',
      );
    if (m.has('params'))
      r.add(
        `${path}.params`,
        'only a call: task takes params (the params of the workflow it calls): add "call: WORKFLOW", or remove params',
      );
    return undefined;
  }
  for (const key of PROCESS_ONLY)
    if (m.has(key))
      r.add(
        `${path}.${key}`,
        key === 'command'
          ? 'a task has a command or a call, not both: remove one of them'
          : `a call: task starts no process here, so "${key}" has nothing to apply to: remove it (set it on the called workflow's tasks)`,
      );
  // A when: is checked by the worker just before a process starts; a call starts none, so it would
  // never be checked: refused rather than silently ignored.
  if (m.has('when'))
    r.add(
      `${path}.when`,
      "a call: task is started by the engine, not a worker, so its when: would never be checked: put the condition on the called workflow's first tasks, or on a task before this one",
    );
  const workflow = r.name(m.get('call'), `${path}.call`);
  if (workflow === undefined) return undefined;
  const call: TaskCall = { workflow };
  if (m.has('logical_time')) {
    const offset = readOffset(r, m.get('logical_time'), `${path}.logical_time`);
    if (offset !== undefined && offset !== 0) call.logicalTimeOffsetMs = offset;
  }
  if (!m.has('params')) return call;
  const params = r.map(m.get('params'), `${path}.params`, "a map of NAME: value (the called workflow's params)");
  if (!params) return call;
  const out: Record<string, string> = {};
  for (const [name, value] of params) {
    const at = join(`${path}.params`, name);
    if (typeof value === 'string') out[name] = value;
    // as written: 1.10 stays "1.10", the called workflow's param types read the text
    else if (typeof value === 'number' || typeof value === 'boolean') out[name] = r.scalarText.get(at) ?? String(value);
    else r.add(at, `must be a string, number or boolean (got ${typeName(value)}): write the value as text`);
  }
  if (Object.keys(out).length > 0) call.params = out;
  return call;
}

/** `logical_time: -1d` / `+6h`: a signed duration from the parent run's logical time. */
function readOffset(r: Reader, v: unknown, at: string): number | undefined {
  const text = typeof v === 'string' ? v.trim() : undefined;
  const sign = text?.startsWith('-') ? -1 : 1;
  const ms =
    text === undefined
      ? (r.add(at, `must be a duration from this run's logical time, such as "-1d" or "+6h" (got ${typeName(v)})`),
        undefined)
      : r.duration(text.replace(/^[-+]/, ''), at);
  return ms === undefined ? undefined : sign * ms;
}

/** The call as the file writes it: `call`, when moved its `logical_time`, and its `params`. */
export function writeCall(call: TaskCall): [string, unknown][] {
  const out: [string, unknown][] = [['call', call.workflow]];
  const offset = call.logicalTimeOffsetMs;
  if (offset !== undefined && offset !== 0)
    out.push(['logical_time', `${offset < 0 ? '-' : '+'}${formatDuration(Math.abs(offset))}`]);
  if (call.params && Object.keys(call.params).length > 0) out.push(['params', new Map(Object.entries(call.params))]);
  return out;
}
