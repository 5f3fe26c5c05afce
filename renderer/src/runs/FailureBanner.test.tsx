// @vitest-environment jsdom
// The failed run's banner against a real engine: the task that failed first, its exit code or its
// timeout (with the engine's words when they say more), its last five stderr lines and not the
// earlier ones; nothing for a run that succeeded.
import '../test-support/dom-shims.ts';
import { screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../../engine/api/engine-api.ts';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import { FailureBanner } from './FailureBanner.tsx';

const idle = { pending: false, start: async () => undefined };

function renderBanner(ui: EngineUi, detail: RunDetail) {
  return ui.render(
    <FailureBanner
      run={detail.run}
      instances={detail.instances}
      rerunFailed={idle}
      runAgain={idle}
      onOpenTask={() => undefined}
    />,
  );
}

describe('the failure banner against a real engine', () => {
  let ui: EngineUi;
  beforeEach(async () => {
    ui = await startEngineUi();
  });
  afterEach(async () => {
    await ui.close();
  });

  it('names the first failed task, its exit code and its last five stderr lines', { timeout: 120_000 }, async () => {
    await ui.engine.apply(
      [
        'workflow: copy',
        'tasks:',
        '  fetch: { command: echo fetched }',
        '  sync: { command: \'echo syncing; for i in 1 2 3 4 5 6 7; do echo "err $i" >&2; echo "out $i"; done; exit 23\', upstream: [fetch] }',
        '  report: { command: echo reported, upstream: [sync] }',
        '',
      ].join('\n'),
    );
    const run = await ui.engine.runToEnd('copy');
    expect(run.run.state).toBe('FAILED');
    const { container } = renderBanner(ui, run);
    expect(screen.getByText('Task “sync” failed')).toBeTruthy();
    expect(screen.getByTestId('failure-how').textContent).toBe('exit code 23');
    // the English reason adds nothing to the exit code: not said twice
    expect(container.querySelector('[data-testid="failure-reason"]')).toBeNull();
    const stderr = await screen.findByTestId('failure-stderr');
    expect(stderr.textContent?.split('\n')).toEqual(['err 3', 'err 4', 'err 5', 'err 6', 'err 7']);
    const sync = run.instances.find((i) => i.taskName === 'sync');
    expect(screen.getByTestId('failure-full-log').getAttribute('href')).toBe(`/instances/${sync?.id}`);
    expect(screen.getByTestId('rerun-failed')).toBeTruthy();
    expect(screen.getByTestId('run-again')).toBeTruthy();
  });

  it('says a task timed out, with what the engine did about it', { timeout: 120_000 }, async () => {
    await ui.engine.apply("workflow: slow\ntasks:\n  nap: { command: 'sleep 30', timeout: 1s }\n");
    const run = await ui.engine.runToEnd('slow');
    expect(run.instances[0]?.state).toBe('TIMEOUT');
    renderBanner(ui, run);
    // the reason's code says it all, in the reader's words (the English UI's duration: "1 s")
    expect(screen.getByTestId('failure-how').textContent).toBe('timed out after 1 s');
    expect(screen.queryByTestId('failure-reason')).toBeNull();
    expect(await screen.findByText('It wrote nothing to stderr near the end of its log.')).toBeTruthy();
  });

  it('is not shown for a run that succeeded', { timeout: 120_000 }, async () => {
    await ui.engine.apply('workflow: fine\ntasks:\n  ok: { command: "true" }\n');
    const run = await ui.engine.runToEnd('fine');
    const { container } = renderBanner(ui, run);
    await waitFor(() => expect(container.querySelector('[data-testid="failure-banner"]')).toBeNull());
  });
});
