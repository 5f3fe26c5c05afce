// What `ax import crontab --disable-source` leaves in the data dir so that `--restore` can put
// the source back and prove it did: a backup of the source as it was before AX changed it, and
// a record (the hash of what AX wrote, the ax wrap lines it wrote). Kept in DATA_DIR, never
// beside the source: a backup in /etc/cron.d would be read by crons that take any file name.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AxError } from '../../api/errors.ts';
import { readPrivateFile, writePrivateFile } from './private-file.ts';

export interface DisableRecord {
  /** the source in words: "crontab of alice", "/etc/cron.d/backup" */
  source: string;
  /** the source's text before AX first changed it (in this round of disables) */
  backup: string;
  /** sha256 of the text AX wrote last: unchanged since, the backup proves a restore exact */
  written: string;
  /** each workflow's `ax wrap` line as AX wrote it (--monitor) */
  wrapped: Record<string, string>;
  at: number;
}

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const recordsDir = (dataDir: string): string => path.join(dataDir, 'import-backups');

/** A file name for a source: the user's crontab by user, a file by its path (readable, and unique by a hash). */
export function sourceKey(source: { user: string } | { file: string }): string {
  if ('user' in source) return `crontab-${source.user.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
  const abs = path.resolve(source.file);
  return `file-${path.basename(abs).replace(/[^A-Za-z0-9_.-]/g, '_')}-${sha256(abs).slice(0, 12)}`;
}

export function readRecord(dataDir: string, key: string): DisableRecord | undefined {
  const text = readPrivateFile(path.join(recordsDir(dataDir), `${key}.json`));
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as DisableRecord;
  } catch {
    throw new AxError(
      'storage',
      `${path.join(recordsDir(dataDir), `${key}.json`)} is not the record AX wrote: restore the source from the backups in ${recordsDir(dataDir)} by hand`,
    );
  }
}

/** Saves the source's text before a change; returns the backup's path. */
export function saveBackup(dataDir: string, key: string, text: string, at: number): string {
  const dir = recordsDir(dataDir);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${key}.${new Date(at).toISOString().replace(/[:.]/g, '-')}.bak`);
  writePrivateFile(file, text);
  return file;
}

export function writeRecord(dataDir: string, key: string, record: DisableRecord): void {
  writePrivateFile(path.join(recordsDir(dataDir), `${key}.json`), `${JSON.stringify(record, null, 2)}\n`);
}

/** After a restore: the record goes, the backup stays (the proof of what the source was). */
export function removeRecord(dataDir: string, key: string): void {
  fs.rmSync(path.join(recordsDir(dataDir), `${key}.json`), { force: true });
}
