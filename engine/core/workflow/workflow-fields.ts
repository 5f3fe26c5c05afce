// The fields of a workflow file as a WorkflowSpec: the keys each level allows, their defaults
// and their ranges (schedule, routing, command, ...). The settings a task inherits from the
// workflow (env, cwd, timeout, retries, backoff, labels) are read in task-settings.ts, params in
// workflow-params.ts; the checks across tasks (upstream names, cycles) are in workflow-edges.ts.
import {
  DEFAULT_WORKFLOW_ALERT_RULES,
  type AlertRule,
  WORKFLOW_ALERT_RULES,
  type WorkflowAlerts,
} from '../../api/alerts.ts';
import type { ScheduleSpec, TaskDefaults, TaskSpec, WorkflowSpec } from '../../api/types.ts';
import { validateCron, validateTimezone } from '../model/cron.ts';
import { readUpstreamList } from './cross-upstream.ts';
import { readCall } from './task-call.ts';
import { parseSize } from '../../api/size.ts';
import { readTaskRules, TASK_RULE_KEYS } from './task-rules-fields.ts';
import { readSimulate } from './task-simulate-fields.ts';
import { join, NAME, nameHint, type Reader, typeName, type YMap } from './workflow-reader.ts';
import { effectiveSettings, noSettings, readSettings, WORKFLOW_TASK_SETTINGS } from './task-settings.ts';
import { checkParamsAgainstTriggers, readParams } from './workflow-params.ts';

/** What a workflow's fields need that its file cannot tell. */
export interface FieldOptions {
  defaultTimezone: string;
  /**
   * Makes a relative `cwd` absolute: the CLI resolves it against the workflow file's directory.
   * Without it (the UI, the API) a relative cwd is refused: the engine's own directory would be
   * a silent, surprising base.
   */
  resolveCwd?: (cwd: string) => string;
}

const TOP_KEYS = [
  'workflow',
  'description',
  'owner',
  'schedule',
  'on_event',
  'on',
  'monitor',
  'routing',
  'alerts',
  'params',
  ...WORKFLOW_TASK_SETTINGS,
  'tasks',
];
/** what `on:` takes: the engine's own moments that start a run (design.md §5) */
const ON_VALUES = ['engine_start'] as const;
const MONITOR_KEYS = ['grace'];
/** `monitor: {}`: a run may come this long after its fire before it is missed (design.md §13). */
export const DEFAULT_MONITOR_GRACE_MS = 300_000;
const ALERT_KEYS = ['channels', 'rules', 'expected_duration'];
const SCHEDULE_KEYS = ['cron', 'timezone', 'misfire', 'overlap'];
const TASK_KEYS = [
  'command',
  'cwd',
  'env',
  'timeout',
  'retries',
  'retry_backoff',
  'labels',
  'upstream',
  'wait_timeout',
  'owner',
  'log_limit',
  ...TASK_RULE_KEYS,
  'call',
  'params',
  'logical_time',
  'simulate',
];
const MISFIRE = ['run_once', 'skip', 'all'] as const;
const OVERLAP = ['skip', 'queue', 'parallel'] as const;
const ROUTING = ['round_robin', 'random', 'least_busy'] as const;

function readSchedule(r: Reader, v: unknown, defaultTimezone: string): ScheduleSpec | undefined {
  const spec: ScheduleSpec = {
    cron: typeof v === 'string' ? v : '',
    timezone: defaultTimezone,
    misfire: 'run_once',
    overlap: 'skip',
  };
  let cron: unknown = v;
  const cronPath = typeof v === 'string' ? 'schedule' : 'schedule.cron';
  if (typeof v !== 'string') {
    const m = r.map(v, 'schedule', 'a cron string or a map with "cron" and "timezone"');
    if (!m) return undefined;
    r.keys(m, SCHEDULE_KEYS, 'schedule');
    cron = m.get('cron');
    if (cron === undefined) r.add(cronPath, 'missing: add the cron expression, e.g. cron: "0 2 * * *"');
    else if (typeof cron !== 'string') r.add(cronPath, `must be a cron expression in quotes (got ${typeName(cron)})`);
    else spec.cron = cron;
    const tz = r.text(m, 'timezone', 'schedule');
    const problem = tz === undefined ? undefined : validateTimezone(tz);
    if (problem) r.add('schedule.timezone', problem);
    spec.timezone = tz ?? defaultTimezone;
    spec.misfire = r.choice(m, 'misfire', 'schedule', MISFIRE, 'run_once');
    spec.overlap = r.choice(m, 'overlap', 'schedule', OVERLAP, 'skip');
  }
  const problem = typeof cron === 'string' ? validateCron(cron) : undefined;
  if (problem) r.add(cronPath, problem);
  return spec;
}

/** `alerts:`: the channels (defined in settings) that hear of this workflow, for which rules. */
function readAlerts(r: Reader, v: unknown): WorkflowAlerts | undefined {
  const m = r.map(v, 'alerts', 'a map with "channels" (and optionally "rules", "expected_duration")');
  if (!m) return undefined;
  r.keys(m, ALERT_KEYS, 'alerts');
  const alerts: WorkflowAlerts = {
    channels: r.list(
      m,
      'channels',
      'alerts',
      'channel names (defined in settings.json "alerts.channels")',
      'ops-slack',
    ),
    rules: DEFAULT_WORKFLOW_ALERT_RULES,
  };
  if (m.has('rules')) {
    const rules = r.list(m, 'rules', 'alerts', 'alert rules', 'run_failed');
    const wrong = rules.filter((x) => !(WORKFLOW_ALERT_RULES as readonly string[]).includes(x));
    if (wrong.length)
      r.add(
        'alerts.rules',
        `${wrong.map((x) => `"${x}"`).join(', ')} is not a workflow alert rule: use ${WORKFLOW_ALERT_RULES.join(', ')}`,
      );
    else alerts.rules = [...new Set(rules)] as AlertRule[];
  }
  if (m.has('expected_duration')) {
    const ms = r.duration(m.get('expected_duration'), 'alerts.expected_duration');
    if (ms === 0) r.add('alerts.expected_duration', 'must be longer than 0: leave it out for no limit');
    else if (ms !== undefined) alerts.expectedDurationMs = ms;
  }
  return alerts;
}

function readTask(
  r: Reader,
  name: string,
  v: unknown,
  resolveCwd: FieldOptions['resolveCwd'],
  workflow: string,
  defaults: TaskDefaults | undefined,
): TaskSpec | undefined {
  const path = join('tasks', name);
  const m = r.map(v, path, 'a map with at least "command" (or "call")');
  if (!m) return undefined;
  r.keys(m, TASK_KEYS, path);
  const call = readCall(r, m, path);
  const command = m.get('command');
  let cmd = '';
  if (m.has('call')) {
    // a call runs no command: readCall has said what is wrong beside it
  } else if (command === undefined || command === null)
    r.add(`${path}.command`, 'missing: every task needs a "command" to run (or a "call" of another workflow)');
  else if (typeof command !== 'string')
    r.add(`${path}.command`, `must be a string (got ${typeName(command)}): put it in quotes`);
  else if (command.trim() === '') r.add(`${path}.command`, 'command is empty: write the shell command to run');
  else cmd = command;
  // env, cwd, timeout, retries, retry_backoff, labels: its own, else the workflow's (task-settings.ts)
  const task: TaskSpec = {
    name,
    command: cmd,
    ...effectiveSettings(readSettings(r, m, path, resolveCwd), defaults),
    upstream: [],
    ...(call && { call }),
  };
  // Strings are sorted into this workflow's tasks and other workflows' in workflow-edges.ts.
  const upstream = readUpstreamList(r, m, path, workflow);
  task.upstream = upstream.names;
  if (upstream.cross.length > 0) task.crossUpstream = upstream.cross;
  if (m.has('wait_timeout')) {
    const ms = r.duration(m.get('wait_timeout'), `${path}.wait_timeout`);
    if (ms === 0) r.add(`${path}.wait_timeout`, 'must be longer than 0: leave wait_timeout out for the default (24h)');
    else if (ms !== undefined) task.waitTimeoutMs = ms;
  }
  const owner = r.text(m, 'owner', path);
  if (owner !== undefined) task.owner = owner;
  if (m.has('log_limit')) {
    const size = parseSize(m.get('log_limit'));
    if ('error' in size)
      r.add(
        `${path}.log_limit`,
        `${size.error}; leave log_limit out for the node's (50MB unless "ax settings set log-limit")`,
      );
    else task.logLimitBytes = size.bytes;
  }
  readTaskRules(r, m, path, task);
  if (m.has('simulate')) {
    const simulate = readSimulate(r, m.get('simulate'), path);
    if (simulate) task.simulate = simulate;
  }
  return task;
}

/** `on: engine_start`: a run each time an engine starts (what a crontab's @reboot becomes). */
function readOn(r: Reader, v: unknown, spec: WorkflowSpec): void {
  if (v === 'engine_start') spec.onEngineStart = true;
  else
    r.add(
      'on',
      `must be ${ON_VALUES.join(', ')} (got ${typeof v === 'string' ? `"${v}"` : typeName(v)}): write "on: engine_start" for a run each time the engine starts; an event is "on_event: NAME"`,
    );
}

/** The spec of a file's top-level map; its problems go to the reader. */
export function readWorkflow(r: Reader, m: YMap, opts: FieldOptions): WorkflowSpec {
  r.keys(m, TOP_KEYS, '');
  if (!m.has('workflow')) r.add('workflow', 'missing: add "workflow: <name>" at the top level');
  const name = m.has('workflow') ? r.name(m.get('workflow'), 'workflow') : undefined;
  const spec: WorkflowSpec = {
    name: name ?? '',
    routing: r.choice(m, 'routing', '', ROUTING, 'round_robin'),
    tasks: [],
  };
  const description = r.text(m, 'description', '');
  if (description !== undefined) spec.description = description;
  const owner = r.text(m, 'owner', '');
  if (owner !== undefined) spec.owner = owner;
  if (m.has('schedule')) spec.schedule = readSchedule(r, m.get('schedule'), opts.defaultTimezone);
  const onEvent = m.has('on_event') ? r.name(m.get('on_event'), 'on_event') : undefined;
  if (onEvent !== undefined) spec.onEvent = onEvent;
  if (m.has('on')) readOn(r, m.get('on'), spec);
  if (m.has('alerts')) {
    const alerts = readAlerts(r, m.get('alerts'));
    if (alerts) spec.alerts = alerts;
  }

  if (m.has('params')) {
    const params = readParams(r, m.get('params'));
    if (params.length > 0) spec.params = params;
  }
  const defaults = readSettings(r, m, '', opts.resolveCwd);
  if (!noSettings(defaults)) spec.taskDefaults = defaults;

  if (m.has('monitor')) {
    const monitor = readMonitor(r, m.get('monitor'));
    if (monitor) spec.monitor = monitor;
    checkMonitor(r, m);
  }
  checkParamsAgainstTriggers(r, spec);

  const tasks = m.has('tasks') ? r.map(m.get('tasks'), 'tasks', 'a map of task name to task') : undefined;
  if (m.has('monitor')) {
    if ((tasks?.size ?? 0) > 0)
      r.add(
        'tasks',
        'a monitor runs nothing itself (its runs are reported by "ax ping" or "ax wrap"): remove "tasks", or remove "monitor" to run them here',
      );
    return spec;
  }
  if (!m.has('tasks')) r.add('tasks', 'missing: add a "tasks" map with at least one task');
  else if (tasks?.size === 0) r.add('tasks', 'at least one task is required');
  for (const [name, value] of tasks ?? []) {
    if (!NAME.test(name)) r.add(join('tasks', name), nameHint(name));
    const task = readTask(r, name, value, opts.resolveCwd, spec.name, spec.taskDefaults);
    if (task) spec.tasks.push(task);
  }
  return spec;
}

/** `monitor: { grace: 10m }` (or `monitor: {}` for the default grace): design.md §13. */
function readMonitor(r: Reader, v: unknown): WorkflowSpec['monitor'] {
  if (v === null || v === undefined) return { graceMs: DEFAULT_MONITOR_GRACE_MS };
  const m = r.map(v, 'monitor', 'a map such as { grace: 10m } (or {} for the default grace of 5m)');
  if (!m) return undefined;
  r.keys(m, MONITOR_KEYS, 'monitor');
  if (!m.has('grace')) return { graceMs: DEFAULT_MONITOR_GRACE_MS };
  const ms = r.duration(m.get('grace'), 'monitor.grace');
  return ms === undefined ? undefined : { graceMs: ms };
}

/**
 * A monitor is a schedule without work: it needs the schedule and takes no event. Its schedule's
 * misfire and overlap are kept as written (what `ax import crontab --monitor` writes) but start nothing.
 */
function checkMonitor(r: Reader, m: YMap): void {
  if (!m.has('schedule'))
    r.add(
      'schedule',
      'missing: a monitor needs the schedule its job runs on (e.g. schedule: "0 2 * * *"), to know when a run is due',
    );
  if (m.has('on_event'))
    r.add('on_event', 'a monitor starts no runs, so no event can start one: remove "on_event" (or "monitor")');
  if (m.has('on'))
    r.add('on', 'a monitor starts no runs, so the engine\'s start cannot start one: remove "on" (or "monitor")');
}
