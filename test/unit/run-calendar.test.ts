// The runs calendar cuts days in the reader's zone: the store counts quarter hours, the engine
// names each one's day. Against a real SQLite store, so the counts are the store's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { dayCutter, runCalendar } from '../../engine/core/runs/run-calendar.ts';
import type { Store } from '../../engine/ports/store.ts';
import { createRun, manualRun, setRunState, task, workflow } from '../contract/store-fixtures.ts';

const at = (iso: string) => Date.parse(iso);

describe('dayCutter', () => {
  it('puts 23:30 UTC on the next day in Asia/Shanghai and the same day in UTC', () => {
    const t = at('2026-11-30T23:30:00Z');
    expect(dayCutter('UTC')(t)).toBe('2026-11-30');
    expect(dayCutter('Asia/Shanghai')(t)).toBe('2026-12-01');
    expect(dayCutter('America/New_York')(t)).toBe('2026-11-30');
  });

  it('cuts on local midnight across a DST change (Europe/Paris, 2026-10-25)', () => {
    const paris = dayCutter('Europe/Paris');
    // CEST (UTC+2) until 01:00 UTC that day, CET (UTC+1) after
    expect(paris(at('2026-10-24T21:59:59Z'))).toBe('2026-10-24');
    expect(paris(at('2026-10-24T22:00:00Z'))).toBe('2026-10-25');
    expect(paris(at('2026-10-25T22:59:59Z'))).toBe('2026-10-25');
    expect(paris(at('2026-10-25T23:00:00Z'))).toBe('2026-10-26');
  });

  it('names an unknown zone and what to use instead', () => {
    expect(() => dayCutter('Mars/Olympus')).toThrow(/unknown time zone "Mars\/Olympus".*IANA/);
  });
});

describe('runCalendar', () => {
  let dir: string | undefined;
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('counts a workflow’s runs per day of the asked zone, by how they ended', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ax-calendar-'));
    store = await openSqliteStore(join(dir, 'ax.db'));
    const t0 = at('2026-11-30T00:00:00Z');
    const { workflowId } = await store.applyWorkflow(workflow('etl', [task('a')]), t0);
    const runs = [
      { iso: '2026-11-30T10:00:00Z', state: 'SUCCESS' as const },
      { iso: '2026-11-30T23:30:00Z', state: 'FAILED' as const },
      { iso: '2026-11-30T23:50:00Z', state: 'CANCELLED' as const },
      { iso: '2026-12-01T01:00:00Z', state: 'RUNNING' as const },
    ];
    for (const [i, r] of runs.entries()) {
      const run = await createRun(store, manualRun(workflowId, { createdAt: at(r.iso), logicalTime: t0 + i }));
      if (r.state !== 'RUNNING') await setRunState(store, run?.id ?? -1, r.state, at(r.iso) + 1000);
    }
    const query = { from: t0, to: at('2026-12-02T00:00:00Z') };
    const utc = await runCalendar(store, { ...query, zone: 'UTC' }, 'Europe/Paris');
    expect(utc.zone).toBe('UTC');
    expect(utc.cells).toEqual([
      { day: '2026-11-30', workflow: 'etl', success: 1, failed: 1, other: 1, active: 0 },
      { day: '2026-12-01', workflow: 'etl', success: 0, failed: 0, other: 0, active: 1 },
    ]);
    const shanghai = await runCalendar(store, { ...query, zone: 'Asia/Shanghai' }, 'UTC');
    expect(shanghai.cells).toEqual([
      { day: '2026-11-30', workflow: 'etl', success: 1, failed: 0, other: 0, active: 0 },
      { day: '2026-12-01', workflow: 'etl', success: 0, failed: 1, other: 1, active: 1 },
    ]);
    // no zone asked: the host's
    expect((await runCalendar(store, query, 'Asia/Shanghai')).zone).toBe('Asia/Shanghai');
    await expect(runCalendar(store, { from: t0, to: t0 + 400 * 86_400_000 }, 'UTC')).rejects.toThrow(/at most a year/);
  });
});
