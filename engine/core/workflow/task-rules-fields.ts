// A task's `run_if:` (its trigger rule) and `when:` (its precondition) in the workflow file: read
// with the task's other fields, then checked across the workflow once every task is read (an
// output must come from one of the task's upstreams, a param must be declared).
import { RUN_IF_RULES, type RunIfRule, type TaskCondition, type TaskSpec, type WorkflowSpec } from '../../api/types.ts';
import { parseComparison, references } from '../model/task-condition.ts';
import { join, type Reader, typeName, type YMap } from './workflow-reader.ts';

/** The task keys this file reads. */
export const TASK_RULE_KEYS = ['run_if', 'when'];

const WHEN_HINT =
  'a comparison such as \'outputs.extract.rows > 0\' or \'params.region == "eu"\', or { command: "test -s data.csv" }';

/** `run_if:` (absent: all_success) and `when:` of one task, onto the task. */
export function readTaskRules(r: Reader, m: YMap, path: string, task: TaskSpec): void {
  if (m.has('run_if')) {
    const v = m.get('run_if');
    if (typeof v === 'string' && (RUN_IF_RULES as readonly string[]).includes(v)) task.runIf = v as RunIfRule;
    else
      r.add(
        `${path}.run_if`,
        `must be one of ${RUN_IF_RULES.join(', ')} (got ${typeof v === 'string' ? `"${v}"` : typeName(v)}): all_success is the default`,
      );
  }
  if (m.has('when')) {
    const when = readWhen(r, m.get('when'), `${path}.when`);
    if (when) task.when = when;
  }
}

function readWhen(r: Reader, v: unknown, at: string): TaskCondition | undefined {
  if (typeof v === 'string') {
    const parsed = parseComparison(v);
    if ('error' in parsed) r.add(at, parsed.error);
    else return { expr: v.trim() };
    return undefined;
  }
  if (!(v instanceof Map)) {
    r.add(at, `must be ${WHEN_HINT} (got ${typeName(v)})`);
    return undefined;
  }
  const m = v as YMap;
  r.keys(m, ['command'], at);
  const command = m.get('command');
  if (typeof command === 'string' && command.trim() !== '') return { command };
  r.add(
    join(at, 'command'),
    command === undefined || command === ''
      ? 'missing: write the command to run before the task (exit 0: the task runs; any other: it is skipped)'
      : `must be a shell command in quotes (got ${typeName(command)})`,
  );
  return undefined;
}

/**
 * The references of each `when:` comparison: `outputs.TASK.KEY` must name an upstream of the task
 * (in this workflow, or the task of a WORKFLOW.TASK upstream), `params.NAME` a declared param.
 */
export function checkTaskRules(r: Reader, spec: WorkflowSpec): void {
  const params = new Set((spec.params ?? []).map((p) => p.name));
  for (const task of spec.tasks) {
    if (!task.when || !('expr' in task.when)) continue;
    const parsed = parseComparison(task.when.expr);
    if ('error' in parsed) continue;
    const at = `tasks.${task.name}.when`;
    const upstreams = new Set([
      ...task.upstream,
      ...(task.crossUpstream ?? []).flatMap((c) => (c.task === undefined ? [] : [c.task])),
    ]);
    for (const ref of references(parsed)) {
      if (ref.kind === 'output' && !upstreams.has(ref.task))
        r.add(
          at,
          `outputs.${ref.task}.${ref.key}: "${ref.task}" is not an upstream of "${task.name}": ${upstreams.size > 0 ? `its upstreams are ${[...upstreams].join(', ')}` : 'add it to upstream'} (a task sees only its upstreams' outputs)`,
        );
      if (ref.kind === 'param' && !params.has(ref.name))
        r.add(
          at,
          `params.${ref.name}: the workflow declares no param "${ref.name}": ${params.size > 0 ? `its params are ${[...params].join(', ')}` : 'declare it under params:'}`,
        );
    }
  }
}
