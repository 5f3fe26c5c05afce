// The workflow list's crontab import in Chromium against `ax serve`: a realistic crontab (comments,
// environment lines, @daily, @reboot, a `%` for stdin, a redirect, a date that never comes) dropped
// onto the text area as a file; the preview says what each line becomes and why one will not
// import; two lines unticked, one renamed; the import names the workflows and the list shows
// them. Then the same preview in dark mode and in Simplified Chinese (the file picker this time),
// with no translation missing. The screenshots are for a person to look at.
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright';
import { animationsDone, browserSkipReason, screenshot, uiFixture } from '../helpers/ui.ts';

const skip = browserSkipReason();

// 1-based: jobs on 7, 9, 10, 11, 13, 14, 15, 16
const CRONTAB = `# m h  dom mon dow   command
SHELL=/bin/bash
PATH=/usr/local/bin:/usr/bin:/bin
MAILTO=ops@example.com

# Nightly dump of the shop database
30 2 * * * pg_dump -Fc shop > /var/backups/shop.dump
# Rotate the app's logs every Sunday
0 4 * * 0 /usr/local/bin/rotate-logs --keep 8
*/10 9-18 * * mon-fri curl -fsS https://example.com/health
@daily find /tmp/uploads -mtime +7 -delete
# the invoice mail: what follows the first % is the mail's text
0 6 1 * * mail -s "Invoices ready" billing@example.com%Hello,%the invoices are ready.%
@reboot /usr/local/bin/start-tunnel
0 0 30 2 * echo "never happens"
15 3 * * * /usr/local/bin/sync-photos >> /var/log/photos.log 2>&1
`;

/** Drops `text` onto the crontab box as a file named crontab.txt, as a person dragging it from the desktop. */
async function dropFile(page: Page, text: string): Promise<void> {
  const transfer = await page.evaluateHandle((content) => {
    const dt = new DataTransfer();
    dt.items.add(new File([content], 'crontab.txt', { type: 'text/plain' }));
    return dt;
  }, text);
  const box = page.getByTestId('crontab-drop');
  await box.dispatchEvent('dragover', { dataTransfer: transfer });
  await box.dispatchEvent('drop', { dataTransfer: transfer });
}

const rowOf = (page: Page, line: number) => page.locator(`[data-testid="import-preview"] tr[data-row-key="${line}"]`);

// Skipped only off CI where Chromium or the built UI is missing (the reason is in `skip`): under CI=true browserSkipReason() throws instead.
describe.skipIf(skip)('importing a crontab from the workflow list', () => {
  const ui = uiFixture({ page: { colorScheme: 'light', locale: 'en-US', viewport: { width: 1360, height: 900 } } });

  afterAll(async () => {
    expect(await ui.page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
  });

  const openImport = async (page: Page, button: string) => {
    await page.goto(`${ui.engine.origin}/#/workflows`);
    await page.getByRole('button', { name: button }).first().click();
    return page.getByRole('dialog');
  };

  it('previews a dropped crontab, imports the ticked lines and shows them in the list', async () => {
    const page = ui.page;
    const dialog = await openImport(page, 'Import crontab');
    await dropFile(page, CRONTAB);
    // the file is read asynchronously
    await expect.poll(() => page.getByLabel('Crontab', { exact: true }).inputValue()).toBe(CRONTAB);
    const summary = dialog.getByTestId('import-summary');
    await expect.poll(() => summary.textContent(), { timeout: 15_000 }).toMatch(/of 8 command lines can be imported/);

    // the date that never comes: greyed, not tickable, with why
    await expect.poll(() => rowOf(page, 15).getAttribute('data-kind')).toBe('skipped');
    expect(await rowOf(page, 15).textContent()).toContain('Not imported:');
    expect(await rowOf(page, 15).getByRole('checkbox').isDisabled()).toBe(true);
    // words for the schedule, the next fires, the redirect's warning, the MAILTO channel's note
    expect(await rowOf(page, 13).textContent()).toContain('0 6 1 * *');
    expect(await rowOf(page, 16).textContent()).toContain("not to AX's log");
    expect(await dialog.getByTestId('import-notes').textContent()).toContain('mail-ops');
    expect(await dialog.getByTestId('import-notes').textContent()).toContain('misfire: skip');
    await rowOf(page, 9).getByTestId('fires-9').hover();
    await page.getByText('The next 5 fires, the same under cron and under AX:').waitFor();
    await animationsDone(page);
    await screenshot(page, 'crontab-import-preview-light');
    await page.mouse.move(0, 0);
    await rowOf(page, 16).scrollIntoViewIfNeeded();
    await animationsDone(page);
    await screenshot(page, 'crontab-import-rows-light');

    // untick the health check and @reboot, rename the dump
    await rowOf(page, 10).getByRole('checkbox').uncheck();
    await rowOf(page, 14).getByRole('checkbox').uncheck();
    const dumpName = rowOf(page, 7).getByLabel('Workflow name for line 7');
    await dumpName.fill('shop-dump');
    const submit = dialog.getByTestId('import-submit');
    await expect.poll(() => submit.textContent()).toMatch(/Import \d+ lines/);
    await expect.poll(() => submit.isEnabled()).toBe(true);
    const count = Number(/Import (\d+) lines/.exec((await submit.textContent()) ?? '')?.[1]);
    const names = await Promise.all(
      [9, 11, 13, 16].map(async (line) => {
        const input = rowOf(page, line).getByLabel(`Workflow name for line ${line}`);
        return (await input.count()) > 0 ? input.inputValue() : undefined;
      }),
    );
    const expected = ['shop-dump', ...names.filter((n): n is string => n !== undefined)];
    expect(count).toBe(expected.length);
    await submit.click();

    const toast = page.getByText(/^Imported \d+ workflows: /);
    await toast.waitFor({ timeout: 15_000 });
    for (const name of expected) expect(await toast.textContent()).toContain(name);
    await dialog.waitFor({ state: 'hidden' });
    for (const name of expected) await page.getByRole('link', { name, exact: true }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole('link', { name: /health/ }).count()).toBe(0);
    await animationsDone(page);
    await screenshot(page, 'crontab-import-done-light');

    const listed = JSON.parse((await ui.engine.ax(['--json', 'ls'])).stdout) as { name: string }[];
    expect(listed.map((w) => w.name).sort()).toEqual([...expected].sort());
    const dump = await ui.engine.ax(['export', 'shop-dump']);
    expect(dump.stdout).toContain('30 2 * * *');
    expect(dump.stdout).toContain('Nightly dump of the shop database');
  });

  it('reads well in dark mode', async () => {
    const page = await ui.newPage({ colorScheme: 'dark', locale: 'en-US', viewport: { width: 1360, height: 900 } });
    const dialog = await openImport(page, 'Import crontab');
    await page.getByLabel('Crontab', { exact: true }).fill(CRONTAB);
    await expect
      .poll(() => dialog.getByTestId('import-summary').textContent(), { timeout: 15_000 })
      .toMatch(/can be imported/);
    // the workflows imported above are flagged as the ones an import would replace
    await rowOf(page, 9).getByText('replaces existing').first().waitFor();
    await animationsDone(page);
    await screenshot(page, 'crontab-import-preview-dark');

    // one workflow for all: its rows name tasks; a line whose schedule is not the first one's is
    // refused with why (a workflow has one schedule)
    await dialog.getByRole('checkbox', { name: /Put every job in one workflow/ }).check();
    await dialog.getByRole('columnheader', { name: 'Task in crontab' }).waitFor({ timeout: 15_000 });
    await expect.poll(() => rowOf(page, 9).getAttribute('data-kind')).toBe('skipped');
    expect(await rowOf(page, 9).textContent()).toContain('a workflow has one schedule');
    await animationsDone(page);
    await screenshot(page, 'crontab-import-group-dark');
    expect(await page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
  });

  it('reads in Simplified Chinese, the file chosen with the picker', async () => {
    const page = await ui.newPage({ colorScheme: 'light', locale: 'zh-CN', viewport: { width: 1360, height: 900 } });
    const dialog = await openImport(page, '导入 crontab');
    const chooser = page.waitForEvent('filechooser');
    await dialog.getByRole('button', { name: '选择文件…' }).click();
    await (await chooser).setFiles({ name: 'crontab', mimeType: 'text/plain', buffer: Buffer.from(CRONTAB) });
    await expect
      .poll(() => dialog.getByTestId('import-summary').textContent(), { timeout: 15_000 })
      .toMatch(/8 条命令行中有 \d+ 条可以导入/);
    expect(await rowOf(page, 15).textContent()).toContain('不导入：');
    await animationsDone(page);
    await screenshot(page, 'crontab-import-preview-zh');
    expect(await page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
  });
});
