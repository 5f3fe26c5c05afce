// Reading workflow files for apply / validate / run FILE.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AxError, formatProblems, ValidationError, type ValidationProblem } from '../../api/errors.ts';
import type { EngineApi } from '../../api/engine-api.ts';
import type { WorkflowSpec } from '../../api/types.ts';
import { hostZone } from '../node/host-defaults.ts';
import { readRegularFile } from './regular-file.ts';
import {
  decodeWorkflowFile,
  fileSizeProblem,
  MAX_WORKFLOW_FILE_BYTES,
  parseWorkflowFile,
} from '../../core/workflow/workflow-file.ts';

export interface WorkflowFile {
  spec: WorkflowSpec;
  warnings: string[];
  /** the file's schedule has no timezone: this machine's was filled in */
  timezoneDefaulted?: boolean;
  /** relative cwds made absolute against the file's directory, e.g. 'cwd "data" is /srv/etl/data' */
  resolvedCwds: string[];
}

function sizeOf(file: string): number | undefined {
  try {
    const stat = fs.statSync(file);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A workflow file, checked. Before parsing: its size (over 5 MB is refused from fs.stat, without
 * reading it) and its encoding (UTF-8 only). A relative cwd is resolved against the file's
 * directory, and "~" against the home directory, so a file means the same from any directory.
 */
export function readWorkflowFile(file: string): WorkflowFile {
  // Too large is said from the size alone, without reading; any other problem by the read.
  const size = sizeOf(file);
  const tooLarge = size === undefined ? undefined : fileSizeProblem(size);
  if (tooLarge) throw new ValidationError([{ file, path: '', message: tooLarge }]);
  const bytes = readRegularFile(
    file,
    file,
    MAX_WORKFLOW_FILE_BYTES + 1,
    'AX reads a workflow from a regular file only; save it to one first (e.g. "cat > w.yaml")',
  );
  return parseWorkflowText(decodeWorkflowFile(bytes, file), file, path.dirname(path.resolve(file)));
}

/** A workflow file's text (read, or made by an import), checked as `ax apply` checks it; relative cwds against `base`. */
export function parseWorkflowText(text: string, file: string, base: string): WorkflowFile {
  const resolvedCwds: string[] = [];
  const resolveCwd = (cwd: string): string => {
    const home = cwd === '~' || cwd.startsWith('~/');
    const abs = home ? path.join(os.homedir(), cwd.slice(1)) : path.resolve(base, cwd);
    resolvedCwds.push(`cwd "${cwd}" is ${abs} (relative to ${home ? 'the home directory' : "the file's directory"})`);
    return abs;
  };
  const parsed = parseWorkflowFile(text, {
    file,
    defaultTimezone: hostZone(),
    resolveCwd,
  });
  return { ...parsed, resolvedCwds: [...new Set(resolvedCwds)] };
}

/** The file's own warnings and notes, on stderr. */
export function printFileNotes(file: string, parsed: WorkflowFile): void {
  for (const w of parsed.warnings) process.stderr.write(`warning: ${file}: ${w}\n`);
  for (const n of parsed.resolvedCwds) process.stderr.write(`note: ${file}: ${n}\n`);
}

/**
 * What the engine says about a valid file: labels that no known worker offers, a cwd that does
 * not exist here (solo mode). Each would keep a task from running.
 */
export async function engineWarnings(
  api: Pick<EngineApi, 'validate'>,
  file: string,
  spec: WorkflowSpec,
): Promise<ValidationProblem[]> {
  const report = await api.validate({ spec, file });
  if (!report.ok) throw new ValidationError(report.problems);
  return report.warnings;
}

/** Prints the engine's warnings; refuses to store the file when there are any, unless forced. */
export function refuseUnlessForced(file: string, warnings: ValidationProblem[], force: boolean | undefined): void {
  for (const w of warnings) process.stderr.write(`warning: ${formatProblems([w])}\n`);
  if (warnings.length === 0 || force) return;
  const n = warnings.length === 1 ? 'the warning above' : `the ${warnings.length} warnings above`;
  throw new AxError(
    'validation',
    `${file}: not applied because of ${n}: fix the file, or apply it anyway with --force`,
  );
}

/**
 * A schedule without a timezone in its file runs in a zone written into the stored workflow (and
 * `ax export`): the applying machine's when the workflow is new, else the one already stored, so
 * that applying the same file from machines in other zones (a team) cannot silently move it.
 * Says which on stderr; returns the spec to apply.
 */
export async function settleTimezone(
  api: Pick<EngineApi, 'exportWorkflow'>,
  file: string,
  parsed: WorkflowFile,
): Promise<WorkflowSpec> {
  const schedule = parsed.spec.schedule;
  if (!parsed.timezoneDefaulted || !schedule) return parsed.spec;
  let stored: string | undefined;
  try {
    stored = (await api.exportWorkflow(parsed.spec.name)).schedule?.timezone;
  } catch (err) {
    if (!(err instanceof AxError && err.code === 'not_found')) throw err;
  }
  if (stored !== undefined && stored !== schedule.timezone) {
    process.stderr.write(
      `note: ${file}: schedule.timezone is not in the file: keeping the stored ${stored} (this machine is in ${schedule.timezone}); write timezone into the file to change it\n`,
    );
    return { ...parsed.spec, schedule: { ...schedule, timezone: stored } };
  }
  if (stored === undefined)
    process.stderr.write(
      `note: ${file}: schedule.timezone is not in the file: using this machine's ${schedule.timezone}, stored with the workflow (see "ax export")\n`,
    );
  return parsed.spec;
}

/** "nightly" is a workflow name; "./nightly.yaml" or an existing file is a file. */
export function looksLikeFile(arg: string): boolean {
  return /\.(ya?ml|json)$/i.test(arg) || arg.includes('/') || (fs.existsSync(arg) && fs.statSync(arg).isFile());
}
