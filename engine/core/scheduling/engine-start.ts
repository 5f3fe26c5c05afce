// `on: engine_start` (design.md §5): when a long-running engine starts, each enabled workflow that
// asks for it gets one run, trigger engine_start, triggered by the node. The scheduler calls this
// once, on its first tick, and only when that tick found it leading: a standby that takes the lead
// later is a failover, not a start; a tick that fails before they started leaves them due for the
// next (one workflow's failure is alerted, not retried). While scheduling is paused nothing is
// started; the audit says so per workflow and one alert says so (an engine start has no fire time
// to catch up later).
import type { Clock } from '../../ports/clock.ts';
import type { AuditStore, DefinitionStore, FlagStore } from '../../ports/store.ts';
import type { RunManager } from '../runs/run-manager.ts';
import type { WorkflowCache } from '../workflow/workflow-cache.ts';

export interface EngineStartResult {
  /** the runs started, by workflow name */
  started: string[];
  /** the workflows not run because scheduling was paused */
  paused: string[];
}

export async function fireEngineStart(
  store: DefinitionStore & FlagStore & AuditStore,
  runs: RunManager,
  workflows: WorkflowCache,
  clock: Clock,
  nodeId: string,
  alert: (message: string) => void,
): Promise<EngineStartResult> {
  const result: EngineStartResult = { started: [], paused: [] };
  const ids = await store.workflowsForEngineStart();
  if (ids.length === 0) return result;
  const pause = await store.getSchedulingPause();
  for (const workflowId of ids) {
    const name = (await workflows.get(workflowId))?.graph.name;
    if (name === undefined) continue; // removed meanwhile
    const now = clock.now();
    if (pause) {
      result.paused.push(name);
      await store.audit({
        at: now,
        actor: 'scheduler',
        action: 'engine_start.skip',
        object: `workflow:${name}`,
        detail: `not run at the start of ${nodeId}: scheduling is paused (since ${new Date(pause.since).toISOString()}, by ${pause.by})`,
      });
      continue;
    }
    // One workflow that cannot start (removed a moment ago, its store step failing) must not stop the others.
    try {
      const run = await runs.startRun({
        workflowId,
        trigger: 'engine_start',
        triggeredBy: nodeId,
        logicalTime: now,
        applyOverlap: true,
      });
      if (run) result.started.push(name);
    } catch (err) {
      alert(
        `workflow ${name}: its engine-start run did not start: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  if (result.paused.length > 0) {
    const shown =
      result.paused.slice(0, 10).join(', ') +
      (result.paused.length > 10 ? ` and ${result.paused.length - 10} more` : '');
    alert(
      `scheduling is paused: ${result.paused.length} workflow(s) with "on: engine_start" not run at the start of ${nodeId} (${shown}); start them by hand with "ax run WORKFLOW" if they are needed`,
    );
  }
  return result;
}
