// @vitest-environment jsdom
import '../test-support/dom-shims.ts';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEngineUi, type EngineUi } from '../test-support/render-with-engine.tsx';
import DesignerPage from './DesignerPage.tsx';

describe('the designer against a real engine', () => {
  let ui: EngineUi;
  beforeEach(async () => {
    ui = await startEngineUi({ start: false });
    await ui.engine.apply('workflow: etl\ntasks:\n  extract:\n    command: echo extracted\n');
  });
  afterEach(() => ui.close());

  const commandField = () => screen.getByLabelText('Command') as HTMLTextAreaElement | HTMLInputElement;

  // a whole page rendered by jsdom on a shared 2-core machine: slow, hence the longer bound
  it(
    'edits, undoes back to the stored workflow, redoes, and saves what the edits made',
    { timeout: 180_000 },
    async () => {
      const user = userEvent.setup();
      ui.render(<DesignerPage />, { path: '/designer/etl', route: '/designer/:name' });
      await user.click(await screen.findByRole('button', { name: /add task/i }));
      expect(await screen.findByTestId('unsaved')).toBeTruthy();
      await waitFor(() => expect(commandField().value).toBe(''));
      // pasted, one change: typed keys would be one undo step or several depending on how fast
      // this machine types them (quick edits of one field coalesce)
      await user.click(commandField());
      await user.paste('echo loaded');
      await waitFor(() => expect(commandField().value).toBe('echo loaded'));

      const undo = screen.getByRole('button', { name: 'Undo' });
      const redo = screen.getByRole('button', { name: 'Redo' });
      // the command is one step, the added task another: two undos give the stored workflow back
      await user.click(undo);
      await waitFor(() => expect(commandField().value).toBe(''));
      await user.click(undo);
      await waitFor(() => expect(screen.queryByTestId('unsaved')).toBeNull());
      expect(undo.hasAttribute('disabled')).toBe(true);

      await user.click(redo);
      await user.click(redo);
      await waitFor(() => expect(commandField().value).toBe('echo loaded'));
      expect(screen.getByTestId('unsaved')).toBeTruthy();

      await user.click(screen.getByRole('button', { name: /\bsave$/i }));
      expect(await screen.findByText(/saved "etl"/i)).toBeTruthy();
      await waitFor(() => expect(screen.queryByTestId('unsaved')).toBeNull());
      const stored = await ui.engine.engine.exportWorkflow('etl');
      expect(stored.tasks.map((t) => t.command)).toEqual(['echo extracted', 'echo loaded']);
    },
  );

  it(
    'opens a monitor saying what it is, and a task added to it is refused on save, the monitor kept',
    { timeout: 180_000 },
    async () => {
      await ui.engine.apply('workflow: backup\nschedule: "0 2 * * *"\nmonitor: { grace: 10m }\n');
      const user = userEvent.setup();
      ui.render(<DesignerPage />, { path: '/designer/backup', route: '/designer/:name' });
      await user.click(await screen.findByRole('tab', { name: 'Workflow' }));
      expect((await screen.findByTestId('monitor-note')).textContent).toMatch(/A monitor: it runs nothing itself/);
      await user.click(await screen.findByRole('button', { name: /add task/i }));
      await user.click(commandField());
      await user.paste('echo no');
      await user.click(screen.getByRole('button', { name: /\bsave$/i }));
      expect(await screen.findAllByText(/a monitor runs nothing itself/i)).not.toHaveLength(0);
      const stored = await ui.engine.engine.exportWorkflow('backup');
      expect(stored).toMatchObject({ monitor: { graceMs: 600_000 }, tasks: [] });
    },
  );
});
