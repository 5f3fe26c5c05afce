// @vitest-environment jsdom
// The log viewer's stream filter and wrap, against a real engine: one stream shows only its lines
// (numbered as in the whole log) and stays filtered while a running task adds lines; wrap lays
// rows out as tall as their text, and is remembered.
import '../test-support/dom-shims.ts';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import { LogViewer } from './LogViewer.tsx';

const LONG = 'x'.repeat(5_000);

describe('the log viewer: stream filter and wrap', () => {
  let ui: EngineUi;
  let scratch: string;
  beforeAll(async () => {
    ui = await startEngineUi();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ax-log-controls-'));
  });
  afterEach(cleanup);
  afterAll(async () => {
    await ui.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const rows = (view: HTMLElement) =>
    [...view.querySelectorAll<HTMLElement>('[data-seq]')].map((r) => ({
      seq: Number(r.dataset.seq),
      stream: r.dataset.stream,
      text: r.querySelector('.ax-log-text')?.textContent ?? '',
    }));

  it('shows one stream only, keeps it while the task goes on, and shows all again', { timeout: 60_000 }, async () => {
    const go = path.join(scratch, 'go');
    await ui.engine.apply(`
workflow: two-streams
tasks:
  talk:
    command: 'echo out 1; echo err 1 >&2; echo out 2; echo err 2 >&2; while [ ! -f ${go} ]; do sleep 0.05; done; echo out 3; echo err 3 >&2'
`);
    const run = await ui.engine.engine.runWorkflow('two-streams', { actor: 'test' });
    let instanceId = 0;
    await waitFor(
      async () => {
        const detail = await ui.engine.engine.getRun(run.id);
        instanceId = detail.instances[0]?.id ?? 0;
        expect(await ui.engine.logText(instanceId)).toHaveLength(4);
      },
      { timeout: 20_000 },
    );
    const user = userEvent.setup();
    const { container } = ui.render(<LogViewer instanceId={instanceId} height={600} live />);
    await waitFor(() => expect(rows(container)).toHaveLength(4));

    const filter = screen.getByTestId('log-filter');
    await user.click(within(filter).getByText('stderr'));
    // Numbered as in the whole log (where the pipes put each line, see README "Log order").
    const stored = (await ui.engine.engine.readLogs(instanceId, 0, 100)).map((l) => ({
      seq: l.seq,
      stream: l.stream,
      text: l.line,
    }));
    await waitFor(() => expect(rows(container)).toEqual(stored.filter((l) => l.stream === 'stderr')));
    expect(screen.getByTestId('log-filter-note').textContent).toContain('Showing stderr only: 2 lines');
    expect(screen.getByTestId('log-scroll').dataset.filter).toBe('stderr');

    // The task goes on: its new stderr line joins the filtered view, its stdout line does not.
    fs.writeFileSync(go, '');
    await waitFor(() => expect(rows(container).map((r) => r.text)).toEqual(['err 1', 'err 2', 'err 3']), {
      timeout: 20_000,
    });
    const all = await ui.engine.engine.readLogs(instanceId, 0, 100);
    expect(rows(container).map((r) => r.seq)).toEqual(all.filter((l) => l.stream === 'stderr').map((l) => l.seq));

    await user.click(within(filter).getByText('stdout'));
    await waitFor(() => expect(rows(container).map((r) => r.text)).toEqual(['out 1', 'out 2', 'out 3']));
    await user.click(within(filter).getByText('All'));
    await waitFor(() => expect(rows(container).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]));
    expect(screen.queryByTestId('log-filter-note')).toBeNull();
  });

  it("[ax] shows the engine's own lines; a stream with none says so", { timeout: 60_000 }, async () => {
    await ui.engine.apply(`
workflow: slow
tasks:
  wait:
    command: echo started; sleep 30
    timeout: 1s
`);
    const detail = await ui.engine.runToEnd('slow');
    const instanceId = detail.instances[0]?.id ?? 0;
    const user = userEvent.setup();
    const { container } = ui.render(<LogViewer instanceId={instanceId} height={600} />);
    await waitFor(() => expect(rows(container).length).toBeGreaterThan(1));
    const filter = screen.getByTestId('log-filter');
    await user.click(within(filter).getByText('[ax]'));
    await waitFor(() => {
      const shown = rows(container);
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.every((r) => r.stream === 'system')).toBe(true);
      expect(shown[0]?.text).toContain('timed out after 1s');
    });
    await user.click(within(filter).getByText('stderr'));
    expect(await screen.findByText('No stderr lines in this attempt.')).toBeTruthy();
  });

  it('wraps long lines when asked, and remembers it', { timeout: 60_000 }, async () => {
    await ui.engine.apply(`
workflow: long-line
tasks:
  print:
    command: 'echo short; printf "%s\\n" "${LONG}" >&2; echo after'
`);
    const detail = await ui.engine.runToEnd('long-line');
    const instanceId = detail.instances[0]?.id ?? 0;
    const user = userEvent.setup();
    const view = ui.render(<LogViewer instanceId={instanceId} height={600} />);
    // three rows with their lines read (a row is drawn as a placeholder before its page arrives)
    await waitFor(() => expect(rows(view.container).filter((r) => r.stream !== undefined)).toHaveLength(3));
    const scroller = screen.getByTestId('log-scroll');
    // (the pipes may deliver it before or after the stdout lines around it)
    const longRow = () => view.container.querySelector<HTMLElement>('[data-stream="stderr"]');
    // Off: one row height, the line runs on in a sideways-scrolling pane.
    expect(scroller.dataset.wrap).toBe('false');
    expect(longRow()?.style.height).toBe('20px');
    expect(longRow()?.textContent).toContain(LONG);

    await user.click(screen.getByRole('switch', { name: 'Wrap lines' }));
    expect(scroller.dataset.wrap).toBe('true');
    expect(scroller.classList.contains('ax-log-wrap')).toBe(true);
    // On: rows flow, each as tall as its text, so the long stderr line wraps in full.
    await waitFor(() => expect(longRow()?.style.height).toBe(''));
    expect(longRow()?.dataset.stream).toBe('stderr');
    expect(longRow()?.textContent).toContain(LONG);
    expect(localStorage.getItem('ax.log.wrap')).toBe('1');

    // A viewer opened later starts wrapped.
    view.unmount();
    ui.render(<LogViewer instanceId={instanceId} height={600} />);
    await waitFor(() => expect(screen.getByTestId('log-scroll').dataset.wrap).toBe('true'));
    localStorage.removeItem('ax.log.wrap');
  });
});
