// `ax serve` for a test: started on a data dir and waited for until it publishes its port, its
// sign-in (the single-use link `ax open` prints), and fixtures that give a test file one ready
// served engine, removed with its processes after the file.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { WebSocket } from 'ws';
import { apiToken } from '../../engine/hosts/node/data-dir.ts';
import { requestSignInCode } from '../../engine/server/ws-client.ts';
import { ax, type AxOptions, type AxProcess, type AxResult, axStart, killAllAx } from './ax.ts';
import { readLockFile, tempDir, writeFile } from './files.ts';
import { killStrays } from './processes.ts';
import { waitFor } from './wait-for.ts';

export interface ServeProcess extends AxProcess {
  port: number;
}

/** Starts `ax serve` and waits until its engine.lock names it with an API port. */
export async function startServe(opts: AxOptions, extraArgs: string[] = []): Promise<ServeProcess> {
  const proc = axStart(['serve', ...extraArgs], opts);
  const lock = await waitFor(
    () => {
      if (!proc.running) throw new Error(`ax serve exited ${proc.exit?.code}: ${proc.stderr}`);
      const l = readLockFile(opts.dataDir);
      return l && l.pid === proc.pid && l.port ? l : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 50, message: 'ax serve did not write its port to engine.lock' },
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}\n--- stdout:\n${proc.stdout}\n--- stderr:\n${proc.stderr}`);
  });
  // Its start-up lines are printed before the port is published; wait until they have arrived
  // (the line naming the API: with --listen a note line starting "ax serve:" comes before it).
  await proc.waitForLine(/^ax serve: .*\bAPI /, 10_000, 'stdout');
  return Object.assign(proc, { port: lock.port as number });
}

/** The status of a WebSocket upgrade to `ax serve`'s API: 101 when it opened, else the HTTP status refusing it. */
export function apiUpgrade(port: number, headers: Record<string, string>, query = ''): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api${query}`, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', reject);
  });
}

export interface ServedEngine {
  dataDir: string;
  port: number;
  origin: string;
  serve: ServeProcess;
  /** a fresh single-use sign-in link (from `ax open --print`) */
  signInUrl(): Promise<string>;
  /**
   * A fresh single-use sign-in link asked of the engine as `ax open` asks for it (POST
   * /auth/code with the data dir's API token), from this process: an `ax` process costs a busy
   * core a second, once per page. The CLI's own path is signInUrl (sign-in.test.ts uses it).
   */
  signInLink(): Promise<string>;
  /** runs an `ax` command on this data dir */
  ax(args: string[], opts?: Partial<AxOptions>): Promise<AxResult>;
  /** writes a file into the data dir and returns its path */
  writeFile(name: string, text: string): string;
  /** writes each workflow file (name → YAML) into the data dir and `ax apply`s it; throws with
   *  ax's stderr when one is refused */
  apply(files: Record<string, string>, opts?: Partial<AxOptions>): Promise<void>;
  stop(): Promise<void>;
}

export interface ServedEngineOptions {
  env?: Record<string, string>;
  serveArgs?: string[];
  /** writes into the data dir before `ax serve` starts (e.g. settings.json) */
  prepare?: (dataDir: string) => void;
}

/** `ax serve --port 0` on a fresh temporary data dir; the caller stops it (or use servedEngine). */
export async function startServedEngine(options: ServedEngineOptions = {}): Promise<ServedEngine> {
  const dataDir = tempDir('ax-ui-');
  options.prepare?.(dataDir);
  const opts: AxOptions = { dataDir, env: options.env };
  const serve = await startServe(opts, ['--port', '0', ...(options.serveArgs ?? [])]);
  return {
    dataDir,
    port: serve.port,
    origin: `http://127.0.0.1:${serve.port}`,
    serve,
    async signInUrl() {
      const res = await ax(['open', '--print'], opts);
      if (res.code !== 0) throw new Error(`ax open --print failed: ${res.stderr}`);
      return res.stdout.trim().split('\n').pop() as string;
    },
    async signInLink() {
      return `http://127.0.0.1:${serve.port}/#code=${await requestSignInCode(serve.port, apiToken(dataDir))}`;
    },
    ax: (args, more) => ax(args, { ...opts, ...more }),
    writeFile: (name, text) => writeFile(dataDir, name, text),
    async apply(files, more) {
      for (const [name, text] of Object.entries(files)) {
        // --force: fixtures may label tasks for workers this solo engine does not have
        const r = await ax(['apply', '--force', writeFile(dataDir, name, text)], { ...opts, ...more });
        if (r.code !== 0) throw new Error(`ax apply ${name} exited ${r.code}: ${r.stderr}`);
      }
    },
    async stop() {
      serve.kill('SIGTERM');
      await serve.exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ServeFixture {
  /** the file's temporary directory, removed after it */
  readonly root: string;
  /** ROOT/data, the served data dir */
  readonly dataDir: string;
  /** the running `ax serve` (set once the file's first beforeAll has run) */
  readonly serve: ServeProcess;
  /** `ax` options on the data dir, run from ROOT */
  opts(): AxOptions;
}

export interface ServeFixtureOptions {
  serveArgs?: string[];
  env?: Record<string, string>;
  /** runs before `ax serve` starts, with ROOT and ROOT/data made: files to write, `ax apply`s */
  prepare?: (fixture: Omit<ServeFixture, 'serve'>) => unknown;
}

/**
 * One `ax serve` for a whole test file, on ROOT/data of a temporary ROOT: started before the
 * file's own beforeAll hooks (`prepare` runs first), then after the file every
 * `ax` it started is killed with the tasks they left under ROOT, and ROOT is removed.
 */
export function serveFixture(prefix: string, options: ServeFixtureOptions = {}): ServeFixture {
  let serve: ServeProcess | undefined;
  const fixture = {
    root: '',
    dataDir: '',
    get serve(): ServeProcess {
      if (!serve) throw new Error('serveFixture: ax serve is not started yet (use it in a test or a later beforeAll)');
      return serve;
    },
    opts: (): AxOptions => ({ dataDir: fixture.dataDir, cwd: fixture.root, env: options.env }),
  };
  beforeAll(async () => {
    fixture.root = tempDir(prefix);
    fixture.dataDir = path.join(fixture.root, 'data');
    fs.mkdirSync(fixture.dataDir, { recursive: true, mode: 0o700 });
    await options.prepare?.(fixture);
    serve = await startServe(fixture.opts(), options.serveArgs);
  }, 120_000);
  afterAll(async () => {
    await killAllAx();
    if (fixture.root) {
      killStrays(fixture.root);
      fs.rmSync(fixture.root, { recursive: true, force: true });
    }
  });
  return fixture;
}
