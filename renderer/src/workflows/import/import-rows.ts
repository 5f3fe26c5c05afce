// The preview table's rows and the engine's problems sorted by line: pure, so the modal only
// renders.
import { AxError } from '../../../../engine/api/errors.ts';
import type { ImportedJob, ImportReport } from '../../../../engine/api/import-report.ts';

export type ImportRow =
  | { kind: 'job'; line: number; text: string; job: ImportedJob }
  | { kind: 'skipped'; line: number; text: string; reason: string };

/** Every line the report speaks of, imported or not, in the crontab's order. */
export function importRows(report: ImportReport): ImportRow[] {
  const rows: ImportRow[] = [
    ...report.jobs.map((job) => ({ kind: 'job' as const, line: job.line, text: job.text, job })),
    ...report.skipped.map((s) => ({ kind: 'skipped' as const, line: s.line, text: s.text, reason: s.reason })),
  ];
  return rows.sort((a, b) => a.line - b.line);
}

export interface SortedProblems {
  /** by 1-based crontab line: the engine's `names.N` and `lines.N` problems */
  byLine: Map<number, string[]>;
  /** the group name's (`group`) */
  group: string[];
  /** the rest: shown above the table */
  general: string[];
}

const LINE_PATH = /^(?:names|lines)\.(\d+)$/;

/** An engine error's problems, each where the person fixes it. */
export function sortProblems(error: unknown): SortedProblems {
  const out: SortedProblems = { byLine: new Map(), group: [], general: [] };
  if (error === undefined || error === null) return out;
  if (!(error instanceof AxError) || error.problems.length === 0) {
    out.general.push(error instanceof Error ? error.message : String(error));
    return out;
  }
  for (const p of error.problems) {
    const line = LINE_PATH.exec(p.path);
    if (line) out.byLine.set(Number(line[1]), [...(out.byLine.get(Number(line[1])) ?? []), p.message]);
    else if (p.path === 'group') out.group.push(p.message);
    else out.general.push(p.path ? `${p.path}: ${p.message}` : p.message);
  }
  return out;
}

/** The lines of the crontab that hold a command (neither blank, a comment, nor an assignment). */
export function commandLineCount(report: ImportReport): number {
  return new Set([...report.jobs.map((j) => j.line), ...report.skipped.map((s) => s.line)]).size;
}
