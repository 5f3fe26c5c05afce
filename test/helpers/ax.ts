// The real `ax` command (node bin/ax.mjs) as a child process on a temp data dir: one-shot
// commands with their stdout, stderr and exit code, and long-running ones (`ax run --wait`,
// `ax logs --follow`) in the background. `ax serve` and its sign-in are in serve.ts.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { openDataDirStore, REPO, tempDir } from './files.ts';
import { killAllSpawned, killStrays, type ProcessResult, SpawnedProcess } from './processes.ts';

const AX_BIN = path.join(REPO, 'bin', 'ax.mjs');

export interface AxOptions {
  /** the data dir, passed as AX_DATA_DIR */
  dataDir: string;
  /** working directory of the command; default the data dir */
  cwd?: string;
  env?: Record<string, string>;
  /** written to the command's stdin, then closed; without it stdin is /dev/null */
  input?: string;
  /** kill the command (SIGKILL) and fail after this long; default 60 s */
  timeoutMs?: number;
}

export type AxResult = ProcessResult;

export function childEnv(opts: AxOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // Nothing of the test runner's AX_* settings leaks in; times print in UTC.
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
  // AXT_DATA_DIR marks the tasks too (AX_* never reaches a task): killStrays finds them by it.
  return {
    ...env,
    TZ: 'UTC',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    ...opts.env,
    AX_DATA_DIR: opts.dataDir,
    AXT_DATA_DIR: opts.dataDir,
  };
}

/** A running `ax` command. */
export class AxProcess extends SpawnedProcess {
  constructor(
    readonly args: string[],
    readonly opts: AxOptions,
  ) {
    super(process.execPath, [AX_BIN, ...args], {
      cwd: opts.cwd ?? opts.dataDir,
      env: childEnv(opts),
      input: opts.input,
      label: `ax ${args.join(' ')}`,
    });
  }
}

/** Starts `ax ARGS` in the background. */
export function axStart(args: string[], opts: AxOptions): AxProcess {
  return new AxProcess(args, opts);
}

/** Runs `ax ARGS` to the end. */
export async function ax(args: string[], opts: AxOptions): Promise<AxResult> {
  return new AxProcess(args, opts).result(opts.timeoutMs ?? 60_000);
}

/** Runs `ax --json ARGS`, expects exit 0, and parses stdout. */
export async function axJson<T>(args: string[], opts: AxOptions): Promise<T> {
  const r = await ax(['--json', ...args], opts);
  if (r.code !== 0) throw new Error(`ax --json ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Kills (SIGKILL) every `ax` process (every SpawnedProcess) still running, except `keep`. */
export const killAllAx: (keep?: (SpawnedProcess | undefined)[]) => Promise<void> = killAllSpawned;

/** Runs jobs with at most `limit` at a time: each `ax` start-up keeps a core busy for a second. */
export async function limited<T extends unknown[]>(
  jobs: [...{ [K in keyof T]: () => Promise<T[K]> }],
  limit = 3,
): Promise<T> {
  const list = jobs as (() => Promise<unknown>)[];
  const out: unknown[] = new Array(list.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < list.length; i = next++) out[i] = await (list[i] as () => Promise<unknown>)();
  };
  await Promise.all(Array.from({ length: Math.min(limit, list.length) }, lane));
  return out as T;
}

export interface CliSandbox {
  /** a temporary directory of the test file's own, removed after it */
  readonly root: string;
  /** ROOT/data */
  readonly dataDir: string;
  /** `ax` options on the data dir, run from ROOT (so relative file names stay short in messages) */
  opts(): AxOptions;
}

/**
 * A test file's sandbox for real `ax` processes: made before its tests; after each test every
 * `ax` it started is killed with the task process groups they left under ROOT (unless
 * `keepBetweenTests`, for files that share one `ax serve`); everything is removed at the end.
 */
export function cliSandbox(prefix: string, options: { keepBetweenTests?: boolean } = {}): CliSandbox {
  const box = {
    root: '',
    dataDir: '',
    opts: (): AxOptions => ({ dataDir: box.dataDir, cwd: box.root }),
  };
  beforeAll(() => {
    box.root = tempDir(prefix);
    box.dataDir = path.join(box.root, 'data');
  });
  if (!options.keepBetweenTests) {
    afterEach(async () => {
      await killAllAx();
      // tasks live in process groups of their own: a killed `ax` would leave them behind
      killStrays(box.root);
    });
  }
  afterAll(async () => {
    await killAllAx();
    killStrays(box.root);
    fs.rmSync(box.root, { recursive: true, force: true });
  });
  return box;
}

/** A test's own root and data dir under a sandbox, and the data dir's store as the test opens it. */
export interface PerTestDataDir extends CliSandbox {
  /** opens ROOT/data's store (after `ax serve` has made it); closed after the test */
  openStore(): Promise<SqlStore>;
}

/**
 * A fresh ROOT (and ROOT/data) under the sandbox for each test, so that no pid file or data dir is
 * left by the test before; the store a test opened is closed after it.
 */
export function perTestDataDir(box: CliSandbox): PerTestDataDir {
  let store: SqlStore | undefined;
  const t = {
    root: '',
    dataDir: '',
    opts: (): AxOptions => ({ dataDir: t.dataDir, cwd: t.root }),
    openStore: async (): Promise<SqlStore> => {
      store = await openDataDirStore(t.dataDir);
      return store;
    },
  };
  beforeEach(() => {
    t.root = fs.mkdtempSync(path.join(box.root, 'test-'));
    t.dataDir = path.join(t.root, 'data');
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });
  return t;
}
