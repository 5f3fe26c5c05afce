// design.md §5 / §11: dependency advance on one SUCCESS event, event-driven (the engine's
// RunManager, O(downstream)) against a full-scan baseline (the seed's old scheduler: look at
// every task of the workflow), in a real SQLite store, for workflows of 1k, 10k and 100k tasks.
//
// Each variant gets its own run in the same store, prepared identically: the first half of the
// layers SUCCESS, the middle layer WAITING (as the event-driven advance would have left it).
// Then the same sequence of middle-layer instances turns SUCCESS one by one, and only the
// reaction to each event is timed. The three runs must end with the same instances created.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { InstanceRecord, RunRecord } from '../engine/api/types.ts';
import { MemoryCoordinator } from '../engine/adapters/memory/memory-coordinator.ts';
import { openSqliteStore } from '../engine/adapters/sql/sqlite-store.ts';
import type { SqlStore } from '../engine/adapters/sql/sql-store.ts';
import { succeededAmong } from '../engine/adapters/sql/instance-drafts.ts';
import { guardedInstanceUpdate } from '../engine/adapters/sql/instance-writes.ts';
import { systemClock } from '../engine/adapters/system-clock.ts';
import { nextTurn } from '../engine/hosts/node/host-defaults.ts';
import { RunManager } from '../engine/core/runs/run-manager.ts';
import { type CachedWorkflow, WorkflowCache } from '../engine/core/workflow/workflow-cache.ts';
import type { TaskDefinition } from '../engine/ports/store.ts';
import {
  type BenchOptions,
  type BenchTable,
  fmt,
  layeredWorkflow,
  median,
  percentile,
  removeDir,
  seededRandom,
  shuffled,
  tempDir,
  timed,
  timedWithStall,
} from './util.ts';

const WIDTH = 100;

type Variant = 'finish' | 'advance' | 'fullScan';
const VARIANTS: Variant[] = ['finish', 'advance', 'fullScan'];

export interface AdvanceFigures {
  tasks: number;
  edges: number;
  applyMs: number;
  graphLoadMs: number;
  /** longest time the event loop ran nothing during that load */
  graphLoadStallMs: number;
  /** instances already in each measured run before the first event */
  runInstances: number;
  setupMs: number;
  events: number;
  /** per event, ms, per variant */
  perEvent: Record<Variant, number[]>;
  sameOutcome: boolean;
  created: number;
}

async function newRun(store: SqlStore, workflowId: number): Promise<RunRecord> {
  const now = Date.now();
  const started = await store.startRun({
    run: { workflowId, state: 'RUNNING', trigger: 'manual', triggeredBy: 'bench', logicalTime: now, createdAt: now },
    roots: [],
  });
  if (!started) throw new Error('bench: startRun returned nothing');
  return started.run;
}

function task(wf: CachedWorkflow, name: string): TaskDefinition {
  const t = wf.byName.get(name);
  if (!t) throw new Error(`bench: no task ${name}`);
  return t;
}

/** The state event-driven advance leaves before layer `middle` finishes; returns layer `middle`'s instances. */
async function prepareRun(
  store: SqlStore,
  run: RunRecord,
  wf: CachedWorkflow,
  layers: string[][],
  middle: number,
): Promise<Map<string, InstanceRecord>> {
  const now = Date.now();
  const base = { runId: run.id, workflowId: run.workflowId, attempt: 1, notBefore: now, createdAt: now };
  for (const layer of layers.slice(0, middle)) {
    for (const name of layer) {
      const t = task(wf, name);
      await store.createInstance({ ...base, taskId: t.id, taskName: t.name, state: 'SUCCESS', handled: true });
    }
  }
  const waiting = new Map<string, InstanceRecord>();
  for (const name of layers[middle] as string[]) {
    const t = task(wf, name);
    const inst = await store.createInstance({ ...base, taskId: t.id, taskName: t.name, state: 'WAITING' });
    if (!inst) throw new Error(`bench: instance of ${name} not created`);
    waiting.set(name, inst);
  }
  return waiting;
}

/** RunManager.advance, query for query: downstream from the cached graph, the other upstreams' SUCCESS, create. */
async function advanceReplica(store: SqlStore, run: RunRecord, wf: CachedWorkflow, taskId: number): Promise<void> {
  const now = Date.now();
  for (const downId of wf.downstream.get(taskId) ?? []) {
    const others = (wf.upstream.get(downId) ?? []).filter((u) => u !== taskId);
    if (others.length > 0) {
      const done = await succeededAmong(store.db, 'sqlite', run.id, others);
      if (done.size < others.length) continue;
    }
    const t = wf.tasks.get(downId) as TaskDefinition;
    await store.createInstance({
      runId: run.id,
      workflowId: run.workflowId,
      taskId: t.id,
      taskName: t.name,
      attempt: 1,
      state: 'WAITING',
      notBefore: now,
      createdAt: now,
    });
  }
}

/**
 * The baseline: every task of the workflow, checked against all instances of the run (loaded
 * once per event). It is given the cached graph, so it pays only for the scan itself.
 */
async function fullScan(store: SqlStore, run: RunRecord, wf: CachedWorkflow): Promise<void> {
  const now = Date.now();
  const instances = await store.listInstances(run.id);
  const started = new Set<number>();
  const succeeded = new Set<number>();
  for (const i of instances) {
    started.add(i.taskId);
    if (i.state === 'SUCCESS') succeeded.add(i.taskId);
  }
  for (const t of wf.tasks.values()) {
    if (started.has(t.id)) continue;
    const ups = wf.upstream.get(t.id);
    if (!ups || !ups.every((u) => succeeded.has(u))) continue;
    await store.createInstance({
      runId: run.id,
      workflowId: run.workflowId,
      taskId: t.id,
      taskName: t.name,
      attempt: 1,
      state: 'WAITING',
      notBefore: now,
      createdAt: now,
    });
  }
}

export async function measureAdvance(
  tasks: number,
  events: number,
  progress: (m: string) => void,
): Promise<AdvanceFigures> {
  const dir = tempDir('ax-bench-advance-');
  const store = await openSqliteStore(path.join(dir, 'ax.db'));
  try {
    const { spec, layers, edges } = layeredWorkflow(`advance-${tasks}`, tasks, WIDTH, 42);
    progress(`advance ${tasks}: applying ${tasks} tasks, ${edges} edges`);
    const [applied, applyMs] = await timed(() => store.applyWorkflow(spec, Date.now()));

    const cache = new WorkflowCache(store, () => systemClock.now(), nextTurn);
    const [loaded, graphLoadMs, graphLoadStallMs] = await timedWithStall(() => cache.get(applied.workflowId));
    const wf = loaded as CachedWorkflow;
    const manager = new RunManager(store, new MemoryCoordinator(), cache, systemClock, () => undefined);

    const middle = Math.floor(layers.length / 2);
    const order = shuffled(layers[middle] as string[], seededRandom(7)).slice(0, events);
    const perEvent: Record<Variant, number[]> = { finish: [], advance: [], fullScan: [] };
    const outcome: Record<Variant, string> = { finish: '', advance: '', fullScan: '' };
    const created: Record<Variant, number> = { finish: 0, advance: 0, fullScan: 0 };
    let setupMs = 0;
    let runInstances = 0;

    const runs = new Map<Variant, { run: RunRecord; waiting: Map<string, InstanceRecord> }>();
    for (const variant of VARIANTS) {
      progress(`advance ${tasks}: preparing the run for ${variant}`);
      const run = await newRun(store, applied.workflowId);
      const [waiting, ms] = await timed(() => prepareRun(store, run, wf, layers, middle));
      setupMs += ms;
      runInstances = (await store.listInstances(run.id)).length;
      runs.set(variant, { run, waiting });
    }

    // Variants take turns on each event (in rotating order), so JIT warm-up and the noise of
    // a shared machine fall on all three alike.
    progress(`advance ${tasks}: ${events} events × ${VARIANTS.length} variants`);
    for (const [e, name] of order.entries()) {
      for (let v = 0; v < VARIANTS.length; v++) {
        const variant = VARIANTS[(e + v) % VARIANTS.length] as Variant;
        const { run, waiting } = runs.get(variant) as { run: RunRecord; waiting: Map<string, InstanceRecord> };
        const inst = waiting.get(name) as InstanceRecord;
        const finishedAt = Date.now();
        // The engine's cache re-reads a graph whose version changed: that reload is reported as
        // "graph load", not counted in an event.
        await cache.get(applied.workflowId);
        if (variant === 'finish') {
          // The engine's whole step: the outcome, its follow-ups and the settle check, one transaction.
          const t0 = performance.now();
          if (!(await manager.finish(inst, { from: ['WAITING'], attempt: 1 }, 'SUCCESS', { finishedAt })))
            throw new Error(`bench: ${name} could not finish`);
          perEvent.finish.push(performance.now() - t0);
          continue;
        }
        // Marked SUCCESS alone, below the port: the replica and the scan then do the follow-up work.
        if (
          !(await guardedInstanceUpdate(store.db, { state: 'SUCCESS', finished_at: finishedAt }, inst.id, {
            from: ['WAITING'],
            attempt: 1,
          }))
        ) {
          throw new Error(`bench: ${name} could not be marked SUCCESS`);
        }
        const t0 = performance.now();
        if (variant === 'advance') await advanceReplica(store, run, wf, inst.taskId);
        else await fullScan(store, run, wf);
        perEvent[variant].push(performance.now() - t0);
      }
    }
    for (const [variant, { run }] of runs) {
      const after = await store.listInstances(run.id);
      outcome[variant] = after
        .map((i) => `${i.taskId}:${i.state}`)
        .sort()
        .join(',');
      created[variant] = after.length - runInstances;
    }
    return {
      tasks,
      edges,
      applyMs,
      graphLoadMs,
      graphLoadStallMs,
      runInstances,
      setupMs: setupMs / VARIANTS.length,
      events,
      perEvent,
      sameOutcome: outcome.finish === outcome.advance && outcome.advance === outcome.fullScan,
      created: created.advance,
    };
  } finally {
    await store.close();
    removeDir(dir);
  }
}

export async function benchDependencyAdvance(options: BenchOptions): Promise<BenchTable> {
  const sizes = options.quick ? [1_000] : [1_000, 10_000, 100_000];
  const events = options.quick ? 10 : 50;
  const rows: (string | number)[][] = [];
  const notes: string[] = [];
  for (const size of sizes) {
    const f = await measureAdvance(size, events, options.progress);
    const cell = (v: Variant) => `${fmt(median(f.perEvent[v]))} / ${fmt(percentile(f.perEvent[v], 0.95))}`;
    rows.push([
      f.tasks.toLocaleString('en-US'),
      f.edges.toLocaleString('en-US'),
      fmt(f.applyMs / 1000),
      `${fmt(f.graphLoadMs)} / ${fmt(f.graphLoadStallMs)}`,
      f.runInstances.toLocaleString('en-US'),
      cell('advance'),
      cell('finish'),
      cell('fullScan'),
      `${fmt(median(f.perEvent.fullScan) / median(f.perEvent.advance), 0)}×`,
      f.sameOutcome ? 'yes' : 'NO',
    ]);
    notes.push(
      `${f.tasks} tasks: ${f.events} events; ${f.created} downstream instances created by them; preparing each run took ${fmt(f.setupMs / 1000)} s`,
    );
  }
  return {
    title: 'Dependency advance per SUCCESS event (SQLite, ms: median / p95)',
    columns: [
      'tasks',
      'edges',
      'apply (s)',
      'graph load / loop stall (ms)',
      'instances in run',
      'event-driven advance',
      'finish (whole step)',
      'full scan',
      'scan ÷ advance',
      'same result',
    ],
    rows,
    notes: [
      "event-driven advance = RunManager.advance's queries (cached downstream, succeededAmong of the other upstreams, createInstance)",
      "finish = the engine's whole step, RunManager.finish: the outcome write, the follow-ups (the advance's reads and inserts) and the settle check, one transaction (the other two columns leave the outcome write untimed)",
      'graph load = WorkflowCache.get of a cold graph, which the cache repeats when the workflow version changes; loop stall = the longest time no timer ran meanwhile',
      "full scan = load every instance of the run, check every task's upstreams (graph given from the cache)",
      ...notes,
    ],
  };
}
