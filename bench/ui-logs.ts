// The log viewer in headless Chromium against a real `ax serve`:
//  1. an instance with 1,000,000 log lines (written straight into the data dir's SQLite store,
//     as chunks): time to open its page and paint its last lines, to jump to the top and
//     back to the end, and to find a line by the server-side search; the engine calls alone
//     (logInfo, one page of readLogs, searchLog) over the WebSocket from Node, for comparison;
//  2. a task printing 10,000 lines a second while the viewer follows it: frame intervals, long
//     tasks, how far the viewer is behind the store, against the same firehose with the browser
//     on a page without a log (the machine's baseline).
//   npm run bench -- --only ui-logs [--quick]   (ui-logs-big or ui-logs-firehose for one half)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright';
import { openSqliteStore } from '../engine/adapters/sql/sqlite-store.ts';
import type { LogLine } from '../engine/api/types.ts';
import { connectApi } from '../engine/server/ws-client.ts';
import { type ServedEngine, startServedEngine } from '../test/helpers/serve.ts';
import { browserSkipReason, launchBrowser, signedInPage } from '../test/helpers/ui.ts';
import { type BenchOptions, type BenchTable, fmt, median, percentile } from './util.ts';

/** Lines 2..total of one instance (line 1 is the task's own "start"), 50k lines per appendLogs. */
async function seedLog(dataDir: string, instanceId: number, total: number): Promise<void> {
  const store = await openSqliteStore(path.join(dataDir, 'ax.db'));
  const t0 = Date.now() - total;
  try {
    for (let from = 2; from <= total; from += 50_000) {
      const lines: LogLine[] = [];
      for (let s = from; s <= Math.min(total, from + 49_999); s++) {
        const stream = s % 97 === 0 ? 'stderr' : 'stdout';
        const line =
          s % 100_000 === 0
            ? `\u001b[33mcheckpoint\u001b[0m needle-${s / 100_000} at row ${s}`
            : `row ${s}: processed order ${(s * 7919) % 100_000} status=ok`;
        lines.push({ instanceId, seq: s, stream, ts: t0 + s, line });
      }
      await store.appendLogs(lines);
    }
  } finally {
    await store.close();
  }
}

/** What to do in the page (data, not code: the page's CSP forbids eval). */
interface Action {
  hash?: string;
  scrollTop?: number;
  click?: string;
  enterIn?: string;
}
/** When it is done: a row painted with some text, the current search hit, or an element. */
interface Ready {
  seq?: number;
  current?: boolean;
  text?: string;
  selector?: string;
}

// tsx compiles with esbuild's keepNames, which wraps the functions declared inside an evaluated
// callback in a `__name` helper the page does not have; an identity one makes them run.
const shimNames = (page: Page) => page.evaluate('globalThis.__name ??= (f) => f');

/** In the page: does `action`, resolves with ms until the frame after `ready` holds. */
async function timeInPage(page: Page, action: Action, ready: Ready): Promise<number> {
  await shimNames(page);
  return page.evaluate(
    async ({ action, ready }) => {
      const isReady = () => {
        if (ready.selector) return !!document.querySelector(ready.selector);
        const row = ready.current
          ? document.querySelector('.ax-log-current')
          : document.querySelector(`.ax-log-row[data-seq="${ready.seq}"]`);
        if (!row || (ready.current && row.getAttribute('data-seq') !== String(ready.seq))) return false;
        return (row.querySelector('.ax-log-text')?.textContent ?? '').includes(ready.text ?? '');
      };
      const t0 = performance.now();
      if (action.hash !== undefined) location.hash = action.hash;
      if (action.scrollTop !== undefined)
        (document.querySelector('[data-testid=log-scroll]') as HTMLElement).scrollTop = action.scrollTop;
      if (action.click) (document.querySelector(action.click) as HTMLElement).click();
      if (action.enterIn)
        document
          .querySelector(action.enterIn)
          ?.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
      await new Promise<void>((resolve, reject) => {
        const give = setTimeout(() => reject(new Error(`not ready after 60 s: ${JSON.stringify(ready)}`)), 60_000);
        const check = () =>
          isReady() ? requestAnimationFrame(() => (clearTimeout(give), resolve())) : requestAnimationFrame(check);
        check();
      });
      return action.hash === undefined && action.scrollTop === undefined && !action.click && !action.enterIn
        ? performance.now()
        : performance.now() - t0;
    },
    { action, ready },
  );
}

async function bigLog(engine: ServedEngine, options: BenchOptions, total: number): Promise<(string | number)[][]> {
  const file = engine.writeFile('big.yaml', 'workflow: big-log\ntasks:\n  huge:\n    command: echo start\n');
  const ran = await engine.ax(['run', file, '--wait']);
  if (ran.code !== 0) throw new Error(`ax run: ${ran.stderr}`);
  const runs = JSON.parse((await engine.ax(['--json', 'runs'])).stdout) as { id: number }[];
  const detail = JSON.parse((await engine.ax(['--json', 'runs', String(runs[0]?.id)])).stdout) as {
    instances: { id: number }[];
  };
  const id = detail.instances[0]?.id as number;
  options.progress(`writing ${total.toLocaleString('en-US')} log lines into instance ${id}`);
  const s0 = performance.now();
  await seedLog(engine.dataDir, id, total);
  const seedMs = performance.now() - s0;
  const lastText = total % 100_000 === 0 ? `needle-${total / 100_000}` : `row ${total}:`;
  // a line near the middle that only the search finds (the trailing space keeps needle-5 from matching needle-50)
  const needleSeq = total >= 200_000 ? Math.floor(total / 2 / 100_000) * 100_000 : 100_000;
  const needle = `needle-${needleSeq / 100_000} `;

  // the engine calls alone, as the viewer makes them
  const api = await connectApi(
    `ws://127.0.0.1:${engine.port}/api`,
    fs.readFileSync(path.join(engine.dataDir, 'api-token'), 'utf8').trim(),
  );
  const callTimes: Record<string, number[]> = {
    logInfo: [],
    'readLogs (last page, 500 lines)': [],
    'searchLog (1 hit in the middle, whole log scanned)': [],
  };
  for (let i = 0; i < 3; i++) {
    let t = performance.now();
    const info = await api.logInfo(id);
    callTimes.logInfo?.push(performance.now() - t);
    t = performance.now();
    await api.readLogs(id, info.lastSeq - 500, 500);
    callTimes['readLogs (last page, 500 lines)']?.push(performance.now() - t);
    t = performance.now();
    await api.searchLog(id, needle, { afterSeq: 0, limit: 500 });
    callTimes['searchLog (1 hit in the middle, whole log scanned)']?.push(performance.now() - t);
  }
  api.close();

  const loads = options.quick ? 2 : 5;
  const { context, page } = await signedInPage(browser(), engine, { colorScheme: 'light', locale: 'en-US' });
  const open: number[] = [];
  const openCold: number[] = [];
  const top: number[] = [];
  const end: number[] = [];
  const find: number[] = [];
  for (let i = 0; i < loads; i++) {
    // cold: a full page load straight onto the instance, timed from the navigation's start
    await page.goto(`${engine.origin}/#/`, { waitUntil: 'commit' });
    await page.goto(`${engine.origin}/#/instances/${id}`, { waitUntil: 'commit' });
    await page.reload({ waitUntil: 'commit' });
    // (no action: the figure is the page's clock, which starts with the navigation)
    openCold.push(await timeInPage(page, {}, { seq: total, text: lastText }));
    // in the app: from the dashboard (fresh page, nothing cached) to the instance's last lines
    await page.goto(`${engine.origin}/#/`, { waitUntil: 'commit' });
    await page.reload({ waitUntil: 'commit' });
    await page.waitForSelector('[data-testid="dashboard-loaded"]', { timeout: 60_000 });
    open.push(await timeInPage(page, { hash: `#/instances/${id}` }, { seq: total, text: lastText }));
    top.push(await timeInPage(page, { scrollTop: 0 }, { seq: 2, text: 'row 2:' }));
    end.push(await timeInPage(page, { click: '[data-testid=log-jump]' }, { seq: total, text: lastText }));
    await page.getByTestId('log-search').fill(needle);
    find.push(
      await timeInPage(
        page,
        { enterIn: '[data-testid=log-search]' },
        { current: true, seq: needleSeq, text: needle.trim() },
      ),
    );
    const rows = await page.locator('.ax-log-row').count();
    options.progress(
      `open ${i + 1}/${loads}: cold ${fmt(openCold.at(-1) as number, 0)} ms, in app ${fmt(open.at(-1) as number, 0)} ms, top ${fmt(top.at(-1) as number, 0)} ms, end ${fmt(end.at(-1) as number, 0)} ms, search ${fmt(find.at(-1) as number, 0)} ms (${rows} rows in the page)`,
    );
  }
  await context.close();
  const m = (xs: number[]) => `${fmt(median(xs), 0)} (${fmt(Math.min(...xs), 0)}–${fmt(Math.max(...xs), 0)})`;
  return [
    [`open the instance page from the dashboard → last lines painted`, m(open)],
    ['open the instance page by a full page load → last lines painted (from navigation start)', m(openCold)],
    ['jump to the top (scrollTop = 0) → first lines painted', m(top)],
    ['"Jump to latest" → last lines painted', m(end)],
    ['search a line in the middle → hit scrolled to, highlighted, painted', m(find)],
    ...Object.entries(callTimes).map(([name, xs]) => [`  engine call from Node: ${name}`, m(xs)]),
    [`writing the ${total.toLocaleString('en-US')} lines into SQLite`, fmt(seedMs, 0)],
  ];
}

/** A node script printing `rate` lines a second for `seconds`, with a colour code in each. */
const FIREHOSE = `const [rate, secs] = process.argv.slice(2).map(Number);
const start = Date.now(); let n = 0;
const tick = () => {
  const due = Math.min(rate * secs, Math.floor(((Date.now() - start) / 1000) * rate));
  let out = '';
  while (n < due) { n++; out += 'line ' + n + ' \\u001b[32mok\\u001b[0m payload abcdefghijklmnopqrstuvwxyz\\n'; }
  process.stdout.write(out);
  if (n < rate * secs) setTimeout(tick, 10); else process.stdout.write('done ' + n + '\\n');
};
tick();
`;

interface FrameStats {
  frames: number[];
  longTasks: number[];
}

async function measureFrames(page: Page, ms: number): Promise<FrameStats> {
  await shimNames(page);
  return page.evaluate(async (ms) => {
    const frames: number[] = [];
    const longTasks: number[] = [];
    const observer = new PerformanceObserver((list) => list.getEntries().forEach((e) => longTasks.push(e.duration)));
    observer.observe({ type: 'longtask', buffered: false });
    let last = performance.now();
    const end = last + ms;
    await new Promise<void>((resolve) => {
      const tick = (t: number) => {
        frames.push(t - last);
        last = t;
        if (t < end) requestAnimationFrame(tick);
        else resolve();
      };
      requestAnimationFrame(tick);
    });
    observer.disconnect();
    return { frames: frames.slice(1), longTasks };
  }, ms);
}

async function firehose(engine: ServedEngine, options: BenchOptions): Promise<(string | number)[][]> {
  const rate = 10_000;
  // long enough that the page is open and measuring while the task still prints, even on a busy box
  const measureMs = options.quick ? 4_000 : 15_000;
  const seconds = measureMs / 1000 + 30;
  const script = engine.writeFile('firehose.cjs', FIREHOSE);
  await engine.apply({
    'firehose.yaml': `workflow: firehose\ntasks:\n  print:\n    command: node ${script} ${rate} ${seconds}\n`,
  });
  const rows: (string | number)[][] = [];
  for (const where of ['viewer', 'baseline'] as const) {
    const started = JSON.parse((await engine.ax(['--json', 'run', 'firehose'])).stdout) as { id: number };
    let instanceId: number | undefined;
    for (let i = 0; i < 200 && !instanceId; i++) {
      const d = JSON.parse((await engine.ax(['--json', 'runs', String(started.id)])).stdout) as {
        instances: { id: number; state: string }[];
      };
      if (d.instances[0]?.state === 'RUNNING') instanceId = d.instances[0].id;
      else await new Promise((r) => setTimeout(r, 100));
    }
    if (!instanceId) throw new Error('the firehose task did not start');
    const { context, page } = await signedInPage(browser(), engine, { colorScheme: 'light', locale: 'en-US' });
    await page.goto(`${engine.origin}/#/${where === 'viewer' ? `instances/${instanceId}` : 'workflows'}`);
    if (where === 'viewer') await page.locator('.ax-log-row').first().waitFor({ timeout: 60_000 });
    else await page.waitForTimeout(1000);
    const stored = async () => {
      const db = new Database(path.join(engine.dataDir, 'ax.db'), { readonly: true });
      try {
        return (
          db.prepare('select max(last_seq) n from execution_log_chunk where instance_id = ?').get(instanceId) as {
            n: number;
          }
        ).n;
      } finally {
        db.close();
      }
    };
    options.progress(`${where}: measuring frames for ${measureMs / 1000} s while the task prints ${rate} lines/s`);
    const storedBefore = await stored();
    const stats = await measureFrames(page, measureMs);
    const label =
      where === 'viewer' ? 'following in the log viewer' : 'baseline: same firehose, browser on the workflow list';
    const f = stats.frames;
    const fps = (f.length / measureMs) * 1000;
    rows.push([`${label}: frames per second`, fmt(fps, 1)]);
    rows.push([
      `${label}: frame interval median / p95 / max`,
      `${fmt(median(f), 0)} / ${fmt(percentile(f, 0.95), 0)} / ${fmt(Math.max(...f), 0)} ms`,
    ]);
    rows.push([
      `${label}: long tasks (count, total, longest)`,
      `${stats.longTasks.length}, ${fmt(
        stats.longTasks.reduce((a, b) => a + b, 0),
        0,
      )} ms, ${fmt(Math.max(0, ...stats.longTasks), 0)} ms`,
    ]);
    const inStore = await stored();
    rows.push([
      `${label}: lines stored during the window`,
      `${(inStore - storedBefore).toLocaleString('en-US')} (${fmt(((inStore - storedBefore) / measureMs) * 1000, 0)} lines/s)`,
    ]);
    if (where === 'viewer') {
      const shown = Number((await page.getByTestId('log-line-count').textContent())?.replace(/\D/g, ''));
      const mode = await page.getByTestId('log-scroll').getAttribute('data-tail-mode');
      rows.push([
        `${label}: lines shown / stored at the end of the window (tail mode)`,
        `${shown.toLocaleString('en-US')} / ${inStore.toLocaleString('en-US')} (${mode})`,
      ]);
      // responsiveness while it streams: a click on the timestamps switch to its repaint
      const click = await timeInPage(page, { click: '.ax-log-viewer .ant-switch' }, { selector: '.ax-log-time' });
      rows.push([`${label}: click on "Timestamps" → repainted with times`, `${fmt(click, 0)} ms`]);
    }
    await context.close();
    // let the run end before the next one (overlap policy: skip)
    for (let i = 0; i < 600; i++) {
      const d = JSON.parse((await engine.ax(['--json', 'runs', String(started.id)])).stdout) as {
        run: { state: string };
      };
      if (!['QUEUED', 'RUNNING'].includes(d.run.state)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return rows;
}

let sharedBrowser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
const browser = () => sharedBrowser as Awaited<ReturnType<typeof launchBrowser>>;

export async function benchUiLogs(
  options: BenchOptions,
  parts: readonly ('big' | 'firehose')[] = ['big', 'firehose'],
): Promise<BenchTable> {
  const skip = browserSkipReason();
  if (skip) return { title: 'UI: log viewer', columns: ['skipped'], rows: [[skip]], notes: [] };
  const total = options.quick ? 100_000 : 1_000_000;
  const engine = await startServedEngine();
  sharedBrowser = await launchBrowser();
  const loadStart = os.loadavg()[0] ?? 0;
  try {
    const rows = parts.includes('big') ? await bigLog(engine, options, total) : [];
    if (parts.includes('firehose')) rows.push(...(await firehose(engine, options)));
    const loadEnd = os.loadavg()[0] ?? 0;
    return {
      title: `UI: log viewer, ${total.toLocaleString('en-US')}-line instance and a 10,000 lines/s task (headless Chromium, 1280×800)`,
      columns: ['measure', 'ms (median, min–max) or value'],
      rows,
      notes: [
        `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${fmt(loadStart, 1)} at the start, ${fmt(loadEnd, 1)} at the end`,
      ],
    };
  } finally {
    await sharedBrowser.close();
    await engine.stop();
  }
}
