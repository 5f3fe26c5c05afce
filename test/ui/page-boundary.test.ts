// A page that throws is caught by its error boundary: the instance page gets,
// through Playwright's WebSocket route, a live log event whose line is not a string (what a forged
// Redis event did before the engine checked them), shows what failed with Retry in place of the
// page — not a white window — and the navigation still works: another page opens, and Retry
// brings the instance page back from the engine. Screenshots (light/dark, en/zh-CN) go to
// test-artifacts/screenshots/.
import type { BrowserContext, Page, WebSocketRoute } from 'playwright';
import { describe, expect, it } from 'vitest';
import { openDataDirStore } from '../helpers/files.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { animationsDone, browserSkipReason, screenshot, uiFixture, type UiPageOptions } from '../helpers/ui.ts';

const skip = browserSkipReason();

const SLOW = `workflow: slow-talker
tasks:
  talk:
    command: 'echo "hello from the task"; sleep 120'
`;

// Skipped only off CI where Chromium or the built UI is missing (the reason is in `skip`): under CI=true browserSkipReason() throws instead.
describe.skipIf(skip)('the error boundary of a page', () => {
  let instanceId: number;

  const ui = uiFixture({
    setup: async (engine) => {
      await engine.apply({ 'slow.yaml': SLOW });
      const started = await engine.ax(['--json', 'run', 'slow-talker']);
      expect(started.code, started.stderr).toBe(0);
      const runId = (JSON.parse(started.stdout) as { id: number }).id;
      const store = await openDataDirStore(engine.dataDir);
      try {
        instanceId = await waitFor(
          async () => (await store.listInstances(runId)).find((i) => i.state === 'RUNNING')?.id,
          { timeoutMs: 30_000, intervalMs: 200, message: 'the task to run' },
        );
      } finally {
        await store.close();
      }
    },
  });

  /** A signed-in page whose API socket passes through a route the test can speak into. */
  async function routedPage(
    options: UiPageOptions = {},
  ): Promise<{ context: BrowserContext; page: Page; socket: () => WebSocketRoute }> {
    const context = await ui.browser.newContext({
      colorScheme: options.colorScheme ?? 'light',
      locale: options.locale ?? 'en-US',
      viewport: { width: 1280, height: 800 },
    });
    let route: WebSocketRoute | undefined;
    await context.routeWebSocket(/\/api$/, (ws) => {
      route = ws;
      const server = ws.connectToServer();
      ws.onMessage((m) => server.send(m));
      server.onMessage((m) => ws.send(m));
    });
    const page = await context.newPage();
    await page.goto(await ui.engine.signInLink());
    await page.waitForFunction(() => !location.hash.includes('code='), undefined, { timeout: 15_000 });
    return {
      context,
      page,
      socket: () => {
        if (!route) throw new Error('the page opened no API socket');
        return route;
      },
    };
  }

  /** the event a forged Redis message carried: a log line that is an object, not a string */
  const forged = () =>
    JSON.stringify({
      event: { type: 'log', instanceId, seq: 1_000_000, stream: 'stdout', ts: Date.now(), line: { forged: true } },
    });

  for (const variant of [
    {
      name: 'light-en',
      colorScheme: 'light',
      locale: 'en-US',
      title: 'This page failed to show',
      retry: 'Retry',
      nav: 'Workers',
    },
    { name: 'dark-zh', colorScheme: 'dark', locale: 'zh-CN', title: '此页面无法显示', retry: '重试', nav: '执行节点' },
  ] as const) {
    it(`a page that throws shows what failed; the navigation and Retry work (${variant.name})`, async () => {
      const { context, page, socket } = await routedPage(variant);
      try {
        await page.goto(`${ui.engine.origin}/#/instances/${instanceId}`);
        await page.locator('.ax-log-row', { hasText: 'hello from the task' }).waitFor({ timeout: 30_000 });
        socket().send(forged());
        const boundary = page.getByTestId('page-error');
        await boundary.waitFor({ timeout: 10_000 });
        expect(await boundary.textContent()).toContain(variant.title);
        const what = await page.getByTestId('page-error-message').textContent();
        console.log(`the boundary says: ${what}`);
        expect(what?.length).toBeGreaterThan(0);
        // the frame around the page is still there
        await page.locator('nav').getByText(variant.nav).waitFor();
        await animationsDone(page);
        await screenshot(page, `page-boundary-${variant.name}`);

        // Retry starts the page again from the engine's answers
        await page.getByTestId('page-error-retry').click();
        await page.locator('.ax-log-row', { hasText: 'hello from the task' }).waitFor({ timeout: 30_000 });
        expect(await boundary.count()).toBe(0);

        // broken again, then another page from the navigation: it opens, without the failure
        socket().send(forged());
        await boundary.waitFor({ timeout: 10_000 });
        await page.locator('nav').getByText(variant.nav).click();
        await page.waitForURL(/#\/workers$/);
        // The URL changes before React renders the new page (and the nav's own "Workers" matched a
        // text wait at once): wait for the boundary to go, which it must within the poll's bound.
        await expect.poll(() => boundary.count()).toBe(0);
        await page
          .getByText(/solo|local|worker/i)
          .first()
          .waitFor({ timeout: 15_000 });
      } finally {
        await context.close();
      }
    }, 90_000);
  }
});
