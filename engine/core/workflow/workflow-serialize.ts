// Writing a workflow back as file text (ax export, the designer's YAML, the API's check): the
// inverse of workflow-file.ts, so that `ax export W -o f.yaml && ax apply f.yaml` changes nothing
// (and exporting again gives the same text).
import { Document, visit } from 'yaml';
import { DEFAULT_WORKFLOW_ALERT_RULES } from '../../api/alerts.ts';
import { ValidationError } from '../../api/errors.ts';
import {
  type ParamSpec,
  type RetryBackoff,
  type TaskDefaults,
  type TaskSpec,
  type WorkflowSpec,
} from '../../api/types.ts';
import { writeCrossUpstream } from './cross-upstream.ts';
import { writeCall } from './task-call.ts';
import { taskOrder } from '../model/dag.ts';
import { formatDuration } from '../model/duration.ts';
import { formatSize } from '../../api/size.ts';
import { ownSettings } from './task-settings.ts';
import { writeSimulate } from './task-simulate-fields.ts';

/** The canonical file text of a spec: fixed key order, defaults and empty values left out. */
export function serializeWorkflow(spec: WorkflowSpec): string {
  // A file's keys are unique; a spec from the API could repeat a name, which a map would hide.
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const t of spec.tasks) {
    if (seen.has(t.name)) twice.add(t.name);
    seen.add(t.name);
  }
  if (twice.size > 0) {
    throw new ValidationError(
      [...twice].map((name) => ({ path: `tasks.${name}`, message: 'is used by two tasks: task names must be unique' })),
    );
  }
  const out = new Map<string, unknown>([['workflow', spec.name]]);
  if (spec.description !== undefined && spec.description !== '') out.set('description', spec.description);
  if (spec.owner !== undefined && spec.owner !== '') out.set('owner', spec.owner);
  if (spec.schedule) {
    const s = spec.schedule;
    // timezone is always written: the reader's default zone may differ from the writer's
    const schedule = new Map<string, unknown>([['cron', s.cron]]);
    if (s.timezone !== undefined) schedule.set('timezone', s.timezone);
    if (s.misfire !== 'run_once') schedule.set('misfire', s.misfire);
    if (s.overlap !== 'skip') schedule.set('overlap', s.overlap);
    out.set('schedule', schedule);
  }
  if (spec.onEvent !== undefined) out.set('on_event', spec.onEvent);
  if (spec.onEngineStart === true) out.set('on', 'engine_start');
  if (spec.monitor) out.set('monitor', new Map([['grace', formatDuration(spec.monitor.graceMs)]]));
  if (spec.routing !== 'round_robin') out.set('routing', spec.routing);
  if (spec.alerts) {
    const a = spec.alerts;
    const alerts = new Map<string, unknown>([['channels', a.channels]]);
    const defaults =
      a.rules.length === DEFAULT_WORKFLOW_ALERT_RULES.length &&
      a.rules.every((x) => DEFAULT_WORKFLOW_ALERT_RULES.includes(x));
    if (!defaults) alerts.set('rules', a.rules);
    if (a.expectedDurationMs !== undefined) alerts.set('expected_duration', formatDuration(a.expectedDurationMs));
    out.set('alerts', alerts);
  }
  if (spec.params && spec.params.length > 0) out.set('params', new Map(spec.params.map((p) => [p.name, paramMap(p)])));
  if (spec.taskDefaults) writeSettings(out, spec.taskDefaults);
  // Tasks in topological order, ties by name (dag.ts): the file reads top-down like the graph,
  // and the same workflow always gives the same text, however its tasks were added.
  const byName = new Map(spec.tasks.map((t) => [t.name, t]));
  if (!spec.monitor || spec.tasks.length > 0)
    out.set(
      'tasks',
      new Map(taskOrder(spec.tasks).map((name) => [name, taskMap(byName.get(name) as TaskSpec, spec.taskDefaults)])),
    );
  const doc = new Document(out);
  visit(doc, {
    Seq(_, node) {
      node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

function paramMap(p: ParamSpec): Map<string, unknown> {
  const m = new Map<string, unknown>([['type', p.type]]);
  if (p.choices) m.set('choices', p.choices);
  if (p.default !== undefined) m.set('default', p.default);
  if (p.required) m.set('required', true);
  if (p.pattern !== undefined) m.set('pattern', p.pattern);
  if (p.min !== undefined) m.set('min', p.min);
  if (p.max !== undefined) m.set('max', p.max);
  if (p.description !== undefined && p.description !== '') m.set('description', p.description);
  return m;
}

function backoffValue(b: RetryBackoff): unknown {
  if (b.kind === 'fixed' && b.maxDelayMs === b.delayMs) return formatDuration(b.delayMs);
  return new Map([
    ['strategy', b.kind],
    ['delay', formatDuration(b.delayMs)],
    ['max', formatDuration(b.maxDelayMs)],
  ]);
}

/** The settings a map (the top level, or a task) writes itself, in the file's key order. */
function writeSettings(m: Map<string, unknown>, s: TaskDefaults): void {
  if (s.cwd !== undefined && s.cwd !== '') m.set('cwd', s.cwd);
  if (s.env && Object.keys(s.env).length > 0)
    m.set(
      'env',
      new Map(Object.entries(s.env).map(([k, v]) => [k, typeof v === 'string' ? v : new Map([['secret', v.secret]])])),
    );
  if (s.timeoutMs !== undefined) m.set('timeout', formatDuration(s.timeoutMs));
  if (s.retries !== undefined) m.set('retries', s.retries);
  if (s.retryBackoff) m.set('retry_backoff', backoffValue(s.retryBackoff));
  if (s.labels) m.set('labels', s.labels);
}

/** A task's map: only what it does not inherit from the workflow's settings (task-settings.ts). */
function taskMap(t: TaskSpec, defaults: TaskDefaults | undefined): Map<string, unknown> {
  // A call task runs no command: its call (and params) stand where the command would. A spec with
  // both keeps both, so the parser names the mistake instead of one being dropped here.
  const m = new Map<string, unknown>(t.call && t.command === '' ? [] : [['command', t.command]]);
  for (const [k, v] of t.call ? writeCall(t.call) : []) m.set(k, v);
  writeSettings(m, ownSettings(t, defaults));
  const upstream = [...t.upstream, ...(t.crossUpstream ?? []).map(writeCrossUpstream)];
  if (upstream.length > 0) m.set('upstream', upstream);
  if (t.waitTimeoutMs !== undefined) m.set('wait_timeout', formatDuration(t.waitTimeoutMs));
  if (t.owner !== undefined && t.owner !== '') m.set('owner', t.owner);
  if (t.logLimitBytes !== undefined) {
    const size = formatSize(t.logLimitBytes);
    m.set('log_limit', /^\d+$/.test(size) ? t.logLimitBytes : size);
  }
  if (t.runIf !== undefined) m.set('run_if', t.runIf);
  if (t.when !== undefined) m.set('when', 'command' in t.when ? new Map([['command', t.when.command]]) : t.when.expr);
  if (t.simulate !== undefined) m.set('simulate', writeSimulate(t.simulate));
  return m;
}
