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

/** The folder under app.getPath('userData') that holds the engine's data dir by default. */
export const DESKTOP_DATA_FOLDER = 'data';

/** The engine's data dir: the --data-dir switch, else AX_DATA_DIR, else <userData>/data. */
export function desktopDataDir(
  userData: string,
  switchValue: (name: string) => string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const chosen = switchValue('data-dir') || env.AX_DATA_DIR;
  return path.resolve(chosen || path.join(userData, DESKTOP_DATA_FOLDER));
}

/** The host's arguments from the app's own command line: --data-dir DIR (see desktopDataDir), --local-api[=PORT]. */
export function hostOptionsFrom(
  switchValue: (name: string) => string,
  hasSwitch: (name: string) => boolean,
  userData: string,
  env: NodeJS.ProcessEnv = process.env,
): { dataDir: string; args: string[] } {
  const dataDir = desktopDataDir(userData, switchValue, env);
  const args: string[] = [];
  if (hasSwitch('local-api')) {
    const port = switchValue('local-api');
    args.push(port ? `--local-api=${port}` : '--local-api');
  }
  return { dataDir, args };
}
