// The real desktop app, launched with Playwright's Electron driver where Electron's binary is
// installed: the first window loads the UI from app://ui with window.axDesktop, the engine host
// runs on the test's data dir, and the dashboard shows over the engine port; a one-task workflow
// run through the app's local API (--local-api: `ax` commands reach the desktop engine) runs its
// task under Electron (the host's task launcher forked from a utility process). Skipped here, with its reason, when the binary is absent (it cannot be downloaded
// on this machine).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { _electron as electron, type ElectronApplication } from 'playwright';
import { afterAll, describe, expect, it } from 'vitest';
import { ax } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { electronBinary } from '../helpers/electron-binary.ts';

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const found = electronBinary();
const skipReason = 'reason' in found ? found.reason : undefined;
let app: ElectronApplication | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  await app?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

// Skipped where Electron's binary is absent (it cannot be downloaded here); the reason is in the suite's name.
describe.skipIf(skipReason !== undefined)(`desktop app${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('opens the window on app://ui with the bridge, and shows the dashboard from the engine host', async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ax-desktop-'));
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('AX_')) env[k] = v;
    app = await electron.launch({
      executablePath: (found as { binary: string }).binary,
      args: [REPO, `--data-dir=${dataDir}`, '--local-api', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
      env: { ...env, AX_DATA_DIR: dataDir },
    });
    const window = await app.firstWindow();
    expect(window.url()).toMatch(/^app:\/\/ui\//);
    expect(
      await window.evaluate(() => Object.keys((window as unknown as { axDesktop: object }).axDesktop).sort()),
    ).toEqual([
      'engineStatus',
      'onEngineStatus',
      'onNavigate',
      'platform',
      'requestEnginePort',
      'restartEngine',
      'setLanguage',
      'version',
    ]);
    // Node stays out of the page.
    expect(await window.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
    await window.getByTestId('dashboard-loaded').waitFor({ timeout: 60_000 });
    const status = await window.evaluate(() =>
      (
        window as unknown as { axDesktop: { engineStatus(): Promise<{ state: string; dataDir?: string }> } }
      ).axDesktop.engineStatus(),
    );
    expect(status).toMatchObject({ state: 'running', dataDir });

    const file = writeFile(
      dataDir!,
      'hello.yaml',
      'workflow: hello\ntasks:\n  greet:\n    command: echo hello from the desktop app\n',
    );
    expect((await ax(['apply', file], { dataDir: dataDir! })).code).toBe(0);
    const run = await ax(['--json', 'run', 'hello', '--wait'], { dataDir: dataDir! });
    expect(run.code, run.stderr).toBe(0);
    const detail = JSON.parse(run.stdout) as { run: { id: number; state: string } };
    expect(detail.run.state).toBe('SUCCESS');
    const logs = await ax(['logs', String(detail.run.id), 'greet'], { dataDir: dataDir! });
    expect(logs.stdout).toContain('hello from the desktop app');
  });
});
