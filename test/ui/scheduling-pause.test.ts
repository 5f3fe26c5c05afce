// Pausing all scheduling in Chromium against `ax serve`: the dashboard's switch asks first, then
// pauses (the engine says so to `ax`); a banner on every screen says since when and by whom,
// and follows a pause or resume made elsewhere (`ax pause`, `ax resume`) live, without a
// reload; Run now says the manual run starts all the same; the banner's Resume resumes; the
// words are there in Simplified Chinese too.
import type { Browser, Page } from 'playwright';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServedEngine, startServedEngine } from '../helpers/serve.ts';
import { browserSkipReason, launchBrowser, screenshot, signedInPage } from '../helpers/ui.ts';

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
  let engine: ServedEngine;
  let browser: Browser;
  let page: Page;

  const banner = () => page.getByTestId('scheduling-paused-banner');
  const pausedByEngine = async () => (await engine.ax(['ls'])).stderr.includes('scheduling paused since');

  beforeAll(async () => {
    engine = await startServedEngine();
    await engine.apply({ 'nightly.yaml': NIGHTLY });
    browser = await launchBrowser();
    ({ page } = await signedInPage(browser, engine, { colorScheme: 'light', locale: 'en-US' }));
    await page.waitForSelector('[data-testid="dashboard-loaded"]');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await engine?.stop();
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page) await screenshot(page, `failed-${ctx.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`);
  });

  it('the dashboard switch asks, then pauses: the engine is paused and a banner says since when and by whom', async () => {
    expect(await banner().count()).toBe(0);
    await page.getByRole('button', { name: 'Pause all scheduling' }).click();
    const confirm = page.getByRole('tooltip');
    await confirm.getByText('No cron fire and no event will start a run until you resume.', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Pause', exact: true }).click();
    await banner().waitFor();
    // the actor is the signed-in session the server authenticated, not the page's own "ui"
    expect(await banner().textContent()).toMatch(/^Scheduling is paused since .+ by \S+@\S+ \(UI session [0-9a-f]{8}\)/);
    expect(await banner().textContent()).toContain('Runs you start by hand still run');
    await expect.poll(pausedByEngine).toBe(true);
    await page.getByRole('button', { name: 'Resume scheduling' }).first().waitFor();
    // The next fires wait for the resume, and the dashboard says so beside them.
    await page.getByText('Paused: they wait for the resume').waitFor();
  });

  it('Run now, while paused, says the manual run starts all the same', async () => {
    await page.goto(`${engine.origin}/#/workflows`);
    await banner().waitFor();
    await page.getByRole('row').filter({ hasText: 'nightly' }).getByRole('button', { name: 'Run now' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.getByTestId('run-now-paused-note').textContent()).toBe('Scheduling is paused: this manual run starts all the same.');
    // Clicked while the dialog still zooms in (a loaded machine), the click can land beside the
    // moving button, on the mask, which does not close a confirm: click once it has settled.
    await expect.poll(async () => (await dialog.getAttribute('class')) ?? '').not.toContain('ant-zoom');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('follows ax resume and ax pause live, and the banner resumes', async () => {
    expect((await engine.ax(['resume'])).code).toBe(0);
    await banner().waitFor({ state: 'detached' });
    expect((await engine.ax(['pause'])).code).toBe(0);
    await banner().waitFor();
    expect(await banner().textContent()).toMatch(/by \S+@\S+/);
    await banner().getByRole('button', { name: 'Resume scheduling' }).click();
    await banner().waitFor({ state: 'detached' });
    await expect.poll(pausedByEngine).toBe(false);
    await page.goto(`${engine.origin}/#/`);
    await page.getByRole('button', { name: 'Pause all scheduling' }).waitFor();
  });

  it('says it in Simplified Chinese, with no key missing', async () => {
    expect((await engine.ax(['pause'])).code).toBe(0);
    await page.evaluate(() => localStorage.setItem('ax.lang', 'zh-CN'));
    await page.reload();
    await banner().waitFor();
    expect(await banner().textContent()).toMatch(/^调度已暂停，自 .+ 起，操作者 \S+@\S+/);
    await page.getByRole('button', { name: '恢复调度' }).first().waitFor();
    expect(await page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
    await page.evaluate(() => localStorage.setItem('ax.lang', 'en'));
    expect((await engine.ax(['resume'])).code).toBe(0);
  });
});
