import { describe, expect, it } from 'vitest';
import type { GridCell, RunGrid } from '../../../engine/api/engine-api.ts';
import type { RunRecord } from '../../../engine/api/types.ts';
import { NEWEST, newerPage, olderPage, rotateGrid, runDurationMs } from './grid-model.ts';

const run = (id: number, startedAt?: number, finishedAt?: number): RunRecord =>
  ({
    id,
    workflowId: 1,
    workflowName: 'etl',
    state: 'SUCCESS',
    trigger: 'manual',
    triggeredBy: 't',
    logicalTime: 0,
    createdAt: 0,
    startedAt,
    finishedAt,
  }) as RunRecord;
const cell = (instanceId: number, startedAt = 0, finishedAt = 10): GridCell => ({
  instanceId,
  state: 'SUCCESS',
  attempt: 1,
  startedAt,
  finishedAt,
});

// as the engine answers: newest run first
const grid: RunGrid = {
  tasks: ['extract', 'load'],
  rows: [
    { run: run(3, 1000, 4000), cells: { extract: cell(31), load: cell(32) } },
    { run: run(2, 500, 900), cells: { extract: cell(21), gone: cell(22) } },
    { run: run(1), cells: {} },
  ],
  nextBeforeRunId: 1,
};

describe('rotateGrid', () => {
  it('makes tasks the rows and runs the columns, the newest run on the right', () => {
    const model = rotateGrid(grid, 10_000);
    expect(model.runs.map((r) => r.id)).toEqual([1, 2, 3]);
    // a task the workflow no longer has still shows its history, after the current ones
    expect(model.tasks).toEqual(['extract', 'load', 'gone']);
    expect(model.cells.map((row) => row.map((c) => c?.instanceId))).toEqual([
      [undefined, 21, 31],
      [undefined, undefined, 32],
      [undefined, 22, undefined],
    ]);
  });

  it('scales the bars to the longest run, counting a running one up to now', () => {
    expect(rotateGrid(grid, 10_000).maxDurationMs).toBe(3000);
    const running = { ...grid, rows: [{ run: run(4, 2000), cells: {} }, ...grid.rows] };
    expect(rotateGrid(running, 12_000).maxDurationMs).toBe(10_000);
    expect(runDurationMs(run(5), 1)).toBeUndefined();
  });
});

describe('paging across runs', () => {
  it('goes older with the page cursor and back newer to the newest page, never past either end', () => {
    const second = olderPage(NEWEST, 40);
    expect(second).toEqual([undefined, 40]);
    const third = olderPage(second, 20);
    expect(third).toEqual([undefined, 40, 20]);
    expect(olderPage(third, undefined)).toBe(third); // the last page has no older one
    expect(newerPage(third)).toEqual(second);
    expect(newerPage(newerPage(second))).toEqual(NEWEST);
  });
});
