// What `ax import` prints: each line and its workflow, the schedule in words, the next fires
// under the source's rules and under AX's side by side, warnings, every line not imported with
// why, and the notes. (--json prints the ImportReport itself.)
import type { ImportedJob, ImportReport } from '../../core/import/import-types.ts';
import { terminalSafe } from '../../core/model/terminal-text.ts';
import { timeIn } from './format.ts';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function fireRows(job: ImportedJob, sourceName: string): string[] {
  const zone = job.timezone;
  const rows = Math.max(job.sourceFires.length, job.axFires.length);
  if (rows === 0) return [];
  const cell = (ms: number | undefined) => (ms === undefined ? '-' : (timeIn(ms, zone) ?? '-'));
  const width = Math.max(sourceName.length, ...job.sourceFires.map((f) => cell(f).length));
  const out = [`    next fires  ${`under ${sourceName}`.padEnd(width + 6)}  under AX`];
  for (let i = 0; i < rows; i++) {
    const a = job.sourceFires[i];
    const b = job.axFires[i];
    const same = a === b ? '' : '  ✗ differs';
    out.push(`                ${cell(a).padEnd(width + 6)}  ${cell(b)}${same}`);
  }
  return out;
}

/** The report of one source, for a person. */
export function reportText(report: ImportReport, sourceName = 'cron'): string {
  const lines: string[] = [];
  const safe = (t: string) => terminalSafe(t);
  lines.push(
    `${safe(report.source)}: ${plural(report.jobs.length, 'job')} imported into ${plural(report.files.length, 'workflow')}, ${plural(report.skipped.length, 'line')} not imported`,
  );
  for (const job of report.jobs) {
    lines.push('');
    lines.push(`line ${job.line}  ${safe(job.text.replace(/\r$/, ''))}`);
    lines.push(
      `    → workflow ${safe(job.workflow)}, task ${safe(job.task)}${job.user ? ` (user ${safe(job.user)})` : ''}`,
    );
    lines.push(`    schedule: ${safe(job.scheduleText)}${job.cron ? `  [cron "${safe(job.cron)}"]` : ''}`);
    lines.push(...fireRows(job, sourceName));
    for (const w of job.warnings) lines.push(`    warning: ${safe(w)}`);
    if (job.wrappedLine !== undefined) lines.push(`    under cron becomes: ${safe(job.wrappedLine)}`);
  }
  if (report.skipped.length > 0) {
    lines.push('');
    lines.push('not imported:');
    for (const s of report.skipped)
      lines.push(`  line ${s.line}  ${safe(s.text.replace(/\r$/, ''))}\n    why: ${safe(s.reason)}`);
  }
  if (report.notes.length > 0) {
    lines.push('');
    lines.push('notes:');
    for (const n of report.notes) lines.push(`  - ${safe(n)}`);
  }
  return `${lines.join('\n')}\n`;
}
