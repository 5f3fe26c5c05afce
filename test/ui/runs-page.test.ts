// The runs page across workflows (issue 24 part 3) in Chromium against a real `ax serve` with a
// month of seeded history: filters change the list and the address (and survive a reload), the
// calendar's squares count and lead to the list of a day, the day timeline draws the day's runs
// and opens one. Screenshots in light, dark and Chinese at 1440×900 and 1024×700.
import type { Page } from 'playwright';
import { describe, expect, it } from 'vitest';
import { animationsDone, browserSkipReason, screenshot, uiFixture, type UiPageOptions } from '../helpers/ui.ts';
import { seedHistory } from './seed-history.ts';

const skip = browserSkipReason();

const workflow = (name: string, owner: string, tasks: string[]) =>
  `workflow: ${name}\nowner: ${owner}\ntasks:\n${tasks.map((t, i) => `  ${t}:\n    command: echo ${t}\n${i ? `    upstream: [${tasks[i - 1]}]\n` : ''}`).join('')}`;

const search = async (page: Page) => new URLSearchParams(await page.evaluate(() => location.hash.split('?')[1] ?? ''));
const param = async (page: Page, key: string) =>
  page.evaluate((k) => new URLSearchParams(location.hash.split('?')[1] ?? '').get(k), key);
const rowAttr = (page: Page, attr: string) =>
  page
    .locator('[data-testid="run-list"] tr[data-run-id]')
    .evaluateAll((rows, a) => rows.map((r) => r.getAttribute(a) ?? ''), attr);
const rowWorkflows = (page: Page) =>
  page.locator('[data-testid="run-list"] tr[data-run-id] td:nth-child(3) a').allTextContents();

/** picks `option` in the antd select with this test id */
async function choose(page: Page, testId: string, option: string) {
  await page.getByTestId(testId).click();
  await page
    .locator('.ant-select-dropdown:visible .ant-select-item-option')
    .filter({ hasText: option })
    .first()
    .click();
  await page.keyboard.press('Escape');
}

// Skipped only off CI where Chromium or the built UI is missing (the reason is in `skip`).
describe.skipIf(skip)('runs page', () => {
  const ui = uiFixture({
    setup: async (engine) => {
      await engine.apply({
        'etl.yaml': workflow('nightly-etl', 'data', ['extract', 'clean', 'load', 'report']),
        'reports.yaml': workflow('reports', 'data', ['render', 'mail']),
        'backup.yaml': workflow('backup', 'ops', ['snapshot', 'rsync', 'verify']),
        'sync.yaml': workflow('sync', 'ops', ['pull', 'push']),
      });
      // a month, 16 runs a day, runs of up to a few hours so the timeline overlaps
      seedHistory(engine.dataDir, 480, {
        days: 30,
        triggers: ['cron', 'cron', 'cron', 'manual', 'event'],
        taskMs: 40 * 60_000,
        failRate: 0.12,
      });
    },
    page: { viewport: { width: 1440, height: 900 } },
  });

  it('filters change the list and the address, and a reload keeps them', async () => {
    const page = ui.page;
    await page.goto(`${ui.engine.origin}/#/runs`);
    await page.locator('[data-testid="run-list"] tr[data-run-id]').first().waitFor();
    expect(await rowAttr(page, 'data-run-id')).toHaveLength(50);

    await choose(page, 'filter-workflow', 'backup');
    await expect.poll(() => param(page, 'workflow')).toBe('backup');
    await expect.poll(async () => new Set(await rowWorkflows(page))).toEqual(new Set(['backup']));

    await choose(page, 'filter-state', 'Failed');
    await expect.poll(() => param(page, 'state')).toBe('FAILED');
    await expect.poll(async () => new Set(await rowAttr(page, 'data-state'))).toEqual(new Set(['FAILED']));
    // a failed run names its failed task, linked to its output
    expect(
      await page
        .locator('tr[data-run-id]')
        .first()
        .getByRole('link', { name: /failed task/i })
        .count(),
    ).toBe(1);

    await page.reload();
    await page.locator('[data-testid="run-list"] tr[data-run-id]').first().waitFor();
    expect(await rowAttr(page, 'data-state')).not.toContain('SUCCESS');
    expect(new Set(await rowWorkflows(page))).toEqual(new Set(['backup']));

    // back undoes the last filter
    await page.goBack();
    await expect.poll(() => param(page, 'state')).toBe(null);
    await expect.poll(async () => new Set(await rowAttr(page, 'data-state'))).toContain('SUCCESS');

    // trigger and owner: the address is the filter
    await page.goto(`${ui.engine.origin}/#/runs?owner=data&trigger=event`);
    await expect.poll(async () => new Set(await rowWorkflows(page))).toEqual(new Set(['nightly-etl', 'reports']));
    await screenshot(page, 'runs-list-light-en-1440');
    expect(await page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
  });

  it('the calendar counts each day and workflow, and a square lists that day', async () => {
    const page = ui.page;
    await page.goto(`${ui.engine.origin}/#/runs`);
    await page.getByText('Calendar', { exact: true }).click();
    await expect.poll(() => param(page, 'view')).toBe('calendar');
    await page.getByTestId('calendar-loaded').waitFor();
    // four workflows and the "All workflows" row, 30 days each
    expect(await page.locator('[data-testid="calendar-cell"]').count()).toBe(5 * 30);
    expect(await page.locator('[data-testid="calendar-cell"][data-tone="failed"]').count()).toBeGreaterThan(0);

    const cell = page.locator('[data-testid="calendar-cell"][data-workflow="backup"][data-tone="success"]').nth(3);
    const day = (await cell.getAttribute('data-day')) as string;
    await cell.hover();
    await expect.poll(() => page.getByTestId('calendar-hover').textContent()).toMatch(/\d+ succeeded/);
    await animationsDone(page);
    await screenshot(page, 'runs-calendar-light-en-1440');
    await cell.click();
    await expect.poll(() => param(page, 'view')).toBe(null);
    const params = await search(page);
    expect([params.get('from'), params.get('to'), params.get('workflow')]).toEqual([day, day, 'backup']);
    await page.locator('[data-testid="run-list"] tr[data-run-id]').first().waitFor();
    expect(new Set(await rowWorkflows(page))).toEqual(new Set(['backup']));

    // a year: one square a day
    await page.goto(`${ui.engine.origin}/#/runs?view=calendar&range=365`);
    await page.getByTestId('calendar-year').waitFor();
    expect(await page.locator('[data-testid="calendar-cell"]').count()).toBe(365);
    await screenshot(page, 'runs-calendar-year-light-en-1440');
  });

  it('the day timeline draws the day’s runs by workflow and opens one', async () => {
    const page = ui.page;
    await page.goto(`${ui.engine.origin}/#/runs?view=calendar`);
    await page.getByTestId('calendar-loaded').waitFor();
    const dayButton = page.locator('[data-testid="calendar-day"]').nth(20);
    const day = (await dayButton.getAttribute('data-day')) as string;
    await dayButton.click();
    await expect.poll(() => param(page, 'day')).toBe(day);
    await page.getByTestId('timeline-loaded').waitFor();
    const bars = page.locator('[data-testid="timeline-bar"]');
    // 16 runs a day, give or take the day's edges
    expect(await bars.count()).toBeGreaterThanOrEqual(14);
    expect(await page.locator('[data-testid="timeline-row"]').count()).toBe(4);
    // the summary counts what is drawn (runs of the day before that ran past midnight included)
    expect(await page.getByTestId('timeline-summary').textContent()).toContain(`: ${await bars.count()} runs,`);
    await screenshot(page, 'runs-day-light-en-1440');
    const runId = await bars.first().getAttribute('data-run-id');
    await bars.first().click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#/runs/${runId}`);
  });

  const looks: [string, UiPageOptions][] = [
    ['dark-en-1024', { colorScheme: 'dark', locale: 'en-US', viewport: { width: 1024, height: 700 } }],
    ['light-zh-1024', { colorScheme: 'light', locale: 'zh-CN', viewport: { width: 1024, height: 700 } }],
    ['dark-zh-1440', { colorScheme: 'dark', locale: 'zh-CN', viewport: { width: 1440, height: 900 } }],
  ];
  it('reads in dark, in Chinese and at 1024 px (screenshots)', async () => {
    for (const [name, options] of looks) {
      const page = await ui.newPage(options);
      await page.goto(`${ui.engine.origin}/#/runs?state=FAILED,SUCCESS`);
      await page.locator('[data-testid="run-list"] tr[data-run-id]').first().waitFor();
      await animationsDone(page);
      await screenshot(page, `runs-list-${name}`);
      await page.goto(`${ui.engine.origin}/#/runs?view=calendar`);
      await page.getByTestId('calendar-loaded').waitFor();
      await page.locator('[data-testid="calendar-cell"][data-tone="failed"]').first().hover();
      await animationsDone(page);
      await screenshot(page, `runs-calendar-${name}`);
      await page.goto(
        `${ui.engine.origin}/#/runs?view=day&day=${await page.evaluate(() => {
          const d = new Date(Date.now() - 3 * 86_400_000);
          return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
        })}`,
      );
      await page.getByTestId('timeline-loaded').waitFor();
      await animationsDone(page);
      await screenshot(page, `runs-day-${name}`);
      expect(await page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
    }
  });
});
