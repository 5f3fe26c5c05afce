// The Run now form, the backfill dialog, the backfills pages and "re-run failed tasks" in Chromium
// against a real `ax serve`: a run started from the form records its params (shown on the run
// page); a backfill started from the workflow page, after its preview, makes its runs and shows
// its progress (one day fails on purpose); a failed run's failed tasks run again from the run
// page. Screenshots (light, dark, English, Chinese) go to test-artifacts/screenshots/run-forms-*.
import type { Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { openDataDirStore } from '../helpers/files.ts';
import { animationsDone, browserSkipReason, screenshot, uiFixture } from '../helpers/ui.ts';

const skip = browserSkipReason();

// one run per night at 02:00 UTC; the 3rd of November fails (its source file was missing)
const ORDERS = `workflow: orders
description: Nightly orders ETL for one sales region
schedule: { cron: "0 2 * * *", timezone: UTC, overlap: parallel }
params:
  region: { type: enum, choices: [eu, us, apac], default: eu, description: "Sales region to load" }
  day: { type: date, description: "Business day (empty: the logical date)" }
  limit: { type: number, min: 1, max: 100, default: 10, description: "Rows per batch" }
  dry_run: { type: boolean, default: false, description: "Read only, write nothing" }
  tag: { type: string, pattern: "^[a-z]+$", description: "A label for the load" }
  cutoff: { type: datetime, description: "Ignore orders after this moment" }
tasks:
  extract:
    command: 'case "$AX_LOGICAL_TIME" in *-11-03T*) echo "orders-2026-11-03.csv is missing" >&2; exit 2;; esac; echo "extract $AX_PARAM_REGION"'
  load:
    command: echo "load $AX_PARAM_REGION limit=$AX_PARAM_LIMIT"
    upstream: [extract]
`;

const BROKEN = `workflow: billing
tasks:
  fetch: { command: echo fetched }
  charge: { command: 'echo "card processor refused" >&2; exit 3', upstream: [fetch] }
  receipt: { command: echo mailed, upstream: [charge] }
  ledger: { command: echo booked, upstream: [charge] }
`;

// Skipped only off CI where Chromium or the built UI is missing (the reason is in `skip`): under CI=true browserSkipReason() throws instead.
describe.skipIf(skip)('run now form, backfills, re-run failed', () => {
  let store: SqlStore;
  const ui = uiFixture({
    setup: (engine) => engine.apply({ 'orders.yaml': ORDERS, 'billing.yaml': BROKEN }),
  });
  beforeAll(async () => {
    store = await openDataDirStore(ui.engine.dataDir);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  /** the form item holding the field with this id, and its error text */
  const problemOf = (page: Page, id: string) => page.locator(`.ant-form-item:has(#${id}) .ant-form-item-explain-error`);

  it('runs from the form with params; a bad value is named on its field first', async () => {
    const page = await ui.newPage();
    await page.goto(`${ui.engine.origin}/#/workflows/orders`);
    await page.getByRole('button', { name: 'Run now' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('run-now-params').waitFor();
    await dialog.locator('#run-now-param-tag').fill('Nightly1');
    await problemOf(page, 'run-now-param-tag').waitFor();
    await dialog.locator('#run-now-param-region').click();
    await page.locator('.ant-select-item-option[title="apac"]').click();
    await animationsDone(page);
    await screenshot(page, 'run-forms-run-now-light-en');
    await dialog.locator('#run-now-param-tag').fill('nightly');
    await expect.poll(() => problemOf(page, 'run-now-param-tag').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Run now' }).click();
    const toast = page.locator('.ant-message-notice').filter({ hasText: /Run #\d+ started/ });
    await toast.waitFor({ timeout: 30_000 });
    const id = Number(/#(\d+)/.exec((await toast.textContent()) ?? '')?.[1]);
    await expect.poll(async () => (await store.getRun(id))?.state, { timeout: 30_000 }).toBe('SUCCESS');
    expect((await store.getRun(id))?.params).toMatchObject({
      region: 'apac',
      tag: 'nightly',
      limit: 10,
      dry_run: false,
    });

    await page.goto(`${ui.engine.origin}/#/runs/${id}`);
    const params = page.getByTestId('run-params');
    await params.waitFor({ timeout: 30_000 });
    expect(await params.textContent()).toContain('region = apac');
    expect(await params.textContent()).toContain('tag = nightly');
  }, 120_000);

  it('backfills a week from the workflow page after a preview; the backfill page follows its runs', async () => {
    const page = await ui.newPage();
    await page.goto(`${ui.engine.origin}/#/workflows/orders`);
    await page.getByTestId('open-backfill').click();
    const dialog = page.getByRole('dialog');
    const preview = dialog.getByTestId('backfill-preview');
    await expect.poll(() => preview.getAttribute('data-state')).toBe('incomplete');
    await dialog.locator('#backfill-window').click();
    await page.keyboard.type('2026-11-01');
    await page.keyboard.press('Enter');
    await dialog.locator('#backfill-window-end').click();
    await page.keyboard.type('2026-11-07');
    await page.keyboard.press('Enter');
    await expect.poll(() => preview.getAttribute('data-total'), { timeout: 30_000 }).toBe('7');
    expect(await preview.textContent()).toContain('Will create 7 runs');
    await dialog.locator('#backfill-max-parallel').fill('2');
    await animationsDone(page);
    await screenshot(page, 'run-forms-backfill-light-en');
    await dialog.getByRole('button', { name: 'Start backfill' }).click();

    // the backfill's page: its runs get made, one fails, the backfill ends FAILED
    await page.waitForFunction(() => /^#\/backfills\/\d+$/.test(location.hash), undefined, { timeout: 30_000 });
    await expect
      .poll(() => page.getByTestId('backfill-state').getAttribute('data-state'), { timeout: 90_000, interval: 500 })
      .toBe('FAILED');
    const links = page.getByTestId('backfill-runs').locator('a[href^="#/runs/"]');
    await expect.poll(() => links.count(), { timeout: 30_000 }).toBe(7);
    const backfillId = Number(/(\d+)$/.exec(await page.evaluate(() => location.hash))?.[1]);
    const runs = (await store.listRuns({ workflowName: 'orders', limit: 50 })).filter(
      (r) => r.backfillId === backfillId,
    );
    expect(runs.map((r) => new Date(r.logicalTime).toISOString().slice(0, 10)).sort()).toEqual([
      '2026-11-01',
      '2026-11-02',
      '2026-11-03',
      '2026-11-04',
      '2026-11-05',
      '2026-11-06',
      '2026-11-07',
    ]);
    expect(runs.filter((r) => r.state === 'FAILED')).toHaveLength(1);
    expect(await page.getByTestId(`backfill-progress-${backfillId}`).getAttribute('aria-valuetext')).toContain(
      '7 of 7 runs done, 1 failed',
    );

    // a run of it names its backfill; the list shows it with its progress
    const failed = runs.find((r) => r.state === 'FAILED');
    await page.goto(`${ui.engine.origin}/#/runs/${failed?.id}`);
    await page.getByTestId('run-backfill').click();
    await page.waitForFunction((id) => location.hash === `#/backfills/${id}`, backfillId, { timeout: 30_000 });
    await page.goto(`${ui.engine.origin}/#/backfills`);
    await page.getByTestId(`backfill-state-${backfillId}`).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId(`rerun-backfill-${backfillId}`).count()).toBe(1);
  }, 180_000);

  it('re-runs a failed run’s failed tasks from the run page, after saying how many', async () => {
    const failed = await ui.engine.ax(['run', 'billing', '--wait']);
    expect(failed.code).not.toBe(0);
    const [run] = await store.listRuns({ workflowName: 'billing', limit: 1 });
    const page = await ui.newPage();
    await page.goto(`${ui.engine.origin}/#/runs/${run?.id}`);
    await page.getByTestId('rerun-failed').click();
    const confirm = page.getByTestId('rerun-failed-confirm');
    await confirm.waitFor();
    expect(await page.locator('.ant-popconfirm').textContent()).toContain('Re-run 3 tasks');
    expect(await confirm.textContent()).toContain('“charge”');
    expect(await confirm.textContent()).toContain('“ledger”, “receipt”');
    await animationsDone(page);
    await screenshot(page, 'run-forms-rerun-failed-light-en');
    await page.locator('.ant-popconfirm .ant-btn-primary').click();
    // charge runs again (and fails again: nothing was fixed)
    await expect
      .poll(async () => (await store.listInstances(run?.id ?? 0)).filter((i) => i.taskName === 'charge').length, {
        timeout: 30_000,
      })
      .toBe(2);
    await expect
      .poll(() => page.getByTestId('run-state').getAttribute('data-state'), { timeout: 30_000, interval: 250 })
      .toBe('FAILED');
  }, 120_000);

  for (const [locale, scheme] of [
    ['en-US', 'dark'],
    ['zh-CN', 'light'],
    ['zh-CN', 'dark'],
  ] as const) {
    it(`looks right: ${locale} ${scheme}`, async () => {
      const lang = locale === 'zh-CN' ? 'zh-CN' : 'en';
      const page = await ui.newPage({ locale, colorScheme: scheme });
      await page.goto(`${ui.engine.origin}/#/workflows/orders`);
      await page.locator('#main button:has(.anticon-caret-right)').first().click();
      const dialog = page.getByRole('dialog');
      await dialog.getByTestId('run-now-params').waitFor();
      await dialog.locator('#run-now-param-limit').fill('500');
      await problemOf(page, 'run-now-param-limit').waitFor();
      await animationsDone(page);
      await screenshot(page, `run-forms-run-now-${scheme}-${lang}`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      await page.getByTestId('open-backfill').click();
      await page.getByRole('dialog').locator('#backfill-window').click();
      await page.keyboard.type('2026-11-01');
      await page.keyboard.press('Enter');
      await page.keyboard.type('2026-11-30');
      await page.keyboard.press('Enter');
      await expect
        .poll(() => page.getByTestId('backfill-preview').getAttribute('data-state'), { timeout: 30_000 })
        .toBe('ok');
      await animationsDone(page);
      await screenshot(page, `run-forms-backfill-${scheme}-${lang}`);
      await page.keyboard.press('Escape');

      await page.goto(`${ui.engine.origin}/#/backfills`);
      await page.getByTestId('backfills-table').locator('[role=progressbar]').first().waitFor({ timeout: 30_000 });
      await animationsDone(page);
      await screenshot(page, `run-forms-backfills-${scheme}-${lang}`);
      await page.getByTestId('backfills-table').locator('a[href^="#/backfills/"]').first().click();
      await page.getByTestId('backfill-runs').waitFor({ timeout: 30_000 });
      await animationsDone(page);
      await screenshot(page, `run-forms-backfill-page-${scheme}-${lang}`);
      expect(await page.evaluate(() => window.__axMissingKeys ?? ['no missing-key recorder on window'])).toEqual([]);
    }, 120_000);
  }
});
