// The solo data dir: the SQLite file, the engine lock (one engine per data dir), the API
// token (created once per install, mode 0600) and the settings file. The dir is made 0700 and
// must be this user's (private-file.ts); ax.db and its -wal and -shm are 0600.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkWritable } from '../../adapters/sql/sqlite-file.ts';
import { AxError } from '../../api/errors.ts';
import {
  checkDataDirOwner,
  createPrivateFile,
  madePrivateLine,
  makePrivate,
  readPrivateFile,
  writePrivateFile,
} from './private-file.ts';
import { ProcessLock } from './process-lock.ts';

export function defaultDataDir(): string {
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'ax-scheduler');
  if (process.platform === 'win32')
    return path.join(process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'ax-scheduler');
  return path.join(process.env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'ax-scheduler');
}

/**
 * The data dir of a flag (else AX_DATA_DIR, else the default), made when missing and checked
 * (private-file.ts). A dir others could read is made private, and `told` gets the one line that
 * says so: the host prints it (the CLI on stderr), so it is said once, where the user sees it.
 */
export function resolveDataDir(flag: string | undefined, told: (line: string) => void): string {
  const dir = path.resolve(flag ?? process.env.AX_DATA_DIR ?? defaultDataDir());
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw dataDirError(dir, err as NodeJS.ErrnoException);
  }
  const was = checkDataDirOwner(dir);
  if (was !== undefined) told(madePrivateLine(dir, was));
  return dir;
}

/** A data dir that cannot be made, in one line with the fix (exit 6), not a stack trace. */
function dataDirError(dir: string, err: NodeJS.ErrnoException): AxError {
  const elsewhere = 'use another --data-dir (or AX_DATA_DIR)';
  if (err.code === 'EEXIST')
    return new AxError(
      'storage',
      `the data dir ${dir} is a file, not a directory: ${elsewhere}, or move the file away`,
    );
  if (err.code === 'ENOTDIR')
    return new AxError('storage', `the data dir ${dir} cannot be created: part of its path is a file: ${elsewhere}`);
  if (err.code === 'EACCES' || err.code === 'EPERM')
    return new AxError(
      'storage',
      `the data dir ${dir} cannot be created (permission denied): create it yourself, or ${elsewhere}`,
    );
  if (err.code === 'EROFS')
    return new AxError('storage', `the data dir ${dir} is on a read-only file system: ${elsewhere}`);
  return new AxError('storage', `the data dir ${dir} cannot be created (${err.code ?? err.message}): ${elsewhere}`);
}

export const dbFile = (dir: string) => path.join(dir, 'ax.db');

/**
 * ax.db as SQLite is to open it: created empty with mode 0600 when missing (SQLite would make it
 * 0644, and its -wal and -shm take its mode), an older file made private.
 */
export function privateDbFile(dir: string): string {
  const file = dbFile(dir);
  // A read-only file is named with its fix first, as the store would (sqlite-file.ts).
  checkWritable(file);
  makePrivate(file, true);
  for (const companion of [`${file}-wal`, `${file}-shm`]) makePrivate(companion, false);
  return file;
}

export interface EngineLockInfo {
  pid: number;
  host: string;
  command: string;
  startedAt: number;
  /** the API port while `ax serve` runs */
  port?: number;
  /** the certificate file of `ax serve --tls-cert` (absolute): the API is wss, pinned to it */
  tlsCert?: string;
}

const lockFile = (dir: string) => path.join(dir, 'engine.lock');
/** What the kernel locks (see process-lock.ts); engine.lock beside it only names the holder. */
const kernelLockFile = (dir: string) => path.join(dir, 'engine.lock.db');

function readLockInfo(dir: string): EngineLockInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(lockFile(dir), 'utf8')) as EngineLockInfo;
  } catch {
    return undefined;
  }
}

/**
 * The engine that holds the data dir, while it lives: the kernel's lock decides, so a dead
 * engine (even a zombie, even one whose pid was reused) holds nothing.
 */
export function readEngineLock(dir: string): EngineLockInfo | undefined {
  if (!ProcessLock.isHeld(kernelLockFile(dir))) return undefined;
  // Held but not yet named (the holder writes its name right after taking the lock).
  return (
    readLockInfo(dir) ?? { pid: 0, host: os.hostname(), command: 'an engine still starting', startedAt: Date.now() }
  );
}

export function describeLock(info: EngineLockInfo): string {
  const at = new Date(info.startedAt).toISOString();
  return `pid ${info.pid} on ${info.host} ("${info.command}", started ${at}${info.port ? `, API on 127.0.0.1:${info.port}` : ''})`;
}

export interface EngineLock {
  update(patch: Partial<EngineLockInfo>): void;
  release(): void;
}

/**
 * Takes the data dir for this process; refuses, naming the running engine, when another live
 * engine holds it. Whatever a dead engine left (its engine.lock) is simply overwritten.
 */
export function acquireEngineLock(dir: string, command: string): EngineLock {
  const file = lockFile(dir);
  // Before the lock's own files are made there: one line with the fix, not a driver's stack.
  checkWritable(dbFile(dir));
  makePrivate(kernelLockFile(dir), true);
  const kernel = ProcessLock.tryAcquire(kernelLockFile(dir));
  if (!kernel) {
    const holder = readLockInfo(dir);
    const who = holder ? describeLock(holder) : 'a process that has not named itself yet';
    throw new AxError(
      'conflict',
      `another AX engine is running on ${dir}: ${who}. Stop it, or use another --data-dir.`,
    );
  }
  const info: EngineLockInfo = { pid: process.pid, host: os.hostname(), command, startedAt: Date.now() };
  // Write then rename: a reader never sees half a file.
  const write = () => writePrivateFile(file, JSON.stringify(info));
  try {
    write();
  } catch (err) {
    kernel.release();
    throw err;
  }
  let released = false;
  return {
    update(patch) {
      if (released) return;
      Object.assign(info, patch);
      write();
    },
    release() {
      if (released) return;
      released = true;
      fs.rmSync(file, { force: true });
      kernel.release();
    },
  };
}

/** The shortest secret accepted from a token file; a fresh API token has 48 characters. */
export const MIN_TOKEN_LENGTH = 32;

/** Why a token file's text is no secret, or undefined when it is usable. */
export function weakToken(text: string, min = MIN_TOKEN_LENGTH): string | undefined {
  if (text === '') return 'empty';
  if (!/^[\x21-\x7e]+$/.test(text)) return 'not printable ASCII';
  if (text.length < min) return `${text.length} characters, fewer than ${min}`;
  return undefined;
}

/**
 * The per-install API token (file mode 0600), created on first use. A token file that is empty,
 * short or not printable text would make the API guessable (an empty one used to turn the check
 * off): it is replaced by a fresh token, and `notice` says so. A link, another user's file, or
 * one others may read is refused with the fix (private-file.ts): its token may be known.
 */
export function apiToken(dir: string, notice: (message: string) => void = (m) => console.error(m)): string {
  const file = path.join(dir, 'api-token');
  const text = readPrivateFile(file)?.trim();
  if (text !== undefined) {
    const weak = weakToken(text);
    if (!weak) return text;
    notice(`ax: the API token in ${file} was ${weak}; replaced it with a fresh one (clients read it from that file)`);
  }
  const token = randomBytes(24).toString('hex');
  // Written whole under another name, then moved into place: a client never reads half a token.
  // A new one is linked, not renamed, into place: of nodes starting together on one data dir,
  // each would otherwise serve its own token while the file holds the last one's.
  if (text !== undefined) writePrivateFile(file, token);
  else if (!createPrivateFile(file, token)) return apiToken(dir, notice);
  return token;
}
