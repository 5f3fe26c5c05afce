// The DAG designer's browser tests (test/ui/designer*.test.ts) share this: a served engine with a
// workflow holding every field of the file format, Chromium, the engine's store read in-process,
// and the few page steps the tests take (open a workflow, find a node or the side panel, add a
// task, read a toast, drag a connection).
import type { Page } from 'playwright';
import { afterAll, beforeAll, expect } from 'vitest';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { openDataDirStore } from './files.ts';
import type { ServedEngine } from './serve.ts';
import { type UiFixture, uiFixture } from './ui.ts';

// Every key the file format has, in an order that is not alphabetical, with values that a
// careless round trip would change: "1.10" as a string, an exponential backoff, two upstreams.
export const FULL = `workflow: full-roundtrip
description: Every field the file format has
owner: data-team
schedule:
  cron: "15 3 * * 1-5"
  timezone: Europe/Berlin
  misfire: all
  overlap: queue
on_event: orders-ready
routing: least_busy
tasks:
  zeta:
    command: echo zeta
    cwd: /tmp
    env:
      VERSION: "1.10"
      MODE: fast
    timeout: 1h30m
    retries: 3
    retry_backoff: { strategy: exponential, delay: 30s, max: 10m }
    labels: [gpu, linux]
    owner: anna
  alpha:
    command: echo alpha
    retry_backoff: 45s
  mid:
    command: echo mid
    upstream: [zeta, alpha]
  lonely:
    command: echo "I have no edges"
`;

export interface DesignerFixture extends UiFixture {
  /**
   * The engine's records read from its SQLite file in this process, to check what a page did:
   * polling with an `ax --json` process per look costs a busy core a second each time.
   */
  readonly store: SqlStore;
}

/** uiFixture with FULL applied, and the engine's store open for the file's tests. */
export function designerFixture(): DesignerFixture {
  const ui = uiFixture({
    setup: async (engine) => {
      await engine.apply({ 'full.yaml': FULL });
    },
  });
  let store: SqlStore | undefined;
  beforeAll(async () => {
    store = await openDataDirStore(ui.engine.dataDir);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });
  return {
    get engine() {
      return ui.engine;
    },
    get browser() {
      return ui.browser;
    },
    get page() {
      return ui.page;
    },
    newPage: (options) => ui.newPage(options),
    get store() {
      if (!store) throw new Error('designerFixture: the store is used before its beforeAll ran');
      return store;
    },
  };
}

export async function openDesigner(page: Page, engine: ServedEngine, name: string): Promise<void> {
  await page.goto(`${engine.origin}/#/designer/${name}`);
  await page.waitForSelector('.react-flow__node', { timeout: 15_000 });
}

export const node = (page: Page, name: string) => page.locator(`.react-flow__node[data-id="${name}"]`);
/** the side panel (the page's header has a search box whose label also says "commands") */
export const panel = (page: Page) => page.getByRole('complementary', { name: 'Properties' });

export async function addTask(page: Page, name: string, command: string): Promise<void> {
  await page.getByRole('button', { name: 'Add task' }).click();
  const nameBox = panel(page).getByLabel('Task name');
  await nameBox.fill(name);
  await nameBox.press('Enter');
  await expect.poll(() => node(page, name).count()).toBe(1);
  await panel(page).getByLabel('Command').fill(command);
}

/** The text of a toast; a string matches case-insensitively ("Saved" would find "Not saved"), a RegExp exactly. */
export async function toast(page: Page, text: string | RegExp): Promise<string> {
  const el = page.locator('.ant-message-notice').filter({ hasText: text }).first();
  await el.waitFor({ timeout: 15_000 });
  return (await el.textContent()) ?? '';
}

/** drags from `from`'s source handle to `to`'s target handle, as a person would */
export async function connect(page: Page, from: string, to: string): Promise<void> {
  const source = await node(page, from).locator('.react-flow__handle.source').boundingBox();
  const target = await node(page, to).locator('.react-flow__handle.target').boundingBox();
  if (!source || !target) throw new Error(`handles of ${from} or ${to} are not on screen`);
  await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
  await page.mouse.down();
  await page.mouse.move(target.x + target.width / 2, target.y + target.height / 2, { steps: 15 });
  await page.mouse.up();
}
