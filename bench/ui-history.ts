// The workflow page's run-history grid at issue 24's size, in headless Chromium against a real
// `ax serve`: a 150-task DAG with 50 finished runs (150 × 50 = 7,500 cells). Measures navigation
// → every bar and the first rows painted, how many cells the page holds (virtualised rows), and
// scrolling the grid top to bottom: the frames' times while it scrolls. Printed, not asserted.
//   npm run bench -- --only ui-history [--quick]
import os from 'node:os';
import { startServedEngine } from '../test/helpers/serve.ts';
import { browserSkipReason, launchBrowser, signedInPage } from '../test/helpers/ui.ts';
import { seedHistory } from '../test/ui/seed-history.ts';
import { wideDagYaml } from '../test/ui/wide-dag.ts';
import { type BenchOptions, type BenchTable, fmt, median, percentile } from './util.ts';

const RUNS = 50;

export async function benchUiHistory(options: BenchOptions): Promise<BenchTable> {
  const title = `UI: run-history grid, 150 tasks × ${RUNS} runs (headless Chromium, 1440×900)`;
  const skip = browserSkipReason();
  if (skip) return { title, columns: ['skipped'], rows: [[skip]], notes: [] };
  const loads = options.quick ? 2 : 5;
  const engine = await startServedEngine();
  const browser = await launchBrowser();
  try {
    options.progress('applying the 150-task workflow and writing its history');
    await engine.apply({ 'wide.yaml': wideDagYaml('wide') });
    seedHistory(engine.dataDir, RUNS, { workflow: 'wide', days: 10, varied: true });
    const { context, page } = await signedInPage(browser, engine, { viewport: { width: 1440, height: 900 } });
    const paints: number[] = [];
    let cells = 0;
    const frames: number[] = [];
    let scrollMs = 0;
    for (let i = 0; i < loads; i++) {
      await page.goto(`${engine.origin}/#/`, { waitUntil: 'commit' });
      const start = Date.now();
      await page.goto(`${engine.origin}/#/workflows/wide`, { waitUntil: 'commit' });
      await page.reload({ waitUntil: 'commit' });
      await page.waitForFunction(
        (runs) =>
          document.querySelectorAll('[data-testid="history-bar"]').length === runs &&
          document.querySelector('[data-testid="history-grid"] [role="row"][data-task]') !== null,
        RUNS,
        { timeout: 60_000 },
      );
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      paints.push(Date.now() - start);
      options.progress(`load ${i + 1}/${loads}: ${paints[paints.length - 1]} ms`);
    }
    cells = await page.locator('[data-testid="history-grid"] a[data-state]').count();
    // scroll the grid from top to bottom, 60 px a frame, recording each frame's time
    const scrolled = await page.evaluate(async () => {
      const el = document.querySelector('[data-testid="history-grid"]') as HTMLElement;
      const times: number[] = [];
      const t0 = performance.now();
      let last = t0;
      while (el.scrollTop + el.clientHeight < el.scrollHeight - 1) {
        el.scrollTop += 60;
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        times.push(now - last);
        last = now;
      }
      return { times, total: performance.now() - t0 };
    });
    frames.push(...scrolled.times);
    scrollMs = scrolled.total;
    await context.close();
    return {
      title,
      columns: ['measure', 'value'],
      rows: [
        ['navigation (reload) → 50 bars and the first rows painted, first load', `${fmt(paints[0] as number, 0)} ms`],
        [`the same, median of ${loads}`, `${fmt(median(paints), 0)} ms`],
        ['cell links in the page (of 7,500)', cells],
        [`scroll top → bottom, ${frames.length} frames of 60 px`, `${fmt(scrollMs, 0)} ms`],
        ['frame time while scrolling, median', `${fmt(median(frames), 1)} ms`],
        ['frame time while scrolling, p95', `${fmt(percentile(frames, 0.95), 1)} ms`],
        ['slowest frame', `${fmt(Math.max(...frames), 1)} ms`],
      ],
      notes: [
        `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${fmt(os.loadavg()[0] ?? 0, 1)} at the end; headless frames are paced at ~16.7 ms`,
      ],
    };
  } finally {
    await browser.close();
    await engine.stop();
  }
}
