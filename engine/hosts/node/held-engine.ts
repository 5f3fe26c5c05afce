// A solo engine that runs work in this process: it takes the data-dir lock, opens and starts the
// engine, and releases all of it once, whoever asks first (a signal, `ax drain`, a lost
// database, the desktop shell). The CLI's embedded engines (`ax serve`, `ax run`) and the engine
// host of the desktop app (hosts/port/) are both this.
import type { AxError } from '../../api/errors.ts';
import type { Engine } from '../../core/engine.ts';
import type { RecoveryReport } from '../../core/scheduling/recovery.ts';
import { acquireEngineLock, type EngineLock } from './data-dir.ts';
import { openSoloEngine, type SoloOptions } from './solo.ts';

export type Release = (drainTimeoutMs: number) => Promise<void>;

export interface HeldEngine {
  engine: Engine;
  dir: string;
  lock: EngineLock;
  /** what start-up recovery found that a dead engine had left */
  recovery: RecoveryReport;
  /** drains (running tasks get up to drainTimeoutMs), closes the engine, frees the data dir; once */
  release: Release;
}

export interface HoldOptions extends Omit<SoloOptions, 'onStoreLost'> {
  /**
   * ax.db was deleted or replaced while open: the store refuses every write from now on. `release`
   * is the engine's (a no-op while it is still starting).
   */
  onStoreLost?: (error: AxError, release: Release) => void;
}

export async function holdSoloEngine(dir: string, command: string, options: HoldOptions = {}): Promise<HeldEngine> {
  const lock = acquireEngineLock(dir, command);
  let releasing: Promise<void> | undefined;
  const later: { release?: Release } = {};
  const { onStoreLost } = options;
  let engine: Engine | undefined;
  try {
    engine = await openSoloEngine(dir, {
      ...options,
      onStoreLost: onStoreLost && ((error) => onStoreLost(error, (ms) => later.release?.(ms) ?? Promise.resolve())),
    });
    const recovery = await engine.start();
    const started = engine;
    later.release = (drainTimeoutMs) =>
      (releasing ??= (async () => {
        // The engine's timers never hold the process open, so a drain that waits for a task to
        // stop (a cancelled one, Ctrl-C) would end the process mid-way once the task exits.
        const keepAlive = setInterval(() => undefined, 60_000);
        try {
          await started.stop(drainTimeoutMs);
          await started.dispose();
        } finally {
          clearInterval(keepAlive);
          lock.release();
        }
      })());
    return { engine, dir, lock, recovery, release: later.release };
  } catch (err) {
    // Nothing of a failed start may linger: its store and launchers are closed with it.
    await engine?.dispose().catch(() => undefined);
    lock.release();
    throw err;
  }
}
