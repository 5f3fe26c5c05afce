// @vitest-environment jsdom
// The runs page's filters live in the address, against a real engine: a link with filters opens
// the list filtered, clearing writes the address, back brings the filters (and the list) back,
// and the view switch is in the address too.
import '../test-support/dom-shims.ts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useLocation, useNavigate } from 'react-router-dom';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import RunsPage from './RunsPage.tsx';

function Probe() {
  const location = useLocation();
  const navigate = useNavigate();
  return (
    <>
      <output data-testid="search">{location.search}</output>
      <button type="button" onClick={() => navigate(-1)}>
        back
      </button>
    </>
  );
}

const listedRuns = () =>
  [...document.querySelectorAll('[data-testid="run-list"] tr[data-run-id]')].map((tr) =>
    Number(tr.getAttribute('data-run-id')),
  );

describe('the runs page keeps its filters in the address', () => {
  let ui: EngineUi;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    ui = await startEngineUi();
    await ui.engine.apply('workflow: etl\nowner: data\ntasks:\n  load: { command: "true" }\n');
    await ui.engine.apply('workflow: sync\nowner: ops\ntasks:\n  copy: { command: "echo copy failed >&2; exit 3" }\n');
    ids.etl = (await ui.engine.runToEnd('etl')).run.id;
    ids.sync = (await ui.engine.runToEnd('sync')).run.id;
  });
  afterAll(async () => {
    await ui?.close();
  });

  it(
    'opens filtered from a link, clears into the address, and comes back with back',
    { timeout: 120_000 },
    async () => {
      const user = userEvent.setup();
      ui.render(
        <>
          <RunsPage />
          <Probe />
        </>,
        { path: '/runs?state=FAILED&owner=ops' },
      );
      await waitFor(() => expect(listedRuns()).toEqual([ids.sync]));
      // the failed task is named, one click from its output, with the engine's reason
      const row = document.querySelector(`tr[data-run-id="${ids.sync}"]`) as HTMLElement;
      expect(within(row).getByRole('link', { name: /failed task copy/i })).toBeTruthy();
      expect(within(row).getByText(/exit/i)).toBeTruthy();

      await user.click(screen.getByTestId('filter-clear'));
      expect(screen.getByTestId('search').textContent).toBe('');
      await waitFor(() => expect(listedRuns()).toEqual([ids.sync, ids.etl]));

      await user.click(screen.getByRole('button', { name: 'back' }));
      expect(new URLSearchParams(screen.getByTestId('search').textContent ?? '').get('owner')).toBe('ops');
      await waitFor(() => expect(listedRuns()).toEqual([ids.sync]));

      await user.click(screen.getByText('Calendar'));
      const params = new URLSearchParams(screen.getByTestId('search').textContent ?? '');
      expect(params.get('view')).toBe('calendar');
      expect(params.get('owner')).toBe('ops');
      // the calendar keeps the owner filter: only sync's row, with today's failure in it
      await screen.findByTestId('calendar-loaded');
      const cells = document.querySelectorAll('[data-testid="calendar-cell"][data-workflow]');
      expect(new Set([...cells].map((c) => c.getAttribute('data-workflow')))).toEqual(new Set(['sync']));
      expect(
        document.querySelectorAll('[data-testid="calendar-cell"][data-workflow="sync"][data-tone="failed"]'),
      ).toHaveLength(1);
    },
  );
});
