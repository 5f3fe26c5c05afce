// The workflow cache (core/workflow/workflow-cache.ts): a workflow's graph indexed once through dag.ts
// (the one graph module) and reused by every event, re-read from a real SQLite store only when
// its version or switch changed; a fake clock drives the cache's age.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { downstreamClosure } from '../../engine/core/model/dag.ts';
import { type CachedWorkflow, WorkflowCache } from '../../engine/core/workflow/workflow-cache.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { tempDir } from '../helpers/files.ts';
import { nextTurn } from '../../engine/hosts/node/host-defaults.ts';

// extract → clean → load, extract → report, clean → report; audit stands alone
const DIAMOND = `workflow: etl
tasks:
  extract: {command: 'true'}
  clean: {command: 'true', upstream: [extract]}
  load: {command: 'true', upstream: [clean]}
  report: {command: 'true', upstream: [extract, clean]}
  audit: {command: 'true'}
`;

let dir: string;
let store: SqlStore;
let clock: FakeClock;

beforeEach(async () => {
  dir = tempDir('ax-workflow-cache-');
  store = await openSqliteStore(path.join(dir, 'ax.db'));
  clock = new FakeClock(Date.UTC(2026, 0, 5, 12));
});

afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function apply(text: string): Promise<number> {
  const { spec } = parseWorkflowFile(text, { file: 'etl.yaml', defaultTimezone: 'UTC' });
  return (await store.applyWorkflow(spec, clock.now())).workflowId;
}

/** The graph by task names, for readable expectations. */
function named(wf: CachedWorkflow, map: Map<number, number[]>): Record<string, string[]> {
  const name = (id: number) => wf.tasks.get(id)?.name as string;
  return Object.fromEntries([...map].map(([id, ids]) => [name(id), ids.map(name).sort()]));
}

describe('WorkflowCache', () => {
  it('indexes roots, downstream and upstream of each task; the downstream closure follows them', async () => {
    const id = await apply(DIAMOND);
    const wf = (await new WorkflowCache(store, () => clock.now(), nextTurn).get(id)) as CachedWorkflow;
    expect(wf.roots.map((t) => t.name).sort()).toEqual(['audit', 'extract']);
    expect(named(wf, wf.downstream)).toEqual({ extract: ['clean', 'report'], clean: ['load', 'report'] });
    expect(named(wf, wf.upstream)).toEqual({ clean: ['extract'], load: ['clean'], report: ['clean', 'extract'] });
    const extract = wf.byName.get('extract')?.id as number;
    expect(
      downstreamClosure(extract, wf.downstream)
        .map((t) => wf.tasks.get(t)?.name)
        .sort(),
    ).toEqual(['clean', 'load', 'report']);
  });

  it('serves the same entry while fresh and while its version stands; re-reads a changed or disabled workflow; forgets a removed one', async () => {
    const id = await apply(DIAMOND);
    const cache = new WorkflowCache(store, () => clock.now(), nextTurn, 10_000);
    const first = await cache.get(id);
    await clock.advance(5_000);
    expect(await cache.get(id)).toBe(first);
    // Past the age: the stamp is checked, the same version is kept without a reload.
    await clock.advance(10_000);
    expect(await cache.get(id)).toBe(first);

    // A new version (audit now after load): read again once the entry is old.
    await apply(DIAMOND.replace("audit: {command: 'true'}", "audit: {command: 'true', upstream: [load]}"));
    expect(await cache.get(id)).toBe(first);
    await clock.advance(10_000);
    const second = (await cache.get(id)) as CachedWorkflow;
    expect(second).not.toBe(first);
    expect(second.roots.map((t) => t.name)).toEqual(['extract']);
    expect(named(second, second.upstream).audit).toEqual(['load']);

    // Disabled: the switch is part of the stamp.
    await store.setWorkflowEnabled('etl', false, clock.now());
    await clock.advance(10_000);
    const third = (await cache.get(id)) as CachedWorkflow;
    expect(third).not.toBe(second);
    expect(third.graph.enabled).toBe(false);

    // invalidate() drops it at once, whatever its age.
    cache.invalidate(id);
    expect(await cache.get(id)).not.toBe(third);
    expect(await cache.get(id + 1000)).toBeUndefined();
  });

  it('reads and indexes a graph once for the callers that miss it together, and again after invalidate', async () => {
    const id = await apply(DIAMOND);
    let graphReads = 0;
    const counted = new Proxy(store, {
      get(target, name, receiver) {
        if (name === 'getWorkflowGraph') graphReads += 1;
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const cache = new WorkflowCache(counted, () => clock.now(), nextTurn);
    const together = await Promise.all(Array.from({ length: 20 }, () => cache.get(id)));
    expect(graphReads).toBe(1);
    expect(new Set(together).size).toBe(1);

    // forgotten while a load is under way: the next caller reads afresh, and the old load does not come back
    cache.invalidate(id);
    const before = cache.get(id);
    cache.invalidate(id);
    const after = await cache.get(id);
    expect(await before).not.toBe(after);
    expect(graphReads).toBe(3);
    expect(await cache.get(id)).toBe(after);
  });
});
