// Pausing all scheduling in Chromium against `ax serve`: the dashboard's switch asks first, then
// pauses (the engine says so to `ax`); a banner on every screen says since when and by whom,
// and follows a pause or resume made elsewhere (`ax pause`, `ax resume`) live, without a
// reload; Run now says the manual run starts all the same; the banner's Resume resumes; the
// words are there in Simplified Chinese too.
import { describe, expect, it } from 'vitest';
import { browserSkipReason, uiFixture } from '../helpers/ui.ts';

const skip = browserSkipReason();

const NIGHTLY = `workflow: nightly
schedule:
  cron: "0 2 * * *"
  timezone: UTC
tasks:
  only:
    command: "true"
`;

// Skipped only off CI where Chromium or the built UI is missing (the reason is in `skip`): under CI=true browserSkipReason() throws instead.
describe.skipIf(skip)('pause all scheduling in the UI', () => {
  const banner = () => ui.page.getByTestId('scheduling-paused-banner');
  const pausedByEngine = async () => (await ui.engine.ax(['ls'])).stderr.includes('scheduling paused since');

  const ui = uiFixture({
    setup: async (engine) => {
      await engine.apply({ 'nightly.yaml': NIGHTLY });
    },
    page: { colorScheme: 'light', locale: 'en-US' },
  });

  it('the dashboard switch asks, then pauses: the engine is paused and a banner says since when and by whom', async () => {
    expect(await banner().count()).toBe(0);
    await ui.page.getByRole('button', { name: 'Pause all scheduling' }).click();
    const confirm = ui.page.getByRole('tooltip');
    await confirm.getByText('No cron fire and no event will start a run until you resume.', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Pause', exact: true }).click();
    await banner().waitFor();
    // the actor is the signed-in session the server authenticated, not the page's own "ui"
    expect(await banner().textContent()).toMatch(
      /^Scheduling is paused since .+ by \S+@\S+ \(UI session [0-9a-f]{8}\)/,
    );
    expect(await banner().textContent()).toContain('Runs you start by hand still run');
    await expect.poll(pausedByEngine).toBe(true);
    await ui.page.getByRole('button', { name: 'Resume scheduling' }).first().waitFor();
    // The next fires wait for the resume, and the dashboard says so beside them.
    await ui.page.getByText('Paused: they wait for the resume').waitFor();
  });

  it('Run now, while paused, says the manual run starts all the same', async () => {
    await ui.page.goto(`${ui.engine.origin}/#/workflows`);
    await banner().waitFor();
    await ui.page.getByRole('row').filter({ hasText: 'nightly' }).getByRole('button', { name: 'Run now' }).click();
    const dialog = ui.page.getByRole('dialog');
    expect(await dialog.getByTestId('run-now-paused-note').textContent()).toBe(
      'Scheduling is paused: this manual run starts all the same.',
    );
    // Clicked while the dialog still zooms in (a loaded machine), the click can land beside the
    // moving button, on the mask, which does not close a confirm: click once it has settled.
    await expect.poll(async () => (await dialog.getAttribute('class')) ?? '').not.toContain('ant-zoom');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('follows ax resume and ax pause live, and the banner resumes', async () => {
    expect((await ui.engine.ax(['resume'])).code).toBe(0);
    await banner().waitFor({ state: 'detached' });
    expect((await ui.engine.ax(['pause'])).code).toBe(0);
    await banner().waitFor();
    expect(await banner().textContent()).toMatch(/by \S+@\S+/);
    await banner().getByRole('button', { name: 'Resume scheduling' }).click();
    await banner().waitFor({ state: 'detached' });
    await expect.poll(pausedByEngine).toBe(false);
    await ui.page.goto(`${ui.engine.origin}/#/`);
    await ui.page.getByRole('button', { name: 'Pause all scheduling' }).waitFor();
  });

  it('says it in Simplified Chinese, with no key missing', async () => {
    expect((await ui.engine.ax(['pause'])).code).toBe(0);
    await ui.page.evaluate(() => localStorage.setItem('ax.lang', 'zh-CN'));
    await ui.page.reload();
    await banner().waitFor();
    expect(await banner().textContent()).toMatch(/^调度已暂停，自 .+ 起，操作者 \S+@\S+/);
    await ui.page.getByRole('button', { name: '恢复调度' }).first().waitFor();
    expect(await ui.page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
    await ui.page.evaluate(() => localStorage.setItem('ax.lang', 'en'));
    expect((await ui.engine.ax(['resume'])).code).toBe(0);
  });
});
