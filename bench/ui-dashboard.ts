// The dashboard with 10,000 runs in history, in headless Chromium against a real `ax serve`:
// the time from navigation to the dashboard's data painted (page load, session check, WebSocket,
// api.dashboard(), render). History is written straight into the SQLite file (final runs only,
// so the engine has nothing to do with them); the UI reads it like any other history.
//   npm run bench -- --only ui-dashboard [--quick]
import os from 'node:os';
import { startServedEngine } from '../test/helpers/serve.ts';
import { browserSkipReason, launchBrowser, signedInPage } from '../test/helpers/ui.ts';
import { seedHistory } from '../test/ui/seed-history.ts';
import { type BenchOptions, type BenchTable, fmt, median } from './util.ts';

const WORKFLOWS = 10;
const TASKS = ['extract', 'clean', 'load', 'report'];

export function workflowYaml(i: number): string {
  const name = `bench-wf-${String(i).padStart(2, '0')}`;
  const schedule =
    i % 2 === 0
      ? `schedule:\n  cron: "${i} ${i % 24} * * *"\n  timezone: ${i % 4 === 0 ? 'Asia/Shanghai' : 'UTC'}\n`
      : '';
  const tasks = TASKS.map(
    (t, k) => `  ${t}:\n    command: echo ${t}\n${k > 0 ? `    upstream: [${TASKS[k - 1]}]\n` : ''}`,
  ).join('');
  return `workflow: ${name}\n${schedule}tasks:\n${tasks}`;
}

export async function benchUiDashboard(options: BenchOptions): Promise<BenchTable> {
  const skip = browserSkipReason();
  if (skip) return { title: 'UI: dashboard load', columns: ['skipped'], rows: [[skip]], notes: [] };
  const runs = options.quick ? 500 : 10_000;
  const loads = options.quick ? 2 : 7;
  const engine = await startServedEngine();
  const browser = await launchBrowser();
  try {
    options.progress(`applying ${WORKFLOWS} workflows`);
    for (let i = 0; i < WORKFLOWS; i++) {
      await engine.apply({ [`wf${i}.yaml`]: workflowYaml(i) });
    }
    options.progress(`writing ${runs} runs (${runs * TASKS.length} task instances)`);
    const t0 = performance.now();
    seedHistory(engine.dataDir, runs);
    const seedMs = performance.now() - t0;

    const { context, page } = await signedInPage(browser, engine, { colorScheme: 'light', locale: 'en-US' });
    const times: number[] = [];
    const marks: Record<string, number[]> = {};
    for (let i = 0; i < loads; i++) {
      // a full page load each time (not a client-side route change): nothing cached in the page
      await page.goto(`${engine.origin}/#/`, { waitUntil: 'commit' });
      await page.reload({ waitUntil: 'commit' });
      await page.waitForSelector('[data-testid="dashboard-loaded"]', { timeout: 30_000 });
      // the page marks the frame after the one that showed the data (DashboardPage.tsx); marks
      // count from the start of the navigation
      await page.waitForFunction(() => performance.getEntriesByName('ax:dashboard-painted').length > 0, undefined, {
        timeout: 30_000,
      });
      times.push(
        await page.evaluate(() => performance.getEntriesByName('ax:dashboard-painted')[0]?.startTime ?? Number.NaN),
      );
      // the app's own marks (boot.ts, connection.ts, dashboard-query.ts): where the time went
      const found = await page.evaluate(() => [
        ...performance
          .getEntriesByType('navigation')
          .map(
            (n) =>
              ['scripts run (DOMContentLoaded)', (n as PerformanceNavigationTiming).domContentLoadedEventEnd] as const,
          ),
        ...performance
          .getEntriesByType('mark')
          .filter((m) => m.name.startsWith('ax:'))
          .map((m) => [m.name, m.startTime] as const),
      ]);
      for (const [name, at] of found) (marks[name] ??= []).push(at);
      options.progress(`load ${i + 1}/${loads}: ${fmt(times[times.length - 1] as number, 0)} ms`);
    }
    const load = os.loadavg()[0] ?? 0;
    const figures = await page.evaluate(
      () => document.querySelector('[data-testid="dashboard-loaded"]')?.textContent?.slice(0, 80) ?? '',
    );
    await context.close();
    return {
      title: `UI: dashboard with ${runs.toLocaleString('en-US')} runs in history (headless Chromium, 1280×800)`,
      columns: ['measure', 'value'],
      rows: [
        ['navigation → dashboard data painted, first load', `${fmt(times[0] as number, 0)} ms`],
        [`navigation → dashboard data painted, median of ${loads}`, `${fmt(median(times), 0)} ms`],
        ['slowest load', `${fmt(Math.max(...times), 0)} ms`],
        ...Object.entries(marks)
          .sort((x, y) => median(x[1]) - median(y[1]))
          .map(([name, at]) => [`  of which: ${name} at (median)`, `${fmt(median(at), 0)} ms`]),
        [`writing the history (${runs} runs, ${runs * TASKS.length} instances)`, `${fmt(seedMs, 0)} ms`],
      ],
      notes: [
        `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${fmt(load, 1)} at the end; includes page load, session check, WebSocket connect, api.dashboard() and render`,
        `first figures on screen: "${figures}"`,
      ],
    };
  } finally {
    await browser.close();
    await engine.stop();
  }
}
