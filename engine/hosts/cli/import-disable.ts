// Leaving cron safely (`ax import crontab --disable-source`, `--restore`): the imported lines of
// a source marked off (or wrapped with `ax wrap`), after a backup; and put back, byte for byte,
// with the backup as the proof. The text work is core/import/source-markers.ts.
import fs from 'node:fs';
import path from 'node:path';
import { AxError } from '../../api/errors.ts';
import type { ImportReport } from '../../core/import/import-types.ts';
import { disableLines, restoreLines, type RestoredLine, type SourceEdit } from '../../core/import/source-markers.ts';
import { readRecord, removeRecord, saveBackup, sha256, writeRecord } from '../node/import-records.ts';
import type { CrontabSource } from './import-sources.ts';

export interface DisableOutcome {
  source: string;
  backup: string;
  /** lines marked off, or wrapped (--monitor) */
  disabled: SourceEdit[];
  /** imported jobs left as they were, with why */
  left: { line: number; reason: string }[];
}

/** Refuses before anything is applied or written: a source AX could not write back exactly. */
export function checkRewritable(source: CrontabSource): void {
  if (!source.key || source.rewriteProblem)
    throw new AxError(
      'validation',
      `${source.label}: --disable-source cannot change it: ${source.rewriteProblem ?? 'it cannot be written back'}`,
    );
}

/** Marks off the lines of the jobs that were applied (only those: a line not in AX keeps running under cron). */
export function disableSource(
  dataDir: string,
  source: CrontabSource,
  report: ImportReport,
  applied: ReadonlySet<string>,
  monitor: boolean,
  now: number,
): DisableOutcome {
  checkRewritable(source);
  const key = source.key as string;
  const current = source.read();
  if (current !== source.text)
    throw new AxError(
      'conflict',
      `${source.label} changed while it was imported: nothing in it was disabled; import again (the workflows are applied, so that changes nothing) with --disable-source`,
    );
  const disabled: SourceEdit[] = [];
  const left: { line: number; reason: string }[] = [];
  for (const job of report.jobs) {
    if (!applied.has(job.workflow)) left.push({ line: job.line, reason: `workflow ${job.workflow} was not applied` });
    else if (monitor && job.wrappedLine === undefined)
      left.push({ line: job.line, reason: 'it cannot be written as an ax wrap line (see its warnings)' });
    else
      disabled.push({
        line: job.line,
        workflow: job.workflow,
        ...(monitor && { wrappedLine: job.wrappedLine }),
      });
  }
  const record = readRecord(dataDir, key);
  // Unchanged since AX last wrote it: the first backup of this round still tells what it was.
  const sameRound = record !== undefined && record.written === sha256(current);
  const backup = sameRound ? record.backup : saveBackup(dataDir, key, current, now);
  if (disabled.length === 0) return { source: source.label, backup, disabled, left };
  const next = disableLines(current, disabled);
  const wrapped = { ...(sameRound ? record.wrapped : {}) };
  for (const d of disabled) if (d.wrappedLine !== undefined) wrapped[d.workflow] = d.wrappedLine;
  // The record first: should the write fail half-way, restore still knows what AX meant to write.
  writeRecord(dataDir, key, { source: source.label, backup, written: sha256(next), wrapped, at: now });
  source.write(next, path.dirname(backup));
  return { source: source.label, backup, disabled, left };
}

export interface RestoreOutcome {
  source: string;
  restored: RestoredLine[];
  backup: string;
  /** the source was edited after AX changed it: only the marked lines were put back */
  editedSince: boolean;
}

/** Puts the marked lines back; refuses, saying why, where that would not be safe or exact. */
export function restoreSource(dataDir: string, source: CrontabSource): RestoreOutcome {
  checkRewritable(source);
  const key = source.key as string;
  const record = readRecord(dataDir, key);
  const current = source.read();
  if (!record)
    throw new AxError(
      'not_found',
      `${source.label}: AX has no record of disabling lines in it (in ${path.join(dataDir, 'import-backups')}): nothing to restore from this data dir`,
    );
  const { text, restored, problems } = restoreLines(current, record.wrapped);
  if (problems.length > 0)
    throw new AxError('conflict', `${source.label}: not restored, nothing was changed:\n  ${problems.join('\n  ')}`);
  if (restored.length === 0)
    throw new AxError('not_found', `${source.label}: no line in it is marked by AX: nothing to restore`);
  const editedSince = record.written !== sha256(current);
  if (!editedSince) {
    // The proof: what restore makes is what the backup held (with any older marks put back too).
    const before = restoreLines(fs.readFileSync(record.backup, 'utf8'), record.wrapped).text;
    if (before !== text)
      throw new AxError(
        'conflict',
        `${source.label}: not restored: putting the marked lines back would not give the text of the backup ${record.backup}; compare them and restore by hand`,
      );
  }
  source.write(text, path.dirname(record.backup));
  removeRecord(dataDir, key);
  return { source: source.label, restored, backup: record.backup, editedSince };
}
