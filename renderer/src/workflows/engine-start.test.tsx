// @vitest-environment jsdom
// The workflow list says a workflow with `on: engine_start` runs when the engine starts (alone,
// or under its schedule), in English and Chinese; a run it started names its trigger.
import '../test-support/dom-shims.ts';
import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import i18n from '../i18n/index.ts';
import { RunSummary } from '../runs/RunSummary.tsx';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import WorkflowDetailPage from './WorkflowDetailPage.tsx';
import WorkflowsPage from './WorkflowsPage.tsx';

describe('on: engine_start in the UI', () => {
  let ui: EngineUi;
  beforeEach(async () => {
    // applied before the engine starts, so its start gives "boot" a run
    ui = await startEngineUi({ start: false });
    await ui.engine.apply('workflow: boot\non: engine_start\ntasks:\n  a: { command: "true" }\n');
    await ui.engine.apply(
      'workflow: nightly\nschedule: "0 2 * * *"\non: engine_start\ntasks:\n  a: { command: "true" }\n',
    );
    await ui.engine.apply('workflow: byhand\ntasks:\n  a: { command: "true" }\n');
    await ui.engine.engine.start();
  });
  afterEach(async () => {
    await i18n.changeLanguage('en');
    await ui.close();
  });

  const row = async (name: string) => (await screen.findByText(name)).closest('tr') as HTMLElement;

  it('the list shows it where it shows the schedule', { timeout: 120_000 }, async () => {
    ui.render(<WorkflowsPage />);
    expect(within(await row('boot')).getByTestId('on-engine-start').textContent).toContain(
      'Runs when the engine starts',
    );
    const nightly = await row('nightly');
    expect(within(nightly).getByTestId('on-engine-start')).toBeTruthy();
    expect(within(nightly).getByText('0 2 * * *')).toBeTruthy();
    const byhand = await row('byhand');
    expect(within(byhand).queryByTestId('on-engine-start')).toBeNull();
    expect(within(byhand).getByText('Manual only')).toBeTruthy();
    await i18n.changeLanguage('zh-CN');
    expect(await within(await row('boot')).findByText(/引擎启动时运行/)).toBeTruthy();
  });

  it('the detail page says so beside the schedule, and in place of the next fires', { timeout: 120_000 }, async () => {
    ui.render(<WorkflowDetailPage />, { path: '/workflows/boot', route: '/workflows/:name' });
    expect((await screen.findByTestId('on-engine-start')).textContent).toContain('Runs when the engine starts');
    expect(
      await screen.findByText(
        'This workflow has no schedule; it runs each time the engine starts, and when started by hand.',
      ),
    ).toBeTruthy();
  });

  it('a run it started shows the trigger "Engine start" / "引擎启动"', { timeout: 120_000 }, async () => {
    const [run] = await ui.engine.engine.listRuns({ workflow: 'boot' });
    expect(run?.trigger).toBe('engine_start');
    if (!run) return;
    ui.render(<RunSummary run={run} live={false} />);
    expect(await screen.findByText('Engine start')).toBeTruthy();
    await i18n.changeLanguage('zh-CN');
    expect(await screen.findByText('引擎启动')).toBeTruthy();
  });
});
