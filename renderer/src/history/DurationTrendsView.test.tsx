// @vitest-environment jsdom
import '../test-support/dom-shims.ts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import { DurationTrendsView } from './DurationTrendsView.tsx';

const ETL = `workflow: etl
tasks:
  extract:
    command: 'true'
  load:
    command: 'exit 3'
    upstream: [extract]
`;

describe('duration trends against a real engine', () => {
  let ui: EngineUi;
  beforeEach(async () => {
    ui = await startEngineUi();
  });
  afterEach(() => ui.close());

  it(
    'says there is nothing to measure before a run, then draws each finished run with p50/p95 and each task',
    { timeout: 120_000 },
    async () => {
      await ui.engine.apply(ETL);
      ui.render(<DurationTrendsView workflow="etl" />);
      await screen.findByText('No finished runs yet');
      await ui.engine.runToEnd('etl');
      await ui.engine.runToEnd('etl');
      // a finished run refreshes the trends (run events), no reload
      await waitFor(() => expect(screen.getAllByTestId('trend-bar')).toHaveLength(2), { timeout: 15_000 });
      expect(screen.getByTestId('trend-chart').getAttribute('aria-label')).toMatch(
        /last 2 finished runs: p50 .+, p95 .+/,
      );
      expect(screen.getByTestId('trend-p50')).toBeTruthy();
      expect(screen.getByTestId('trend-p95')).toBeTruthy();
      // a row per task, in the workflow's order, each with its count of finished attempts
      const rows = within(screen.getByTestId('task-trends')).getAllByRole('row').slice(1);
      expect(rows.map((r) => r.querySelector('code')?.textContent)).toEqual(['extract', 'load']);
      expect(rows.map((r) => r.querySelectorAll('td')[3]?.textContent)).toEqual(['2', '2']);
      // the failed runs are drawn in their state's colour and link to the run
      const bar = screen.getAllByTestId('trend-bar')[0]?.closest('a');
      expect(bar?.getAttribute('href')).toMatch(/\/runs\/\d+$/);
      expect(bar?.getAttribute('aria-label')).toMatch(/Failed/);
      // N: 20 asks the engine for the last 20
      await userEvent.setup().click(screen.getByText('20', { exact: true }));
      await waitFor(() => expect(screen.getAllByTestId('trend-bar')).toHaveLength(2));
    },
  );
});
