// The solo data dir: the SQLite file, the engine lock (one engine per data dir), the API
// token (created once per install, mode 0600) and the settings file.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AxError } from '../../api/errors.ts';

export function defaultDataDir(): string {
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'ax-scheduler');
  if (process.platform === 'win32') return path.join(process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'ax-scheduler');
  return path.join(process.env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'ax-scheduler');
}

export function resolveDataDir(flag?: string): string {
  const dir = path.resolve(flag ?? process.env.AX_DATA_DIR ?? defaultDataDir());
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export const dbFile = (dir: string) => path.join(dir, 'ax.db');

export interface EngineLockInfo {
  pid: number;
  host: string;
  command: string;
  startedAt: number;
  /** the API port while `ax serve` runs */
  port?: number;
}

const lockFile = (dir: string) => path.join(dir, 'engine.lock');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The engine that holds the data dir, if it is still alive. */
export function readEngineLock(dir: string): EngineLockInfo | undefined {
  try {
    const info = JSON.parse(fs.readFileSync(lockFile(dir), 'utf8')) as EngineLockInfo;
    return info.host === os.hostname() && alive(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}

export function describeLock(info: EngineLockInfo): string {
  const at = new Date(info.startedAt).toISOString();
  return `pid ${info.pid} on ${info.host} ("${info.command}", started ${at}${info.port ? `, API on 127.0.0.1:${info.port}` : ''})`;
}

/**
 * Takes the data dir for this process; refuses, naming the running engine, when another live
 * engine holds it. A lock left by a dead engine is taken over.
 */
export interface EngineLock {
  update(patch: Partial<EngineLockInfo>): void;
  release(): void;
}

export function acquireEngineLock(dir: string, command: string): EngineLock {
  const file = lockFile(dir);
  const info: EngineLockInfo = { pid: process.pid, host: os.hostname(), command, startedAt: Date.now() };
  for (let tries = 0; tries < 3; tries++) {
    try {
      fs.writeFileSync(file, JSON.stringify(info), { flag: 'wx', mode: 0o600 });
      return {
        update(patch) {
          Object.assign(info, patch);
          fs.writeFileSync(file, JSON.stringify(info), { mode: 0o600 });
        },
        release() {
          const current = readEngineLock(dir);
          if (!current || current.pid === process.pid) fs.rmSync(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readEngineLock(dir);
      if (holder) {
        throw new AxError('conflict', `another AX engine is running on ${dir}: ${describeLock(holder)}. Stop it, or use another --data-dir.`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new AxError('conflict', `could not take the engine lock ${file}`);
}

/** The per-install API token (file mode 0600), created on first use. */
export function apiToken(dir: string): string {
  const file = path.join(dir, 'api-token');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    const token = randomBytes(24).toString('hex');
    fs.writeFileSync(file, token, { mode: 0o600 });
    return token;
  }
}
