// The UI of a team node: `ax serve --role scheduler` in team mode prints its own sign-in link;
// the browser sees the team's workers, and a run started by another node (a CLI client) turns
// SUCCESS live on the run page through Redis pub/sub. MariaDB and Redis are real.
import fs from 'node:fs';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKIP_REASON, Team } from '../helpers/team/harness.ts';
import type { TeamProcess } from '../helpers/team/team-process.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { tempDir } from '../helpers/files.ts';
import { browserSkipReason, launchBrowser, screenshot } from '../helpers/ui.ts';

const available = await teamServicesAvailable();
const browserSkip = browserSkipReason();

// Skipped off CI only: without MariaDB/Redis (SKIP_REASON) or without Chromium (its reason); CI=true makes either a failure.
describe.skipIf(!available || browserSkip)(
  `the UI of a team node (${!available ? SKIP_REASON : (browserSkip ?? 'runs')})`,
  () => {
    let team: Team;
    let browser: Browser;
    let scheduler: TeamProcess;
    const dataDir = tempDir('ax-team-ui-');

    beforeAll(async () => {
      team = await Team.open('ui');
      scheduler = team.spawn('scheduler', ['serve', '--role', 'scheduler', '--worker-id', 'ui-sched'], {
        AX_DATA_DIR: dataDir,
      });
      await scheduler.waitForLine(/^ax serve: team /, 60_000);
      team.spawn('worker', ['serve', '--role', 'worker', '--worker-id', 'ui-worker', '--labels', 'gpu'], {
        AX_DATA_DIR: tempDir('ax-team-ui-w-'),
      });
      await team.waitWorkersOnline(['ui-sched', 'ui-worker']);
      browser = await launchBrowser();
    }, 150_000);

    afterAll(async () => {
      await browser?.close();
      await team?.killAll();
      await team?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it("signs in by the printed link, lists the team's workers, and follows a run started elsewhere live", async () => {
      const link = (await scheduler.waitForLine(/^open http:\/\/127\.0\.0\.1:\d+\/#code=/)).text.slice('open '.length);
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(link);
      await page.waitForSelector('[data-testid="dashboard-loaded"]', { timeout: 30_000 });
      await page.goto(`${new URL(link).origin}/#/workers`);
      await page.getByText('ui-worker').waitFor({ timeout: 15_000 });
      expect(await page.textContent('body')).toContain('ui-sched');
      await screenshot(page, 'team-workers-light-en');

      const go = await team.gate('go');
      team.writeWorkflow(
        'team-ui.yaml',
        `workflow: team-ui\ntasks:\n  gate:\n    command: '. "$AXT_DIR/lib.sh"; ax_start; ${go.wait}; ax_end'\n    labels: [gpu]\n`,
      );
      expect((await team.ax(['apply', `${team.dir}/team-ui.yaml`])).code).toBe(0);
      const runId = await team.startRun('team-ui');
      await page.goto(`${new URL(link).origin}/#/runs/${runId}`);
      await page.locator('[data-testid="run-state"][data-state="RUNNING"]').waitFor({ timeout: 30_000 });
      await go.open();
      await page.locator('[data-testid="run-state"][data-state="SUCCESS"]').waitFor({ timeout: 30_000 });
      // `ax open` on the node's data dir finds its port: a fresh link to the same server
      const opened = await team.spawn('ax open', ['open', '--print'], { AX_DATA_DIR: dataDir }).result(30_000);
      expect(opened.code, opened.stderr).toBe(0);
      expect(new URL(opened.stdout.trim()).origin).toBe(new URL(link).origin);
      await page.close();
    });
  },
);
