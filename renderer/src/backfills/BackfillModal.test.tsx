// @vitest-environment jsdom
import '../test-support/dom-shims.ts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EngineApi } from '../../../engine/api/engine-api.ts';
import { UI_ACTOR } from '../engine-client/ui-actor.ts';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import { BackfillButton } from './BackfillModal.tsx';

const NIGHTLY = `workflow: nightly
schedule: { cron: "0 2 * * *", timezone: UTC, overlap: parallel }
params:
  region: { type: enum, choices: [eu, us], default: eu }
tasks:
  load: { command: echo "load $AX_PARAM_REGION" }
`;

const at = (day: number) => Date.UTC(2026, 10, day, 2, 0);

/** types a date into one of the range picker's two inputs and confirms it */
async function typeDate(user: ReturnType<typeof userEvent.setup>, input: HTMLElement, text: string) {
  await user.click(input);
  await user.clear(input);
  await user.type(input, text);
  fireEvent.keyDown(input, { key: 'Enter', code: 'Enter' });
}

describe('the backfill dialog against a real engine', () => {
  let ui: EngineUi;
  beforeEach(async () => {
    ui = await startEngineUi();
  });
  afterEach(() => ui.close());

  const open = async (name: string) => {
    const listing = (await ui.engine.engine.listWorkflows()).find((w) => w.name === name);
    if (!listing) throw new Error(`no workflow ${name}`);
    const user = userEvent.setup();
    ui.render(<BackfillButton workflow={listing} />);
    await user.click(screen.getByRole('button', { name: /backfill/i }));
    const dialog = await screen.findByRole('dialog');
    return { user, dialog, preview: () => within(dialog).getByTestId('backfill-preview') };
  };

  it(
    'previews the runs of the window from a dry run, leaves out the days that have one, and starts it',
    { timeout: 120_000 },
    async () => {
      await ui.engine.apply(NIGHTLY);
      // two days of the window ran already
      for (const day of [3, 10]) {
        const api: EngineApi = ui.engine.engine;
        const run = await api.runWorkflow('nightly', { actor: UI_ACTOR, logicalTime: at(day) });
        await ui.engine.waitRun(run.id);
      }
      const { user, dialog, preview } = await open('nightly');
      await waitFor(() => expect(preview().getAttribute('data-state')).toBe('incomplete'));
      expect(
        within(dialog)
          .getByRole('button', { name: /start backfill/i })
          .hasAttribute('disabled'),
      ).toBe(true);

      await typeDate(user, dialog.querySelector<HTMLElement>('#backfill-window') as HTMLElement, '2026-11-01');
      await typeDate(user, dialog.querySelector<HTMLElement>('#backfill-window-end') as HTMLElement, '2026-11-30');
      await waitFor(() => expect(preview().getAttribute('data-total')).toBe('28'), { timeout: 30_000 });
      expect(preview().textContent).toMatch(/Will create 28 runs/);
      expect(preview().textContent).toMatch(/2 dates already have a run/);

      // "re-run existing": every day of the window
      await user.click(within(dialog).getByTestId('backfill-rerun-existing'));
      await waitFor(() => expect(preview().getAttribute('data-total')).toBe('30'), { timeout: 30_000 });
      const parallel = dialog.querySelector<HTMLInputElement>('#backfill-max-parallel') as HTMLInputElement;
      await user.clear(parallel);
      await user.type(parallel, '3');
      const start = within(dialog).getByRole('button', { name: /start backfill/i });
      await waitFor(() => expect(start.hasAttribute('disabled')).toBe(false));
      await user.click(start);

      await screen.findByText(/backfill #\d+ started: 30 runs/i);
      const [backfill] = await ui.engine.engine.listBackfills({ workflow: 'nightly' });
      expect(backfill).toMatchObject({ workflowName: 'nightly', total: 30, maxParallel: 3, params: { region: 'eu' } });
      expect(backfill?.from).toBe(Date.UTC(2026, 10, 1));
    },
  );

  it('over the limit says so, and Start waits for "force"', { timeout: 120_000 }, async () => {
    await ui.engine.apply('workflow: often\ntasks:\n  tick: { command: "true" }\n');
    const { user, dialog, preview } = await open('often');
    // no schedule: one run per step; every 15 minutes for 15 days is 1,440 runs
    expect(within(dialog).getByText(/no schedule/i)).toBeTruthy();
    fireEvent.mouseDown(dialog.querySelector('#backfill-every') as HTMLElement);
    await user.click(await screen.findByTitle('15 minutes'));
    await typeDate(user, dialog.querySelector<HTMLElement>('#backfill-window') as HTMLElement, '2026-11-01');
    await typeDate(user, dialog.querySelector<HTMLElement>('#backfill-window-end') as HTMLElement, '2026-11-15');
    await waitFor(() => expect(preview().getAttribute('data-state')).toBe('over-limit'), { timeout: 30_000 });
    expect(Number(preview().getAttribute('data-total'))).toBeGreaterThan(1000);
    expect(within(dialog).getByTestId('backfill-over-limit').textContent).toMatch(/more than 1,000 runs/);
    const start = within(dialog).getByRole('button', { name: /start backfill/i });
    expect(start.hasAttribute('disabled')).toBe(true);
    await user.click(within(dialog).getByTestId('backfill-force'));
    await waitFor(() => expect(start.hasAttribute('disabled')).toBe(false));
    expect(await ui.engine.engine.listBackfills({ workflow: 'often' })).toHaveLength(0);
  });
});
