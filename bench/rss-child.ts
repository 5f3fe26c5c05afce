// The process whose memory bench/engine-rss.ts measures: `node --expose-gc --import tsx
// bench/rss-child.ts MODE DIR [WORKFLOWS TASKS]`. Prints one JSON line of figures (bytes).
//   bare    node + tsx and nothing else: the floor under every other figure
//   idle    a started solo engine on an empty data dir
//   loaded  the same with WORKFLOWS × TASKS defined tasks: after apply + listWorkflows, then
//           after every workflow's graph is in the engine's cache (one one-task run each)
import { openSoloEngine } from '../engine/hosts/node/solo.ts';
import type { EngineEvent } from '../engine/api/events.ts';
import { layeredWorkflow } from './util.ts';

const SETTLE_MS = 2_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function sample(): { rss: number; heapUsed: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed };
}

async function main(): Promise<void> {
  const [mode, dir, workflowsArg, tasksArg] = process.argv.slice(2);
  if (mode === 'bare') {
    await sleep(SETTLE_MS);
    console.log(JSON.stringify({ bare: sample() }));
    return;
  }
  if (!dir || (mode !== 'idle' && mode !== 'loaded'))
    throw new Error('usage: rss-child.ts bare | idle DIR | loaded DIR WORKFLOWS TASKS');
  const engine = await openSoloEngine(dir);
  await engine.start();
  const out: Record<string, { rss: number; heapUsed: number }> = {};
  try {
    await sleep(SETTLE_MS);
    out.idle = sample();
    if (mode === 'loaded') {
      const workflows = Number(workflowsArg);
      const tasks = Number(tasksArg);
      const firstTask = new Map<string, string>();
      for (let w = 0; w < workflows; w++) {
        const { spec } = layeredWorkflow(`rss-${w}`, tasks, 100, 100 + w);
        await engine.apply(spec, 'bench');
        firstTask.set(spec.name, spec.tasks[0]?.name ?? '');
      }
      const listed = await engine.listWorkflows();
      const defined = listed.reduce((n, w) => n + w.taskCount, 0);
      await sleep(SETTLE_MS);
      out.applied = sample();

      // A one-task run loads the workflow's whole graph into the cache and spawns one process.
      const ended = new Set<number>();
      let wake: (() => void) | undefined;
      const unsubscribe = await engine.subscribe(['runs'], (e: EngineEvent) => {
        if (e.type === 'run' && e.state !== 'RUNNING' && e.state !== 'QUEUED') {
          ended.add(e.runId);
          wake?.();
        }
      });
      const runs = [];
      for (const [name, task] of firstTask) runs.push(await engine.runWorkflow(name, { task, actor: 'bench' }));
      while (!runs.every((r) => ended.has(r.id))) await new Promise<void>((resolve) => (wake = resolve));
      unsubscribe();
      await sleep(SETTLE_MS);
      out.cached = sample();
      console.log(JSON.stringify({ ...out, defined }));
      return;
    }
    console.log(JSON.stringify(out));
  } finally {
    await engine.stop(10_000);
    await engine.store.close();
  }
}

await main();
