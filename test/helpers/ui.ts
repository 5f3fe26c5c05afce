// Browser tests of the UI: Debian's Chromium driven by Playwright (never a downloaded browser),
// against a real `ax serve` on a temporary data dir (serve.ts). Off CI, a missing Chromium skips
// the file with its reason; under CI=true it is a failure. uiFixture gives a test file its served
// engine, browser and (if asked) a signed-in page, and closes them after the file.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type ServedEngine, type ServedEngineOptions, startServedEngine } from './serve.ts';

export const CHROMIUM = process.env.AX_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  '../../test-artifacts/screenshots',
);

/** Why browser tests cannot run here, or undefined when they can (throws under CI=true). */
export function browserSkipReason(): string | undefined {
  const uiIndex = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../dist/ui/index.html');
  const missing = !fs.existsSync(CHROMIUM)
    ? `Chromium not found at ${CHROMIUM} (apt-get install chromium)`
    : !fs.existsSync(uiIndex)
      ? 'the UI is not built (npm run build)'
      : undefined;
  if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);
  return missing;
}

/** `extraArgs`: more Chromium switches, e.g. a Blink feature the desktop shell turns on */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
      ...extraArgs,
    ],
  });
}

export interface UiPageOptions {
  colorScheme?: 'light' | 'dark';
  /** e.g. 'en-US', 'zh-CN' */
  locale?: string;
  viewport?: { width: number; height: number };
}

/** A browser page signed in to the engine (through a fresh link), showing the dashboard. */
export async function signedInPage(
  browser: Browser,
  engine: ServedEngine,
  options: UiPageOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    locale: options.locale ?? 'en-US',
    viewport: options.viewport ?? { width: 1280, height: 800 },
  });
  const page = await context.newPage();
  await page.goto(await engine.signInLink());
  // The code leaves the address bar once it is traded for the session.
  await page.waitForFunction(() => !location.hash.includes('code='), undefined, { timeout: 15_000 });
  return { context, page };
}

/** Saves a screenshot as test-artifacts/screenshots/NAME.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

declare global {
  interface Window {
    /** i18n keys the page asked for and had no text for (renderer/src/i18n records them) */
    __axMissingKeys?: string[];
  }
}

/**
 * Waits until no finite animation or transition runs in the page (a tab's ink bar sliding, a
 * drawer or tooltip fading in) and two frames are painted, so a screenshot shows the settled
 * page: a condition instead of a fixed pause. Endless ones (spinners, "processing" dots) are not
 * waited for.
 */
export async function animationsDone(page: Page, timeoutMs = 5_000): Promise<void> {
  await page
    .waitForFunction(
      () =>
        document
          .getAnimations()
          .every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity),
      undefined,
      { timeout: timeoutMs, polling: 50 },
    )
    .catch(() => undefined); // still moving after timeoutMs: the picture is for a person, not a finding
  await page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
}

export interface UiFixture {
  /** the served engine (set once the fixture's beforeAll has run) */
  readonly engine: ServedEngine;
  readonly browser: Browser;
  /** the shared signed-in page, when `page` was given */
  readonly page: Page;
  /**
   * A fresh signed-in page of its own (another locale, scheme or size); its context is closed
   * after the test that opened it.
   */
  newPage(options?: UiPageOptions): Promise<Page>;
}

export interface UiFixtureOptions extends ServedEngineOptions {
  /** runs once the engine serves and before the browser starts: workflows, seeded history */
  setup?: (engine: ServedEngine) => Promise<void>;
  /** more Chromium switches (see launchBrowser) */
  browserArgs?: string[];
  /** open one signed-in page for the whole file, showing the loaded dashboard */
  page?: UiPageOptions;
}

/**
 * A browser test file's set-up, in this order before its own beforeAll hooks: `ax serve` on a fresh
 * data dir, `setup`, Chromium, and the shared signed-in page if asked. Everything is closed after
 * the file; a screenshot of the shared page is kept when a test fails.
 */
export function uiFixture(options: UiFixtureOptions = {}): UiFixture {
  const state: { engine?: ServedEngine; browser?: Browser; page?: Page } = {};
  const perTest: BrowserContext[] = [];
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(
        `uiFixture: no ${what} (${what === 'page' ? 'pass { page: {} } to uiFixture' : 'used before its beforeAll ran'})`,
      );
    return value;
  };
  beforeAll(async () => {
    state.engine = await startServedEngine(options);
    await options.setup?.(state.engine);
    state.browser = await launchBrowser(options.browserArgs);
    if (options.page) {
      ({ page: state.page } = await signedInPage(state.browser, state.engine, options.page));
      await state.page.waitForSelector('[data-testid="dashboard-loaded"]');
    }
  }, 120_000);
  afterEach(async (ctx) => {
    // what the shared page showed when a step failed, for the person reading the failure
    if (ctx.task.result?.state === 'fail' && state.page)
      await screenshot(state.page, `failed-${ctx.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`);
    await Promise.all(perTest.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await state.browser?.close();
    await state.engine?.stop();
  });
  return {
    get engine() {
      return need(state.engine, 'engine');
    },
    get browser() {
      return need(state.browser, 'browser');
    },
    get page() {
      return need(state.page, 'page');
    },
    async newPage(pageOptions = {}) {
      const { context, page } = await signedInPage(
        need(state.browser, 'browser'),
        need(state.engine, 'engine'),
        pageOptions,
      );
      perTest.push(context);
      return page;
    },
  };
}
