// The designer never turns typing into canvas commands: a task renamed while
// the user moves on to the next field keeps its panel, the clicked field keeps the focus and the
// text; letters that are shortcuts (n, l, f) and Backspace typed into fields stay in the fields;
// outside the canvas no key deletes or adds a task; a task deleted from the keyboard says so and
// comes back, with its connections, from the message's Undo. Chromium against a real `ax serve`.
import type { Page } from 'playwright';
import { describe, expect, it } from 'vitest';
import { animationsDone, browserSkipReason, screenshot, uiFixture } from '../helpers/ui.ts';

const skip = browserSkipReason();

const CHAIN = `workflow: chain
tasks:
  extract:
    command: echo extract
  clean:
    command: echo clean
    upstream: [extract]
  load:
    command: echo load
    upstream: [clean]
`;

// an analyst's 5-task ETL, for the screenshots
const ETL = `workflow: nightly-etl
description: Orders and customers into the warehouse, then the morning report
schedule:
  cron: "30 2 * * *"
  timezone: Europe/Berlin
tasks:
  extract_orders:
    command: psql "$SRC" -c "\\copy orders to /srv/etl/in/orders.csv csv header"
    timeout: 20m
  extract_customers:
    command: psql "$SRC" -c "\\copy customers to /srv/etl/in/customers.csv csv header"
    timeout: 20m
  clean:
    command: python3 clean.py /srv/etl/in /srv/etl/clean
    cwd: /srv/etl
    upstream: [extract_orders, extract_customers]
  load:
    command: python3 load.py --target warehouse /srv/etl/clean
    cwd: /srv/etl
    retries: 2
    upstream: [clean]
  report:
    command: python3 report.py --date "$AX_LOGICAL_TIME"
    upstream: [load]
`;

const node = (page: Page, name: string) => page.locator(`.react-flow__node[data-id="${name}"]`);
const nodeIds = (page: Page) =>
  page.locator('.react-flow__node').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')).sort());
const edgeIds = (page: Page) =>
  page.locator('.react-flow__edge').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')).sort());
const panel = (page: Page) => page.getByRole('complementary', { name: 'Properties' });
const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? document.activeElement?.tagName);

// Skipped only off CI where Chromium or the built UI is missing (the reason is in `skip`): under CI=true browserSkipReason() throws instead.
describe.skipIf(skip)('designer keyboard: typing stays typing', () => {
  const ui = uiFixture({
    setup: async (engine) => {
      await engine.apply({ 'chain.yaml': CHAIN, 'etl.yaml': ETL });
    },
  });

  it('a rename committed by clicking the next field keeps that field, its focus and every key typed', async () => {
    const page = await ui.newPage();
    await page.goto(`${ui.engine.origin}/#/designer/new`);
    await page.getByRole('button', { name: 'Add task' }).click();
    await expect.poll(() => nodeIds(page)).toEqual(['task-1']);
    // type a name, then click the Command field (the click commits the rename)
    const nameBox = panel(page).getByLabel('Task name');
    await nameBox.click();
    await page.keyboard.press('Control+a');
    await page.keyboard.type('extract');
    await panel(page).getByLabel('Command').click();
    await page.keyboard.type('ls');
    await page.keyboard.press('Backspace');
    // a path full of shortcut letters: n adds a task, l lays out, f fits, ? opens the help
    await page.keyboard.type('s -l /srv/nightly/in/fresh-files?');
    await expect.poll(() => nodeIds(page)).toEqual(['extract']);
    expect(await panel(page).getByLabel('Command').inputValue()).toBe('ls -l /srv/nightly/in/fresh-files?');
    expect(await focusedId(page)).toBe('task-field-command');
    expect(await page.getByTestId('shortcuts').count()).toBe(0);

    // a rename by Enter keeps the name box focused: Backspace there edits the name
    await nameBox.click();
    await page.keyboard.press('End');
    await page.keyboard.type('-orders');
    await page.keyboard.press('Enter');
    await expect.poll(() => nodeIds(page)).toEqual(['extract-orders']);
    expect(await focusedId(page)).toBe('task-field-name');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('n');
    expect(await nameBox.inputValue()).toBe('extract-ordern');
    expect(await nodeIds(page)).toEqual(['extract-orders']);
    // Tab goes on to the next field, not to the page: the "calls another workflow" switch, then the command
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('task-field-runs');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('task-field-command');
    await expect.poll(() => nodeIds(page)).toEqual(['extract-ordern']);
    expect(await panel(page).getByLabel('Command').inputValue()).toBe('ls -l /srv/nightly/in/fresh-files?');
  }, 120_000);

  it('keys act on the canvas only when it has the focus; a keyboard delete says so and Undo brings the task and its edges back', async () => {
    const page = await ui.newPage();
    await page.goto(`${ui.engine.origin}/#/designer/chain`);
    await page.waitForSelector('.react-flow__node[data-id="clean"]', { timeout: 15_000 });
    await node(page, 'clean').click();
    expect(await panel(page).getByLabel('Command').inputValue()).toBe('echo clean');

    // the selected task survives Backspace and Delete from anywhere but the canvas: a field,
    // the side panel's tab, the page
    await panel(page).getByLabel('Command').click();
    await page.keyboard.press('End');
    await page.keyboard.press('Backspace');
    expect(await panel(page).getByLabel('Command').inputValue()).toBe('echo clea');
    await panel(page).getByRole('tab', { name: 'Task' }).click();
    for (const key of ['Backspace', 'Delete', 'n']) await page.keyboard.press(key);
    await page.getByRole('heading', { level: 1 }).click();
    for (const key of ['Backspace', 'Delete', 'n']) await page.keyboard.press(key);
    expect(await nodeIds(page)).toEqual(['clean', 'extract', 'load']);

    // on the canvas Delete removes it, says so and offers Undo
    await node(page, 'clean').click();
    await page.keyboard.press('Delete');
    await expect.poll(() => nodeIds(page)).toEqual(['extract', 'load']);
    expect(await edgeIds(page)).toEqual([]);
    const notice = page.locator('.ant-message-notice').filter({ hasText: 'Deleted task "clean"' });
    await notice.waitFor({ timeout: 15_000 });
    await screenshot(page, 'designer-deleted-undo-light-en');
    // the canvas keeps the focus: shortcuts go on working there
    expect(await page.evaluate(() => document.activeElement?.closest('[data-testid="designer-canvas"]') !== null)).toBe(
      true,
    );
    await notice.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => nodeIds(page)).toEqual(['clean', 'extract', 'load']);
    await expect.poll(() => edgeIds(page)).toEqual(['clean->load', 'extract->clean']);
    expect(await page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
  }, 120_000);
  it('a toolbar tooltip goes away once its button is clicked, not left over the title', async () => {
    const page = await ui.newPage();
    await page.goto(`${ui.engine.origin}/#/designer/new`);
    const add = page.getByRole('button', { name: 'Add task' });
    await add.hover();
    const tip = page.locator('.ant-tooltip:not(.ant-tooltip-hidden)', { hasText: 'Add task (N)' });
    await tip.waitFor();
    await add.click();
    await expect.poll(() => nodeIds(page)).toEqual(['task-1']);
    // the pointer still rests on the button: the tip stays closed
    await tip.waitFor({ state: 'hidden' });
    await page.mouse.move(0, 0);
    await add.hover();
    await tip.waitFor();
  }, 60_000);
  for (const locale of ['en-US', 'zh-CN'] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`looks right: a deleted task and its Undo, ${locale} ${scheme}`, async () => {
        const lang = locale === 'zh-CN' ? 'zh-CN' : 'en';
        const page = await ui.newPage({ locale, colorScheme: scheme });
        await page.goto(`${ui.engine.origin}/#/designer/nightly-etl`);
        await page.waitForSelector('.react-flow__node[data-id="report"]', { timeout: 15_000 });
        await node(page, 'clean').click();
        await page.keyboard.press('Delete');
        const notice = page.getByTestId('removed-message');
        await notice.waitFor();
        expect(await notice.textContent()).toContain(
          lang === 'en' ? 'Deleted task "clean" and its connections.' : '已删除任务“clean”及其连接。',
        );
        await node(page, 'load').click();
        await animationsDone(page);
        await screenshot(page, `designer-removed-${scheme}-${lang}`);
        expect(await page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
      }, 60_000);
    }
  }
});
