// Draining the node that serves the page (issue 19 item 4, issue 20 "Drain of the solo worker"):
// the confirmation says the page will lose its engine (solo: the drain stops ax serve), and once
// it has, the page says the engine stopped and why, not "reconnecting…" forever.
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedEngine, startServedEngine } from '../helpers/serve.ts';
import { browserSkipReason, launchBrowser, screenshot, signedInPage } from '../helpers/ui.ts';

const skip = browserSkipReason();

// Skipped only off CI where Chromium or the built UI is missing: under CI=true browserSkipReason() throws instead.
describe.skipIf(skip)(`draining the solo worker from the Workers page${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let engine: ServedEngine;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    engine = await startServedEngine();
    browser = await launchBrowser();
    ({ page } = await signedInPage(browser, engine, { colorScheme: 'light', locale: 'en-US' }));
    await page.waitForSelector('[data-testid="dashboard-loaded"]');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await engine?.stop();
  });

  it('says so in Chinese and in dark mode too', async () => {
    const { context, page: zh } = await signedInPage(browser, engine, { colorScheme: 'dark', locale: 'zh-CN' });
    await zh.waitForSelector('[data-testid="dashboard-loaded"]');
    await zh.goto(`${engine.origin}/#/workers`);
    await zh.getByRole('button', { name: /local/ }).click();
    const description = zh.getByTestId('drain-description');
    await description.waitFor();
    expect(await description.textContent()).toContain('这是为此页面提供服务的引擎');
    await screenshot(zh, 'workers-drain-serving-dark-zh');
    await context.close();
  });

  it('warns that the drain stops the engine serving the page, then says it stopped', async () => {
    await page.goto(`${engine.origin}/#/workers`);
    await page.getByRole('button', { name: 'Drain local' }).click();
    const description = page.getByTestId('drain-description');
    await description.waitFor();
    expect(await description.textContent()).toContain('This is the engine serving this page. Draining it stops the engine (ax serve)');
    await screenshot(page, 'workers-drain-serving-light-en');

    await page.getByRole('button', { name: 'Drain and stop' }).click();
    const banner = page.getByTestId('engine-stopped-banner');
    await banner.waitFor({ timeout: 30_000 });
    expect(await banner.textContent()).toContain('The engine serving this page stopped');
    expect(await banner.textContent()).toContain('This node was drained (ax drain, or Drain on the Workers page), so ax serve stopped');
    expect((await engine.serve.result(30_000)).code).toBe(0);
    // the engine is gone for good: the page keeps saying so, and never "reconnecting"
    await page.waitForTimeout(3_000);
    expect(await page.getByTestId('reconnecting-banner').count()).toBe(0);
    expect(await banner.isVisible()).toBe(true);
    await screenshot(page, 'workers-engine-stopped-light-en');
  });
});
