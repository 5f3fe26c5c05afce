// `ax apply` of several files and directories, all or nothing: every file is read and checked
// first (each problem named with its file), then the whole batch goes to the engine in one
// `applyMany`, which the store writes in one transaction.
import fs from 'node:fs';
import path from 'node:path';
import { AxError, formatProblems, ValidationError, type ValidationProblem } from '../../api/errors.ts';
import type { ApplyOutcome, EngineApi } from '../../api/engine-api.ts';
import type { WorkflowSpec } from '../../api/types.ts';
import { actor } from './connect.ts';
import {
  engineWarnings,
  printFileNotes,
  readWorkflowFile,
  settleTimezone,
  type WorkflowFile,
} from './workflow-files.ts';

/** What a directory contributes: its workflow files, not its subdirectories (an import's -o DIR is flat). */
const WORKFLOW_FILE = /\.(ya?ml|json)$/i;

/**
 * The files the arguments name, in order: a file as given, a directory's `*.yaml`, `*.yml` and
 * `*.json` sorted by name. `many`: the answer is a list (several arguments, or a directory).
 */
export function expandApplyPaths(args: readonly string[]): { files: string[]; many: boolean } {
  const files: string[] = [];
  let many = args.length > 1;
  for (const arg of args) {
    let isDir = false;
    try {
      isDir = fs.statSync(arg).isDirectory();
    } catch {
      // not there: reading it says so, with the other files' problems
    }
    if (!isDir) {
      files.push(arg);
      continue;
    }
    many = true;
    const inDir = fs
      .readdirSync(arg, { withFileTypes: true })
      .filter((e) => WORKFLOW_FILE.test(e.name) && (e.isFile() || e.isSymbolicLink()))
      .map((e) => e.name)
      .sort();
    if (inDir.length === 0)
      throw new AxError(
        'validation',
        `${arg}: no workflow files in this directory (AX applies its *.yaml, *.yml and *.json, not those of subdirectories)`,
      );
    files.push(...inDir.map((name) => path.join(arg, name)));
  }
  return { files: [...new Set(files)], many };
}

export interface CheckedFile {
  file: string;
  parsed: WorkflowFile;
}

/** Every file read and checked; all their problems at once, each naming its file; no workflow twice. */
export function readWorkflowFiles(files: readonly string[]): CheckedFile[] {
  const problems: ValidationProblem[] = [];
  const out: CheckedFile[] = [];
  const fileOf = new Map<string, string>();
  for (const file of files) {
    try {
      const parsed = readWorkflowFile(file);
      const other = fileOf.get(parsed.spec.name);
      if (other !== undefined)
        problems.push({
          file,
          path: 'name',
          message: `workflow "${parsed.spec.name}" is also in ${other}: give one of them another name, or leave one out`,
        });
      else fileOf.set(parsed.spec.name, file);
      out.push({ file, parsed });
    } catch (err) {
      if (err instanceof ValidationError) problems.push(...err.problems);
      else if (err instanceof AxError && err.code === 'validation')
        problems.push({ file: '', path: '', message: err.message });
      else throw err;
    }
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return out;
}

/**
 * Applies checked files all or nothing. With warnings from the engine (labels, cwd) nothing is
 * applied unless forced, and every file's warnings are printed first.
 */
export async function applyFiles(
  api: EngineApi,
  checked: readonly CheckedFile[],
  force: boolean | undefined,
): Promise<ApplyOutcome[]> {
  for (const c of checked) printFileNotes(c.file, c.parsed);
  const warned: string[] = [];
  for (const c of checked) {
    const warnings = await engineWarnings(api, c.file, c.parsed.spec);
    for (const w of warnings) process.stderr.write(`warning: ${formatProblems([w])}\n`);
    if (warnings.length > 0) warned.push(c.file);
  }
  if (warned.length > 0 && !force)
    throw new AxError(
      'validation',
      `nothing applied because of the warnings above (${warned.join(', ')}): fix the file${warned.length === 1 ? '' : 's'}, or apply anyway with --force`,
    );
  const specs: WorkflowSpec[] = [];
  for (const c of checked) specs.push(await settleTimezone(api, c.file, c.parsed));
  const fileOf = new Map(checked.map((c) => [`workflow ${c.parsed.spec.name}`, c.file]));
  try {
    return await api.applyMany(specs, actor());
  } catch (err) {
    // The engine names a spec "workflow NAME"; the person knows it by its file.
    const problems = err instanceof AxError && err.code === 'validation' ? err.problems : undefined;
    if (!problems?.length) throw err;
    throw new ValidationError(problems.map((p) => ({ ...p, file: fileOf.get(p.file ?? '') ?? p.file })));
  }
}
