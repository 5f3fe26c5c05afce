// ax import crontab | systemd: jobs of another scheduler as AX workflows. A dry report by
// default; -o DIR writes the workflow files, --apply applies them all or nothing; for a crontab,
// --disable-source then turns the imported lines off in the source (after a backup), and
// --restore puts them back.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { AxError } from '../../api/errors.ts';
import type { ApplyOutcome } from '../../api/engine-api.ts';
import { importCrontab } from '../../core/import/crontab-import.ts';
import type { ImportFile, ImportOptions, ImportReport } from '../../core/import/import-types.ts';
import { currentUser, lookupUser } from '../node/cron-sources.ts';
import { hostZone } from '../node/host-defaults.ts';
import { nodeTaskEnv } from '../node/task-env.ts';
import { applyFiles, type CheckedFile } from './apply-files.ts';
import { appliedLine } from './commands-workflows.ts';
import { cliDataDir, type GlobalOptions, taskEnvFlags, withApi } from './connect.ts';
import { printJson } from './format.ts';
import { checkRewritable, type DisableOutcome, disableSource, restoreSource } from './import-disable.ts';
import { importSystemd } from './import-systemd.ts';
import { reportText } from './import-output.ts';
import { crontabSources } from './import-sources.ts';
import { parseWorkflowText } from './workflow-files.ts';

type Globals = () => GlobalOptions & { json?: boolean };

export interface ImportFlags {
  output?: string;
  apply?: boolean;
  force?: boolean;
  group?: string;
  axDefaults?: boolean;
  stripRedirects?: boolean;
  monitor?: boolean;
}

interface CrontabFlags extends ImportFlags {
  system?: boolean;
  disableSource?: boolean;
  restore?: boolean;
}

/** What every import passes its core: the time, the zone, the users. */
export function importOptions(globals: GlobalOptions, flags: ImportFlags): ImportOptions {
  const runAs = nodeTaskEnv(cliDataDir(globals.dataDir), taskEnvFlags(globals)).runAs;
  return {
    now: Date.now(),
    hostZone: hostZone(),
    lookupUser,
    taskUser: runAs?.name ?? currentUser().name,
    ...(flags.group !== undefined && { group: flags.group }),
    ...(flags.axDefaults && { axDefaults: true }),
    ...(flags.stripRedirects && { stripRedirects: true }),
    ...(flags.monitor && { monitor: true }),
  };
}

type WriteState = 'written' | 'unchanged' | 'replaced';

/**
 * The files into DIR. A file there that differs from what the import writes was changed by hand
 * (or comes from elsewhere): refused, all of them named, before anything is written, unless --force.
 */
export function writeImportFiles(dir: string, files: readonly ImportFile[], force: boolean | undefined) {
  const targets = files.map((f) => ({ f, file: path.join(dir, f.fileName) }));
  const existing = new Map<string, string>();
  for (const t of targets) {
    try {
      existing.set(t.file, fs.readFileSync(t.file, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  const changed = targets.filter((t) => existing.has(t.file) && existing.get(t.file) !== t.f.yaml).map((t) => t.file);
  if (changed.length > 0 && !force)
    throw new AxError(
      'conflict',
      `nothing written: ${changed.join(', ')} ${changed.length === 1 ? 'differs' : 'differ'} from what the import writes (changed by hand?): compare, then give --force to replace, or write to another directory`,
    );
  fs.mkdirSync(dir, { recursive: true });
  return targets.map(({ f, file }) => {
    const before = existing.get(file);
    if (before === f.yaml) return { file, state: 'unchanged' as WriteState };
    fs.writeFileSync(file, f.yaml);
    return { file, state: (before === undefined ? 'written' : 'replaced') as WriteState };
  });
}

/** -o and --apply for the reports of one import; returns the workflows applied. */
export async function writeAndApply(
  globals: Globals,
  reports: readonly ImportReport[],
  flags: ImportFlags,
  log: (line: string) => void,
): Promise<{ written: { file: string; state: WriteState }[]; applied: ApplyOutcome[] }> {
  const files = reports.flatMap((r) => r.files);
  const written = flags.output ? writeImportFiles(flags.output, files, flags.force) : [];
  for (const w of written) log(`${w.state} ${w.file}`);
  if (!flags.apply) return { written, applied: [] };
  if (files.length === 0) {
    log('nothing to apply: no line was imported');
    return { written, applied: [] };
  }
  // What is applied is the files' text, checked as `ax apply` checks a file.
  const base = path.resolve(flags.output ?? '.');
  const checked: CheckedFile[] = files.map((f) => {
    const label = flags.output ? path.join(flags.output, f.fileName) : f.fileName;
    return { file: label, parsed: parseWorkflowText(f.yaml, label, base) };
  });
  const applied = await withApi(globals(), (api) => applyFiles(api, checked, flags.force));
  applied.forEach((out, i) => {
    for (const w of out.warnings ?? []) process.stderr.write(`warning: ${checked[i]?.file}: ${w}\n`);
    log(appliedLine(out));
  });
  return { written, applied };
}

const importFlags = (cmd: Command): Command =>
  cmd
    .option(
      '-o, --output <dir>',
      'write each workflow file into DIR (a file changed by hand there is refused unless --force)',
    )
    .option('--apply', 'apply the workflows, all or nothing (as "ax apply DIR" does)')
    .option('--force', 'replace changed files in DIR; apply despite warnings about labels or cwd')
    .option('--group <name>', 'one workflow of this name with every job as a task, instead of one workflow per job')
    .option(
      '--ax-defaults',
      "AX's defaults (misfire run_once, overlap skip) instead of keeping cron's (skip, parallel)",
    )
    .option('--strip-redirects', "drop a trailing output redirect (>> file 2>&1) so the output reaches AX's log");

function nextStep(flags: ImportFlags): string | undefined {
  if (flags.output || flags.apply) return undefined;
  return 'dry run: nothing was written or applied. Write the files with -o DIR (then "ax apply DIR"), or apply them with --apply';
}

export function importCommands(program: Command, globals: Globals): void {
  const imp = program
    .command('import')
    .description("turn another scheduler's jobs (a crontab, a systemd timer) into AX workflows");

  importFlags(
    imp
      .command('crontab')
      .argument('[file]', 'a crontab file, or - for standard input (default: your crontab, as "crontab -l" prints it)')
      .description("import crontab lines: each job → a workflow that fires when cron did, with cron's environment")
      .option('--system', 'import /etc/crontab and /etc/cron.d/* (the format with a user column)')
      .option(
        '--monitor',
        'make each job a monitor and, with --disable-source, wrap its line in "ax wrap" instead of turning it off',
      )
      .option(
        '--disable-source',
        'after --apply: turn the imported lines off in the source (a backup first; see --restore)',
      )
      .option('--restore', 'put the lines --disable-source turned off back, byte for byte; imports nothing'),
  )
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax import crontab                      # your crontab: what it would become\n  $ ax import crontab -o workflows/        # write the files, look, then "ax apply workflows/"\n  $ ax import crontab --apply --disable-source\n  $ ax import crontab --restore            # the lines back as they were',
    )
    .action(async (file: string | undefined, flags: CrontabFlags) => {
      const g = globals();
      const log = (line: string) => (g.json ? process.stderr : process.stdout).write(`${line}\n`);
      const { sources, notes } = crontabSources(file, flags.system);
      if (flags.restore) {
        const outs = sources.map((s) => restoreSource(cliDataDir(g.dataDir), s));
        if (g.json) return printJson(outs);
        for (const o of outs) {
          for (const r of o.restored) log(`${o.source}: line ${r.line} back: ${r.text}`);
          if (o.editedSince)
            log(
              `note: ${o.source} was changed after AX disabled lines in it: only the marked lines were put back, the other changes are kept (the text before is in ${o.backup})`,
            );
          const names = [...new Set(o.restored.map((r) => r.workflow))];
          log(
            `note: the workflows stay in AX and run too: "ax disable NAME" each of ${names.join(', ')} so no job runs twice`,
          );
        }
        return;
      }
      if (flags.disableSource && !flags.apply)
        throw new AxError(
          'validation',
          '--disable-source needs --apply: a line is turned off in cron only once its workflow is in AX',
        );
      if (flags.disableSource) for (const s of sources) checkRewritable(s);
      const base = importOptions(g, flags);
      const reports = sources.map((s) =>
        importCrontab(s.text, s.label, { ...base, ...(s.user && { user: s.user }), system: s.system }),
      );
      for (const n of notes) reports[0]?.notes.push(n);
      if (g.json && !flags.output && !flags.apply) return printJson(reports.length === 1 ? reports[0] : reports);
      if (!g.json) for (const r of reports) process.stdout.write(`${reportText(r)}\n`);
      const { written, applied } = await writeAndApply(globals, reports, flags, log);
      const disabled: DisableOutcome[] = [];
      if (flags.disableSource) {
        const names = new Set(applied.map((a) => a.workflow));
        for (const [i, s] of sources.entries()) {
          const out = disableSource(
            cliDataDir(g.dataDir),
            s,
            reports[i] as ImportReport,
            names,
            !!flags.monitor,
            Date.now(),
          );
          disabled.push(out);
          const verb = flags.monitor ? 'wrapped with ax wrap' : 'turned off';
          for (const d of out.disabled) log(`${out.source}: line ${d.line} ${verb} (workflow ${d.workflow})`);
          for (const l of out.left) log(`${out.source}: line ${l.line} left as it was: ${l.reason}`);
          log(
            `${out.source}: backup in ${out.backup}; "ax import crontab${file ? ` ${file}` : ''} --restore" puts the lines back`,
          );
        }
      }
      if (g.json) return printJson({ reports, written, applied, disabled });
      const next = nextStep(flags);
      if (next) log(next);
    });

  importFlags(
    imp
      .command('systemd')
      .argument('<timer>', 'the .timer unit file')
      .option('--service <file>', 'its service unit (default: Unit= of the timer, or NAME.service beside it)')
      .description('import a systemd timer and its service: OnCalendar= → the schedule, ExecStart= → the task'),
  )
    .addHelpText('after', '\nExample:\n  $ ax import systemd /etc/systemd/system/backup.timer --apply')
    .action(async (timer: string, flags: ImportFlags & { service?: string }) => {
      const g = globals();
      const log = (line: string) => (g.json ? process.stderr : process.stdout).write(`${line}\n`);
      const report = importSystemd(timer, flags.service, importOptions(g, flags));
      if (g.json && !flags.output && !flags.apply) return printJson(report);
      if (!g.json) process.stdout.write(`${reportText(report, 'systemd')}\n`);
      const { written, applied } = await writeAndApply(globals, [report], flags, log);
      if (g.json) return printJson({ reports: [report], written, applied });
      const next = nextStep(flags);
      if (next) log(next);
    });
}
