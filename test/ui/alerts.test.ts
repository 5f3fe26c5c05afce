// The Alerts page in Chromium against `ax serve` with two webhook channels in its settings.json,
// served by real receivers started here: one that answers 200, one that always answers 500.
// Before any alert it says how to configure them; a failed run's alert shows up live, without
// a reload, with one delivery sent (1 attempt) and one failed after its retry (2 attempts, and
// why); a second failure in the group's window shows as grouped; the filter keeps only the
// failed ones; an engine with no channel says so and how to add one. Light, dark and Simplified
// Chinese, with no translation missing.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/alert-receivers.ts';
import { startServedEngine } from '../helpers/serve.ts';
import { animationsDone, browserSkipReason, screenshot, signedInPage, uiFixture } from '../helpers/ui.ts';

const skip = browserSkipReason();

const FAILING = `workflow: nightly-etl
tasks:
  load:
    command: 'echo "disk full" >&2; exit 3'
`;

// Skipped only off CI where Chromium or the built UI is missing (the reason is in `skip`): under CI=true browserSkipReason() throws instead.
describe.skipIf(skip)('the Alerts page', () => {
  let ok: WebhookReceiver;
  let broken: WebhookReceiver;

  const rows = () => ui.page.locator('[data-testid="alerts-loaded"] tbody tr[data-row-key]');

  // the webhook receivers the engine's settings name: up before the engine starts
  beforeAll(async () => {
    ok = await startWebhookReceiver(() => 200);
    broken = await startWebhookReceiver(() => 500);
  });

  afterAll(async () => {
    await ok?.close();
    await broken?.close();
  });

  const ui = uiFixture({
    prepare: (dir) => {
      const alerts = {
        channels: {
          ops: { type: 'webhook', url: ok.url, template: 'slack' },
          pager: { type: 'webhook', url: broken.url, retries: 1 },
        },
        workflows: { channels: ['ops', 'pager'] },
        retryDelay: '50ms',
      };
      fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ alerts }), { mode: 0o600 });
    },
    setup: async (engine) => {
      await engine.apply({ 'etl.yaml': FAILING });
    },
    page: { colorScheme: 'light', locale: 'en-US', viewport: { width: 1360, height: 820 } },
  });

  it('is in the navigation; before any alert it says how to configure them, and names the channels there are', async () => {
    await ui.page.getByRole('navigation').getByRole('link', { name: 'Alerts' }).click();
    await ui.page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
    const empty = ui.page.getByTestId('alerts-empty');
    await empty.waitFor();
    expect(await empty.textContent()).toContain('No alerts yet');
    expect(await empty.textContent()).toContain(
      'They go to the channels above. To see one arrive, send a test message: ax alerts test ops',
    );
    const channels = ui.page.getByTestId('alerts-channels');
    expect(await channels.textContent()).toContain('ops · webhook (slack)');
    expect(await channels.textContent()).toContain('pager · webhook');
    await animationsDone(ui.page);
    await screenshot(ui.page, 'alerts-empty-light');
  });

  it("a failed run's alert appears live: sent through one channel, failed after its retry through the other, with why", async () => {
    const run = await ui.engine.ax(['run', 'nightly-etl', '--wait']);
    expect(run.code).toBe(1);
    await rows().first().waitFor({ timeout: 15_000 });
    const row = rows().first();
    // The deliveries settle after the alert is recorded: the page follows them too.
    await row.locator('[data-outcome="failed"]').waitFor({ timeout: 15_000 });
    await row.locator('[data-outcome="sent"]').waitFor();
    expect(await row.locator('[data-rule]').getAttribute('data-rule')).toBe('run_failed');
    const cells = await row.locator('td').allTextContents();
    expect(cells[1]).toBe('Run failed');
    expect(cells[2]).toContain('nightly-etl');
    expect(cells[2]).toContain('run #1');
    expect(cells[3]).toContain('nightly-etl: run #1 failed');
    expect(cells[3]).toMatch(/pager: .*500/);
    expect(cells[4]).toBe('opspager');
    expect(cells[5]).toBe('SentFailed');
    expect(cells[6]).toBe('12');
    expect(ok.posts).toHaveLength(1);
    expect(broken.posts).toHaveLength(2);
    await row.getByRole('link', { name: 'run #1' }).waitFor();
    await animationsDone(ui.page);
    await screenshot(ui.page, 'alerts-light');
  });

  it('a repeat within the group window shows as grouped, sent to nobody; the filter keeps the failed ones', async () => {
    expect((await ui.engine.ax(['run', 'nightly-etl', '--wait'])).code).toBe(1);
    await expect.poll(() => rows().count(), { timeout: 15_000 }).toBe(2);
    const newest = rows().first();
    await newest.locator('[data-outcome="grouped"]').waitFor();
    expect((await newest.locator('td').allTextContents())[2]).toContain('run #2');
    expect(ok.posts).toHaveLength(1);
    await ui.page
      .getByText('Failed', { exact: true })
      .filter({ has: ui.page.locator('xpath=ancestor::*[contains(@class,"ant-segmented")]') })
      .first()
      .click();
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().locator('[data-outcome="failed"]').count()).toBe(1);
    await ui.page.getByText('All', { exact: true }).click();
    await expect.poll(() => rows().count()).toBe(2);
  });

  it('reads well in dark mode and in Simplified Chinese, with no key missing', async () => {
    const dark = await signedInPage(ui.browser, ui.engine, {
      colorScheme: 'dark',
      locale: 'en-US',
      viewport: { width: 1360, height: 820 },
    });
    await dark.page.goto(`${ui.engine.origin}/#/alerts`);
    await dark.page.locator('[data-testid="alerts-loaded"] [data-outcome="failed"]').first().waitFor();
    await animationsDone(dark.page);
    await screenshot(dark.page, 'alerts-dark');
    await dark.context.close();

    const zh = await signedInPage(ui.browser, ui.engine, {
      colorScheme: 'light',
      locale: 'zh-CN',
      viewport: { width: 1360, height: 820 },
    });
    await zh.page.goto(`${ui.engine.origin}/#/alerts`);
    await zh.page.getByRole('heading', { name: '告警', level: 1 }).waitFor();
    await zh.page.locator('[data-testid="alerts-loaded"] [data-outcome="failed"]').first().waitFor();
    expect(await zh.page.locator('[data-testid="alerts-loaded"]').textContent()).toContain('运行失败');
    expect(await zh.page.locator('[data-testid="alerts-loaded"]').textContent()).toContain('发送失败');
    await animationsDone(zh.page);
    await screenshot(zh.page, 'alerts-zh');
    expect(await zh.page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
    await zh.context.close();
    expect(await ui.page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
  });

  it('with no channel configured, it says alerts reach nobody and how to add one', async () => {
    const bare = await startServedEngine();
    try {
      const { context, page: p } = await signedInPage(ui.browser, bare, { colorScheme: 'light', locale: 'en-US' });
      await p.goto(`${bare.origin}/#/alerts`);
      const note = p.getByTestId('alerts-no-channels');
      await note.waitFor();
      expect(await note.textContent()).toContain(
        'No alert channel is configured on this engine: alerts are recorded here but reach nobody.',
      );
      expect(await note.textContent()).toContain(
        `Define channels under "alerts" in ${path.join(bare.dataDir, 'settings.json')}`,
      );
      const empty = p.getByTestId('alerts-empty');
      await empty.waitFor();
      expect(await empty.textContent()).toContain(
        `under "alerts" in ${path.join(bare.dataDir, 'settings.json')}, and name them in a workflow's alerts:`,
      );
      expect(await empty.textContent()).toContain('"workflows": { "channels": ["ops"] }');
      await animationsDone(p);
      await screenshot(p, 'alerts-no-channels');
      await context.close();
    } finally {
      await bare.stop();
    }
  });
});
