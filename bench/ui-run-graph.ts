// The run page's graph with big runs, in headless Chromium against a real `ax serve`: for runs
// of 150 and 1,000 tasks (ranks of 25, as bench/ui-layout.ts builds them), the time from
// navigation to the first painted task node and to the first frame whose task names render at
// 10 px or more (rendered font = computed font size × the view's zoom), and the smallest name
// at the default fit, in the page's box and full screen. Printed, not asserted.
//   npm run bench -- --only ui-run-graph [--quick]
import type { Page } from 'playwright';
import { startServedEngine } from '../test/helpers/serve.ts';
import { browserSkipReason, launchBrowser, signedInPage } from '../test/helpers/ui.ts';
import { bigWorkflowYaml } from './ui-layout.ts';
import { type BenchOptions, type BenchTable, fmt, median } from './util.ts';

// Runs in the page before its scripts: the first frame with a task node, and the first frame
// after the graph was fitted whole (FitOnChange's mark) whose names all render at 10 px or more.
const PROBE = `
  const look = () => {
    const root = document.querySelector('[data-testid="run-graph"]');
    const vp = root && root.querySelector('.react-flow__viewport');
    const node = root && root.querySelector('.react-flow__node');
    if (vp && node && getComputedStyle(node).visibility !== 'hidden') {
      window.__axPainted = window.__axPainted ?? performance.now();
      if (performance.getEntriesByName('ax:graph-fitted').length > 0) {
        const zoom = new DOMMatrix(getComputedStyle(vp).transform).a;
        let min = Infinity;
        for (const el of root.querySelectorAll('.react-flow__node .ax-task-node__name'))
          min = Math.min(min, parseFloat(getComputedStyle(el).fontSize) * zoom);
        window.__axFitted = window.__axFitted ?? performance.now();
        if (min >= 10) window.__axLegible = performance.now();
        return;
      }
    }
    if (performance.now() < 60000) requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
`;

const smallest = (page: Page) =>
  page.locator('[data-testid="run-graph"]').evaluate((root) => {
    const vp = root.querySelector('.react-flow__viewport');
    const zoom = vp ? new DOMMatrix(getComputedStyle(vp).transform).a : 0;
    let min = Infinity;
    for (const el of root.querySelectorAll('.react-flow__node .ax-task-node__name'))
      min = Math.min(min, parseFloat(getComputedStyle(el).fontSize) * zoom);
    return min;
  });

export async function benchUiRunGraph(options: BenchOptions): Promise<BenchTable> {
  const title = 'UI: run graph at 150 and 1,000 tasks';
  const skip = browserSkipReason();
  if (skip) return { title, columns: ['skipped'], rows: [[skip]], notes: [] };
  const loads = options.quick ? 2 : 5;
  const rows: (string | number)[][] = [];
  const engine = await startServedEngine();
  const browser = await launchBrowser();
  try {
    const runs: [number, number][] = [];
    for (const n of [150, 1_000]) {
      const name = `graph-${n}`;
      options.progress(`applying and starting a ${n}-task workflow`);
      await engine.apply({ [`${name}.yaml`]: bigWorkflowYaml(name, n) }, { timeoutMs: 300_000 });
      const started = await engine.ax(['--json', 'run', name]);
      const id = Number(
        (JSON.parse(started.stdout) as { id?: number; runId?: number }).id ?? JSON.parse(started.stdout).runId,
      );
      // cancelled at once: the page is timed on an idle engine, not one running 1,000 tasks
      await engine.ax(['cancel', String(id)], { timeoutMs: 120_000 });
      runs.push([n, id]);
    }
    const { context, page } = await signedInPage(browser, engine, {
      viewport: { width: 1440, height: 900 },
    });
    await context.addInitScript(PROBE);
    for (const [n, id] of runs) {
      const painted: number[] = [];
      const legible: number[] = [];
      let inPage = 0;
      for (let i = 0; i < loads; i++) {
        await page.goto(`${engine.origin}/#/runs/${id}`, { waitUntil: 'commit' });
        await page.reload({ waitUntil: 'commit' });
        await page.waitForFunction(
          () => (window as unknown as { __axFitted?: number }).__axFitted !== undefined,
          undefined,
          {
            timeout: 120_000,
            polling: 100,
          },
        );
        const t = await page.evaluate(() => {
          const w = window as unknown as { __axPainted: number; __axLegible?: number };
          return { painted: w.__axPainted, legible: w.__axLegible };
        });
        painted.push(t.painted);
        if (t.legible !== undefined) legible.push(t.legible);
        inPage = await smallest(page);
        options.progress(`${n} tasks, load ${i + 1}/${loads}: painted at ${fmt(t.painted, 0)} ms`);
      }
      await page.getByTestId('graph-full-screen').click();
      await page.waitForFunction(
        () => document.querySelector('[data-testid="run-graph"]')!.getBoundingClientRect().width > 1300,
      );
      // the refit runs two frames after the box has grown
      await page.evaluate(
        () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))),
      );
      const full = await smallest(page);
      const label = `${n.toLocaleString('en-US')} tasks`;
      rows.push([
        `${label}: navigation → first task node painted (median of ${loads})`,
        `${fmt(median(painted), 0)} ms`,
      ]);
      rows.push([
        `${label}: navigation → fitted with names ≥ 10 px, page's box (median)`,
        legible.length
          ? `${fmt(median(legible), 0)} ms (${legible.length}/${loads} loads)`
          : 'not legible at the default fit',
      ]);
      rows.push([
        `${label}: smallest rendered name at the default fit, page's box / full screen`,
        `${fmt(inPage, 1)} / ${fmt(full, 1)} px`,
      ]);
    }
  } finally {
    await browser.close();
    await engine.stop();
  }
  return {
    title,
    columns: ['measure', 'value'],
    rows,
    notes: [
      "Rendered name = computed font size × zoom. Zoomed out, nodes are drawn compact with a bigger name (renderer/src/graph/lod.ts); wide ranks wrap to the view's shape (layout.ts).",
      "The page's box is the run page's layout at 1440×900; full screen is the graph's own overlay.",
    ],
  };
}
