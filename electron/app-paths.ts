// Where the shell finds what it serves and starts, relative to its bundle (dist/electron/main.cjs):
// the UI in dist/ui, the engine host in dist/engine-host.mjs, the preload beside main.cjs. The
// data dir is the engine host's to choose (--data-dir, AX_DATA_DIR, else the CLI's default data
// dir), so `ax` commands find the desktop app's data without flags.
import path from 'node:path';

export interface AppPaths {
  preload: string;
  uiDir: string;
  engineHost: string;
}

export function appPaths(bundleDir: string): AppPaths {
  const dist = path.resolve(bundleDir, '..');
  return {
    preload: path.join(bundleDir, 'preload.cjs'),
    uiDir: process.env.AX_UI_DIR ? path.resolve(process.env.AX_UI_DIR) : path.join(dist, 'ui'),
    engineHost: path.join(dist, 'engine-host.mjs'),
  };
}

/** The host's arguments from the app's own command line: --data-dir DIR, --local-api[=PORT]. */
export function hostOptionsFrom(switchValue: (name: string) => string, hasSwitch: (name: string) => boolean): { dataDir?: string; args: string[] } {
  const dataDir = switchValue('data-dir') || undefined;
  const args: string[] = [];
  if (hasSwitch('local-api')) {
    const port = switchValue('local-api');
    args.push(port ? `--local-api=${port}` : '--local-api');
  }
  return { ...(dataDir && { dataDir: path.resolve(dataDir) }), args };
}
