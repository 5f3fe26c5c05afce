// This machine's side of worker identity (see core/execution/worker-identity.ts): the default worker id,
// and whether a holder of an id that ran here is dead.
//
// The default id is the host name plus a short suffix kept in the data dir, so two laptops both
// named "MacBook-Pro" differ, and a node keeps its id across restarts. Several nodes on one data
// dir (a scheduler and workers on one host) take numbered slots, each held by a kernel lock for
// the process's lifetime: the first is HOST-SUFFIX, the next HOST-SUFFIX-2, and so on; a restart
// after a crash gets its slot back at once.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AxError } from '../../api/errors.ts';
import type { WorkerRecord } from '../../api/types.ts';
import { createPrivateFile, readPrivateFile } from './private-file.ts';
import { ProcessLock } from './process-lock.ts';

const MAX_SLOTS = 64;

/** The host name as it can appear in an id (Redis keys, file names): no spaces or slashes. */
function hostPart(): string {
  return os.hostname().replace(/[^A-Za-z0-9._-]+/g, '-') || 'host';
}

function nodeSuffix(dataDir: string): string {
  const file = path.join(dataDir, 'node-id');
  const text = readOrCreate(file, () => randomBytes(3).toString('hex'));
  if (/^[a-z0-9]{4,16}$/.test(text)) return text;
  throw new AxError(
    'validation',
    `${file} is not a node id (4 to 16 letters or digits): remove it, or give the node a --worker-id`,
  );
}

/**
 * The fingerprint of this node's secret (DATA_DIR/node-secret, 32 random bytes, mode 0600, made
 * on first use): the worker ids this node held stay reserved to it for a while after it leaves
 * (core/execution/worker-id-reservation.ts). Only the fingerprint goes into the store, never the secret.
 */
export function nodeKey(dataDir: string): string {
  const file = path.join(dataDir, 'node-secret');
  const text = readOrCreate(file, () => randomBytes(32).toString('hex'));
  if (/^[0-9a-f]{64}$/.test(text)) return createHash('sha256').update(text).digest('hex').slice(0, 32);
  throw new AxError(
    'validation',
    `${file} is not a node secret (64 hex digits): remove it, and this node gets a new one (the worker ids it held stay reserved to the old one for a while)`,
  );
}

/**
 * A data dir file made once and then only read, its text trimmed (see createPrivateFile: several
 * nodes may start together on one data dir, and all read the same text; none reads it half-written).
 */
function readOrCreate(file: string, make: () => string): string {
  for (let tries = 0; tries < 20; tries++) {
    const text = readPrivateFile(file)?.trim();
    if (text) return text;
    if (text === undefined) {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      createPrivateFile(file, make());
    } else {
      // Empty only if a crash cut an older version's write short, or that version writes it now.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
  return readPrivateFile(file)?.trim() ?? '';
}

export interface DefaultWorkerId {
  id: string;
  /** lets the slot go (on exit the kernel does it anyway) */
  release(): void;
}

/** This process's default worker id on a data dir: the lowest slot no live process holds. */
export function defaultWorkerId(dataDir: string): DefaultWorkerId {
  const base = `${hostPart()}-${nodeSuffix(dataDir)}`;
  const dir = path.join(dataDir, 'worker-slots');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (let slot = 1; slot <= MAX_SLOTS; slot++) {
    const lock = ProcessLock.tryAcquire(path.join(dir, `${slot}.lock`), 0);
    if (lock) return { id: slot === 1 ? base : `${base}-${slot}`, release: () => lock.release() };
  }
  throw new AxError('conflict', `${MAX_SLOTS} nodes already run on ${dataDir}: give this one a --worker-id`);
}

/**
 * Whether the holder of an id certainly is dead: it ran on this host and its process is gone (a
 * zombie counts as gone), or its pid is this very process's (a container restarted: pids repeat).
 */
export function holderGoneHere(holder: WorkerRecord): boolean {
  if (holder.host !== os.hostname()) return false;
  if (holder.pid === process.pid) return true;
  return !processAlive(holder.pid);
}

const HAS_PROC = fs.existsSync('/proc/self/stat');

/** Whether pid runs; on Linux from /proc, where a zombie (dead, not yet reaped) counts as gone. */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  if (HAS_PROC) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      return state !== 'Z' && state !== 'X';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
