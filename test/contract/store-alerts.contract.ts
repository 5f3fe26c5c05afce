// Alerts as the store keeps them: an alert key is recorded once, even by two nodes at
// once (the one-sender rule); a group's first alert opens it and later ones are counted; a group
// is due for its summary once its window ends; deliveries are kept per channel; old alerts go.
import { describe, expect, it } from 'vitest';
import type { NewAlert, Store } from '../../engine/ports/store.ts';

const T0 = Date.parse('2026-12-01T03:00:00Z');
const WINDOW = 600_000;

function alert(key: string, over: Partial<NewAlert> = {}): NewAlert {
  return {
    key,
    groupKey: `task_failed:workflow:nightly-etl:${T0}`,
    groupEndsAt: T0 + WINDOW,
    rule: 'task_failed',
    subject: 'workflow:nightly-etl',
    workflow: 'nightly-etl',
    runId: 7,
    instanceId: 70,
    severity: 'critical',
    title: 'nightly-etl: task "load" failed',
    message: 'exit code 1',
    at: T0,
    node: 'node-a',
    state: 'sending',
    ...over,
  };
}

/** `racer`: the store that races `store` (SQLite's is the same store). */
export function alertsContract(store: () => Store, racer: () => Store): void {
  describe('alerts', () => {
    it('a group opens once; its repeats are counted; a key seen again is a duplicate', async () => {
      const first = await store().recordAlert(alert('k1'));
      expect(first?.kind).toBe('immediate');
      expect((await racer().recordAlert(alert('k2', { at: T0 + 1 })))?.kind).toBe('grouped');
      expect(await racer().recordAlert(alert('k1'))).toBeUndefined();
      const listed = await store().listAlerts({});
      expect(listed.map((a) => [a.key, a.kind, a.state])).toEqual([
        ['k2', 'grouped', 'grouped'],
        ['k1', 'immediate', 'sending'],
      ]);
      expect(listed[1]).toMatchObject({
        rule: 'task_failed',
        subject: 'workflow:nightly-etl',
        workflow: 'nightly-etl',
        runId: 7,
        instanceId: 70,
        severity: 'critical',
        at: T0,
        node: 'node-a',
        deliveries: [],
      });
    });

    it('eight nodes recording one alert at once: exactly one records it, and it opens its group', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 ? racer() : store()).recordAlert(alert('same', { node: `node-${i}` })),
        ),
      );
      expect(results.filter((r) => r !== undefined)).toEqual([{ id: expect.any(Number), kind: 'immediate' }]);
    });

    it('eight different alerts of one group at once: one opens it, seven are grouped', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? racer() : store()).recordAlert(alert(`burst-${i}`))),
      );
      expect(results.filter((r) => r?.kind === 'immediate')).toHaveLength(1);
      expect(results.filter((r) => r?.kind === 'grouped')).toHaveLength(7);
    });

    it('a group is due once its window ended, with its repeats, until closed', async () => {
      const opener = await store().recordAlert(alert('a'));
      for (const k of ['b', 'c', 'd']) await store().recordAlert(alert(k));
      await store().recordAlert(
        alert('other', { groupKey: 'run_failed:workflow:x:0', groupEndsAt: T0 + 2 * WINDOW, rule: 'run_failed' }),
      );
      expect(await store().dueAlertGroups(T0 + WINDOW - 1, 10)).toEqual([]);
      const due = await store().dueAlertGroups(T0 + WINDOW, 10);
      expect(due.map((g) => [g.opener.id, g.repeats, g.groupEndsAt])).toEqual([[opener?.id, 3, T0 + WINDOW]]);
      const summary = await store().recordAlert(alert('a:summary', { kind: 'summary', repeats: 3, title: '3 more' }));
      expect(summary?.kind).toBe('summary');
      expect(await racer().recordAlert(alert('a:summary', { kind: 'summary', repeats: 3 }))).toBeUndefined();
      await store().closeAlertGroup(opener?.id as number);
      expect(await store().dueAlertGroups(T0 + WINDOW, 10)).toEqual([]);
      expect((await store().dueAlertGroups(T0 + 2 * WINDOW, 10)).map((g) => [g.opener.key, g.repeats])).toEqual([
        ['other', 0],
      ]);
    });

    it('deliveries are kept per channel and replaced as they move on; the state is the caller’s', async () => {
      const rec = await store().recordAlert(alert('d1'));
      const id = rec?.id as number;
      await store().recordAlertDelivery(id, {
        channel: 'slack',
        kind: 'webhook',
        state: 'sending',
        attempts: 1,
        at: T0 + 1,
      });
      await store().recordAlertDelivery(id, {
        channel: 'mail',
        kind: 'email',
        state: 'failed',
        attempts: 3,
        error: 'connection refused',
        at: T0 + 2,
      });
      await store().recordAlertDelivery(id, {
        channel: 'slack',
        kind: 'webhook',
        state: 'sent',
        attempts: 2,
        at: T0 + 3,
      });
      await store().recordAlertDelivery(id, {
        channel: 'nowhere',
        state: 'failed',
        attempts: 0,
        error: 'no channel "nowhere"',
        at: T0 + 4,
      });
      await store().setAlertState(id, 'failed');
      const got = await store().getAlert(id);
      expect(got?.state).toBe('failed');
      expect(got?.deliveries).toEqual([
        { channel: 'mail', kind: 'email', state: 'failed', attempts: 3, error: 'connection refused', at: T0 + 2 },
        { channel: 'nowhere', state: 'failed', attempts: 0, error: 'no channel "nowhere"', at: T0 + 4 },
        { channel: 'slack', kind: 'webhook', state: 'sent', attempts: 2, at: T0 + 3 },
      ]);
      expect(await store().getAlert(id + 1000)).toBeUndefined();
    });

    it('lists newest first, filtered and paged; purging forgets alerts raised before the cut', async () => {
      await store().recordAlert(alert('x1', { at: T0 }));
      await store().recordAlert(alert('x2', { at: T0 + 1, groupKey: 'g2', workflow: 'reports', rule: 'run_failed' }));
      const third = await store().recordAlert(alert('x3', { at: T0 + 2, groupKey: 'g3', state: 'unsent' }));
      await store().recordAlertDelivery(third?.id as number, {
        channel: 'slack',
        state: 'sent',
        attempts: 1,
        at: T0 + 2,
      });
      expect((await store().listAlerts({ limit: 2 })).map((a) => a.key)).toEqual(['x3', 'x2']);
      expect((await store().listAlerts({ beforeId: third?.id })).map((a) => a.key)).toEqual(['x2', 'x1']);
      expect((await store().listAlerts({ workflow: 'reports' })).map((a) => a.key)).toEqual(['x2']);
      expect((await store().listAlerts({ rule: 'task_failed' })).map((a) => a.key)).toEqual(['x3', 'x1']);
      expect((await store().listAlerts({ state: 'unsent' })).map((a) => a.key)).toEqual(['x3']);
      expect(await store().purgeAlerts(T0 + 2)).toBe(2);
      expect((await store().listAlerts({})).map((a) => [a.key, a.deliveries.length])).toEqual([['x3', 1]]);
    });
  });
}
