// Files of a test: the repository root, temporary directories, files written into a data dir, and
// what an engine leaves in its data dir (the engine.lock, the SQLite store) read from the test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { dbFile, type EngineLockInfo } from '../../engine/hosts/node/data-dir.ts';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A fresh directory under the system's temp dir; the caller removes it. */
export function tempDir(prefix = 'ax-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Writes a workflow file into dir and returns its path. */
export function writeFile(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** The engine lock of a data dir as written, whether or not its process lives. */
export function readLockFile(dataDir: string): EngineLockInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, 'engine.lock'), 'utf8')) as EngineLockInfo;
  } catch {
    return undefined;
  }
}

/**
 * The data dir's store, opened in this process for quick reads while the engine runs elsewhere
 * (SQLite WAL lets readers in); far cheaper than polling with an `ax --json` process.
 */
export async function openDataDirStore(dataDir: string): Promise<SqlStore> {
  return openSqliteStore(dbFile(dataDir));
}
