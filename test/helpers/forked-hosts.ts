// The engine host forked as the desktop app runs it (engine/hosts/port/fork-host.ts), for a test
// file: one temporary root, a fresh data dir below it per test, and every host a test started
// killed after it together with any task left behind (killStrays finds them by AXT_DATA_DIR).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type ForkedEngineHost, type ForkHostOptions, forkEngineHost } from '../../engine/hosts/port/fork-host.ts';
import { tempDir } from './files.ts';
import { killStrays } from './processes.ts';
import { FAST_CONFIG } from './solo-engine.ts';

export interface ForkedHosts {
  /** the file's temporary folder (each test's data dir is in it) */
  readonly root: string;
  /** this test's fresh data dir */
  readonly dataDir: string;
  /** the host's environment: this process's without AX_*, the data dir, FAST_CONFIG */
  env(): NodeJS.ProcessEnv;
  /** forks a host on this test's data dir; it is killed after the test if still running */
  start(options?: Partial<ForkHostOptions>): ForkedEngineHost;
}

export function forkedHostsFixture(): ForkedHosts {
  let root: string | undefined;
  let dataDir: string | undefined;
  const started: ForkedEngineHost[] = [];
  const need = (value: string | undefined, what: string): string => {
    if (value === undefined) throw new Error(`forkedHostsFixture: the ${what} is used before its beforeEach ran`);
    return value;
  };
  const fixture: ForkedHosts = {
    get root() {
      return need(root, 'root');
    },
    get dataDir() {
      return need(dataDir, 'data dir');
    },
    env() {
      const env: NodeJS.ProcessEnv = {};
      for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
      const dir = fixture.dataDir;
      // AXT_DATA_DIR too (the host takes --data-dir): tasks inherit it (never AX_*), so killStrays finds them.
      return { ...env, AX_DATA_DIR: dir, AXT_DATA_DIR: dir, AX_ENGINE_CONFIG: JSON.stringify(FAST_CONFIG) };
    },
    start(options = {}) {
      const host = forkEngineHost({ dataDir: fixture.dataDir, env: fixture.env(), ...options });
      started.push(host);
      return host;
    },
  };
  beforeAll(() => {
    root = tempDir('ax-engine-host-');
  });
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(fixture.root, 'data-'));
  });
  afterEach(async () => {
    const left = started.splice(0).filter((h) => h.child.exitCode === null && h.child.signalCode === null);
    for (const h of left) h.child.kill('SIGKILL');
    await Promise.all(left.map((h) => h.exited));
    if (root) killStrays(root);
  });
  afterAll(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });
  return fixture;
}
