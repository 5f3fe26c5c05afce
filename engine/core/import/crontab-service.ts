// The UI's crontab import (design.md §13 "Coming from cron"): a crontab pasted into the page is
// converted by the engine, with the engine's clock, zone and task user, never by the page. The
// preview is the ImportReport; an import converts the same text again and keeps only the lines
// the person ticked, so what is applied never comes from the page's copy of the report.
import { AxError, ValidationError, type ValidationProblem } from '../../api/errors.ts';
import {
  type CronUser,
  type CrontabImportChoice,
  type CrontabImportRequest,
  type ImportReport,
  MAX_CRONTAB_BYTES,
} from '../../api/import-report.ts';
import type { WorkflowSpec } from '../../api/types.ts';
import { NAME, nameHint } from '../workflow/workflow-reader.ts';
import { importCrontab } from './crontab-import.ts';

/** What the engine converts with: its time, its zone, and the user its tasks run as. */
export interface CrontabImportContext {
  now: number;
  zone: string;
  /** the user AX's tasks run as here: a pasted crontab is taken to be theirs (cron's HOME, LOGNAME) */
  taskUser?: CronUser;
}

const encoder = new TextEncoder();

function sourceName(user: CronUser | undefined): string {
  return user ? `the crontab pasted for ${user.name}` : 'the pasted crontab';
}

/**
 * The names the person typed, checked: each a valid workflow name, and (one workflow per line) no
 * two lines given the same one, each said on its line, so the preview keeps both rows editable.
 */
function checkNames(request: CrontabImportRequest, problems: ValidationProblem[]): void {
  const firstLine = new Map<string, string>();
  for (const [line, name] of Object.entries(request.names ?? {})) {
    if (!NAME.test(name)) problems.push({ path: `names.${line}`, message: `line ${line}: ${nameHint(name)}` });
    else if (request.group !== undefined) continue;
    else if (firstLine.has(name))
      problems.push({
        path: `names.${line}`,
        message: `lines ${firstLine.get(name)} and ${line} would both be workflow "${name}": give one of them another name`,
      });
    else firstLine.set(name, line);
  }
}

function checkText(text: string): void {
  const bytes = encoder.encode(text).length;
  if (bytes > MAX_CRONTAB_BYTES)
    throw new AxError(
      'validation',
      `the crontab is ${bytes} bytes, over the limit of ${MAX_CRONTAB_BYTES} bytes (1 MiB): import it in parts, or use ax import crontab FILE`,
    );
}

/** The report of what a pasted crontab would become: every line imported, or why not. */
export function previewCrontabImport(request: CrontabImportRequest, context: CrontabImportContext): ImportReport {
  checkText(request.text);
  const problems: ValidationProblem[] = [];
  checkNames(request, problems);
  if (request.group !== undefined && !NAME.test(request.group))
    problems.push({ path: 'group', message: `group: ${nameHint(request.group)}` });
  if (problems.length > 0) throw new ValidationError(problems);
  const user = context.taskUser;
  return importCrontab(request.text, sourceName(user), {
    now: context.now,
    hostZone: context.zone,
    ...(user && { user, taskUser: user.name }),
    ...(request.group !== undefined && { group: request.group }),
    ...(request.axDefaults && { axDefaults: true }),
    ...(request.stripRedirects && { stripRedirects: true }),
    ...(request.names && { names: request.names }),
  });
}

/** A spec holding only the chosen jobs' tasks (a grouped workflow's other tasks left out). */
function onlyChosen(spec: WorkflowSpec, tasks: Set<string>): WorkflowSpec {
  return { ...spec, tasks: spec.tasks.filter((t) => tasks.has(t.name)) };
}

/**
 * The workflows to apply for the chosen lines: the text converted again as for the preview, each
 * chosen line checked to be an imported job (else the reason it is not), two lines becoming one
 * workflow refused unless grouped. Throws a ValidationError whose problems name the line.
 */
export function chosenCrontabSpecs(
  choice: CrontabImportChoice,
  context: CrontabImportContext,
): { report: ImportReport; specs: WorkflowSpec[] } {
  const lines = [...new Set(choice.lines)].sort((a, b) => a - b);
  if (lines.length === 0)
    throw new AxError('validation', 'no line is chosen: tick the lines to import (the preview lists them)');
  const report = previewCrontabImport(choice, context);
  const problems: ValidationProblem[] = [];
  const jobs = new Map(report.jobs.map((j) => [j.line, j]));
  for (const line of lines) {
    if (jobs.has(line)) continue;
    const skipped = report.skipped.find((s) => s.line === line);
    problems.push({
      path: `lines.${line}`,
      message: skipped
        ? `line ${line} cannot be imported: ${skipped.reason}`
        : `line ${line} is no job of this crontab (a comment, an environment line, or past its end): untick it`,
    });
  }
  const chosen = lines.flatMap((l) => jobs.get(l) ?? []);
  if (!choice.group) {
    const byWorkflow = new Map<string, number>();
    for (const job of chosen) {
      const first = byWorkflow.get(job.workflow);
      if (first === undefined) byWorkflow.set(job.workflow, job.line);
      else
        problems.push({
          path: `names.${job.line}`,
          message: `lines ${first} and ${job.line} would both be workflow "${job.workflow}": give one of them another name`,
        });
    }
  }
  if (problems.length > 0) throw new ValidationError(problems);
  // A file of several lines (a group) keeps only the chosen lines' tasks.
  const chosenLines = new Set(chosen.map((j) => j.line));
  const specs = report.files.flatMap((file) => {
    const mine = file.lines.filter((l) => chosenLines.has(l));
    if (mine.length === 0) return [];
    if (mine.length === file.lines.length) return [file.spec];
    return [onlyChosen(file.spec, new Set(mine.flatMap((l) => jobs.get(l)?.task ?? [])))];
  });
  return { report, specs };
}
