// `ax import crontab`'s core: a crontab's text → the workflows that run its jobs as cron did, and a
// report of each line (its workflow, its schedule in words, the next fires under cron's rules and
// under AX's side by side, or why it was not imported). Pure: the host passes the text, the time
// and the users, and writes or applies the files (core does no I/O: docs/ARCHITECTURE.md).
import { describeCron, validateTimezone } from '../model/cron.ts';
import { nameFromCommand, sanitize, splitRedirects, taskCommand } from './crontab-command.ts';
import { type CrontabLine, parseCrontab, splitCommand } from './crontab-grammar.ts';
import { scheduleOf } from './crontab-schedule.ts';
import { CRON_PATH, CRON_SHELL, type Pending, grouped, monitors, singles } from './crontab-workflows.ts';
import type { ImportOptions, ImportReport, SkippedLine } from './import-types.ts';
import { markedLine } from './source-markers.ts';

export { MONITOR_GRACE_MS } from './crontab-workflows.ts';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The channel a MAILTO address gets: `mail-` and its local part (`ops@example.com` → `mail-ops`). */
export function mailChannel(address: string): string {
  return `mail-${sanitize(address.split('@')[0] ?? '') || 'owner'}`;
}

export function importCrontab(text: string, source: string, opts: ImportOptions & { system?: boolean }): ImportReport {
  const count = Math.max(1, Math.floor(opts.fires ?? 5));
  const notes: string[] = [];
  const skipped: SkippedLine[] = [];
  const pending: Pending[] = [];
  const channelNotes = new Map<string, Set<string>>();
  const env: [string, string][] = [];
  let comments: string[] = [];
  let noUserNote = false;
  let noMailto = false;
  // Jobs an earlier import marked off still name theirs: a job sharing their command keeps its own
  // name (the hashed one) on a re-import instead of taking the plain one, which may be theirs.
  const markedBases = new Set<string>();
  let wrappedBy: string | undefined;
  const skip = (line: CrontabLine, reason: string) => skipped.push({ line: line.line, text: line.text, reason });

  for (const line of parseCrontab(text, opts.system === true)) {
    if (line.kind === 'comment') {
      // a line --disable-source marked off is the job AX already has, not the next job's description
      const marked = markedLine(line.text.replace(/^[ \t]+/, ''));
      if (marked) {
        comments = [];
        const job = parseCrontab(marked.original, opts.system === true).find((l) => l.kind === 'job');
        if (job?.kind === 'job')
          markedBases.add(nameFromCommand(splitRedirects(splitCommand(job.command).command).command));
        wrappedBy = marked.kind === 'wrapped' ? marked.workflow : undefined;
        continue;
      }
      comments.push(line.text.replace(/^[ \t]*#+ ?/, '').replace(/\s+$/, ''));
      continue;
    }
    const above = comments;
    comments = [];
    const wrapper = wrappedBy;
    wrappedBy = undefined;
    if (line.kind === 'blank') continue;
    if (line.kind === 'env') {
      const at = env.findIndex(([n]) => n === line.name);
      if (at >= 0) env.splice(at, 1);
      env.push([line.name, line.value]);
      continue;
    }
    if (line.kind === 'error') {
      skip(line, `${line.reason} (cron skips this line; crontab -e would refuse the file)`);
      continue;
    }
    if (wrapper !== undefined && line.command.trimStart().startsWith(`ax wrap ${wrapper} -- `)) {
      skip(
        line,
        `AX wrote this line: it reports the job to the monitor ${wrapper} (ax import crontab --restore puts the job back)`,
      );
      continue;
    }
    const vars = new Map(env);
    const warnings: string[] = [];
    const badName = [...vars.keys()].find((n) => !ENV_NAME.test(n));
    if (badName !== undefined) {
      skip(
        line,
        `the variable "${badName}" set above it is no environment name AX can give a task: rename it (letters, digits and "_")`,
      );
      continue;
    }
    const user = opts.system ? opts.lookupUser?.(line.user ?? '') : opts.user;
    if (opts.system && !opts.monitor && opts.taskUser !== undefined && line.user !== opts.taskUser) {
      skip(
        line,
        `cron runs it as ${line.user}, and AX's tasks here run as ${opts.taskUser}: import it on a machine where AX's tasks run as ${line.user} ` +
          `(ax settings set run-as ${line.user}), or keep it on cron and import it with --monitor`,
      );
      continue;
    }
    if (opts.system && user === undefined && !opts.monitor) {
      skip(
        line,
        `cron runs it as ${line.user}, and there is no such user here: create the user, or fix the line's user column`,
      );
      continue;
    }
    if (!user) noUserNote = true;
    const zone = vars.get('CRON_TZ') ?? opts.hostZone;
    const badZone = validateTimezone(zone);
    if (badZone) {
      skip(line, `CRON_TZ: ${badZone}`);
      continue;
    }
    if (vars.has('CRON_TZ'))
      warnings.push(
        `CRON_TZ=${zone} is the schedule's zone, as cronie reads it; Debian's cron (Vixie 3.0) ignores CRON_TZ and runs the line in the host's zone (${opts.hostZone})`,
      );
    else if (vars.has('TZ'))
      warnings.push(
        `TZ=${vars.get('TZ')} sets the job's environment only: cron runs the line by the host's zone (${opts.hostZone}), and so does this schedule; set CRON_TZ for another zone`,
      );
    const schedule = scheduleOf(line, zone, opts.now, count);
    if ('reason' in schedule) {
      skip(line, schedule.reason);
      continue;
    }
    warnings.push(...schedule.warnings);
    const shell = vars.get('SHELL') ?? CRON_SHELL;
    const split = splitCommand(line.command);
    const redirect = splitRedirects(split.command);
    let command = split.command;
    if (redirect.redirects !== '') {
      if (opts.stripRedirects && !opts.monitor) command = redirect.command;
      else
        warnings.push(
          redirect.files.length > 0 && redirect.files.every((f) => f === '/dev/null')
            ? `its output is thrown away ("${redirect.redirects}"): AX's log of each run will be empty (--strip-redirects drops it)`
            : `its output goes where "${redirect.redirects}" sends it, not to AX's log of the run (--strip-redirects drops it)`,
        );
    }
    if (/(^|[\s;&|({])run-parts\s/.test(split.command))
      warnings.push('it runs every script in a directory (run-parts): AX runs the whole as one task, with one log');
    if (split.stdin !== undefined)
      warnings.push('the text after its first "%" is the command\'s standard input, as under cron');
    const mailto = vars.get('MAILTO');
    const channels = [
      ...new Set(
        (mailto ?? '')
          .split(/[,\s]+/)
          .filter((a) => a !== '')
          .map(mailChannel),
      ),
    ];
    for (const address of mailto?.split(/[,\s]+/).filter((a) => a !== '') ?? []) {
      const set = channelNotes.get(mailChannel(address)) ?? new Set();
      set.add(address);
      channelNotes.set(mailChannel(address), set);
    }
    if (mailto === undefined && !opts.monitor) noMailto = true;
    // cron's environment: SHELL, PATH and HOME unless the crontab sets them, LOGNAME always its user.
    const taskEnv: Record<string, string> = { SHELL: CRON_SHELL, PATH: CRON_PATH };
    if (user) taskEnv.HOME = user.home;
    for (const [n, v] of vars) if (n !== 'LOGNAME') taskEnv[n] = v;
    if (user) taskEnv.LOGNAME = user.name;
    const home = taskEnv.HOME;
    const cwd = home !== undefined && home.startsWith('/') ? home : undefined;
    if (home !== undefined && cwd === undefined)
      warnings.push(
        `cron starts the job in HOME (${home}), which is no absolute path: the task starts in AX's default directory`,
      );
    pending.push({
      job: line,
      description: trimBlank(above).join('\n'),
      env: taskEnv,
      ...(cwd !== undefined && { cwd }),
      command: taskCommand(command, shell, split.stdin),
      schedule,
      channels,
      base: nameFromCommand(redirect.command),
      imported: {
        line: line.line,
        text: line.text,
        ...(line.user !== undefined && { user: line.user }),
        workflow: '',
        task: '',
        scheduleText: schedule.cron ? describeCron(schedule.cron, zone) : 'when the engine starts',
        ...(schedule.cron !== undefined && { cron: schedule.cron, timezone: zone }),
        sourceFires: schedule.sourceFires,
        axFires: schedule.axFires,
        warnings,
      },
    });
  }

  const files = opts.monitor
    ? monitors(pending, opts, skipped, markedBases)
    : opts.group
      ? grouped(pending, opts, skipped, markedBases)
      : singles(pending, opts, skipped, markedBases);
  notes.push(...behaviourNotes(opts, files.length > 0));
  for (const [channel, addresses] of channelNotes)
    notes.push(
      `MAILTO ${[...addresses].join(', ')}: the workflows send alerts to the channel "${channel}": define it in settings.json under "alerts.channels" ` +
        `as {"${channel}": {"type": "email", "host": …, "port": …, "from": …, "to": [${[...addresses].map((a) => `"${a}"`).join(', ')}]}} (README, "Alerts"). ` +
        'cron mails any output of a job; AX alerts when a run fails',
    );
  if (opts.monitor && files.length > 0)
    notes.push(
      "each job's wrappedLine replaces its line in the crontab: cron then runs the command through `ax wrap`, which reports the run to the job's monitor. " +
        'cron finds `ax` on its PATH (/usr/bin:/bin unless the crontab sets PATH): put it there, or write its full path in the lines',
    );
  if (!opts.monitor && files.length > 0)
    notes.push(
      "cron gives a job only its own environment (SHELL, PATH, HOME, LOGNAME and the crontab's assignments), which each task's env now sets; " +
        "the node's other variables reach the tasks too unless its task-env setting is clean (ax settings set task-env clean)",
    );
  if (noMailto)
    notes.push(
      "cron mails a job's output to the crontab's owner when no MAILTO is set: no alert route is written for those jobs",
    );
  if (noUserNote && !opts.monitor)
    notes.push("HOME and LOGNAME: cron sets them from the crontab's owner; no user was given, so the tasks get none");
  skipped.sort((a, b) => a.line - b.line);
  const jobs = pending.filter((p) => p.imported.workflow !== '').map((p) => p.imported);
  return { source, jobs, skipped, notes, files };
}

function trimBlank(lines: string[]): string[] {
  const out = [...lines];
  while (out.length > 0 && out[0]?.trim() === '') out.shift();
  while (out.length > 0 && out[out.length - 1]?.trim() === '') out.pop();
  return out;
}

function behaviourNotes(opts: ImportOptions, any: boolean): string[] {
  if (!any) return [];
  if (opts.axDefaults)
    return [
      "AX's defaults are written: misfire: run_once (one catch-up run after the engine was down) and overlap: skip (no run while the last is going); cron would have run neither way (misfire: skip, overlap: parallel)",
    ];
  return [
    "cron's behaviour is kept: misfire: skip (a fire missed while the engine was down is not run later) and overlap: parallel (a run starts even while the last one goes on). " +
      "AX's defaults are misfire: run_once and overlap: skip: import with --ax-defaults for them",
  ];
}
