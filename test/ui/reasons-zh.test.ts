// Engine-written text in the reader's language (issue 24, part 8): a failed run's alert reads in
// Chinese on the Alerts page — its title, the run line, and the failed task's line quoting its
// reason ("退出码 4") — built from the codes the engine stored; in English it reads as the CLI
// prints it. Chromium against a real `ax serve`; screenshots in both themes and widths.
import { describe, expect, it } from 'vitest';
import { browserSkipReason, screenshot, uiFixture } from '../helpers/ui.ts';

const skip = browserSkipReason();

const FAILING = `workflow: nightly-load
tasks:
  extract: { command: echo extracted }
  load:
    command: 'echo "load failed: table orders is locked" >&2 && exit 4'
    upstream: [extract]
`;

// Skipped only off CI where Chromium or the built UI is missing (the reason is in `skip`): under CI=true browserSkipReason() throws instead.
describe.skipIf(skip)('engine text in Chinese', () => {
  const ui = uiFixture({
    setup: async (engine) => {
      await engine.apply({ 'nightly.yaml': FAILING });
      expect((await engine.ax(['--json', 'run', 'nightly-load', '--wait'])).code).not.toBe(0);
    },
  });

  it('a failed run’s alert: Chinese in zh-CN (dark and light, both widths), English as the CLI says it in en', async () => {
    for (const [scheme, width, height] of [
      ['dark', 1440, 900],
      ['light', 1024, 700],
    ] as const) {
      const page = await ui.newPage({ locale: 'zh-CN', colorScheme: scheme, viewport: { width, height } });
      await page.goto(`${ui.engine.origin}/#/alerts`);
      await expect
        .poll(() => page.textContent('body'), { timeout: 30_000 })
        .toContain('nightly-load：运行 #1 失败：任务“load”在 1 次尝试后失败');
      // the message shows two lines until expanded; the third is the failed task's
      await page.getByRole('button', { name: '展开' }).first().click();
      await expect.poll(() => page.textContent('body')).toContain('load：FAILED：退出码 4');
      expect(await page.evaluate(() => window.__axMissingKeys ?? [])).toEqual([]);
      await screenshot(page, `reasons-alerts-zh-${scheme}-${width}`);
    }
    const en = await ui.newPage({ viewport: { width: 1440, height: 900 } });
    await en.goto(`${ui.engine.origin}/#/alerts`);
    await expect
      .poll(() => en.textContent('body'), { timeout: 30_000 })
      .toContain('nightly-load: run #1 failed: task "load" failed after 1 attempt(s)');
    await en.getByRole('button', { name: 'Expand' }).first().click();
    await expect.poll(() => en.textContent('body')).toContain('load: FAILED: exit code 4');
    await screenshot(en, 'reasons-alerts-en-light-1440');
  }, 120_000);
});
