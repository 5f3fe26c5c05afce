// Store contract: several workflows applied in one transaction (`ax apply DIR`, an import): all
// of them, or, when one fails in the middle, none — not the ones before it, not their audit.
import { describe, expect, it } from 'vitest';
import { graphOf, hourly, T0, task, workflow } from './store-fixtures.ts';
import type { StoreGetter } from './store-fixtures.ts';

export function applyManyContract(store: StoreGetter): void {
  describe('applyWorkflows', () => {
    it('applies every spec in order, each with its own result and audit entry', async () => {
      const kept = await store().applyWorkflow(workflow('kept', [task('a')]), T0);
      const results = await store().applyWorkflows(
        [
          workflow('first', [task('a')], { schedule: hourly }),
          workflow('kept', [task('a')]),
          workflow('third', [task('x'), task('y', ['x'])]),
        ],
        T0 + 1000,
        'alice@laptop',
      );
      expect(results.map((r) => [r.version, r.changed])).toEqual([
        [1, true],
        [1, false],
        [1, true],
      ]);
      expect(results[1]?.workflowId).toBe(kept.workflowId);
      expect(await store().findWorkflowId('first')).toBe(results[0]?.workflowId);
      expect((await graphOf(store(), results[0]?.workflowId as number)).schedule?.cron).toBe(hourly.cron);
      const audit = (await store().listAudit(100)).map((e) => [e.object, e.detail]);
      expect(audit.sort()).toEqual([
        ['workflow:first', 'version 1'],
        ['workflow:third', 'version 1'],
      ]);
    });

    it('a spec failing in the middle leaves nothing applied: neither new workflows nor changes to old ones', async () => {
      const old = await store().applyWorkflow(workflow('old', [task('a', [], { command: 'echo v1' })]), T0);
      // Two tasks of one name break the store's unique (workflow, task name) key: a failure the
      // store itself raises, after the first spec's writes are done in the same transaction.
      const broken = workflow('broken', [task('dup'), task('dup')]);
      await expect(
        store().applyWorkflows(
          [
            workflow('new-one', [task('a')], { schedule: hourly }),
            workflow('old', [task('a', [], { command: 'echo v2' })]),
            broken,
            workflow('after', [task('a')]),
          ],
          T0 + 1000,
          'alice@laptop',
        ),
      ).rejects.toThrow();
      for (const name of ['new-one', 'broken', 'after']) expect(await store().findWorkflowId(name)).toBeUndefined();
      const graph = await graphOf(store(), old.workflowId);
      expect([graph.version, graph.tasks.map((t) => t.command)]).toEqual([1, ['echo v1']]);
      expect(await store().listAudit(100)).toEqual([]);
      expect((await store().listSchedules()).length).toBe(0);
      // The store is fine afterwards: the same batch without the broken spec goes in whole.
      const again = await store().applyWorkflows(
        [workflow('new-one', [task('a')]), workflow('after', [task('a')])],
        T0 + 2000,
      );
      expect(again.map((r) => r.changed)).toEqual([true, true]);
    });

    it('an empty batch writes nothing', async () => {
      expect(await store().applyWorkflows([], T0, 'alice@laptop')).toEqual([]);
      expect(await store().listWorkflows()).toEqual([]);
    });
  });
}
