// Writing a workflow back as file text (ax export, the designer's YAML, the API's check): the
// inverse of workflow-file.ts, so that `ax export W -o f.yaml && ax apply f.yaml` changes nothing
// (and exporting again gives the same text).
import { Document, visit } from 'yaml';
import { DEFAULT_WORKFLOW_ALERT_RULES } from '../../api/alerts.ts';
import { ValidationError } from '../../api/errors.ts';
import { DEFAULT_RETRY_DELAY_MS, type TaskSpec, type WorkflowSpec } from '../../api/types.ts';
import { writeCrossUpstream } from './cross-upstream.ts';
import { taskOrder } from '../model/dag.ts';
import { formatDuration } from '../model/duration.ts';
import { formatSize } from '../../api/size.ts';

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
  // Tasks in topological order, ties by name (dag.ts): the file reads top-down like the graph,
  // and the same workflow always gives the same text, however its tasks were added.
  const byName = new Map(spec.tasks.map((t) => [t.name, t]));
  if (!spec.monitor || spec.tasks.length > 0)
    out.set('tasks', new Map(taskOrder(spec.tasks).map((name) => [name, taskMap(byName.get(name) as TaskSpec)])));
  const doc = new Document(out);
  visit(doc, {
    Seq(_, node) {
      node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

function taskMap(t: TaskSpec): Map<string, unknown> {
  const m = new Map<string, unknown>([['command', t.command]]);
  if (t.cwd !== undefined && t.cwd !== '') m.set('cwd', t.cwd);
  if (Object.keys(t.env).length > 0)
    m.set(
      'env',
      new Map(Object.entries(t.env).map(([k, v]) => [k, typeof v === 'string' ? v : new Map([['secret', v.secret]])])),
    );
  if (t.timeoutMs !== undefined) m.set('timeout', formatDuration(t.timeoutMs));
  if (t.retries !== 0) m.set('retries', t.retries);
  const b = t.retryBackoff;
  if (b.kind === 'fixed' && b.maxDelayMs === b.delayMs) {
    if (b.delayMs !== DEFAULT_RETRY_DELAY_MS) m.set('retry_backoff', formatDuration(b.delayMs));
  } else {
    const delay = formatDuration(b.delayMs);
    m.set(
      'retry_backoff',
      new Map([
        ['strategy', b.kind],
        ['delay', delay],
        ['max', formatDuration(b.maxDelayMs)],
      ]),
    );
  }
  if (t.labels.length > 0) m.set('labels', t.labels);
  const upstream = [...t.upstream, ...(t.crossUpstream ?? []).map(writeCrossUpstream)];
  if (upstream.length > 0) m.set('upstream', upstream);
  if (t.waitTimeoutMs !== undefined) m.set('wait_timeout', formatDuration(t.waitTimeoutMs));
  if (t.owner !== undefined && t.owner !== '') m.set('owner', t.owner);
  if (t.logLimitBytes !== undefined) {
    const size = formatSize(t.logLimitBytes);
    m.set('log_limit', /^\d+$/.test(size) ? t.logLimitBytes : size);
  }
  return m;
}
