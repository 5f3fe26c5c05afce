// An in-process solo engine on a fresh temp data dir, with short intervals for tests.
import fs from 'node:fs';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import type { RunRecord, WorkflowSpec } from '../../engine/api/types.ts';
import type { EngineConfig } from '../../engine/core/model/config.ts';
import type { Engine } from '../../engine/core/engine.ts';
import type { ProcessRunner } from '../../engine/ports/process-runner.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import type { AlertOptions } from '../../engine/hosts/node/alert-channels.ts';
import { openSoloEngine } from '../../engine/hosts/node/solo.ts';
import { tempDir } from './files.ts';
import { waitFor } from './wait-for.ts';

export const FAST_CONFIG: Partial<EngineConfig> = {
  workerHeartbeatMs: 500,
  taskHeartbeatMs: 1_000,
  killGraceMs: 1_000,
  tickMs: 200,
  logFlushMs: 50,
};

export interface TestEngine {
  engine: Engine;
  dir: string;
  alerts: string[];
  apply(yamlText: string): Promise<WorkflowSpec>;
  /** runs a workflow manually and waits until the run is final */
  runToEnd(name: string, options?: { task?: string; timeoutMs?: number }): Promise<RunDetail>;
  waitRun(runId: number, timeoutMs?: number): Promise<RunDetail>;
  /**
   * runToEnd, then waits until the alerts the run raised are recorded and delivered or failed:
   * an alert is raised before its run's event goes out, so once the event is heard, the engine's
   * alertsIdle covers it.
   */
  runSettled(name: string): Promise<RunDetail>;
  logText(instanceId: number): Promise<string[]>;
  close(): Promise<void>;
}

const FINAL = ['SUCCESS', 'FAILED', 'SKIPPED', 'CANCELLED'];

export async function startTestEngine(
  options: {
    config?: Partial<EngineConfig>;
    maxConcurrency?: number;
    dir?: string;
    start?: boolean;
    runner?: ProcessRunner;
    alerts?: AlertOptions;
  } = {},
): Promise<TestEngine> {
  const dir = options.dir ?? tempDir();
  const alerts: string[] = [];
  const engine = await openSoloEngine(dir, {
    config: { ...FAST_CONFIG, ...options.config },
    maxConcurrency: options.maxConcurrency,
    onAlert: (m) => alerts.push(m),
    runner: options.runner,
    alerts: options.alerts,
  });
  if (options.start !== false) await engine.start();
  const waitRun = async (runId: number, timeoutMs = 30_000) => {
    await waitFor(async () => FINAL.includes((await engine.getRun(runId)).run.state), {
      timeoutMs,
      intervalMs: 25,
      message: `run #${runId} did not end`,
    });
    return engine.getRun(runId);
  };
  return {
    engine,
    dir,
    alerts,
    async apply(text) {
      const { spec } = parseWorkflowFile(text, { defaultTimezone: 'UTC' });
      await engine.apply(spec, 'test');
      return spec;
    },
    async runToEnd(name, o = {}) {
      const run: RunRecord = await engine.runWorkflow(name, { task: o.task, actor: 'test' });
      return waitRun(run.id, o.timeoutMs);
    },
    waitRun,
    async runSettled(name) {
      const ended = new Set<number>();
      const unsubscribe = await engine.subscribe(['runs'], (e) => {
        if (e.type === 'run' && FINAL.includes(e.state)) ended.add(e.runId);
      });
      try {
        const run = await engine.runWorkflow(name, { actor: 'test' });
        const detail = await waitRun(run.id);
        await waitFor(() => ended.has(run.id), { timeoutMs: 10_000, message: `the end event of run #${run.id}` });
        await engine.alertsIdle();
        return detail;
      } finally {
        unsubscribe();
      }
    },
    async logText(instanceId) {
      return (await engine.readLogs(instanceId, 0, 10_000)).map((l) => l.line);
    },
    async close() {
      await engine.stop(5_000);
      await engine.store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
