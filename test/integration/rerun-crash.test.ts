// A re-run is one store step: an engine killed (kill -9) at any of its writes leaves the run as
// it was or as the whole re-run made it, never half of it (a RUNNING run whose markers are gone
// but which has no new attempt to run, so it never ends). The engine is a child process that
// kills itself at the named statement (test/helpers/rerun-crash-child.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { addInstance, move, runOn, seedRun, setRunState, T0 } from '../contract/store-fixtures.ts';

const CHILD = join(import.meta.dirname, '../helpers/rerun-crash-child.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** etl (a → b, c) whose a failed for good: b and c are markers, the run FAILED. */
async function failedRun(file: string): Promise<number> {
  const store = await openSqliteStore(file);
  const seed = await seedRun(store);
  await move(store, await runOn(store, await addInstance(store, seed, 'a'), 'w1'), 'FAILED', {
    exitCode: 1,
    finishedAt: T0 + 10,
  });
  for (const name of ['b', 'c']) await addInstance(store, seed, name, { state: 'UPSTREAM_FAILED', handled: true });
  await setRunState(store, seed.runId, 'FAILED', T0 + 10);
  await store.close();
  return seed.runId;
}

function engine(
  file: string,
  runId: number,
  killAt: string,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, CHILD, file, String(runId), 'a', killAt], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

async function stateOf(file: string, runId: number): Promise<{ run: string | undefined; instances: string[] }> {
  const store = await openSqliteStore(file);
  try {
    const run = await store.getRun(runId);
    const instances = (await store.listInstances(runId)).map((i) => `${i.taskName}#${i.attempt}:${i.state}`);
    return { run: run?.state, instances };
  } finally {
    await store.close();
  }
}

const BEFORE = { run: 'FAILED', instances: ['a#1:FAILED', 'b#1:UPSTREAM_FAILED', 'c#1:UPSTREAM_FAILED'] };
const AFTER = { run: 'RUNNING', instances: ['a#1:FAILED', 'a#2:WAITING'] };

describe('a re-run killed at one of its writes', () => {
  // The statements where the three separate writes used to be: the markers' removal and the new
  // attempt's insert (the run's move comes first), and the commit itself.
  it.each([
    ['the removal of the markers', '^delete from "task_instance"'],
    ['the insert of the new attempt', '^insert into "task_instance"'],
    ['the commit', '^commit'],
  ])('killed at %s, the database holds the run as it was', async (_what, killAt) => {
    dir = mkdtempSync(join(tmpdir(), 'ax-rerun-crash-'));
    const file = join(dir, 'ax.db');
    const runId = await failedRun(file);
    const died = await engine(file, runId, killAt);
    expect(died.signal, died.stderr).toBe('SIGKILL');
    expect(await stateOf(file, runId)).toEqual(BEFORE);
    // The next engine re-runs it whole.
    const again = await engine(file, runId, '');
    expect(again.code, again.stderr).toBe(0);
    expect(await stateOf(file, runId)).toEqual(AFTER);
  });
});
