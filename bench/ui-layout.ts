// The DAG designer with big workflows, in headless Chromium against a real `ax serve`:
// - 1,000 tasks: time from navigation to the first painted frame of the laid-out graph;
// - 5,000 tasks: the same, and how long the main thread was ever blocked (PerformanceObserver
//   'longtask') while it loads, lays out (in the worker) and while the user pans and zooms;
// - 6,000 tasks: past the drawing limit, time to the "too large to draw: filter first" box and
//   to a filtered graph.
// The workflows are layered DAGs like real big ones: rows of 25 tasks, each fed by 1–2 tasks of
// the row above, applied with `ax apply`.
//   npm run bench -- --only ui-layout [--quick]
import os from 'node:os';
import type { Page } from 'playwright';
import { dagreLayout } from '../renderer/src/graph/dagre-layout.ts';
import { layeredLayout } from '../renderer/src/graph/layered-layout.ts';
import { startServedEngine } from '../test/helpers/serve.ts';
import { browserSkipReason, launchBrowser, signedInPage } from '../test/helpers/ui.ts';
import { type BenchOptions, type BenchTable, fmt, median, seededRandom } from './util.ts';

const ROW = 25;
/** a small workflow loaded the same way: the page's fixed cost, to tell from the graph's */
const BASELINE = 3;

function layeredEdges(n: number): [number, number][] {
  const random = seededRandom(11);
  const edges: [number, number][] = [];
  for (let i = ROW; i < n; i++) {
    const row = Math.floor(i / ROW);
    const ups = new Set<number>();
    const count = 1 + Math.floor(random() * 2);
    while (ups.size < count) ups.add((row - 1) * ROW + Math.floor(random() * ROW));
    for (const u of ups) edges.push([u, i]);
  }
  return edges;
}

export function bigWorkflowYaml(name: string, n: number): string {
  const ups = new Map<number, number[]>();
  for (const [u, d] of layeredEdges(n)) ups.set(d, [...(ups.get(d) ?? []), u]);
  const lines = [`workflow: ${name}`, 'tasks:'];
  const id = (i: number) => `t${String(i).padStart(5, '0')}`;
  for (let i = 0; i < n; i++) {
    lines.push(`  ${id(i)}:`, `    command: echo step ${i}`);
    const u = ups.get(i);
    if (u) lines.push(`    upstream: [${u.map(id).join(', ')}]`);
  }
  return `${lines.join('\n')}\n`;
}

// Runs in the page before any of its scripts: records long tasks and the first frame in which a
// task node is visible (React Flow keeps nodes hidden until it has measured them).
const PROBE = `
  window.__axLong = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__axLong.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: true });
  const look = () => {
    const node = document.querySelector('.react-flow__node');
    if (node && getComputedStyle(node).visibility !== 'hidden') {
      window.__axNodes = document.querySelectorAll('.react-flow__node').length;
      requestAnimationFrame(() => { window.__axPainted = performance.now(); });
      return;
    }
    if (document.querySelector('[data-testid="too-large"]')) {
      requestAnimationFrame(() => { window.__axTooLarge = window.__axTooLarge ?? performance.now(); });
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
`;

interface Load {
  painted: number;
  asked: number;
  spec: number;
  laidOut: number;
  nodes: number;
  longest: number;
  blocking: number;
}

async function loadDesigner(page: Page, origin: string, name: string): Promise<Load> {
  // a full page load each time (as bench/ui-dashboard.ts does), not a client-side route change
  await page.goto(`${origin}/#/designer/${name}`, { waitUntil: 'commit' });
  await page.reload({ waitUntil: 'commit' });
  await page.waitForFunction(
    () => (window as unknown as { __axPainted?: number }).__axPainted !== undefined,
    undefined,
    { timeout: 120_000, polling: 100 },
  );
  // a string, not a function: tsx would wrap the function's inner helpers in __name(), which
  // does not exist in the page
  return page.evaluate(`(() => {
    const mark = (n) => performance.getEntriesByName(n)[0]?.startTime ?? NaN;
    const long = window.__axLong.filter(([start]) => start <= window.__axPainted);
    return {
      painted: window.__axPainted,
      asked: mark('ax:designer-asked'),
      spec: mark('ax:designer-answered'),
      laidOut: mark('ax:designer-laid-out'),
      nodes: window.__axNodes,
      longest: Math.max(0, ...long.map(([, d]) => d)),
      blocking: long.reduce((sum, [, d]) => sum + Math.max(0, d - 50), 0),
    };
  })()`) as Promise<Load>;
}

/** Pans and zooms the drawn graph like a user; returns the longest main-thread task meanwhile. */
async function interact(page: Page): Promise<{ longest: number; count: number }> {
  const box = await page.locator('.react-flow__pane').boundingBox();
  if (!box) throw new Error('no canvas');
  const from = await page.evaluate(() => performance.now());
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 20; i++) await page.mouse.move(box.x + box.width / 2 - i * 15, box.y + box.height / 2 - i * 10);
  await page.mouse.up();
  for (let i = 0; i < 5; i++) {
    await page.mouse.wheel(0, 120);
    await page.waitForTimeout(50);
  }
  await page.waitForTimeout(300);
  return page.evaluate(`(() => {
    const long = window.__axLong.filter(([start]) => start >= ${from});
    return { longest: Math.max(0, ...long.map(([, d]) => d)), count: long.length };
  })()`) as Promise<{ longest: number; count: number }>;
}

function pureLayoutMs(n: number): { layered: number; dagre?: number } {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `t${i}`, width: 208, height: 64 }));
  const edges = layeredEdges(n).map(([s, t]) => ({ source: `t${s}`, target: `t${t}` }));
  let t0 = performance.now();
  layeredLayout(nodes, edges, 'TB');
  const layered = performance.now() - t0;
  if (n > 300) return { layered };
  t0 = performance.now();
  dagreLayout(nodes, edges, 'TB');
  return { layered, dagre: performance.now() - t0 };
}

export async function benchUiLayout(options: BenchOptions): Promise<BenchTable> {
  const skip = browserSkipReason();
  if (skip) return { title: 'UI: designer layout', columns: ['skipped'], rows: [[skip]], notes: [] };
  const [small, big, huge] = options.quick ? [200, 1_000, 5_100] : [1_000, 5_000, 6_000];
  const loads = options.quick ? 2 : 5;
  const rows: (string | number)[][] = [];
  const notes: string[] = [];

  options.progress('pure layout timings (node)');
  for (const n of [150, small, big]) {
    const t = pureLayoutMs(n);
    rows.push([
      `layout alone, ${n.toLocaleString('en-US')} tasks (node, no browser)`,
      `layered ${fmt(t.layered, 0)} ms${t.dagre !== undefined ? ` · dagre ${fmt(t.dagre, 0)} ms` : ''}`,
    ]);
  }

  const engine = await startServedEngine();
  const browser = await launchBrowser();
  try {
    for (const [name, n] of [
      ['baseline', BASELINE],
      ['big-small', small],
      ['big-big', big],
      ['big-huge', huge],
    ] as const) {
      options.progress(`applying a ${n}-task workflow`);
      await engine.apply({ [`${name}.yaml`]: bigWorkflowYaml(name, n) }, { timeoutMs: 300_000 });
    }
    const { context, page } = await signedInPage(browser, engine, { colorScheme: 'light', locale: 'en-US' });
    await context.addInitScript(PROBE);

    for (const [name, n] of [
      ['baseline', BASELINE],
      ['big-small', small],
      ['big-big', big],
    ] as const) {
      const results: Load[] = [];
      for (let i = 0; i < loads; i++) {
        results.push(await loadDesigner(page, engine.origin, name));
        options.progress(
          `${n} tasks, load ${i + 1}/${loads}: painted at ${fmt(results[results.length - 1]!.painted, 0)} ms`,
        );
      }
      const m = (f: (l: Load) => number) => fmt(median(results.map(f)), 0);
      const label = `${n.toLocaleString('en-US')} tasks`;
      rows.push([`${label}: navigation → laid-out graph painted, first load`, `${fmt(results[0]!.painted, 0)} ms`]);
      rows.push([
        `${label}: navigation → laid-out graph painted, **median of ${loads}**`,
        `**${m((l) => l.painted)} ms**`,
      ]);
      rows.push([
        `${label}:   of which spec asked / arrived / laid out (median)`,
        `${m((l) => l.asked)} / ${m((l) => l.spec)} / ${m((l) => l.laidOut)} ms`,
      ]);
      rows.push([`${label}:   longest main-thread task before the paint (median)`, `${m((l) => l.longest)} ms`]);
      rows.push([`${label}:   total blocking time before the paint (median)`, `${m((l) => l.blocking)} ms`]);
      rows.push([`${label}:   task nodes in the DOM at first paint`, `${results[0]!.nodes}`]);
      if (n === big) {
        const pan = await interact(page);
        rows.push([
          `${label}: longest main-thread task while panning and zooming`,
          `${fmt(pan.longest, 0)} ms (${pan.count} tasks over 50 ms)`,
        ]);
      }
    }

    options.progress(`${huge} tasks: the too-large path`);
    await page.goto(`${engine.origin}/#/designer/big-huge`, { waitUntil: 'commit' });
    await page.reload({ waitUntil: 'commit' });
    await page.waitForFunction(
      () => (window as unknown as { __axTooLarge?: number }).__axTooLarge !== undefined,
      undefined,
      { timeout: 120_000, polling: 100 },
    );
    const tooLarge = await page.evaluate(() => (window as unknown as { __axTooLarge: number }).__axTooLarge);
    rows.push([
      `${huge.toLocaleString('en-US')} tasks (over the drawing limit): navigation → "filter first" box painted`,
      `${fmt(tooLarge, 0)} ms`,
    ]);
    const t0 = Date.now();
    await page.getByLabel('Filter tasks by name or command').fill('t0012');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.react-flow__node', { timeout: 60_000 });
    const drawn = await page.locator('.react-flow__node').count();
    rows.push([
      `${huge.toLocaleString('en-US')} tasks: filter "t0012" → matches drawn`,
      `${Date.now() - t0} ms (${drawn} tasks with neighbours, timed from the test driver)`,
    ]);
    await context.close();
    notes.push(
      `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${os
        .loadavg()
        .map((l) => fmt(l, 1))
        .join(
          ' ',
        )} at the end; headless Chromium 1280×800, full page loads (session check, WebSocket, api.exportWorkflow, layout, render)`,
    );
    return {
      title: 'UI: DAG designer with big workflows (headless Chromium)',
      columns: ['measure', 'value'],
      rows,
      notes,
    };
  } finally {
    await browser.close();
    await engine.stop();
  }
}
