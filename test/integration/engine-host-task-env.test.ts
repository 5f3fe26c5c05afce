// The desktop app's engine host (forked as the shell starts it, without Electron): its tasks see
// none of the host's own variables (AX_DATA_DIR, AX_ENGINE_CONFIG, AX_MYSQL_URL, the desktop's
// decrypted secrets), and its data dir gets the same checks as the CLI's: another user's dir is
// refused, and the host says why.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../engine/api/events.ts';
import { DESKTOP_SECRETS_ENV } from '../../engine/api/host-protocol.ts';
import { type ForkedEngineHost, forkEngineHost } from '../../engine/hosts/port/fork-host.ts';
import { tempDir } from '../helpers/files.ts';
import { killStrays } from '../helpers/processes.ts';
import { applyText } from '../helpers/api-apply.ts';
import { FAST_CONFIG } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

let root: string;
const hosts: ForkedEngineHost[] = [];

beforeAll(() => {
  root = tempDir('ax-engine-host-env-');
});
afterEach(async () => {
  const left = hosts.splice(0).filter((h) => h.child.exitCode === null && h.child.signalCode === null);
  for (const h of left) h.child.kill('SIGKILL');
  await Promise.all(left.map((h) => h.exited));
  killStrays(root);
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function hostEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
  return {
    ...env,
    AX_DATA_DIR: dataDir,
    // tasks carry it (never AX_*), so killStrays finds them
    AXT_DATA_DIR: dataDir,
    AX_ENGINE_CONFIG: JSON.stringify(FAST_CONFIG),
    AX_MYSQL_URL: 'mysql://ax:host-pw-771@db:3306/ax',
    [DESKTOP_SECRETS_ENV]: JSON.stringify({
      mysql: 'mysql://ax:desk-pw-771@db:3306/ax',
      tasks: { 'api-key': 'task-sec-771' },
    }),
  };
}

// Skipped on Windows only: the tasks are POSIX shell commands (`env`), and the refused data dir is
// one a chmod 0777 opens to others, which Windows file modes cannot express.
describe.skipIf(process.platform === 'win32')('the desktop engine host', () => {
  it("a task sees no AX_* of the host's and none of the desktop's decrypted strings; its own secret is there, masked", async () => {
    const dataDir = fs.mkdtempSync(path.join(root, 'data-'));
    const host = forkEngineHost({ dataDir, env: hostEnv(dataDir) });
    hosts.push(host);
    const ui = host.connect();
    await host.ready;
    const events: EngineEvent[] = [];
    await ui.subscribe(['runs'], (e) => events.push(e));
    await applyText(
      ui,
      'workflow: envy\ntasks:\n  show:\n    command: env\n    env: { API_KEY: { secret: api-key } }\n',
    );
    const run = await ui.runWorkflow('envy', { actor: 'ui' });
    await waitFor(() => events.some((e) => e.type === 'run' && e.runId === run.id && e.state === 'SUCCESS'), {
      timeoutMs: 15_000,
      message: 'no SUCCESS event',
    });
    const detail = await ui.getRun(run.id);
    const lines = (await ui.readLogs(detail.instances[0]!.id, 0, 1000)).map((l) => l.line);
    const names = lines.filter((l) => l.includes('=')).map((l) => l.slice(0, l.indexOf('=')));
    expect(names.filter((k) => k.startsWith('AX_')).sort()).toEqual([
      'AX_ATTEMPT',
      'AX_INSTANCE_ID',
      'AX_LOGICAL_TIME',
      'AX_OUTPUT',
      'AX_RUN_ID',
      'AX_SPAWN_ID',
      'AX_TASK',
      'AX_WORKFLOW',
    ]);
    expect(lines).toContain('API_KEY=***');
    expect(lines.join('\n')).not.toMatch(/host-pw|desk-pw|task-sec/);
    expect(await host.stop(5_000)).toEqual({ code: 0, signal: null });
  });

  it('a data dir others can write is refused: the host fails with the fix', async () => {
    const dataDir = fs.mkdtempSync(path.join(root, 'open-'));
    fs.chmodSync(dataDir, 0o777);
    const host = forkEngineHost({ dataDir, env: hostEnv(dataDir) });
    hosts.push(host);
    await expect(host.ready).rejects.toThrow(
      `the engine host could not start: the data dir ${dataDir} can be written by other users (mode 0777): they could replace its tokens and settings. Make it private: chmod 700 ${dataDir}`,
    );
    // exit 6 (storage): a person must act
    expect(await host.exited).toEqual({ code: 6, signal: null });
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });
});
