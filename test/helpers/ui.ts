// Browser tests of the UI: Debian's Chromium driven by Playwright (never a downloaded browser),
// against a real `ax serve` on a temporary data dir. Off CI, a missing Chromium skips the file
// with its reason; under CI=true it is a failure.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright';
import { apiToken } from '../../engine/hosts/node/data-dir.ts';
import { requestSignInCode } from '../../engine/server/ws-client.ts';
import { ax, type AxOptions, type AxResult, type ServeProcess, startServe, writeFile } from './cli.ts';

export const CHROMIUM = process.env.AX_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../test-artifacts/screenshots');

/** Why browser tests cannot run here, or undefined when they can (throws under CI=true). */
export function browserSkipReason(): string | undefined {
  const uiIndex = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../dist/ui/index.html');
  const missing = !fs.existsSync(CHROMIUM) ? `Chromium not found at ${CHROMIUM} (apt-get install chromium)` : !fs.existsSync(uiIndex) ? 'the UI is not built (npm run build)' : undefined;
  if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);
  return missing;
}

/** `extraArgs`: more Chromium switches, e.g. a Blink feature the desktop shell turns on */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage', ...extraArgs],
  });
}

export interface UiEngine {
  dataDir: string;
  port: number;
  origin: string;
  serve: ServeProcess;
  /** a fresh single-use sign-in link (from `ax open --print`) */
  signInUrl(): Promise<string>;
  /**
   * A fresh single-use sign-in link asked of the engine as `ax open` asks for it (POST
   * /auth/code with the data dir's API token), from this process: an `ax` process costs a busy
   * core a second, once per page. The CLI's own path is signInUrl (sign-in.test.ts uses it).
   */
  signInLink(): Promise<string>;
  /** runs an `ax` command on this data dir */
  ax(args: string[], opts?: Partial<AxOptions>): Promise<AxResult>;
  /** writes a file into the data dir and returns its path */
  writeFile(name: string, text: string): string;
  /** writes each workflow file (name → YAML) into the data dir and `ax apply`s it; throws with
   *  ax's stderr when one is refused */
  apply(files: Record<string, string>, opts?: Partial<AxOptions>): Promise<void>;
  stop(): Promise<void>;
}

/** `ax serve` on a fresh temporary data dir; `prepare` writes into it first (e.g. settings.json). */
export async function startUiEngine(options: { env?: Record<string, string>; serveArgs?: string[]; prepare?: (dataDir: string) => void } = {}): Promise<UiEngine> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ax-ui-'));
  options.prepare?.(dataDir);
  const opts: AxOptions = { dataDir, env: options.env };
  const serve = await startServe(opts, ['--port', '0', ...(options.serveArgs ?? [])]);
  return {
    dataDir,
    port: serve.port,
    origin: `http://127.0.0.1:${serve.port}`,
    serve,
    async signInUrl() {
      const res = await ax(['open', '--print'], opts);
      if (res.code !== 0) throw new Error(`ax open --print failed: ${res.stderr}`);
      return res.stdout.trim().split('\n').pop() as string;
    },
    async signInLink() {
      return `http://127.0.0.1:${serve.port}/#code=${await requestSignInCode(serve.port, apiToken(dataDir))}`;
    },
    ax: (args, more) => ax(args, { ...opts, ...more }),
    writeFile: (name, text) => writeFile(dataDir, name, text),
    async apply(files, more) {
      for (const [name, text] of Object.entries(files)) {
        // --force: fixtures may label tasks for workers this solo engine does not have
        const r = await ax(['apply', '--force', writeFile(dataDir, name, text)], { ...opts, ...more });
        if (r.code !== 0) throw new Error(`ax apply ${name} exited ${r.code}: ${r.stderr}`);
      }
    },
    async stop() {
      serve.kill('SIGTERM');
      await serve.exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface UiPageOptions {
  colorScheme?: 'light' | 'dark';
  /** e.g. 'en-US', 'zh-CN' */
  locale?: string;
  viewport?: { width: number; height: number };
}

/** A browser page signed in to the engine (through a fresh link), showing the dashboard. */
export async function signedInPage(browser: Browser, engine: UiEngine, options: UiPageOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
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
  await page.waitForFunction(
    () => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity),
    undefined,
    { timeout: timeoutMs, polling: 50 },
  ).catch(() => undefined); // still moving after timeoutMs: the picture is for a person, not a finding
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}
