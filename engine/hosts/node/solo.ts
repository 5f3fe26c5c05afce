// Wiring for solo mode: SQLite store in the data dir, in-process coordinator, the task runner
// (launchers), the embedded worker.
import fs from 'node:fs';
import os from 'node:os';
import { MemoryCoordinator } from '../../adapters/memory/memory-coordinator.ts';
import { sqliteDriver } from '../../adapters/sql/sqlite-driver.ts';
import { openSqliteStore } from '../../adapters/sql/sqlite-store.ts';
import { PromMetrics } from '../../adapters/metrics/prom-metrics.ts';
import { systemClock } from '../../adapters/system-clock.ts';
import type { AxError } from '../../api/errors.ts';
import { DEFAULT_CONFIG, type EngineConfig } from '../../core/model/config.ts';
import { Engine } from '../../core/engine.ts';
import { configFromEnv } from './config-env.ts';
import { privateDbFile } from './data-dir.ts';
import { nodeLogLimit, type SettingKey, type Settings, settingsFile, shownSettings, shownValue } from './settings.ts';
import { nodeTaskEnv, taskUserOf } from './task-env.ts';
import { taskRunner } from './task-runner.ts';
import { VERSION } from './version.ts';
import type { ProcessRunner } from '../../ports/process-runner.ts';
import type { SecretSource } from '../../ports/secrets.ts';
import { SecretsFile } from './secrets-file.ts';
import { SecretMask } from '../../core/secrets/secret-mask.ts';
import { type AlertOptions, loadAlerts } from './alert-channels.ts';
import { nodeHostDefaults } from './host-defaults.ts';

export interface SoloOptions {
  config?: Partial<EngineConfig>;
  maxConcurrency?: number;
  onAlert?: (message: string) => void;
  onDrainRequested?: () => void;
  /** ax.db was deleted or replaced while open: the store refuses every write from now on */
  onStoreLost?: (error: AxError) => void;
  /** default: taskRunner() (launchers; direct spawns on Windows); the benchmarks compare both */
  runner?: ProcessRunner;
  /** settings kept outside settings.json (the desktop app's encrypted team connection strings), shown with the stored ones */
  extraSettings?: Settings;
  /** this node's task secrets; default the data dir's (secrets-file.ts) */
  secrets?: SecretSource;
  /** alert channels the host adds (the desktop app's), and settings for tests */
  alerts?: AlertOptions;
  /** task-env and run-as as given by flags; else AX_TASK_ENV / AX_RUN_AS, else settings.json (task-env.ts) */
  taskEnvFlags?: Settings;
}

/** Solo tasks run on this machine: a cwd that cannot be entered here is worth a warning. */
export function checkCwdHere(cwd: string): string | undefined {
  try {
    if (!fs.statSync(cwd).isDirectory()) return 'is not a directory';
    fs.accessSync(cwd, fs.constants.X_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR'
      ? 'does not exist on this machine'
      : `cannot be entered (${code ?? String(err)})`;
  }
}

function shownExtra(settings: Settings = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries(settings).flatMap(([key, value]) =>
      value === undefined ? [] : [[key, shownValue(key as SettingKey, value)]],
    ),
  );
}

export async function openSoloEngine(dataDir: string, options: SoloOptions = {}): Promise<Engine> {
  // The node's one masking step: every secret resolved here (tasks', alert channels') is masked
  // in whatever leaves the engine (core/secrets/secret-mask.ts).
  const secretMask = new SecretMask();
  const secrets = secretMask.watch(options.secrets ?? new SecretsFile(dataDir));
  // Read before the store opens: a mistake in settings.json stops the engine with its fix.
  const alerts = loadAlerts(dataDir, secrets, options.alerts);
  const taskEnv = nodeTaskEnv(dataDir, options.taskEnvFlags);
  const store = await openSqliteStore(privateDbFile(dataDir), {
    onLost: options.onStoreLost,
    onNote: options.onAlert ?? ((message) => process.stderr.write(`ax: ${message}\n`)),
  });
  const coordinator = new MemoryCoordinator();
  const config = { maxOutputBytes: nodeLogLimit(dataDir), ...configFromEnv(), ...options.config };
  return new Engine({
    // The machine's zone, randomness and event loop, which pure core does not reach for itself.
    ...nodeHostDefaults(),
    store,
    coordinator,
    runner:
      options.runner ?? taskRunner(config.killGraceMs ?? DEFAULT_CONFIG.killGraceMs, options.onAlert, taskEnv.runAs),
    clock: systemClock,
    config,
    nodeId: `${os.hostname()}:${process.pid}`,
    onAlert: options.onAlert,
    alerts,
    secretMask,
    reloadAlerts: () => loadAlerts(dataDir, secrets, options.alerts),
    onDrainRequested: options.onDrainRequested,
    checkCwd: checkCwdHere,
    taskUser: taskUserOf(taskEnv.runAs),
    metrics: new PromMetrics(),
    hostInfo: {
      version: VERSION,
      mode: 'solo',
      role: 'solo',
      sqliteDriver: sqliteDriver().description,
      dataDir,
      settingsFile: settingsFile(dataDir),
      settings: { ...shownSettings(dataDir), ...shownExtra(options.extraSettings) },
    },
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
      // A solo engine runs only under the data-dir lock: whoever held "local" before is dead.
      holderGone: () => true,
      secrets,
      // Never AX's own variables (the data dir, connection strings): see task-env.ts.
      baseEnv: taskEnv.baseEnv,
    },
  });
}
