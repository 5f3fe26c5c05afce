// The day timeline's layout: rows per workflow in order of their first run, overlapping runs of
// one workflow in separate lanes, bars clipped to the day, running ones drawn to now.
import { describe, expect, it } from 'vitest';
import type { RunListing } from '../../../engine/api/engine-api.ts';
import { ganttRows } from './day-gantt.ts';

const H = 3_600_000;
const FROM = 1_000 * H;
const TO = FROM + 24 * H;

let nextId = 1;
function run(workflowName: string, start: number, end: number | undefined, state: RunListing['state'] = 'SUCCESS') {
  return {
    id: nextId++,
    workflowId: 1,
    workflowName,
    state,
    trigger: 'cron',
    triggeredBy: 'scheduler',
    logicalTime: start,
    createdAt: start,
    startedAt: start,
    finishedAt: end,
  } satisfies RunListing;
}

describe('ganttRows', () => {
  it('orders rows by their first run and stacks overlapping runs of a workflow', () => {
    const rows = ganttRows(
      [
        run('load', FROM + 3 * H, FROM + 4 * H),
        run('etl', FROM + 2 * H, FROM + 5 * H),
        run('etl', FROM + 2.5 * H, FROM + 3 * H),
        run('etl', FROM + 5 * H, FROM + 6 * H),
      ],
      FROM,
      TO,
      TO,
    );
    expect(rows.map((r) => [r.workflow, r.lanes])).toEqual([
      ['etl', 2],
      ['load', 1],
    ]);
    expect(rows[0]?.bars.map((b) => b.lane)).toEqual([0, 1, 0]);
    expect(rows[0]?.bars[0]?.left).toBeCloseTo(2 / 24);
    expect(rows[0]?.bars[0]?.width).toBeCloseTo(3 / 24);
  });

  it('leaves out runs that ended before the day began or began after it', () => {
    const rows = ganttRows(
      [run('early', FROM - 3 * H, FROM - H), run('next', TO + H, TO + 2 * H), run('kept', FROM - H, FROM + H)],
      FROM,
      TO,
      TO,
    );
    expect(rows.map((r) => r.workflow)).toEqual(['kept']);
  });

  it('clips to the day and draws a running run to now', () => {
    const [row] = ganttRows(
      [run('late', FROM - H, FROM + H), run('late', FROM + 23 * H, undefined, 'RUNNING')],
      FROM,
      TO,
      FROM + 23.5 * H,
    );
    expect(row?.bars[0]).toMatchObject({ left: 0, open: false });
    expect(row?.bars[0]?.width).toBeCloseTo(1 / 24);
    expect(row?.bars[1]).toMatchObject({ open: true });
    expect(row?.bars[1]?.width).toBeCloseTo(0.5 / 24);
  });
});
