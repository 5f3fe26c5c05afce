// A wall clock that steps back must not freeze the schedules. Real `ax serve`
// processes under Debian's libfaketime: the clock goes 3 h ahead, the server fires (or only plans)
// there, then the clock is set right, either under the running server (FAKETIME_TIMESTAMP_FILE,
// re-read on every call with FAKETIME_NO_CACHE) or by a restart without faketime. An every-2-
// seconds schedule must fire on the real clock within seconds, the step be in the audit log and
// raised as one `clock_step` alert, and `ax ls` show a next fire a few seconds ahead.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AlertRecord } from '../../engine/api/alerts.ts';
import type { AuditEntry, RunRecord, WorkflowSummary } from '../../engine/api/types.ts';
import { ax, axJson, type AxOptions, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

const LIBFAKETIME = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/faketime/libfaketime.so.1',
].find((f) => fs.existsSync(f));
const HOURS_3 = 3 * 3600_000;
const box = cliSandbox('ax-clock-step-');

const TICKER = 'workflow: ticker\nschedule:\n  cron: "*/2 * * * * *"\ntasks:\n  tick:\n    command: "true"\n';

/** The options of a data dir of its own, under faketime's control when `faked` is given. */
function dir(name: string, faked?: Record<string, string>): AxOptions {
  const dataDir = path.join(box.root, name);
  const env = faked && { LD_PRELOAD: LIBFAKETIME as string, FAKETIME_DONT_FAKE_MONOTONIC: '1', ...faked };
  return { dataDir, cwd: box.root, ...(env && { env }) };
}

const runs = (opts: AxOptions) =>
  axJson<RunRecord[]>(['runs', 'ticker', '-n', '100'], { dataDir: opts.dataDir, cwd: box.root });
const plain = (opts: AxOptions): AxOptions => ({ dataDir: opts.dataDir, cwd: box.root });

/** After the clock was set right at `setRightAt`: a fire on the real clock, the audit entry, one alert, a true next fire. */
async function expectReplanned(opts: AxOptions, setRightAt: number): Promise<void> {
  const fired = await waitFor(
    async () =>
      (await runs(opts)).find((r) => r.logicalTime >= setRightAt - 2_000 && r.logicalTime <= Date.now() + 2_000),
    { timeoutMs: 30_000, intervalMs: 250, message: 'a fire on the real clock after the step back' },
  );
  expect(fired.trigger).toBe('cron');
  const audit = await axJson<AuditEntry[]>(['audit', '-n', '100'], plain(opts));
  const step = audit.filter((e) => e.action === 'clock.step');
  expect(step.map((e) => e.object)).toEqual(['workflow:ticker']);
  expect(step[0]?.detail).toMatch(
    /^the clock stepped back: the schedule's last fire \(.+\) lay (2h5\dm\d+s|3h\S*) ahead of now; re-planned from now, next fire \d{4}-/,
  );
  // Two more fires on the real clock: the step is not seen again, and was alerted once.
  await waitFor(
    async () =>
      (await runs(opts)).filter((r) => r.logicalTime >= setRightAt - 2_000 && r.logicalTime <= Date.now() + 2_000)
        .length >= 3,
    {
      timeoutMs: 30_000,
      intervalMs: 250,
      message: 'three fires on the real clock',
    },
  );
  const alerts = await axJson<AlertRecord[]>(['alerts', '--rule', 'clock_step'], plain(opts));
  expect(alerts).toHaveLength(1);
  expect(alerts[0]?.title).toMatch(/stepped back by about (3h|2h59m): 1 schedule\(s\) re-planned from now$/);
  const [ticker] = await axJson<WorkflowSummary[]>(['ls'], plain(opts));
  expect(ticker?.nextFireAt).toBeGreaterThan(Date.now() - 2_000);
  expect(ticker?.nextFireAt).toBeLessThan(Date.now() + 5_000);
}

// Skipped only without Debian's faketime (libfaketime); .ci/run installs it.
describe.skipIf(!LIBFAKETIME)('a wall clock that steps back (libfaketime)', () => {
  it('under a running ax serve: the schedules fire on the real clock again within seconds', async () => {
    const file = path.join(box.root, 'offset');
    fs.writeFileSync(file, '+3h\n');
    const opts = dir('live', { FAKETIME_TIMESTAMP_FILE: file, FAKETIME_NO_CACHE: '1' });
    const serve = await startServe(opts);
    writeFile(box.root, 'ticker.yaml', TICKER);
    expect((await ax(['apply', 'ticker.yaml'], plain(opts))).code).toBe(0);
    // It fires 3 h ahead, as its clock says.
    await waitFor(
      async () => (await runs(opts)).filter((r) => r.logicalTime > Date.now() + HOURS_3 - 60_000).length >= 2,
      {
        timeoutMs: 30_000,
        intervalMs: 250,
        message: 'two fires 3 h ahead',
      },
    );
    const setRightAt = Date.now();
    fs.writeFileSync(file, '+0\n');
    await expectReplanned(opts, setRightAt);
    serve.kill('SIGTERM');
    await serve.result(30_000);
  }, 120_000);

  it('after a restart on the corrected clock: the plan made 3 h ahead is re-based, not waited for', async () => {
    const ahead = dir('restart', { FAKETIME: '+3h' });
    const first = await startServe(ahead);
    writeFile(box.root, 'ticker.yaml', TICKER);
    expect((await ax(['apply', 'ticker.yaml'], plain(ahead))).code).toBe(0);
    await waitFor(async () => (await runs(ahead)).some((r) => r.logicalTime > Date.now() + HOURS_3 - 60_000), {
      timeoutMs: 30_000,
      intervalMs: 250,
      message: 'a fire 3 h ahead',
    });
    first.kill('SIGTERM');
    expect((await first.result(30_000)).code).toBe(0);
    const setRightAt = Date.now();
    const second = await startServe(plain(ahead));
    await expectReplanned(ahead, setRightAt);
    second.kill('SIGTERM');
    await second.result(30_000);
  }, 120_000);
});
