// Draining the node that serves the page:
// the confirmation says the page will lose its engine (solo: the drain stops ax serve), and once
// it has, the page says the engine stopped and why, not "reconnecting…" forever.
import { describe, expect, it } from 'vitest';
import { browserSkipReason, screenshot, signedInPage, uiFixture } from '../helpers/ui.ts';
import { holdsFor } from '../helpers/wait-for.ts';

const skip = browserSkipReason();

// Skipped only off CI where Chromium or the built UI is missing: under CI=true browserSkipReason() throws instead.
describe.skipIf(skip)(`draining the solo worker from the Workers page${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const ui = uiFixture({ page: { colorScheme: 'light', locale: 'en-US' } });

  it('says so in Chinese and in dark mode too', async () => {
    const { context, page: zh } = await signedInPage(ui.browser, ui.engine, { colorScheme: 'dark', locale: 'zh-CN' });
    await zh.waitForSelector('[data-testid="dashboard-loaded"]');
    await zh.goto(`${ui.engine.origin}/#/workers`);
    await zh.getByRole('button', { name: /local/ }).click();
    const description = zh.getByTestId('drain-description');
    await description.waitFor();
    expect(await description.textContent()).toContain('这是为此页面提供服务的引擎');
    await screenshot(zh, 'workers-drain-serving-dark-zh');
    await context.close();
  });

  it('warns that the drain stops the engine serving the page, then says it stopped', async () => {
    await ui.page.goto(`${ui.engine.origin}/#/workers`);
    await ui.page.getByRole('button', { name: 'Drain local' }).click();
    const description = ui.page.getByTestId('drain-description');
    await description.waitFor();
    expect(await description.textContent()).toContain(
      'This is the engine serving this page. Draining it stops the engine (ax serve)',
    );
    await screenshot(ui.page, 'workers-drain-serving-light-en');

    await ui.page.getByRole('button', { name: 'Drain and stop' }).click();
    const banner = ui.page.getByTestId('engine-stopped-banner');
    await banner.waitFor({ timeout: 30_000 });
    expect(await banner.textContent()).toContain('The engine serving this page stopped');
    expect(await banner.textContent()).toContain(
      'This node was drained (ax drain, or Drain on the Workers page), so ax serve stopped',
    );
    expect((await ui.engine.serve.result(30_000)).code).toBe(0);
    // the engine is gone for good: the page keeps saying so, and never "reconnecting". The page
    // retries a lost connection after 0.5 s and 1 s, so in 3 s a "reconnecting" would have shown.
    await holdsFor(
      async () => (await ui.page.getByTestId('reconnecting-banner').count()) === 0 && (await banner.isVisible()),
      3_000,
      {
        message: 'the stopped banner alone (no "reconnecting")',
      },
    );
    await screenshot(ui.page, 'workers-engine-stopped-light-en');
  });
});
