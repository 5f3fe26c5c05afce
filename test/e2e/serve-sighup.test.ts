// SIGHUP on `ax serve` with a task running. Node's default was to die at once,
// leaving the run RUNNING. The convention (hangup.ts, README "Signals"): on a terminal (here util-
// linux `script` gives it one) SIGHUP drains like SIGTERM; as a service (no terminal: pipes) it
// reloads the settings and serves on. Either way the task ends SUCCESS, recorded.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import type { AlertChannelInfo } from '../../engine/api/alerts.ts';
import { ax, axJson, type AxOptions, cliSandbox } from '../helpers/ax.ts';
import { readLockFile, REPO, writeFile } from '../helpers/files.ts';
import { startServe } from '../helpers/serve.ts';
import { startWebhookReceiver } from '../helpers/alert-receivers.ts';
import { waitFor } from '../helpers/wait-for.ts';

const box = cliSandbox('ax-sighup-');
const SCRIPT = ['/usr/bin/script', '/bin/script'].find((p) => fs.existsSync(p));
// The task waits for a file the test writes: it is RUNNING for as long as the test needs.
const slow = (flag: string) =>
  `workflow: slow\ntasks:\n  wait:\n    command: 'while [ ! -f ${flag} ]; do sleep 0.1; done; echo done'\n`;

const opts = (name: string): AxOptions => ({ dataDir: path.join(box.root, name), cwd: box.root });

/** Starts workflow slow and waits until its task runs; its run id. */
async function startSlow(o: AxOptions, flag: string): Promise<number> {
  writeFile(box.root, 'slow.yaml', slow(flag));
  expect((await ax(['apply', 'slow.yaml'], o)).code).toBe(0);
  const runId = (await axJson<{ id: number }>(['run', 'slow'], o)).id;
  await waitFor(async () => (await axJson<RunDetail>(['runs', String(runId)], o)).instances[0]?.state === 'RUNNING', {
    timeoutMs: 30_000,
    intervalMs: 200,
    message: 'the task running',
  });
  return runId;
}

describe('SIGHUP on ax serve', () => {
  it('as a service (no terminal): reloads the alert settings and the API token, serves on; the task ends SUCCESS', async () => {
    const o = opts('service');
    const hook = await startWebhookReceiver();
    try {
      const serve = await startServe(o);
      const flag = path.join(box.root, 'service-go');
      const runId = await startSlow(o, flag);
      const set = await ax(
        ['settings', 'set', 'alerts', JSON.stringify({ channels: { hook: { type: 'webhook', url: hook.url } } })],
        o,
      );
      expect(set.code, set.stderr).toBe(0);
      expect(set.stderr).toContain(
        `ax serve (pid ${serve.pid}) runs on this data dir and still has the previous alerts: restart it to apply them, or, when it runs as a service (no terminal), reload them with "kill -HUP ${serve.pid}"`,
      );
      expect(await axJson<AlertChannelInfo[]>(['alerts', 'channels'], o)).toEqual([]);
      const token = fs.readFileSync(path.join(o.dataDir, 'api-token'), 'utf8');
      fs.writeFileSync(path.join(o.dataDir, 'api-token'), 'a-new-api-token-0123456789abcdef', { mode: 0o600 });
      process.kill(serve.pid, 'SIGHUP');
      await serve.waitForLine(
        /^ax serve: SIGHUP received: settings reloaded \(alerts: 1 channel\(s\) \(hook\); API token; /,
        15_000,
        'stdout',
      );
      expect(serve.running).toBe(true);
      // Through the server, with the new token the CLI reads from the file: the reload took both.
      expect(token).not.toBe('a-new-api-token-0123456789abcdef');
      expect((await axJson<AlertChannelInfo[]>(['alerts', 'channels'], o)).map((c) => c.name)).toEqual(['hook']);
      fs.writeFileSync(flag, '');
      await waitFor(async () => (await axJson<RunDetail>(['runs', String(runId)], o)).run.state === 'SUCCESS', {
        timeoutMs: 30_000,
        intervalMs: 200,
        message: 'the run SUCCESS',
      });
      expect(serve.running).toBe(true);
      serve.kill('SIGTERM');
      expect((await serve.result(30_000)).code).toBe(0);
    } finally {
      await hook.close();
    }
  }, 120_000);

  // Skipped only without script(1) (util-linux), which gives the server a terminal.
  it.skipIf(!SCRIPT)(
    'on a terminal: drains like SIGTERM (the terminal went away); the task ends SUCCESS, nothing is left RUNNING',
    async () => {
      const o = opts('terminal');
      fs.mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
      const env: NodeJS.ProcessEnv = {};
      for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
      const term = spawn(
        SCRIPT as string,
        ['-qec', `"${process.execPath}" "${path.join(REPO, 'bin', 'ax.mjs')}" serve`, '/dev/null'],
        {
          env: { ...env, TZ: 'UTC', AX_DATA_DIR: o.dataDir },
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      let screen = '';
      term.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
      const exited = new Promise<number | null>((resolve) => term.on('close', resolve));
      try {
        const lock = await waitFor(
          () => {
            const l = readLockFile(o.dataDir);
            return l?.port ? l : undefined;
          },
          { timeoutMs: 30_000, message: 'ax serve on a terminal' },
        );
        const flag = path.join(box.root, 'terminal-go');
        const runId = await startSlow(o, flag);
        process.kill(lock.pid, 'SIGHUP');
        await waitFor(
          () => screen.includes('ax serve: SIGHUP received: taking no new tasks and letting running ones finish'),
          { timeoutMs: 15_000, message: `the drain on the terminal:\n${screen}` },
        );
        fs.writeFileSync(flag, '');
        expect(await exited).toBe(0);
        expect(screen).toContain('ax serve: stopped');
        // No server now: ax reads the data dir itself.
        const detail = await axJson<RunDetail>(['runs', String(runId)], o);
        expect(detail.run.state).toBe('SUCCESS');
        expect(detail.instances.map((i) => i.state)).toEqual(['SUCCESS']);
      } finally {
        term.kill('SIGKILL');
      }
    },
    120_000,
  );
});
