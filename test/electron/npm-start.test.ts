// `npm start` (scripts/start.mjs) where Electron's binary is absent: one line says why, then
// `ax serve` runs on the data dir given (arguments pass through), and a SIGTERM to npm start
// reaches it and stops it cleanly. Where the binary is present npm start opens the desktop app
// instead, which the Electron e2e test covers; this file then skips.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { electronBinary } from '../helpers/electron-binary.ts';
import { tempDir } from '../helpers/files.ts';
import { waitFor } from '../helpers/wait-for.ts';

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const hasElectron = 'binary' in electronBinary();

// Skipped where Electron's binary is installed: there npm start opens the app, which desktop-app.e2e.test.ts covers.
describe.skipIf(hasElectron)(
  `npm start without Electron${hasElectron ? " (skipped: Electron's binary is installed, so npm start opens the app: desktop-app.e2e.test.ts covers it)" : ''}`,
  () => {
    it('says why in one line and runs ax serve with the arguments given', async () => {
      const dataDir = tempDir('ax-npm-start-');
      const env: NodeJS.ProcessEnv = {};
      for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
      const child = spawn(process.execPath, ['scripts/start.mjs', `--data-dir=${dataDir}`, '--port', '0'], {
        cwd: REPO,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        await waitFor(() => /^open http:\/\/127\.0\.0\.1:\d+\/#code=/m.test(stdout), {
          timeoutMs: 30_000,
          message: `ax serve did not print its link: ${stdout}${stderr}`,
        });
        const lines = stderr.trim().split('\n');
        expect(lines[0]).toMatch(
          /^ax: no desktop app here: .*Electron.*; starting the engine and the UI in the browser instead \(ax serve\)\.$/,
        );
        expect(stdout).toContain(`solo engine on ${dataDir}`);
        expect(fs.existsSync(path.join(dataDir, 'ax.db'))).toBe(true);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
      expect(stdout).toMatch(/ax serve: stopped/);
    });
  },
);
