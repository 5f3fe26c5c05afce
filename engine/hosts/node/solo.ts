// Wiring for solo mode: SQLite store in the data dir, in-process coordinator, Node process
// runner, the embedded worker.
import os from 'node:os';
import { MemoryCoordinator } from '../../adapters/memory/memory-coordinator.ts';
import { NodeProcessRunner } from '../../adapters/process/node-process-runner.ts';
import { openSqliteStore } from '../../adapters/sql/sqlite-store.ts';
import { systemClock } from '../../adapters/system-clock.ts';
import type { EngineConfig } from '../../core/config.ts';
import { Engine } from '../../core/engine.ts';
import { configFromEnv } from './config-env.ts';
import { dbFile } from './data-dir.ts';
import { VERSION } from './version.ts';

export interface SoloOptions {
  config?: Partial<EngineConfig>;
  maxConcurrency?: number;
  onAlert?: (message: string) => void;
  onDrainRequested?: () => void;
}

export async function openSoloEngine(dataDir: string, options: SoloOptions = {}): Promise<Engine> {
  const store = await openSqliteStore(dbFile(dataDir));
  const coordinator = new MemoryCoordinator();
  return new Engine({
    store,
    coordinator,
    runner: new NodeProcessRunner(),
    clock: systemClock,
    config: { ...configFromEnv(), ...options.config },
    nodeId: `${os.hostname()}:${process.pid}`,
    onAlert: options.onAlert,
    onDrainRequested: options.onDrainRequested,
    worker: {
      // One worker per data dir: a stable id, so history reads "local".
      id: 'local',
      host: os.hostname(),
      pid: process.pid,
      version: VERSION,
      labels: [],
      acceptUnlabelled: true,
      role: 'solo',
      maxConcurrency: options.maxConcurrency,
      baseEnv: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
    },
  });
}
