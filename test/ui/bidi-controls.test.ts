// Bidi controls shown, not obeyed, in the UI: a right-to-left override
// (U+202E) in a task's output or in a reason made "txt.exe" read as "exe.txt" on the page, while
// the CLI showed it escaped. The log viewer, the instance facts and the run's instance table
// show each bidi control as a visible ‹U+202E› (engine/api/bidi-text.ts); the designer says, under
// a command box holding one, what the command really is. Chromium against a
// real `ax serve`; screenshots in test-artifacts/screenshots/.
import { describe, expect, it } from 'vitest';
import { apiToken } from '../../engine/hosts/node/data-dir.ts';
import { connectApi } from '../../engine/server/ws-client.ts';
import { openDataDirStore } from '../helpers/files.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { browserSkipReason, screenshot, uiFixture } from '../helpers/ui.ts';

const skip = browserSkipReason();
const RLO = '\u202e';
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

// prints a line with an override and an isolate; the second task's cwd (with an override) does not exist
const WORKFLOW = `workflow: bidi
tasks:
  talk:
    command: printf 'invoice_\\342\\200\\256fdp.exe and \\342\\201\\246isolated\\342\\201\\251\\n'
  stuck:
    command: echo never
    cwd: "/nonexistent/report${RLO}txt.exe"
  tricky:
    command: "echo invoice_${RLO}fdp.exe"
`;

// Skipped only off CI where Chromium or the built UI is missing: under CI=true browserSkipReason() throws.
describe.skipIf(skip)('bidi controls in the UI', () => {
  const ui = uiFixture({
    setup: async (engine) => {
      await engine.apply({ 'bidi.yaml': WORKFLOW });
    },
  });

  it('a log line, a reason and the instance table show ‹U+202E›, and no bidi control reaches the page', async () => {
    const run = await ui.engine.ax(['run', 'bidi', '--wait']);
    expect(run.code).toBe(1); // stuck cannot start
    const store = await openDataDirStore(ui.engine.dataDir);
    const instances = await store.listInstances(1);
    await store.close();
    const talk = instances.find((i) => i.taskName === 'talk');
    const stuck = instances.find((i) => i.taskName === 'stuck');
    expect(stuck?.reason).toContain(RLO); // the engine keeps the text as it is; the page shows it
    for (const [scheme, locale] of [
      ['light', 'en-US'],
      ['dark', 'zh-CN'],
    ] as const) {
      const page = await ui.newPage({ colorScheme: scheme, locale });
      await page.goto(`${ui.engine.origin}/#/instances/${talk?.id}`);
      const row = page.locator('.ax-log-row[data-seq="1"]');
      await row.waitFor({ timeout: 30_000 });
      expect(await row.innerText()).toContain('invoice_‹U+202E›fdp.exe and ‹U+2066›isolated‹U+2069›');
      expect(BIDI.test(await page.locator('body').innerText())).toBe(false);
      await screenshot(page, `bidi-log-${scheme}-${locale}`);

      await page.goto(`${ui.engine.origin}/#/instances/${stuck?.id}`);
      await waitFor(
        async () => ((await page.locator('body').innerText()).includes('report‹U+202E›txt.exe') ? true : undefined),
        { timeoutMs: 30_000, message: 'the reason with ‹U+202E› did not show' },
      );
      expect(BIDI.test(await page.locator('body').innerText())).toBe(false);
      await screenshot(page, `bidi-reason-${scheme}-${locale}`);

      await page.goto(`${ui.engine.origin}/#/runs/1`);
      await waitFor(
        async () => ((await page.locator('body').innerText()).includes('report‹U+202E›txt.exe') ? true : undefined),
        { timeoutMs: 30_000, message: 'the run page did not show the reason with ‹U+202E›' },
      );
      expect(BIDI.test(await page.locator('body').innerText())).toBe(false);
      await screenshot(page, `bidi-run-${scheme}-${locale}`);

      // the designer's command box shows the text as the browser orders it; the line under it shows what runs
      await page.goto(`${ui.engine.origin}/#/designer/bidi`);
      await page.locator('.react-flow__node[data-id="tricky"]').click({ timeout: 30_000 });
      const hint = page.getByTestId('command-bidi');
      await hint.waitFor({ timeout: 15_000 });
      expect(await hint.innerText()).toContain('echo invoice_‹U+202E›fdp.exe');
      // the node on the canvas shows the command the same way
      expect(await page.locator('.react-flow__node[data-id="tricky"] .ax-task-node__detail').innerText()).toBe(
        'echo invoice_‹U+202E›fdp.exe',
      );
      await screenshot(page, `bidi-designer-${scheme}-${locale}`);
      await page.context().close(); // one page open at a time, as before the next locale
    }
  }, 180_000);
  it('a workflow description and owner, and the audit log, show ‹U+202E› too', async () => {
    await ui.engine.apply({
      'described.yaml': `workflow: described\ndescription: "monthly report${RLO}txt.exe"\nowner: "ops${RLO}team"\ntasks:\n  one:\n    command: echo one\n`,
    });
    const page = await ui.newPage({ colorScheme: 'light', locale: 'en-US' });
    await page.goto(`${ui.engine.origin}/#/workflows/described`);
    await waitFor(
      async () =>
        (await page.locator('body').innerText()).includes('monthly report‹U+202E›txt.exe') ? true : undefined,
      { timeoutMs: 30_000, message: 'the description with ‹U+202E› did not show' },
    );
    expect(await page.locator('body').innerText()).toContain('ops‹U+202E›team');
    expect(BIDI.test(await page.locator('body').innerText())).toBe(false);
    // a client's own text, kept as the entry's note beside the actor, is escaped the same way
    const api = await connectApi(`ws://127.0.0.1:${ui.engine.port}/api`, apiToken(ui.engine.dataDir));
    await api.setEnabled('described', true, `bot${RLO}fdp.exe`);
    api.close();
    await page.goto(`${ui.engine.origin}/#/audit`);
    await page.getByText('described').first().waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('audit-note').first().innerText()).toBe('note: bot‹U+202E›fdp.exe');
    expect(BIDI.test(await page.locator('body').innerText())).toBe(false);
  });
});
