// The runs page across workflows with 10,000 runs in history, in headless Chromium against a real
// `ax serve`: navigation → the first page of the list painted, a filter change → the filtered
// list painted, and the calendar of a year (a full load of ?view=calendar&range=365 → its 365
// squares). History is written straight into the SQLite file, spread over a year.
//   npm run bench -- --only ui-runs [--quick]
import os from 'node:os';
import type { Page } from 'playwright';
import { startServedEngine } from '../test/helpers/serve.ts';
import { browserSkipReason, launchBrowser, signedInPage } from '../test/helpers/ui.ts';
import { seedHistory } from '../test/ui/seed-history.ts';
import { workflowYaml } from './ui-dashboard.ts';
import { type BenchOptions, type BenchTable, fmt, median } from './util.ts';

const WORKFLOWS = 10;

/** what the page must show: list rows (all in this state, of this workflow when given), or the year's squares */
type Ready = { list: { state?: string; workflow?: string } } | { year: true };

function isReady(ready: Ready): boolean {
  if ('year' in ready)
    return document.querySelectorAll('[data-testid="calendar-year"] [data-testid="calendar-cell"]').length >= 365;
  const rows = [...document.querySelectorAll('[data-testid="run-list"] tr[data-run-id]')];
  const { state, workflow } = ready.list;
  return (
    rows.length > 0 &&
    rows.every(
      (r) =>
        (!state || r.getAttribute('data-state') === state) &&
        (!workflow || r.querySelector('td:nth-child(3) a')?.textContent === workflow),
    )
  );
}

/** ms from the navigation's start until the page is `ready` (checked every frame) */
async function loadTime(page: Page, url: string, ready: Ready): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  await page.reload({ waitUntil: 'commit' });
  await page.waitForFunction(isReady, ready, { timeout: 60_000, polling: 'raf' });
  return page.evaluate(() => performance.now());
}

/** ms from a change of the address (a client-side route change) until the page is `ready` */
async function changeTime(page: Page, hash: string, ready: Ready): Promise<number> {
  const t0 = await page.evaluate((h) => {
    const start = performance.now();
    location.hash = h;
    return start;
  }, hash);
  await page.waitForFunction(isReady, ready, { timeout: 60_000, polling: 'raf' });
  return (await page.evaluate(() => performance.now())) - t0;
}

export async function benchUiRuns(options: BenchOptions): Promise<BenchTable> {
  const skip = browserSkipReason();
  if (skip) return { title: 'UI: runs page', columns: ['skipped'], rows: [[skip]], notes: [] };
  const runs = options.quick ? 500 : 10_000;
  const loads = options.quick ? 2 : 5;
  const engine = await startServedEngine();
  const browser = await launchBrowser();
  try {
    options.progress(`applying ${WORKFLOWS} workflows`);
    await engine.apply(
      Object.fromEntries(Array.from({ length: WORKFLOWS }, (_, i) => [`wf${i}.yaml`, workflowYaml(i)])),
    );
    options.progress(`writing ${runs} runs over a year`);
    seedHistory(engine.dataDir, runs, { days: 365, triggers: ['cron', 'cron', 'manual', 'event'], failRate: 0.05 });
    const { context, page } = await signedInPage(browser, engine, {
      colorScheme: 'light',
      locale: 'en-US',
      viewport: { width: 1440, height: 900 },
    });
    const list: number[] = [];
    const filtered: number[] = [];
    const unfiltered: number[] = [];
    const year: number[] = [];
    for (let i = 0; i < loads; i++) {
      list.push(await loadTime(page, `${engine.origin}/#/runs`, { list: {} }));
      filtered.push(await changeTime(page, '#/runs?state=FAILED&trigger=cron', { list: { state: 'FAILED' } }));
      unfiltered.push(await changeTime(page, '#/runs?workflow=bench-wf-03', { list: { workflow: 'bench-wf-03' } }));
      year.push(await loadTime(page, `${engine.origin}/#/runs?view=calendar&range=365`, { year: true }));
      options.progress(
        `round ${i + 1}/${loads}: list ${fmt(list[i] as number, 0)} ms, filter ${fmt(filtered[i] as number, 0)} ms, year ${fmt(year[i] as number, 0)} ms`,
      );
    }
    await context.close();
    const row = (what: string, values: number[]) => [
      what,
      `${fmt(values[0] as number, 0)} ms`,
      `${fmt(median(values), 0)} ms`,
      `${fmt(Math.max(...values), 0)} ms`,
    ];
    return {
      title: `UI: runs page with ${runs.toLocaleString('en-US')} runs over a year (headless Chromium, 1440×900)`,
      columns: ['measure', 'first', `median of ${loads}`, 'slowest'],
      rows: [
        row('navigation → first page of the list painted', list),
        row('filter change (state + trigger) → filtered list painted', filtered),
        row('filter change (workflow) → list painted', unfiltered),
        row('navigation → calendar of a year painted (365 squares)', year),
      ],
      notes: [
        `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${fmt(os.loadavg()[0] ?? 0, 1)} at the end`,
        'a navigation includes page load, session check, WebSocket connect, the engine read and render; a filter change is a client-side route change',
      ],
    };
  } finally {
    await browser.close();
    await engine.stop();
  }
}
