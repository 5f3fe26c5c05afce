// The built main process (dist/electron/main.cjs, bundled fresh for this test) loaded under Node
// with a fake 'electron' module whose utilityProcess runs the real engine host: the wiring as it
// ships. The scheme is registered before ready; the window is secure and loads app://ui; the
// engine runs on the data dir given; a window's request yields a port the UI's own client drives
// the engine through (apply, run); strangers are refused; closing hides with one hint and a second
// launch shows it again; every web contents is guarded; the tray pauses and resumes scheduling and
// powerMonitor 'resume' reaches the engine as catchUpSchedules; Quit with a task running asks, and
// "stop" stops the engine before the app quits; a failed run is a desktop notification.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portClient } from '../../electron/main-engine-client.ts';
import {
  ENGINE_PORT,
  ENGINE_STATUS,
  REQUEST_ENGINE_PORT,
  SECRETS_STATUS,
  SET_SECRET,
  SET_TASK_SECRET,
} from '../../electron/ipc-channels.ts';
import type { ApiClient } from '../../engine/api/client.ts';
import type { DesktopEngineStatus, DesktopSecretsStatus } from '../../engine/api/desktop-bridge.ts';
import { fakeElectronModule } from '../helpers/fake-electron-app.ts';
import { FakeContents, ipcEvent } from '../helpers/fake-electron.ts';
import { tempDir } from '../helpers/files.ts';
import { FAST_CONFIG } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const HOST = path.join(REPO, 'dist', 'engine-host.mjs');
const skipReason = fs.existsSync(HOST) ? undefined : 'dist/engine-host.mjs is not built (npm run build)';
// Under CI the build is part of the install (npm ci runs prepare): a missing bundle there is a failure, not a skip.
if (skipReason && process.env.CI === 'true') throw new Error(skipReason);

const root = tempDir('ax-main-bundle-');
const dataDir = path.join(root, 'data');
const bundleDir = path.join(REPO, 'dist', `.electron-test-${process.pid}`);
let fake: ReturnType<typeof fakeElectronModule>;
let dialogResponse = 2;
let client: ApiClient | undefined;

beforeAll(() => {
  if (skipReason) return;
  // The host is built already; the shell is bundled here so the test runs today's sources.
  execFileSync(process.execPath, ['scripts/build-desktop.mjs', bundleDir], { cwd: REPO, stdio: 'pipe' });
  for (const key of Object.keys(process.env)) if (key.startsWith('AX_')) delete process.env[key];
  process.env.AX_ENGINE_CONFIG = JSON.stringify(FAST_CONFIG);
  fake = fakeElectronModule({
    switches: { 'data-dir': dataDir },
    userData: path.join(root, 'user-data'),
    dialogResponse: () => dialogResponse,
  });
  const require = createRequire(import.meta.url);
  const electronPath = require.resolve('electron');
  require.cache[electronPath] = {
    id: electronPath,
    filename: electronPath,
    loaded: true,
    exports: fake.module,
  } as NodeJS.Module;
  require(path.join(bundleDir, 'main.cjs'));
});

afterAll(() => {
  client?.close();
  for (const proc of fake?.forks ?? [])
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
  fs.rmSync(bundleDir, { recursive: true, force: true });
});

// Skipped only off CI, before the first npm run build; the reason is in the suite's name.
describe.skipIf(skipReason !== undefined)(
  `the built main process${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    it('registers the app scheme before ready, then opens a secure window on app://ui and starts the engine host', async () => {
      expect(fake.calls.slice(0, 2)).toEqual(['registerSchemesAsPrivileged:app', 'requestSingleInstanceLock']);
      expect(fake.windows).toHaveLength(0);
      fake.ready();
      await waitFor(() => fake.windows.length === 1);
      const window = fake.windows[0]!;
      expect(window.options.webPreferences).toMatchObject({
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        preload: path.join(bundleDir, 'preload.cjs'),
      });
      expect(window.loaded).toEqual(['app://ui/index.html']);
      expect(window.visible).toBe(true);
      expect(fake.calls).toContain('protocol.handle:app');
      expect(fake.calls).toContain(`utilityProcess.fork:${HOST} --data-dir ${dataDir}`);
      const response = await fake.protocols.get('app')!(new Request('app://ui/%2e%2e/package.json'));
      expect(response.status).toBe(404);
    });

    it('answers the window: engine status, and an engine port the UI drives the engine through', async () => {
      const window = fake.windows[0]!;
      const trusted = ipcEvent(window.webContents, 'app://ui/index.html#/');
      const status = await waitFor(
        async () => {
          const s = (await fake.module.ipcMain.invoke(ENGINE_STATUS, trusted)) as DesktopEngineStatus;
          return s.state === 'running' ? s : undefined;
        },
        { timeoutMs: 60_000, message: 'the engine host runs' },
      );
      expect(status).toMatchObject({ dataDir });
      await expect(
        fake.module.ipcMain.invoke(ENGINE_STATUS, ipcEvent(window.webContents, 'https://evil.example/')),
      ).rejects.toThrow(/refused/);
      // The desktop settings: the same data dir, and a secret stored encrypted under userData.
      expect(await fake.module.ipcMain.invoke(SECRETS_STATUS, trusted)).toMatchObject({
        dataDir,
        backend: 'gnome_libsecret',
        plaintext: false,
        stored: {},
      });
      const saved = await fake.module.ipcMain.invoke(SET_SECRET, trusted, 'redis', 'redis://:pw-in-bundle@cache:6379');
      expect(saved).toMatchObject({
        stored: { redis: 'redis://:***@cache:6379' },
        file: path.join(root, 'user-data', 'secrets.json'),
      });
      expect(fs.readFileSync(path.join(root, 'user-data', 'secrets.json'), 'utf8')).not.toContain('pw-in-bundle');

      fake.module.ipcMain.send(REQUEST_ENGINE_PORT, trusted);
      const delivered = window.webContents.posted.find((p) => p.channel === ENGINE_PORT);
      expect(delivered?.transfer).toHaveLength(1);
      client = portClient(delivered!.transfer[0]!, 30_000);
      const report = await client.validate({ text: 'workflow: sleepy\ntasks:\n  nap:\n    command: sleep 60\n' });
      expect(report.problems).toEqual([]);
      await client.apply(report.spec!, 'ui');
      await client.runWorkflow('sleepy', { actor: 'ui' });
      await waitFor(async () => (await client!.dashboard()).runningTasks === 1, {
        timeoutMs: 30_000,
        message: 'the task runs',
      });
    });

    it('a task secret set through the window reaches the running engine at once: in the task env, *** in its log', async () => {
      const window = fake.windows[0]!;
      const trusted = ipcEvent(window.webContents, 'app://ui/index.html#/settings');
      const saved = (await fake.module.ipcMain.invoke(
        SET_TASK_SECRET,
        trusted,
        'bundle-token',
        'bundle-secret-42',
      )) as DesktopSecretsStatus;
      expect(saved.taskSecrets.map((s) => s.name)).toEqual(['bundle-token']);
      expect(JSON.stringify(saved)).not.toContain('bundle-secret-42');
      expect(fs.readFileSync(path.join(root, 'user-data', 'secrets.json'), 'utf8')).not.toContain('bundle-secret-42');
      const out = path.join(root, 'bundle-secret.txt');
      const report = await client!.validate({
        text: `workflow: uses-secret\ntasks:\n  call:\n    command: echo "t=$T" && printf %s "$T" > "${out}.tmp" && mv "${out}.tmp" "${out}"\n    env:\n      T: { secret: bundle-token }\n`,
      });
      expect(report.problems).toEqual([]);
      await client!.apply(report.spec!, 'ui');
      const run = await client!.runWorkflow('uses-secret', { actor: 'ui' });
      expect(
        await waitFor(() => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : undefined), {
          timeoutMs: 30_000,
          message: 'the task wrote its secret',
        }),
      ).toBe('bundle-secret-42');
      const inst = await waitFor(
        async () => (await client!.getRun(run.id)).instances.find((i) => i.state === 'SUCCESS'),
        { timeoutMs: 30_000, message: 'the task succeeded' },
      );
      expect((await client!.readLogs(inst.id, 0, 100)).map((l) => l.line)).toContain('t=***');
    });

    it('the tray pauses and resumes all scheduling, following the engine; waking from sleep asks the engine to catch up', async () => {
      const item = (label: string) => fake.tray()?.menu.find((i) => i.label === label);
      await waitFor(() => item('Pause all scheduling'), { timeoutMs: 15_000, message: 'the tray offers the pause' });
      item('Pause all scheduling')!.click!();
      const paused = await waitFor(async () => (await client!.dashboard()).schedulingPaused, {
        timeoutMs: 15_000,
        message: 'the engine is paused',
      });
      expect(paused.by).toMatch(/^\S+@\S+ \(tray\)$/);
      await waitFor(() => item('Resume scheduling'), { timeoutMs: 15_000, message: 'the tray follows the pause' });
      item('Resume scheduling')!.click!();
      await waitFor(async () => (await client!.dashboard()).schedulingPaused === undefined, {
        timeoutMs: 15_000,
        message: 'resumed',
      });

      // Only the Redis string is saved (above): Join is offered disabled, saying what is missing.
      expect(item('Join team as worker (save the team connection in Settings first)')).toMatchObject({
        enabled: false,
      });
      // Two: the catch-up, and the team membership's rejoin after a wake (team-membership.ts).
      expect(fake.module.powerMonitor.listenerCount('resume')).toBe(2);
      expect(fake.apiMethods).not.toContain('catchUpSchedules');
      fake.module.powerMonitor.emit('resume');
      await waitFor(() => fake.apiMethods.includes('catchUpSchedules'), {
        timeoutMs: 15_000,
        message: 'main asks the engine to catch up',
      });
    });

    it('closing the window hides it, with the hint once; a second launch brings it back', () => {
      const window = fake.windows[0]!;
      expect(window.close()).toBe(true);
      expect(window.close()).toBe(true);
      expect(window.visible).toBe(false);
      expect(fake.notifications).toEqual([{ title: 'AX Scheduler is still running', body: expect.any(String) }]);
      expect(fake.tray()?.menu[0]?.label).toBe('Engine running');
      fake.module.app.emit('second-instance');
      expect(window.visible).toBe(true);
      expect(window.focused).toBe(1);
    });

    it('a run that fails in the engine host is a desktop notification (the alerts desktop channel), naming its task', async () => {
      const report = await client!.validate({
        text: 'workflow: bundle-broken\ntasks:\n  load:\n    command: exit 3\n',
      });
      await client!.apply(report.spec!, 'ui');
      const run = await client!.runWorkflow('bundle-broken', { actor: 'ui' });
      const notice = await waitFor(() => fake.notifications.find((n) => n.title === 'bundle-broken failed'), {
        timeoutMs: 30_000,
        message: 'the failure notification',
      });
      expect(notice.body).toBe(`Run #${run.id}: task load failed: exit code 3`);
      expect(
        (await client!.listAlerts({ workflow: 'bundle-broken' })).map((a) => [
          a.rule,
          a.deliveries.map((d) => [d.channel, d.state]),
        ]),
      ).toEqual([['run_failed', [['desktop', 'sent']]]]);
    });

    it('guards every web contents created: no navigation away, no new windows', () => {
      const contents = new FakeContents();
      fake.module.app.emit('web-contents-created', {}, contents);
      expect(contents.navigate('will-navigate', 'https://example.com/')).toBe(true);
      expect(contents.openHandler?.({ url: 'https://example.com/docs' })).toEqual({ action: 'deny' });
      expect(fake.calls).toContain('openExternal:https://example.com/docs');
    });

    it('Quit with a task running asks; cancel keeps it, stop stops the engine and then quits', async () => {
      const host = fake.forks[0]!;
      dialogResponse = 2;
      fake.module.app.quit();
      await waitFor(() => fake.dialogs.length === 1, { timeoutMs: 15_000 });
      expect(fake.dialogs[0]!.message).toBe('A task is still running.');
      expect(fake.calls).not.toContain('quit done');
      expect(host.child.exitCode).toBeNull();

      dialogResponse = 1;
      fake.module.app.quit();
      await waitFor(() => fake.calls.includes('quit done'), {
        timeoutMs: 30_000,
        message: 'the app quits once the engine stopped',
      });
      expect(fake.dialogs).toHaveLength(2);
      expect(host.child.exitCode).toBe(0);
      expect(fs.existsSync(path.join(dataDir, 'engine.lock'))).toBe(false);
      // The window closes for real now.
      expect(fake.windows[0]!.close()).toBe(false);
    });
  },
);
