// Desktop notifications on a real engine: a run that fails for good raises one notice naming its
// task (a timeout says so), a repeat within the quiet window raises none, another workflow has
// its own, and the first success after failures says the workflow recovered.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DesktopNotice, FailureNotifier } from '../../electron/failure-notifier.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine();
});

afterAll(async () => {
  await t.close();
});

describe('failure notifications', () => {
  it('one notice per failing workflow within the quiet window, its task named; recovery noticed once', async () => {
    const flag = path.join(t.dir, 'ok-flag');
    await t.apply(`
workflow: nightly
tasks:
  extract:
    command: test -f ${flag}
`);
    await t.apply(`
workflow: slowpoke
tasks:
  wait:
    command: sleep 5
    timeout: 1s
`);
    const notices: DesktopNotice[] = [];
    let clock = 1_000_000;
    const notifier = new FailureNotifier({ notify: (n) => notices.push(n), quietMs: 60_000, now: () => clock });
    const unfollow = await notifier.follow(t.engine);

    const first = await t.runToEnd('nightly');
    expect(first.run.state).toBe('FAILED');
    await waitFor(() => notices.length === 1, { message: 'the first failure raises a notice' });
    const extract = first.instances.find((i) => i.taskName === 'extract')!;
    expect(notices[0]).toMatchObject({ title: 'nightly failed', path: `/instances/${extract.id}` });
    expect(notices[0]!.body).toMatch(new RegExp(`^Run #${first.run.id}: task extract failed`));

    // Within the quiet window: nothing more for nightly.
    clock += 30_000;
    await t.runToEnd('nightly');
    const timedOut = await t.runToEnd('slowpoke');
    await waitFor(() => notices.length === 2, { message: 'slowpoke has its own notice' });
    expect(notices[1]).toMatchObject({ title: 'slowpoke failed' });
    expect(notices[1]!.body).toContain('task wait timed out');
    expect(notices[1]!.path).toBe(`/instances/${timedOut.instances[0]!.id}`);

    // Past the window, nightly's next failure is news again.
    clock += 60_000;
    await t.runToEnd('nightly');
    await waitFor(() => notices.length === 3);
    expect(notices[2]!.title).toBe('nightly failed');

    fs.writeFileSync(flag, '');
    const fixed = await t.runToEnd('nightly');
    expect(fixed.run.state).toBe('SUCCESS');
    await waitFor(() => notices.length === 4);
    expect(notices[3]).toEqual({ title: 'nightly recovered', body: `Run #${fixed.run.id} succeeded.`, path: `/runs/${fixed.run.id}` });
    // A success after a success is no news. Subscribers hear an event in the order they
    // subscribed, and the notifier handles a success at once: once this later listener has
    // heard the run end, the notifier has too.
    const ended = new Set<number>();
    const unwatch = await t.engine.subscribe(['runs'], (e) => {
      if (e.type === 'run' && e.state === 'SUCCESS') ended.add(e.runId);
    });
    const again = await t.runToEnd('nightly');
    await waitFor(() => ended.has(again.run.id));
    expect(notices).toHaveLength(4);
    unwatch();
    unfollow();
  });
});
