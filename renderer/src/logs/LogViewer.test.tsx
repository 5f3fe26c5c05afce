// @vitest-environment jsdom
import '../test-support/dom-shims.ts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import { LogViewer } from './LogViewer.tsx';

const LINES = 3_000;

describe('the log viewer against a real engine', () => {
  let ui: EngineUi;
  let instanceId: number;
  beforeEach(async () => {
    ui = await startEngineUi();
    await ui.engine.apply(`workflow: talk\ntasks:\n  count:\n    command: seq 1 ${LINES} | sed 's/^/line /'\n`);
    const detail = await ui.engine.runToEnd('talk');
    instanceId = detail.instances[0]?.id ?? 0;
    expect(await ui.engine.logText(instanceId)).toHaveLength(LINES);
  });
  afterEach(() => ui.close());

  const row = (view: HTMLElement, seq: number) => view.querySelector<HTMLElement>(`[data-seq="${seq}"]`);

  it(
    'reads only the lines in view, and a search brings its hit in, stepping through the hits',
    { timeout: 120_000 },
    async () => {
      const user = userEvent.setup();
      const { container } = ui.render(<LogViewer instanceId={instanceId} height={600} />);
      // jsdom lays nothing out: the box stays scrolled at the top, so the first lines are in view
      await waitFor(() => expect(row(container, 1)?.textContent).toContain('line 1'));
      expect(row(container, 2_500)).toBeNull();

      const search = screen.getByLabelText('Search the whole log');
      await user.click(search);
      await user.paste('line 25');
      await user.keyboard('{Enter}');
      // hits: line 25, line 250-259, line 2500-2599 (111); the first one is current
      expect(await screen.findByText('1 of 111')).toBeTruthy();
      const scroller = screen.getByTestId('log-scroll');
      // jsdom lays nothing out: a box of no height reads as scrolled to its end, so any scroll event
      // would turn following on and jump away from a hit. Give it the height a browser would.
      Object.defineProperty(scroller, 'clientHeight', { configurable: true, value: 600 });
      Object.defineProperty(scroller, 'scrollHeight', { configurable: true, value: LINES * 20 });
      // a browser sends a scroll event whenever the viewer moves to the hit (which may be after the
      // hit's page is read); jsdom does not, so the wait sends one at each look (harmless here: jsdom
      // keeps scrollTop at 0, where this hit is)
      await waitFor(() => {
        fireEvent.scroll(scroller);
        expect(row(container, 25)?.getAttribute('aria-current')).toBe('true');
      });

      // the 12th hit is line 2500, far below what was read at first: its page is read on demand
      for (let i = 0; i < 11; i++) await user.click(screen.getByRole('button', { name: /next match/i }));
      expect(await screen.findByText('12 of 111')).toBeTruthy();
      await waitFor(() => {
        fireEvent.scroll(scroller);
        const hit = row(container, 2_500);
        expect(hit?.getAttribute('aria-current')).toBe('true');
        expect(hit?.textContent).toContain('line 2500');
      });
      expect(row(container, 1)).toBeNull();
    },
  );
});
