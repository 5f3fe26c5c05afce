// The main screens with the realistic data set (test/helpers/real-data.ts: nine workflows run for
// real, a 150-task DAG, a 20,000-line log, weeks of history), in headless Chromium against a real
// `ax serve` at 1440×900: the time from a full page load to the frame after each screen's data is
// painted — the dashboard, the workflows list, the 150-task run page, the 20k-line log at its end.
//   npm run bench -- --only ui-real-data [--quick]
import os from 'node:os';
import type { Page } from 'playwright';
import { buildRealData, engineApi } from '../test/helpers/real-data.ts';
import { startServedEngine } from '../test/helpers/serve.ts';
import { browserSkipReason, launchBrowser, signedInPage } from '../test/helpers/ui.ts';
import { type BenchOptions, type BenchTable, fmt, median } from './util.ts';

/** painted: an element matching `selector` (holding `text`, if given) exists, then a frame more */
interface Ready {
  selector: string;
  text?: string;
}

/**
 * A full page load of `hash` (nothing cached in the page), then ms from the navigation's start to
 * the frame after `ready` holds, by the page's own clock.
 */
async function timeLoad(page: Page, origin: string, hash: string, ready: Ready): Promise<number> {
  await page.goto(`${origin}/${hash}`, { waitUntil: 'commit' });
  await page.reload({ waitUntil: 'commit' });
  // tsx's keepNames wraps functions declared in the callback in a `__name` the page lacks
  await page.evaluate('globalThis.__name ??= (f) => f');
  return page.evaluate(async ({ selector, text }) => {
    const isReady = () =>
      [...document.querySelectorAll(selector)].some((el) => text === undefined || el.textContent?.includes(text));
    await new Promise<void>((resolve, reject) => {
      const give = setTimeout(() => reject(new Error(`not painted after 60 s: ${selector} ${text ?? ''}`)), 60_000);
      const check = () =>
        isReady() ? requestAnimationFrame(() => (clearTimeout(give), resolve())) : requestAnimationFrame(check);
      check();
    });
    return performance.now();
  }, ready);
}

export async function benchUiRealData(options: BenchOptions): Promise<BenchTable> {
  const title = 'UI: main screens with the realistic data set (headless Chromium, 1440×900)';
  const skip = browserSkipReason();
  if (skip) return { title, columns: ['skipped'], rows: [[skip]], notes: [] };
  const loads = options.quick ? 2 : 5;
  const engine = await startServedEngine();
  const browser = await launchBrowser();
  try {
    options.progress('building the realistic data set');
    const data = await buildRealData(engine);
    const api = await engineApi(engine);
    const lastSeq = (await api.logInfo(data.instances.buildLog)).lastSeq;
    const runs = (await api.listRuns({ limit: 10_000 })).length;
    api.close();

    const screens: [string, string, Ready][] = [
      ['dashboard', '#/', { selector: '[data-testid="dashboard-loaded"]' }],
      // the last of the nine rows by name
      ['workflows list (9 workflows)', '#/workflows', { selector: '.ant-table-row', text: 'slow-export' }],
      [
        'run page, 150-task run (first task node painted)',
        `#/runs/${data.runs.dag}`,
        { selector: '[data-testid="run-graph"] .react-flow__node' },
      ],
      [
        `instance page, ${lastSeq.toLocaleString('en-US')}-line coloured log (its last line painted)`,
        `#/instances/${data.instances.buildLog}`,
        { selector: `.ax-log-row[data-seq="${lastSeq}"]` },
      ],
    ];
    const { context, page } = await signedInPage(browser, engine, {
      colorScheme: 'light',
      locale: 'en-US',
      viewport: { width: 1440, height: 900 },
    });
    const rows: (string | number)[][] = [];
    for (const [name, hash, ready] of screens) {
      const times: number[] = [];
      for (let i = 0; i < loads; i++) times.push(await timeLoad(page, engine.origin, hash, ready));
      options.progress(`${name}: ${times.map((t) => fmt(t, 0)).join(', ')} ms`);
      rows.push([
        name,
        `${fmt(times[0] as number, 0)} ms`,
        `${fmt(median(times), 0)} ms`,
        `${fmt(Math.max(...times), 0)} ms`,
      ]);
    }
    await context.close();
    data.release();
    return {
      title,
      columns: ['navigation → data painted', 'first load', `median of ${loads}`, 'slowest'],
      rows,
      notes: [
        `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${fmt(os.loadavg()[0] ?? 0, 1)} at the end; a full page load each time (session check, WebSocket, the screen's calls, render)`,
        `data set built in ${fmt(data.builtInMs / 1000, 1)} s: nine workflows run for real, ${runs.toLocaleString('en-US')} runs in all with the seeded history`,
      ],
    };
  } finally {
    await browser.close();
    await engine.stop();
  }
}
