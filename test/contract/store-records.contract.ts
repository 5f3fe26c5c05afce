// Store contract, part 4: execution logs, workers and the audit trail.
import { describe, expect, it } from 'vitest';
import type { LogLine, WorkerRecord } from '../../engine/api/types.ts';
import { addInstance, seedRun, T0 } from './store-fixtures.ts';
import type { StoreGetter } from './store-fixtures.ts';

const line = (instanceId: number, seq: number, text = `line ${seq}`, ts = T0 + seq): LogLine => ({
  instanceId,
  seq,
  stream: 'stdout',
  ts,
  line: text,
});

const worker = (id: string, extra: Partial<WorkerRecord> = {}): WorkerRecord => ({
  id,
  host: 'laptop-1',
  pid: 4242,
  version: '0.1.0',
  labels: ['linux', 'etl'],
  maxConcurrency: 8,
  running: 0,
  startedAt: T0,
  lastHeartbeat: T0,
  status: 'online',
  acceptUnlabelled: false,
  acceptWorkflows: ['etl'],
  ...extra,
});

/** The accept-policy travels with the live registration (coordinator), not with the store. */
const stored = ({ acceptUnlabelled: _unlabelled, acceptWorkflows: _workflows, ...rest }: WorkerRecord) => rest;

export function recordsContract(store: StoreGetter): void {
  /** instance ids to hang log lines on */
  const instances = async (n: number): Promise<number[]> => {
    const seed = await seedRun(store());
    const out: number[] = [];
    for (let attempt = 1; attempt <= n; attempt++) out.push((await addInstance(store(), seed, 'a', { attempt })).id);
    return out;
  };

  describe('appendLogs and readLogs', () => {
    it('reads one instance’s lines in seq order, paged by afterSeq and limit', async () => {
      const [one = -1, two = -1] = await instances(2);
      const stderr = { ...line(one, 2), stream: 'stderr' as const };
      await store().appendLogs([
        line(one, 3),
        line(one, 1),
        line(two, 1, 'other instance'),
        stderr,
        line(one, 5),
        line(one, 4),
      ]);
      await store().appendLogs([]);
      expect(await store().readLogs(one, 0, 100)).toEqual([
        line(one, 1),
        stderr,
        line(one, 3),
        line(one, 4),
        line(one, 5),
      ]);
      expect((await store().readLogs(one, 0, 2)).map((l) => l.seq)).toEqual([1, 2]);
      expect((await store().readLogs(one, 2, 2)).map((l) => l.seq)).toEqual([3, 4]);
      expect((await store().readLogs(one, 4, 2)).map((l) => l.seq)).toEqual([5]);
      expect(await store().readLogs(one, 5, 2)).toEqual([]);
      expect(await store().readLogs(two, 0, 100)).toEqual([line(two, 1, 'other instance')]);
      expect(await store().readLogs(two + 1000, 0, 100)).toEqual([]);
    });

    it('round-trips a 70 KiB line and non-ASCII text exactly', async () => {
      const [id = -1] = await instances(1);
      const long = `${'0123456789abcdef'.repeat(70 * 64)}…end`;
      const unicode = '🚀 done — 中文 \uFFFD\ttab  trailing spaces  ';
      await store().appendLogs([line(id, 1, long), { ...line(id, 2, unicode), stream: 'system' }, line(id, 3, '')]);
      const read = await store().readLogs(id, 0, 10);
      expect(read[0]?.line.length).toBe(long.length);
      expect(read[0]?.line === long).toBe(true);
      expect(read[1]).toEqual({ ...line(id, 2, unicode), stream: 'system' });
      expect(read[2]?.line).toBe('');
    });

    it('stores a large batch in one call', async () => {
      const [id = -1] = await instances(1);
      await store().appendLogs(Array.from({ length: 2500 }, (_, i) => line(id, i + 1)));
      const read = await store().readLogs(id, 0, 5000);
      expect(read).toHaveLength(2500);
      expect(read.map((l) => l.seq)).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
    });

    it('stores batches of any size whole, each line with its own fields, in one call each', async () => {
      // Sizes on either side of a statement's 1,000 rows.
      const sizes = [1, 3, 999, 1000, 1001, 2047];
      const ids = await instances(sizes.length);
      for (const [k, size] of sizes.entries()) {
        const id = ids[k] as number;
        await store().appendLogs(
          Array.from({ length: size }, (_, i) => ({
            ...line(id, i + 1, `${size}:${i}`, T0 + i),
            stream: i % 3 === 0 ? ('stderr' as const) : ('stdout' as const),
          })),
        );
      }
      for (const [k, size] of sizes.entries()) {
        const id = ids[k] as number;
        const read = await store().readLogs(id, 0, 5000);
        expect(read.map((l) => [l.seq, l.line, l.ts, l.stream])).toEqual(
          Array.from({ length: size }, (_, i) => [i + 1, `${size}:${i}`, T0 + i, i % 3 === 0 ? 'stderr' : 'stdout']),
        );
      }
    });

    it('searchLog finds a literal substring, case-insensitively, with LIKE wildcards and escapes taken as text', async () => {
      const [id = -1] = await instances(1);
      const texts = [
        'Disk 50% full',
        'disk 50x full',
        'a_b done',
        'axb done',
        'path C:\\data\\in',
        'wow! ok',
        'wow ok',
      ];
      await store().appendLogs(texts.map((t, i) => line(id, i + 1, t)));
      const found = async (query: string) => (await store().searchLog(id, query, 0, 100)).map((l) => l.line);
      expect(await found('50%')).toEqual(['Disk 50% full']);
      expect(await found('DISK')).toEqual(['Disk 50% full', 'disk 50x full']);
      expect(await found('a_b')).toEqual(['a_b done']);
      expect(await found('\\data\\')).toEqual(['path C:\\data\\in']);
      expect(await found('wow!')).toEqual(['wow! ok']);
      expect(await found('nothing like it')).toEqual([]);
      expect((await store().searchLog(id, 'full', 1, 100)).map((l) => l.seq)).toEqual([2]);
    });

    it('searchTasks matches workflow names, task names and commands as literal text', async () => {
      await seedRun(store());
      expect(await store().searchTasks('%', 10)).toEqual([]);
      expect(await store().searchTasks('_', 10)).toEqual([]);
      const all = await store().searchTasks('', 10);
      expect(all.length).toBeGreaterThan(0);
      const [first] = all;
      expect(await store().searchTasks((first?.task ?? '').toUpperCase(), 10)).toContainEqual(first);
    });

    it('purgeLogs deletes what was stored before the cut-off and returns how many lines', async () => {
      const [one = -1, two = -1] = await instances(2);
      // lines are stored in chunks (one per instance per appendLogs): retention takes whole chunks
      await store().appendLogs([line(one, 1, 'a', T0 + 100), line(one, 2, 'b', T0 + 200)]);
      await store().appendLogs([line(two, 1, 'c', T0 + 250)]);
      await store().appendLogs([line(one, 3, 'd', T0 + 300)]);
      expect(await store().purgeLogs(T0 + 250)).toBe(2);
      expect((await store().readLogs(one, 0, 10)).map((l) => l.line)).toEqual(['d']);
      expect((await store().readLogs(two, 0, 10)).map((l) => l.line)).toEqual(['c']);
      expect(await store().purgeLogs(T0 + 250)).toBe(0);
    });
  });

  describe('workers', () => {
    it('upsertWorker inserts, then updates the same id in place', async () => {
      await store().upsertWorker(worker('w1'));
      await store().upsertWorker(worker('w2', { host: 'laptop-2', labels: [] }));
      const updated = worker('w1', {
        running: 3,
        lastHeartbeat: T0 + 5000,
        status: 'draining',
        labels: ['gpu'],
        role: 'scheduler',
      });
      await store().upsertWorker(updated);
      await store().upsertWorker(updated);
      const list = [...(await store().listWorkers())].sort((a, b) => a.id.localeCompare(b.id)).map(stored);
      expect(list).toEqual([stored(updated), stored(worker('w2', { host: 'laptop-2', labels: [] }))]);
    });

    it('claimWorker: one claim per id, taken over only by a compare-and-set on the claim seen; beats only under it', async () => {
      expect(await store().getWorker('w1')).toBeUndefined();
      expect(await store().claimWorker(worker('w1'), 'a', undefined)).toBe(true);
      // a second insert of the same id loses
      expect(await store().claimWorker(worker('w1', { pid: 1 }), 'b', undefined)).toBe(false);
      expect(await store().getWorker('w1')).toMatchObject({ ...stored(worker('w1')), claim: 'a' });
      expect(await store().beatWorker(worker('w1', { lastHeartbeat: T0 + 1 }), 'a')).toBe(true);
      expect(await store().beatWorker(worker('w1', { lastHeartbeat: T0 + 2 }), 'b')).toBe(false);
      // a take-over needs the claim it saw: of two nodes racing, only one wins
      expect(await store().claimWorker(worker('w1', { pid: 2 }), 'b', 'stale-view')).toBe(false);
      expect(await store().claimWorker(worker('w1', { pid: 2 }), 'b', 'a')).toBe(true);
      expect(await store().claimWorker(worker('w1', { pid: 3 }), 'c', 'a')).toBe(false);
      expect(await store().getWorker('w1')).toMatchObject({ pid: 2, claim: 'b' });
      expect(await store().beatWorker(worker('w1', { pid: 1 }), 'a')).toBe(false);
      // a row written without a claim (before claims existed) is taken with previous = null
      await store().upsertWorker(worker('w2'));
      expect((await store().getWorker('w2'))?.claim).toBeUndefined();
      expect(await store().claimWorker(worker('w2'), 'd', 'x')).toBe(false);
      expect(await store().claimWorker(worker('w2'), 'd', null)).toBe(true);
    });

    it('listWorkers is empty on a fresh store', async () => {
      expect(await store().listWorkers()).toEqual([]);
    });
  });

  describe('audit', () => {
    it('lists entries newest first, up to the limit', async () => {
      await store().audit({
        at: T0,
        actor: 'alice@laptop',
        action: 'apply',
        object: 'workflow:etl',
        detail: 'version 1',
      });
      await store().audit({ at: T0 + 1, actor: 'token:ci', action: 'trigger', object: 'workflow:etl' });
      await store().audit({ at: T0 + 2, actor: 'alice@laptop', action: 'disable', object: 'workflow:etl' });
      const entries = await store().listAudit(2);
      expect(entries.map((e) => e.action)).toEqual(['disable', 'trigger']);
      expect(entries[1]).toEqual({
        id: entries[1]?.id,
        at: T0 + 1,
        actor: 'token:ci',
        action: 'trigger',
        object: 'workflow:etl',
        detail: undefined,
        note: null,
        role: null,
        address: null,
      });
      expect((await store().listAudit(10)).at(-1)).toMatchObject({ action: 'apply', detail: 'version 1' });
      expect(new Set((await store().listAudit(10)).map((e) => e.id)).size).toBe(3);
    });

    it('keeps a note beside the actor, in its own column', async () => {
      // kept as written, a bidi control and all (the pages escape it when they show it)
      const note = 'webhook from 10.0.0.7 \u202e and a long tail '.repeat(5);
      await store().audit({
        at: T0,
        actor: 'alice@box (API token)',
        note,
        action: 'run.manual',
        object: 'workflow:etl',
      });
      const [entry] = await store().listAudit(1);
      expect(entry?.actor).toBe('alice@box (API token)');
      expect(entry?.note).toBe(note);
    });
  });
}
