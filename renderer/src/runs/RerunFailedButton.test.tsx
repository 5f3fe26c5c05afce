// @vitest-environment jsdom
// "Re-run failed tasks" against a real engine: shown for a run whose task failed, it re-runs that
// task and its downstream in the same run after the confirmation; absent when nothing failed.
import '../test-support/dom-shims.ts';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import type { InstanceRecord } from '../../../engine/api/types.ts';
import { RerunFailedButton } from './RerunFailedButton.tsx';
import { useRunActions } from './use-run-actions.ts';

/** the button as the run page wires it: the engine's rerunFailed through the run's actions */
function Wired({ runId, instances }: { runId: number; instances: InstanceRecord[] }) {
  const { rerunFailed } = useRunActions(runId);
  return (
    <RerunFailedButton
      instances={instances}
      loading={rerunFailed.isPending}
      onConfirm={() => rerunFailed.mutateAsync()}
    />
  );
}

describe('the re-run failed tasks button against a real engine', () => {
  let ui: EngineUi;
  let dir: string;
  beforeEach(async () => {
    ui = await startEngineUi();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ax-rerun-failed-ui-'));
  });
  afterEach(async () => {
    await ui.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('re-runs the failed task and its downstream after the confirmation', { timeout: 120_000 }, async () => {
    const fixed = path.join(dir, 'fixed');
    await ui.engine.apply(
      `workflow: flaky\ntasks:\n  check: { command: 'test -f "${fixed}"' }\n  report: { command: echo ok, upstream: [check] }\n`,
    );
    const failed = await ui.engine.runToEnd('flaky');
    expect(failed.run.state).toBe('FAILED');
    fs.writeFileSync(fixed, '');
    const user = userEvent.setup();
    ui.render(<Wired runId={failed.run.id} instances={failed.instances} />);
    await user.click(screen.getByRole('button', { name: /re-run failed tasks/i }));
    // the confirmation names what runs again: the failed task and the one that did not run because of it
    expect(await screen.findByText('Re-run 2 tasks and what depends on them?')).toBeTruthy();
    expect(await screen.findByText('Failed: “check”.')).toBeTruthy();
    expect(await screen.findByText('Did not run because of them: “report”.')).toBeTruthy();
    const buttons = await screen.findAllByRole('button', { name: /re-run failed tasks/i });
    await user.click(buttons[buttons.length - 1] as HTMLElement);
    expect(await screen.findByText(`Run #${failed.run.id}: the failed tasks run again`)).toBeTruthy();
    const done = await ui.engine.waitRun(failed.run.id);
    expect(done.run.state).toBe('SUCCESS');
    expect(done.instances.map((i) => `${i.taskName}#${i.attempt}:${i.state}`).sort()).toEqual([
      'check#1:FAILED',
      'check#2:SUCCESS',
      'report#1:SUCCESS',
    ]);
  });

  it('is not shown when no task failed', { timeout: 120_000 }, async () => {
    await ui.engine.apply('workflow: fine\ntasks:\n  ok: { command: "true" }\n');
    const run = await ui.engine.runToEnd('fine');
    const { container } = ui.render(<Wired runId={run.run.id} instances={run.instances} />);
    expect(container.querySelector('[data-testid="rerun-failed"]')).toBeNull();
  });
});
