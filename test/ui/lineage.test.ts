// The lineage view in Chromium against a real `ax serve`: a chain over workflows of
// four owners renders with each task's owner and today's state; "who depends on me" keeps only the
// downstream; a click recentres on a task; an owner picked as "mine" is ringed; the picture
// exports as PNG and SVG; the workflow list filters by owner. Screenshots (light, dark, English,
// Chinese) go to test-artifacts/screenshots/.
import type { Page } from 'playwright';
import { describe, expect, it } from 'vitest';
import { animationsDone, browserSkipReason, screenshot, signedInPage, uiFixture } from '../helpers/ui.ts';

const skip = browserSkipReason();

// `date: latest`: the runs made here release each other whatever the calendar day.
const FILES = {
  'orders.yaml': 'workflow: orders\nowner: alice\ntasks:\n  extract: { command: "echo extracted" }\n',
  'warehouse.yaml':
    'workflow: warehouse\nowner: bob\ntasks:\n  load: { command: "echo loaded", upstream: [{ ref: orders.extract, date: latest }] }\n  index: { command: "echo indexed", upstream: [load] }\n',
  'sales.yaml':
    'workflow: sales\nowner: carol\ntasks:\n  report: { command: "echo reported", upstream: [{ ref: warehouse.load, date: latest }] }\n',
  'finance.yaml':
    'workflow: finance\nowner: erin\ntasks:\n  close: { command: "echo closed", upstream: [{ ref: warehouse.*, date: latest }, ledger.post] }\n',
  // fails: an alert about zed's workflow
  'broken.yaml': 'workflow: broken\nowner: zed\ntasks:\n  fail: { command: "echo broken; exit 3" }\n',
};

const node = (page: Page, id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);

// Skipped only off CI where Chromium or the built UI is missing (the reason is in `skip`): under CI=true browserSkipReason() throws instead.
describe.skipIf(skip)('lineage view', () => {
  const ui = uiFixture({
    setup: async (engine) => {
      await engine.apply(FILES);
      for (const wf of ['orders', 'warehouse', 'sales']) {
        const r = await engine.ax(['run', wf, '--wait']);
        if (r.code !== 0) throw new Error(`ax run ${wf}: ${r.stdout}${r.stderr}`);
      }
      await engine.ax(['run', 'broken', '--wait']);
      // finance.close waits for ledger.post, which does not exist
      const r = await engine.ax(['run', 'finance']);
      if (r.code !== 0) throw new Error(`ax run finance: ${r.stderr}`);
    },
  });

  it('a chain over four owners: states, owners, who depends on me, recentring, mine, export', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.engine);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await page.goto(`${ui.engine.origin}/#/workflows/warehouse`);
      await page.getByTestId('open-lineage').click();
      await page.waitForFunction(() => location.hash === '#/lineage/warehouse');
      await expect.poll(() => page.locator('.react-flow__node').count(), { timeout: 30_000 }).toBe(5);
      await page.goto(`${ui.engine.origin}/#/lineage/warehouse.load`);
      await node(page, 'finance.close').waitFor({ timeout: 30_000 });
      const expected = [
        ['orders.extract', 'SUCCESS', 'owner: alice'],
        ['warehouse.load', 'SUCCESS', 'owner: bob'],
        ['warehouse.index', 'SUCCESS', 'owner: bob'],
        ['sales.report', 'SUCCESS', 'owner: carol'],
        ['finance.close', 'WAITING', 'owner: erin'],
      ];
      await expect.poll(() => page.locator('.react-flow__node').count()).toBe(expected.length);
      for (const [id, state, owner] of expected) {
        expect(
          await node(page, id as string)
            .locator(`[data-state="${state}"]`)
            .count(),
          `${id} ${state}`,
        ).toBe(1);
        expect(
          await node(page, id as string)
            .locator('.ax-task-node__detail')
            .textContent(),
        ).toBe(owner);
      }
      expect(await page.locator('.react-flow__edge[data-id="orders.extract->warehouse.load"]').count()).toBe(1);
      expect(await page.locator('.react-flow__edge[data-id="warehouse.load->sales.report"]').count()).toBe(1);
      // across workflows: labelled with its date rule when it is not the same day
      expect(
        await page
          .locator('.react-flow__edge[data-id="warehouse.load->sales.report"] .react-flow__edge-text')
          .textContent(),
      ).toBe('latest');
      // a whole-workflow reference: every task of warehouse feeds finance.close
      expect(await page.locator('.react-flow__edge[data-id="warehouse.index->finance.close"]').count()).toBe(1);
      expect(await node(page, 'warehouse.load').getAttribute('class')).toContain('selected');
      await animationsDone(page);
      await screenshot(page, 'lineage-light-en');

      // who depends on me: the downstream only
      await page.getByText('Who depends on me', { exact: true }).click();
      // warehouse.load, its local downstream, and the two workflows that name it (or all of warehouse)
      await expect.poll(() => page.locator('.react-flow__node').count()).toBe(4);
      expect(await node(page, 'orders.extract').count()).toBe(0);

      // "mine": bob's tasks are ringed
      await page.getByRole('combobox', { name: 'My workflows' }).click();
      await page.locator('.ant-select-item-option', { hasText: 'bob (2)' }).click();
      await expect.poll(() => node(page, 'warehouse.load').getAttribute('class')).toContain('ax-lineage-mine');
      expect(await node(page, 'warehouse.index').getAttribute('class')).toContain('ax-lineage-mine');
      expect(await node(page, 'sales.report').getAttribute('class')).not.toContain('ax-lineage-mine');
      await animationsDone(page);
      await screenshot(page, 'lineage-downstream-mine-light-en');

      for (const format of ['png', 'svg']) {
        await page.getByTestId('lineage-export').click();
        const download = page.waitForEvent('download');
        await page.getByText(`Export as ${format.toUpperCase()}`).click();
        const file = await download;
        expect(file.suggestedFilename()).toBe(`lineage-warehouse.load.${format}`);
        const body = Buffer.concat(await (await file.createReadStream()).toArray());
        expect(body.length).toBeGreaterThan(1000);
        if (format === 'svg') expect(body.toString('utf8')).toContain('sales.report');
      }

      // a click recentres: finance.close's lineage names what it waits for, not there yet
      await page.getByText('Both ways', { exact: true }).click();
      await node(page, 'finance.close').click();
      await page.waitForFunction(() => location.hash === '#/lineage/finance.close');
      await node(page, 'ledger.post').waitFor({ timeout: 30_000 });
      expect(await node(page, 'ledger.post').locator('.ax-task-node__detail').textContent()).toBe('not there yet');
      expect(await node(page, 'finance.close').locator('[data-state="WAITING"]').count()).toBe(1);

      // from a run's graph: "who depends on it"
      const [run] = JSON.parse((await ui.engine.ax(['--json', 'runs', 'orders'])).stdout) as { id: number }[];
      await page.goto(`${ui.engine.origin}/#/runs/${run?.id}`);
      await node(page, 'extract').click();
      await page.getByTestId('graph-lineage').click();
      await page.waitForFunction(() => location.hash === '#/lineage/orders.extract');
      await node(page, 'sales.report').waitFor({ timeout: 30_000 });
      expect(errors).toEqual([]);
      expect(await page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('the workflow list, the dashboard, search and alerts filter by owner ("my workflows"), kept across visits', async () => {
    const page = await ui.newPage();
    await page.goto(`${ui.engine.origin}/#/workflows`);
    await page.locator('.ant-table-row').first().waitFor({ timeout: 30_000 });
    expect(await page.locator('.ant-table-row').count()).toBe(5);
    await page.getByRole('combobox', { name: 'My workflows' }).click();
    await page.locator('.ant-select-item-option', { hasText: 'carol' }).click();
    await expect.poll(() => page.locator('.ant-table-row').count()).toBe(1);
    expect(await page.locator('.ant-table-row').first().textContent()).toContain('sales');
    await page.getByText('Showing 1 of 5 workflows: those of carol').waitFor();
    await animationsDone(page);
    await screenshot(page, 'workflows-mine-light-en');
    await page.reload();
    await page.locator('.ant-table-row').first().waitFor({ timeout: 30_000 });
    expect(await page.locator('.ant-table-row').count()).toBe(1);
    // the dashboard's lists follow the same choice: finance's run (erin's) is in progress
    await page.goto(`${ui.engine.origin}/#/`);
    await page.getByTestId('dashboard-loaded').waitFor({ timeout: 30_000 });
    await page.getByText('The lists show the workflows of carol; the figures above are everyone’s.').waitFor();
    await page.getByText('Nothing is running').waitFor();
    await page.getByRole('combobox', { name: 'My workflows' }).click();
    await page.locator('.ant-select-item-option', { hasText: 'erin' }).click();
    // the choice first (the header says whose lists these are), then erin's waiting run in them
    await page.getByText('The lists show the workflows of erin;', { exact: false }).waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('running-now').textContent(), { timeout: 30_000 }).toContain('finance');
    await page.getByRole('link', { name: 'finance' }).first().waitFor();
    await animationsDone(page);
    await screenshot(page, 'dashboard-mine-light-en');

    // search: the hits in erin's workflows only
    await page.goto(`${ui.engine.origin}/#/search?q=echo`);
    await page.locator('.ant-table-row').first().waitFor({ timeout: 30_000 });
    await expect.poll(() => page.locator('.ant-table-row').count()).toBe(1);
    expect(await page.locator('.ant-table-row').first().textContent()).toContain('finance');
    // alerts: zed's failure shows only for zed
    await page.goto(`${ui.engine.origin}/#/alerts`);
    await page.getByText('No alert in this state').waitFor({ timeout: 30_000 });
    await page.getByRole('combobox', { name: 'My workflows' }).click();
    await page.locator('.ant-select-item-option', { hasText: 'zed' }).click();
    await expect
      .poll(() => page.locator('.ant-table-row', { hasText: 'broken' }).count(), { timeout: 30_000 })
      .toBeGreaterThan(0);
    await animationsDone(page);
    await screenshot(page, 'alerts-mine-light-en');
    // the audit log: only what was done to zed's workflow
    await page.goto(`${ui.engine.origin}/#/audit`);
    await page.locator('.ant-table-row').first().waitFor({ timeout: 30_000 });
    const objects = () => page.locator('.ant-table-row td:nth-child(4)').allTextContents();
    await expect.poll(async () => [...new Set(await objects())]).toEqual(['workflow:broken']);
    await page.getByRole('combobox', { name: 'My workflows' }).click();
    await page.locator('.ant-select-item-option', { hasText: 'carol' }).click();
    await expect.poll(async () => [...new Set(await objects())]).toEqual(['workflow:sales']);
    await animationsDone(page);
    await screenshot(page, 'audit-mine-light-en');
    expect(await page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
  }, 60_000);

  for (const [locale, scheme] of [
    ['en-US', 'dark'],
    ['zh-CN', 'light'],
    ['zh-CN', 'dark'],
  ] as const) {
    it(`looks right: ${locale} ${scheme}`, async () => {
      const lang = locale === 'zh-CN' ? 'zh-CN' : 'en';
      const page = await ui.newPage({ locale, colorScheme: scheme });
      await page.goto(`${ui.engine.origin}/#/lineage/warehouse.load`);
      await node(page, 'finance.close').waitFor({ timeout: 30_000 });
      await animationsDone(page);
      await screenshot(page, `lineage-${scheme}-${lang}`);
      expect(await page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
    }, 60_000);
  }

  it('the designer shows and edits a task’s upstreams in other workflows and its wait timeout', async () => {
    const page = await ui.newPage();
    await page.goto(`${ui.engine.origin}/#/designer/finance`);
    await node(page, 'close').click();
    const panel = page.getByRole('complementary', { name: 'Properties' });
    const tags = panel.getByTestId('cross-upstream');
    await tags.getByText('warehouse.* (latest)').waitFor({ timeout: 30_000 });
    await tags.getByText('ledger.post').waitFor();
    // the last tag goes with Backspace; a typed one is the same day's
    await tags.locator('input').focus();
    await page.keyboard.press('Backspace');
    await page.keyboard.type('orders.extract');
    await page.keyboard.press('Enter');
    await tags.getByText('orders.extract').waitFor();
    expect(await tags.getByText('ledger.post').count()).toBe(0);
    await panel.getByLabel('Wait timeout').fill('2h');
    await panel.getByLabel('Wait timeout').blur();
    await animationsDone(page);
    await screenshot(page, 'designer-cross-upstream-light-en');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.ant-message-notice').filter({ hasText: 'Saved' }).first().waitFor({ timeout: 30_000 });
    const exported = (await ui.engine.ax(['export', 'finance'])).stdout;
    expect(exported).toContain('upstream: [{ref: warehouse.*, date: latest}, orders.extract]');
    expect(exported).toContain('wait_timeout: 2h');
    expect(await page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
  }, 60_000);
});
