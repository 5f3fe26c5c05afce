// The instance page with real output (issue 24, part 6): a coloured log whose stderr lines
// interleave with stdout, a 5,000-character stderr line, and what ran (command, cwd, environment
// with a secret masked). Wide, the facts come first; below 1100 px the log does. With "Wrap
// lines" the long stderr line stays inside the pane; the stream filter shows stderr alone.
// Screenshots at 1440×900 and 1024×700, light, dark and Chinese. Chromium against `ax serve`.
import type { Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { SecretsFile } from '../../engine/hosts/node/secrets-file.ts';
import { openDataDirStore } from '../helpers/files.ts';
import { animationsDone, browserSkipReason, screenshot, uiFixture, type UiPageOptions } from '../helpers/ui.ts';

const skip = browserSkipReason();
const SECRET = 'tok-7d1e-ui-private';

const WORKFLOW = `workflow: nightly-build
tasks:
  build:
    cwd: /tmp
    env:
      API_TOKEN: { secret: api-token }
      TARGET: release
    command: |
      for i in $(seq 1 60); do
        printf '\\033[32mstep %s\\033[0m compiled module_%s.ts\\n' "$i" "$i"
        if [ $((i % 5)) = 0 ]; then echo "warning: step $i took longer than expected" >&2; sleep 0.02; fi
      done
      printf 'payload: %s\\n' "$(yes 'row=123,status=ok;' | head -n 260 | tr -d '\\n')" >&2
      echo "calling the API with $API_TOKEN"
      echo "build finished"
`;

// Skipped only off CI where Chromium or the built UI is missing (the reason is in `skip`): under CI=true browserSkipReason() throws instead.
describe.skipIf(skip)('instance page: what ran, and a log to read', () => {
  let store: SqlStore;
  let instanceId: number;
  const ui = uiFixture({
    setup: async (engine) => {
      new SecretsFile(engine.dataDir).set('api-token', SECRET, 'test');
      await engine.apply({ 'nightly.yaml': WORKFLOW });
    },
  });

  beforeAll(async () => {
    store = await openDataDirStore(ui.engine.dataDir);
    const done = await ui.engine.ax(['--json', 'run', 'nightly-build', '--wait']);
    expect(done.code).toBe(0);
    const [run] = await store.listRuns({ workflowName: 'nightly-build', limit: 1 });
    instanceId = (await store.listInstances(run!.id))[0]!.id;
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  /** The page with its facts and its log drawn; `end`: the log's last line too (the viewer follows the end). */
  const open = async (options: UiPageOptions, end = false): Promise<Page> => {
    const page = await ui.newPage(options);
    await page.goto(`${ui.engine.origin}/#/instances/${instanceId}`);
    await page.getByTestId('instance-launch').waitFor({ timeout: 30_000 });
    const row = end ? page.locator('.ax-log-row', { hasText: 'build finished' }) : page.locator('.ax-log-row').first();
    await row.waitFor({ timeout: 30_000 });
    return page;
  };
  const top = (page: Page, testId: string) => page.getByTestId(testId).evaluate((el) => el.getBoundingClientRect().top);

  it('wide: facts, what ran (secret masked) and the log; stderr alone; wrap keeps the long line in the pane', async () => {
    const page = await open({ viewport: { width: 1440, height: 900 } }, true);
    expect(await top(page, 'instance-facts')).toBeLessThan(await top(page, 'instance-log'));
    await expect.poll(() => page.getByTestId('launch-command').textContent()).toContain('for i in $(seq 1 60)');
    expect(await page.getByTestId('launch-cwd').textContent()).toBe('/tmp');
    const env = await page.getByTestId('launch-env').textContent();
    expect(env).toContain('API_TOKEN***');
    expect(env).toContain('AX_TASKbuild');
    expect(await page.content()).not.toContain(SECRET);
    await animationsDone(page);
    await screenshot(page, 'instance-1440-light-en');

    const log = page.getByTestId('instance-log');
    await log.scrollIntoViewIfNeeded();
    // Wrap off: the 5,000-character stderr line is not cut, the pane scrolls sideways to its end.
    const scroller = page.getByTestId('log-scroll');
    const [scrollWidth, clientWidth] = await scroller.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    expect(scrollWidth).toBeGreaterThan(clientWidth + 20_000);
    await page.getByRole('switch', { name: 'Wrap lines' }).click();
    await expect.poll(() => scroller.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    const long = log.locator('.ax-log-row[data-stream="stderr"]', { hasText: 'payload:' });
    await long.waitFor();
    const pane = await page.getByTestId('log-scroll').boundingBox();
    const row = await long.boundingBox();
    // wrapped: several rows tall, and its right edge inside the pane
    expect(row!.height).toBeGreaterThan(60);
    expect(row!.x + row!.width).toBeLessThanOrEqual(pane!.x + pane!.width);
    await long.scrollIntoViewIfNeeded();
    await screenshot(page, 'instance-1440-light-en-wrapped');

    await page.getByTestId('log-filter').getByText('stderr', { exact: true }).click();
    await expect
      .poll(() => page.getByTestId('log-filter-note').textContent())
      .toContain('Showing stderr only: 13 lines');
    expect(await page.locator('.ax-log-row[data-stream="stdout"]').count()).toBe(0);
    await screenshot(page, 'instance-1440-light-en-stderr');
  }, 120_000);

  for (const [name, options] of [
    ['1024-light-en', { viewport: { width: 1024, height: 700 } }],
    ['1024-dark-zh', { viewport: { width: 1024, height: 700 }, colorScheme: 'dark', locale: 'zh-CN' }],
    ['1440-dark-zh', { viewport: { width: 1440, height: 900 }, colorScheme: 'dark', locale: 'zh-CN' }],
    ['1440-dark-en', { viewport: { width: 1440, height: 900 }, colorScheme: 'dark' }],
  ] as const) {
    it(`${name}: ${name.startsWith('1024') ? 'the log first, facts after' : 'facts first'}`, async () => {
      const page = await open(options);
      const narrow = name.startsWith('1024');
      expect((await top(page, 'instance-log')) < (await top(page, 'instance-facts'))).toBe(narrow);
      await animationsDone(page);
      await screenshot(page, `instance-${name}`);
      if (!narrow) return;
      await page.getByTestId('instance-launch').scrollIntoViewIfNeeded();
      await screenshot(page, `instance-${name}-launch`);
    }, 120_000);
  }
});
