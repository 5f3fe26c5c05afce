// @vitest-environment jsdom
import '../../test-support/dom-shims.ts';
import os from 'node:os';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEngineUi, type EngineUi } from '../../test-support/render-with-engine.tsx';
import { ImportCrontabButton } from './ImportCrontabModal.tsx';

// line 1 a comment (line 2's description), 3 an assignment, 6 a date that never comes (Feb 30)
const CRONTAB = [
  '# nightly backup of the home directory',
  '0 2 * * * tar czf /tmp/ax-home.tgz "$HOME"',
  'MAILTO=""',
  '*/15 * * * * echo tick',
  '@daily echo "daily report" >> /tmp/ax-report.log 2>&1',
  '0 0 30 2 * echo never',
  '',
].join('\n');

describe('the crontab import against a real engine', () => {
  let ui: EngineUi;
  beforeEach(async () => {
    ui = await startEngineUi();
  });
  afterEach(() => ui.close());

  const open = async () => {
    const user = userEvent.setup();
    ui.render(<ImportCrontabButton />);
    await user.click(screen.getByRole('button', { name: /import crontab/i }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByLabelText('Crontab'));
    await user.paste(CRONTAB);
    await within(dialog).findByText('3 of 4 command lines can be imported; 1 cannot (greyed, with why).');
    const name = (line: number) => within(dialog).getByLabelText(`Workflow name for line ${line}`) as HTMLInputElement;
    const submit = () => within(dialog).getByTestId('import-submit');
    // names are pasted (one change) rather than typed: each keystroke would ask for a preview again
    return { user, dialog, name, submit };
  };

  it(
    'previews, unticks, renames (a bad name refused on its line) and imports the chosen lines',
    { timeout: 240_000 },
    async () => {
      const { user, dialog, name, submit } = await open();

      // the line that cannot import: greyed with why, and not tickable
      expect(within(dialog).getByTestId('skipped-6').textContent).toMatch(/not imported/i);
      expect((within(dialog).getByLabelText('Import line 6') as HTMLInputElement).disabled).toBe(true);
      expect((within(dialog).getByLabelText('Import line 6') as HTMLInputElement).checked).toBe(false);
      // cron's behaviour kept, said once for the whole import; the redirect warned about on its line
      expect(within(dialog).getByTestId('import-notes').textContent).toMatch(/misfire: skip/);
      expect(within(dialog).getByText(/not to AX's log/)).toBeTruthy();
      // the first fires shown, the whole list (cron's and AX's) on hover
      await user.hover(within(dialog).getByTestId('fires-4'));
      expect(await screen.findByText(/The next 5 fires, the same under cron and under AX/)).toBeTruthy();
      expect(submit().textContent).toContain('Import 3 lines');

      const tickName = name(4).value;
      const dailyName = name(5).value;
      await user.click(within(dialog).getByLabelText('Import line 4'));
      expect(submit().textContent).toContain('Import 2 lines');

      await user.clear(name(2));
      await user.paste('home backup');
      expect(await within(dialog).findByText(/line 2: "home backup" is not a valid name/)).toBeTruthy();
      await waitFor(() => expect(submit().hasAttribute('disabled')).toBe(true));

      await user.clear(name(2));
      await user.paste('backup-home');
      await waitFor(() => expect(within(dialog).queryByText(/is not a valid name/)).toBeNull());
      await waitFor(() => expect(submit().hasAttribute('disabled')).toBe(false));
      await user.click(submit());

      expect(await screen.findByText(`Imported 2 workflows: backup-home, ${dailyName}`)).toBeTruthy();
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
      const names = (await ui.engine.engine.listWorkflows()).map((w) => w.name).sort();
      expect(names).toEqual(['backup-home', dailyName].sort());
      expect(names).not.toContain(tickName);

      const backup = await ui.engine.engine.exportWorkflow('backup-home');
      expect(backup.description).toBe('nightly backup of the home directory');
      expect(backup.schedule).toMatchObject({ cron: '0 2 * * *', misfire: 'skip', overlap: 'parallel' });
      // converted as the engine's task user's crontab: cron's HOME and LOGNAME are theirs
      expect(backup.tasks[0]?.env).toMatchObject({ HOME: os.userInfo().homedir, LOGNAME: os.userInfo().username });
      const audit = await ui.engine.engine.listAudit(20);
      expect(audit.find((a) => a.action === 'workflow.import')?.detail).toBe(`lines 2, 5 → backup-home, ${dailyName}`);
    },
  );

  it(
    'two lines named alike are refused on the line, nothing applied; an existing name is flagged',
    { timeout: 240_000 },
    async () => {
      await ui.engine.apply('workflow: backup-home\ntasks:\n  old:\n    command: "true"\n');
      const { user, dialog, name, submit } = await open();
      await user.clear(name(2));
      await user.paste('backup-home');
      expect(await within(dialog).findByText('replaces existing')).toBeTruthy();

      await user.clear(name(4));
      await user.paste('backup-home');
      // said on the line, both rows still editable, and no import until it is fixed
      expect(await within(dialog).findByText(/lines 2 and 4 would both be workflow "backup-home"/)).toBeTruthy();
      await waitFor(() => expect(submit().hasAttribute('disabled')).toBe(true));
      // nothing applied meanwhile, and the old workflow is as it was
      expect((await ui.engine.engine.listWorkflows()).map((w) => w.name)).toEqual(['backup-home']);
      expect((await ui.engine.engine.exportWorkflow('backup-home')).tasks.map((t) => t.name)).toEqual(['old']);

      await user.clear(name(4));
      await user.paste('tick');
      await waitFor(() => expect(within(dialog).queryByText(/would both be/)).toBeNull());
      await waitFor(() => expect(submit().hasAttribute('disabled')).toBe(false));
      await user.click(submit());
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
      const backup = await ui.engine.engine.exportWorkflow('backup-home');
      expect(backup.tasks.map((t) => t.name)).toEqual(['backup-home']);
      expect((await ui.engine.engine.listWorkflows()).map((w) => w.name)).toContain('tick');
    },
  );
});
