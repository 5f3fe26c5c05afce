// A systemd timer and its service as AX workflows (`ax import systemd UNIT.timer`): each
// OnCalendar= becomes a schedule (systemd-calendar.ts), the service one task (systemd-service.ts).
// Pure: the host passes the units' text and a way to read an EnvironmentFile. A unit is imported
// whole or not at all, and never as something close: its next fires under systemd's rules and
// under the AX cron must be the same, and what AX would not do as systemd does is refused with
// the reason (monotonic timers, ExecStop=, another user, …) or, where it only changes when within
// a window a run starts or how its process is confined, named in the job's warnings.
// Several OnCalendar= lines: one workflow each (NAME, NAME-2, …), since a workflow has one schedule.
import type { WorkflowSpec } from '../../api/types.ts';
import { ValidationError } from '../../api/errors.ts';
import { describeCron, validateCron } from '../model/cron.ts';
import { parseWorkflowFile } from '../workflow/workflow-file.ts';
import { serializeWorkflow } from '../workflow/workflow-serialize.ts';
import { nextAxFires } from './crontab-schedule.ts';
import type { ImportedJob, ImportOptions, ImportReport } from './import-types.ts';
import { calendarToCron, type CalendarSpec, parseCalendar } from './systemd-calendar.ts';
import { calendarFires } from './systemd-calendar-fires.ts';
import { readService, SERVICE_KEYS, type ServiceTask, SYSTEMD_PATH } from './systemd-service.ts';
import { lastOf, listOf, parseTimespan, parseUnitFile, type UnitEntry, type UnitFile } from './systemd-unit-file.ts';

export interface SystemdUnit {
  timerPath: string;
  timerText: string;
  servicePath: string;
  serviceText: string;
  /** an EnvironmentFile's text; undefined when it does not exist or cannot be read */
  readFile: (path: string) => string | undefined;
}

const MONOTONIC = ['OnActiveSec', 'OnBootSec', 'OnStartupSec', 'OnUnitActiveSec', 'OnUnitInactiveSec'];
const TIMER_KEYS = [
  'OnCalendar',
  'Persistent',
  'RandomizedDelaySec',
  'FixedRandomDelay',
  'AccuracySec',
  'Unit',
  'WakeSystem',
  'RemainAfterElapse',
  'OnClockChange',
  'OnTimezoneChange',
];
/** keys whose absence in AX changes nothing about what runs when */
const QUIET = new Set(['Unit.Description', 'Unit.Documentation']);
const TRUE = /^(yes|true|on|1)$/i;

const baseName = (p: string): string => p.slice(p.lastIndexOf('/') + 1);
const workflowName = (unitBase: string): string =>
  unitBase
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100) || 'timer';

/** The directives AX does not apply, named: `[Service] Nice=19`. */
function notCarried(unit: UnitFile, known: string[], section: string): string[] {
  return unit.entries
    .filter(
      (e) =>
        e.section !== 'Install' &&
        !QUIET.has(`${e.section}.${e.key}`) &&
        !(e.section === section && known.includes(e.key)),
    )
    .map((e) => `[${e.section}] ${e.key}=${e.value}`);
}

/** a time span as written, a bare number being seconds */
const spanText = (v: string): string => (/^\d+$/.test(v.trim()) ? `${v.trim()} seconds` : v);
const iso = (t: number | undefined): string => (t === undefined ? 'none' : new Date(t).toISOString());

export function importSystemdTimer(unit: SystemdUnit, opts: ImportOptions): ImportReport {
  const timerName = baseName(unit.timerPath);
  const report: ImportReport = { source: timerName, jobs: [], skipped: [], notes: [], files: [] };
  const timer = parseUnitFile(unit.timerText);
  const calendars = listOf(timer, 'Timer', 'OnCalendar');
  /** the whole unit not imported: each of its schedules says why */
  const refuse = (reason: string, at?: UnitEntry, inService = false): ImportReport => {
    const where = at && inService ? ` (${baseName(unit.servicePath)} line ${at.line}: ${at.text.trim()})` : '';
    const lines =
      calendars.length > 0
        ? calendars
        : [at && !inService ? at : { line: 1, text: unit.timerText.split('\n')[0] ?? '' }];
    for (const c of lines) report.skipped.push({ line: c.line, text: c.text, reason: `${reason}${where}` });
    report.jobs = [];
    report.files = [];
    // what the workflows would have kept (misfire, overlap, environment) is no news without them
    report.notes = report.notes.slice(0, 1);
    return report;
  };
  const base = timerName.replace(/\.timer$/, '');
  if (!timerName.endsWith('.timer')) return refuse(`${timerName} is not a .timer unit`);
  if (base.endsWith('@')) return refuse(`${timerName} is a template: import one of its instances (${base}NAME.timer)`);
  if (opts.monitor)
    return refuse(
      'monitoring a systemd timer (--monitor) is not available yet: import it to run in AX, or wrap its ExecStart= in "ax wrap" by hand',
    );

  const wanted = lastOf(timer, 'Timer', 'Unit')?.value ?? `${base}.service`;
  const serviceName = baseName(unit.servicePath);
  if (serviceName !== wanted)
    return refuse(
      `the timer starts ${wanted}${lastOf(timer, 'Timer', 'Unit') ? ' (its Unit=)' : ''}, but ${serviceName} was given: pass ${wanted}`,
    );
  // the first note, and the only one a refused unit keeps (see refuse)
  report.notes.push(
    `${timerName} starts ${serviceName}${lastOf(timer, 'Timer', 'Unit') ? ' (its Unit=)' : ''}: that service's command is the task`,
  );

  for (const key of MONOTONIC) {
    const e = lastOf(timer, 'Timer', key);
    if (e)
      return refuse(
        `${key}= counts from boot or from the service's last run (a monotonic timer), which a cron schedule cannot say`,
        e,
      );
  }
  for (const key of ['OnClockChange', 'OnTimezoneChange']) {
    const e = lastOf(timer, 'Timer', key);
    if (e && TRUE.test(e.value))
      return refuse(`${key}=${e.value} also starts the service when the clock or the zone changes: AX does not`, e);
  }
  if (calendars.length === 0) return refuse(`${timerName} has no OnCalendar=: there is no schedule to import`);

  const specs: { entry: UnitEntry; spec: CalendarSpec }[] = [];
  for (const entry of calendars) {
    const spec = parseCalendar(entry.value);
    if (typeof spec === 'string') return refuse(`OnCalendar=${entry.value}: ${spec}`, entry);
    specs.push({ entry, spec });
  }

  const service = parseUnitFile(unit.serviceText);
  const task = readService(service, {
    unitName: serviceName,
    userUnit: /\/systemd\/user\//.test(unit.timerPath),
    readFile: unit.readFile,
    opts,
  });
  if ('reason' in task) return refuse(task.reason, task.entry, task.entry !== undefined);

  const warnings = unitWarnings(timer, service, task);
  const persistent = TRUE.test(lastOf(timer, 'Timer', 'Persistent')?.value ?? 'no');
  const misfire = persistent || opts.axDefaults ? 'run_once' : 'skip';
  report.notes.push(
    persistent
      ? 'Persistent=true: a fire missed while the machine was off runs once when it is back, as AX\'s misfire "run_once" does'
      : opts.axDefaults
        ? 'without Persistent=true systemd does not run a missed fire; with --ax-defaults the workflow gets misfire "run_once" instead'
        : 'without Persistent=true systemd does not run a fire missed while the machine was off: misfire "skip" keeps that (--ax-defaults: "run_once")',
  );
  report.notes.push('overlap "skip": systemd does not start a service again while it still runs');
  if (specs.length > 1)
    report.notes.push(
      `${specs.length} OnCalendar= lines: one workflow each (a workflow has one schedule); systemd never runs the service twice at once, separate workflows may when their fires are close`,
    );
  if (opts.group && specs.length > 1)
    report.notes.push(
      `not grouped into "${opts.group}": each of the ${specs.length} schedules needs a workflow of its own`,
    );
  report.notes.push(
    `the task gets systemd's environment, not your shell's: PATH=${SYSTEMD_PATH}${task.env.HOME !== undefined ? ', and HOME, USER, LOGNAME of its user' : ''}, then Environment= and EnvironmentFile=`,
  );
  report.notes.push(
    `drop-in files (${timerName}.d/*.conf, ${serviceName}.d/*.conf) are not read: merge them into the units first`,
  );

  const count = opts.fires ?? 5;
  const taskName = workflowName(serviceName.replace(/\.service$/, ''));
  const candidates: { job: ImportedJob; spec: WorkflowSpec }[] = [];
  for (const [i, { entry, spec }] of specs.entries()) {
    const zone = spec.timezone ?? opts.hostZone;
    const cron = calendarToCron(spec);
    const problem = validateCron(cron);
    if (problem)
      return refuse(`OnCalendar=${entry.value} gives the cron "${cron}", which AX refuses: ${problem}`, entry);
    const sourceFires = calendarFires(spec, zone, opts.now, count);
    const axFires = nextAxFires(cron, zone, opts.now, count);
    if (sourceFires.length === 0)
      return refuse(`OnCalendar=${entry.value} does not fire in the next five years`, entry);
    const differ = sourceFires.findIndex((t, k) => axFires[k] !== t);
    if (differ >= 0 || axFires.length !== sourceFires.length) {
      const k = differ >= 0 ? differ : sourceFires.length;
      return refuse(
        `OnCalendar=${entry.value} and the cron "${cron}" (${zone}) do not fire alike: fire ${k + 1} is ${iso(sourceFires[k])} under systemd, ${iso(axFires[k])} under AX`,
        entry,
      );
    }
    const name =
      opts.names?.[entry.line] ??
      (opts.group && specs.length === 1 ? opts.group : i === 0 ? workflowName(base) : `${workflowName(base)}-${i + 1}`);
    const description = lastOf(timer, 'Unit', 'Description')?.value ?? lastOf(service, 'Unit', 'Description')?.value;
    const wf: WorkflowSpec = {
      name,
      ...(description !== undefined && { description }),
      schedule: { cron, timezone: zone, misfire, overlap: 'skip' },
      routing: 'round_robin',
      tasks: [
        {
          name: taskName,
          command: task.command,
          ...(task.cwd !== undefined && { cwd: task.cwd }),
          env: task.env,
          ...(task.timeoutMs !== undefined && { timeoutMs: task.timeoutMs }),
          retries: 0,
          retryBackoff: { kind: 'fixed', delayMs: 10_000, maxDelayMs: 10_000 },
          labels: [],
          upstream: [],
        },
      ],
    };
    const job: ImportedJob = {
      line: entry.line,
      text: entry.text,
      ...(task.user !== undefined && { user: task.user }),
      workflow: name,
      task: taskName,
      scheduleText: describeCron(cron, zone),
      cron,
      timezone: zone,
      sourceFires,
      axFires,
      warnings: [...warnings],
    };
    candidates.push({ job, spec: wf });
  }
  for (const { job, spec } of candidates) {
    const fileName = `${spec.name}.yaml`;
    const yaml = serializeWorkflow(spec);
    try {
      const parsed = parseWorkflowFile(yaml, { defaultTimezone: opts.hostZone, file: fileName });
      report.files.push({ workflow: spec.name, fileName, yaml, spec: parsed.spec, lines: [job.line] });
      report.jobs.push(job);
    } catch (err) {
      const problems =
        err instanceof ValidationError ? err.problems.map((p) => `${p.path}: ${p.message}`).join('; ') : String(err);
      return refuse(`the workflow it would make does not pass AX's checks: ${problems}`);
    }
  }
  return report;
}

/** What AX does differently from systemd in when a run starts or how it runs, named. */
function unitWarnings(timer: UnitFile, service: UnitFile, task: ServiceTask): string[] {
  const out = [...task.warnings];
  const delay = lastOf(timer, 'Timer', 'RandomizedDelaySec');
  if (delay && (parseTimespan(delay.value) ?? 1) > 0)
    out.push(
      `RandomizedDelaySec=${delay.value}: systemd starts it at a random moment up to ${spanText(delay.value)} after the time; AX starts it on the time`,
    );
  const accuracy = lastOf(timer, 'Timer', 'AccuracySec')?.value ?? '1min (the default)';
  out.push(`AccuracySec=${accuracy}: systemd may start it that much after the time; AX starts it on the time`);
  const wake = lastOf(timer, 'Timer', 'WakeSystem');
  if (wake && TRUE.test(wake.value)) out.push('WakeSystem=true: systemd wakes a sleeping machine for it; AX does not');
  for (const b of timer.bad)
    out.push(`line ${b.line} of the timer is not a setting and is ignored, as systemd ignores it: ${b.text.trim()}`);
  const ignored = notCarried(timer, TIMER_KEYS, 'Timer');
  if (ignored.length > 0) out.push(`not carried over from the timer: ${ignored.join(', ')}`);
  for (const b of service.bad)
    out.push(`line ${b.line} of the service is not a setting and is ignored, as systemd ignores it: ${b.text.trim()}`);
  // hardening, Nice=, Condition…=, After=: AX runs the command without them
  const unapplied = notCarried(service, SERVICE_KEYS, 'Service');
  if (unapplied.length > 0)
    out.push(`not carried over from the service (AX does not apply them): ${unapplied.join(', ')}`);
  return out;
}
