// The workflows of an import's jobs: one per job (named from its command, stably), one for a
// --group, or a monitor per job for --monitor (its source line wrapped with `ax wrap`).
import { DEFAULT_WORKFLOW_ALERT_RULES } from '../../api/alerts.ts';
import type { WorkflowSpec } from '../../api/types.ts';
import { NAME, nameHint } from '../workflow/workflow-reader.ts';
import { serializeWorkflow } from '../workflow/workflow-serialize.ts';
import { shortHash, wrapLine } from './crontab-command.ts';
import { type CrontabLine, splitCommand } from './crontab-grammar.ts';
import type { JobSchedule } from './crontab-schedule.ts';
import type { ImportFile, ImportOptions, ImportedJob, SkippedLine } from './import-types.ts';

/** A monitor's grace when the import makes one: a job late by more than this is missed. */
export const MONITOR_GRACE_MS = 5 * 60_000;
/** cron's own environment (Debian's cron: SHELL and PATH unless the crontab sets them). */
export const CRON_SHELL = '/bin/sh';
export const CRON_PATH = '/usr/bin:/bin';

type Job = Extract<CrontabLine, { kind: 'job' }>;

export interface Pending {
  job: Job;
  imported: ImportedJob;
  description: string;
  env: Record<string, string>;
  cwd?: string;
  command: string;
  schedule: JobSchedule;
  channels: string[];
  base: string;
}

/** Names by line: the person's, or the command's with a stable suffix where two jobs share one. */
function names(
  pending: Pending[],
  opts: ImportOptions,
  skipped: SkippedLine[],
  markedBases: ReadonlySet<string>,
): Map<Pending, string> {
  const out = new Map<Pending, string>();
  const byBase = new Map<string, Pending[]>();
  for (const p of pending) {
    const chosen = opts.names?.[p.job.line];
    if (chosen !== undefined) {
      if (!NAME.test(chosen))
        skipped.push({ line: p.job.line, text: p.job.text, reason: `the name ${nameHint(chosen)}` });
      else if ([...out.values()].includes(chosen))
        skipped.push({
          line: p.job.line,
          text: p.job.text,
          reason: `the name "${chosen}" is given to another line too: choose another`,
        });
      else out.set(p, chosen);
      continue;
    }
    byBase.set(p.base, [...(byBase.get(p.base) ?? []), p]);
  }
  const taken = new Set(out.values());
  for (const [base, group] of byBase) {
    const seen = new Map<string, number>();
    for (const p of group) {
      let name = base;
      if (group.length > 1 || taken.has(base) || markedBases.has(base)) {
        name = `${base.slice(0, 53)}-${shortHash(`${p.job.user ?? ''}\u0000${(p.job.fields ?? [p.job.nickname]).join(' ')}\u0000${p.job.command}`)}`;
        const n = (seen.get(name) ?? 0) + 1;
        seen.set(name, n);
        if (n > 1) name = `${name}-${n}`;
      }
      out.set(p, name);
    }
  }
  return out;
}

function scheduleSpec(p: Pending, opts: ImportOptions): WorkflowSpec['schedule'] {
  if (!p.schedule.cron) return undefined;
  return {
    cron: p.schedule.cron,
    timezone: p.imported.timezone as string,
    misfire: opts.axDefaults ? 'run_once' : 'skip',
    overlap: opts.axDefaults ? 'skip' : 'parallel',
  };
}

function task(p: Pending, name: string): WorkflowSpec['tasks'][number] {
  return {
    name,
    command: p.command,
    ...(p.cwd !== undefined && { cwd: p.cwd }),
    env: p.env,
    retries: 0,
    retryBackoff: { kind: 'fixed', delayMs: 10_000, maxDelayMs: 10_000 },
    labels: [],
    upstream: [],
  };
}

function file(spec: WorkflowSpec, lines: number[]): ImportFile {
  return { workflow: spec.name, fileName: `${spec.name}.yaml`, yaml: serializeWorkflow(spec), spec, lines };
}

function base(p: Pending, name: string, opts: ImportOptions): WorkflowSpec {
  const schedule = scheduleSpec(p, opts);
  return {
    name,
    ...(p.description !== '' && { description: p.description }),
    ...(schedule && { schedule }),
    ...(!schedule && { onEngineStart: true }),
    routing: 'round_robin',
    ...(p.channels.length > 0 && { alerts: { channels: p.channels, rules: [...DEFAULT_WORKFLOW_ALERT_RULES] } }),
    tasks: [],
  };
}

export function singles(
  pending: Pending[],
  opts: ImportOptions,
  skipped: SkippedLine[],
  markedBases: ReadonlySet<string> = new Set(),
): ImportFile[] {
  const named = names(pending, opts, skipped, markedBases);
  return pending.flatMap((p) => {
    const name = named.get(p);
    if (name === undefined) return [];
    Object.assign(p.imported, { workflow: name, task: name });
    return [file({ ...base(p, name, opts), tasks: [task(p, name)] }, [p.job.line])];
  });
}

export function grouped(
  pending: Pending[],
  opts: ImportOptions,
  skipped: SkippedLine[],
  markedBases: ReadonlySet<string> = new Set(),
): ImportFile[] {
  const group = opts.group as string;
  if (!NAME.test(group)) {
    for (const p of pending)
      skipped.push({ line: p.job.line, text: p.job.text, reason: `--group: ${nameHint(group)}` });
    return [];
  }
  const named = names(pending, opts, skipped, markedBases);
  const members = pending.filter((p) => named.has(p));
  const first = members[0];
  if (!first) return [];
  const trigger = (p: Pending) => `${p.schedule.cron ?? '@reboot'} ${p.imported.timezone ?? ''}`;
  const kept = members.filter((p) => {
    if (trigger(p) === trigger(first)) return true;
    skipped.push({
      line: p.job.line,
      text: p.job.text,
      reason: `--group ${group}: a workflow has one schedule, and this line's (${p.imported.scheduleText}) is not the group's (${first.imported.scheduleText}, line ${first.job.line}): import it without --group or in another group`,
    });
    return false;
  });
  for (const p of kept) Object.assign(p.imported, { workflow: group, task: named.get(p) });
  const spec = base(first, group, opts);
  const channels = [...new Set(kept.flatMap((p) => p.channels))];
  spec.alerts = channels.length > 0 ? { channels, rules: [...DEFAULT_WORKFLOW_ALERT_RULES] } : undefined;
  if (!spec.alerts) delete spec.alerts;
  const descriptions = kept.filter((p) => p.description !== '').map((p) => `${named.get(p)}: ${p.description}`);
  if (descriptions.length > 0) spec.description = descriptions.join('\n');
  else delete spec.description;
  spec.tasks = kept.map((p) => task(p, named.get(p) as string));
  return [
    file(
      spec,
      kept.map((p) => p.job.line),
    ),
  ];
}

export function monitors(
  pending: Pending[],
  opts: ImportOptions,
  skipped: SkippedLine[],
  markedBases: ReadonlySet<string> = new Set(),
): ImportFile[] {
  const named = names(pending, opts, skipped, markedBases);
  return pending.flatMap((p) => {
    const name = named.get(p);
    if (name === undefined) return [];
    if (!p.schedule.cron) {
      skipped.push({
        line: p.job.line,
        text: p.job.text,
        reason:
          '@reboot has no schedule a monitor could be late against: import it without --monitor (it becomes on: engine_start), or leave it on cron',
      });
      return [];
    }
    const split = splitCommand(p.job.command);
    const wrapped = wrapLine(p.job.text, p.job.command, split.command, shellOf(p), name);
    if (wrapped === undefined) {
      skipped.push({
        line: p.job.line,
        text: p.job.text,
        reason: 'its command holds "\\%", which no line wrapped for cron can give back: wrap it by hand',
      });
      return [];
    }
    Object.assign(p.imported, { workflow: name, task: '', wrappedLine: wrapped });
    const spec: WorkflowSpec = { ...base(p, name, opts), monitor: { graceMs: MONITOR_GRACE_MS } };
    // A monitor runs nothing: cron's misfire and overlap have no meaning for it, and its file refuses them.
    if (spec.schedule) spec.schedule = { ...spec.schedule, misfire: 'run_once', overlap: 'skip' };
    return [file(spec, [p.job.line])];
  });
}

function shellOf(p: Pending): string {
  return p.env.SHELL ?? CRON_SHELL;
}
