// The total log size cap per task attempt: past it the rest of the output is dropped; one notice
// saying how to raise the cap is written the moment it is reached, and the log ends with how much
// was not stored; the task runs on to its end. The node's cap is the log-limit setting, a task's
// own log_limit wins over it. Through the real `ax run`, and an `ax serve` killed with SIGKILL
// after the cap was hit: the notice is already in the store.
import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../engine/api/types.ts';
import { DEFAULT_CONFIG } from '../../engine/core/model/config.ts';
import { ax, cliSandbox } from '../helpers/ax.ts';
import { openDataDirStore, writeFile } from '../helpers/files.ts';
import { startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

const box = cliSandbox('ax-cli-log-limit-');
// lines of 98 characters (the cap counts a line's bytes without its newline), then one on stderr
const flood = (lines: number) => `yes "$(printf 'y%.0s' $(seq 98))" | head -n ${lines}; echo done >&2`;

async function jsonLogs(task: string): Promise<LogLine[]> {
  const json = await ax(['--json', 'logs', '1', task], box.opts());
  expect(json.code, json.stderr).toBe(0);
  return json.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as LogLine);
}

describe('log size cap per attempt', () => {
  it('the default is 50 MB', () => {
    expect(DEFAULT_CONFIG.maxOutputBytes).toBe(50 * 1024 * 1024);
  });

  it("the node's log-limit setting, and a task's log_limit that wins over it: output stops near the cap, one notice, the count at the end, the run unchanged", async () => {
    const set = await ax(['settings', 'set', 'log-limit', '100KB'], box.opts());
    expect(set.code, set.stderr).toBe(0);
    const bad = await ax(['settings', 'set', 'log-limit', 'plenty'], box.opts());
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'ax: log-limit: "plenty" is not a size: write a number of bytes or a number with KB, MB or GB, e.g. "50MB"\n',
    ]);
    writeFile(
      box.root,
      'flood.yaml',
      `workflow: flood\ntasks:\n  node:\n    command: ${flood(10_000)}\n  own:\n    command: ${flood(1_000)}\n    log_limit: 4KB\n`,
    );
    const run = await ax(['run', 'flood.yaml', '--wait'], box.opts());
    expect(run.code, run.stderr).toBe(0);

    const node = await jsonLogs('node');
    expect(node.filter((l) => l.stream === 'system').map((l) => l.line)).toEqual([
      '[output over the 100 KB log limit is not stored: the task runs on; raise it with log_limit: 400KB on the task in its workflow file, or for the node running it with "ax settings set log-limit 400KB" and a restart]',
      // 1,044 lines of 98 bytes (102,312) fit; the other 8,956 and the stderr line (877,692 bytes) do not
      '[output past the 100 KB limit: 857.1 KB (8957 lines) not stored]',
    ]);
    // the notice sits where the output stopped; the count ends the log
    expect(node.map((l) => l.stream).slice(1043)).toEqual(['stdout', 'system', 'system']);
    const stored = node.filter((l) => l.stream !== 'system');
    expect(stored).toHaveLength(1044);
    expect(stored.every((l) => l.stream === 'stdout' && l.line === 'y'.repeat(98))).toBe(true);

    const own = await jsonLogs('own');
    expect(own.filter((l) => l.stream === 'system').map((l) => l.line)).toEqual([
      "[output over the 4 KB log limit is not stored: the task runs on; raise the task's log_limit in its workflow file, e.g. log_limit: 16KB]",
      // 41 lines (4,018 bytes) fit in 4,096; the other 959 and the stderr line (93,986 bytes) do not
      '[output past the 4 KB limit: 91.8 KB (960 lines) not stored]',
    ]);
    expect(own.filter((l) => l.stream !== 'system')).toHaveLength(41);
    // the plain text form shows the same notice
    const text = await ax(['logs', '1', 'own'], box.opts());
    expect(text.stderr.split('\n').filter((l) => l.includes('log limit is not stored'))).toEqual([
      `[ax] ${own.find((l) => l.stream === 'system')?.line}`,
    ]);
  });

  it('an engine killed with SIGKILL after the cap was hit still leaves the notice in the store', async () => {
    const serve = await startServe(box.opts());
    // past a 2 KB cap at once, then still running when the engine dies
    writeFile(
      box.root,
      'long.yaml',
      `workflow: long\ntasks:\n  talk:\n    command: ${flood(100).replace('; echo done >&2', '')}; sleep 60\n    log_limit: 2KB\n`,
    );
    expect((await ax(['apply', 'long.yaml'], box.opts())).code).toBe(0);
    const started = await ax(['run', 'long'], box.opts());
    expect(started.code, started.stderr).toBe(0);
    const store = await openDataDirStore(box.dataDir);
    try {
      const notice = await waitFor(
        async () => {
          const [run] = await store.listRuns({ workflowName: 'long' });
          const inst = run && (await store.listInstances(run.id))[0];
          const logs = inst ? await store.readLogs(inst.id, 0, 1_000) : [];
          return logs.some((l) => l.stream === 'system') && inst?.state === 'RUNNING' ? { inst, logs } : undefined;
        },
        { timeoutMs: 30_000, message: 'the notice did not reach the store while the task ran' },
      );
      serve.kill('SIGKILL');
      await serve.exited;
      const after = await store.readLogs(notice.inst.id, 0, 1_000);
      // the notice, once, right after the 20 lines that fit; no count: the attempt never closed
      expect(after.filter((l) => l.stream === 'system').map((l) => l.line)).toEqual([
        "[output over the 2 KB log limit is not stored: the task runs on; raise the task's log_limit in its workflow file, e.g. log_limit: 8KB]",
      ]);
      expect(after.map((l) => l.stream)).toEqual([...Array<string>(20).fill('stdout'), 'system']);
    } finally {
      await store.close();
    }
  });
});
