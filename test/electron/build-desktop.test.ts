// scripts/build-desktop.mjs: the bundles the app runs, built into a temporary directory. The
// sandboxed preload requires nothing but 'electron' and carries the package's version; the main
// bundle requires only Electron and Node built-ins (packages stay external, none are used today).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.ts';

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const requires = (text: string) =>
  [...new Set([...text.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]))].sort();

describe('build-desktop', () => {
  it('bundles main.cjs and a sandbox-safe preload.cjs', () => {
    const out = path.join(tempDir('ax-build-desktop-'), 'electron');
    execFileSync(process.execPath, ['scripts/build-desktop.mjs', out], { cwd: REPO, stdio: 'pipe' });
    const preload = fs.readFileSync(path.join(out, 'preload.cjs'), 'utf8');
    const main = fs.readFileSync(path.join(out, 'main.cjs'), 'utf8');
    expect(requires(preload)).toEqual(['electron']);
    expect(preload).toContain('exposeInMainWorld("axDesktop"');
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(preload).toContain(JSON.stringify(version));
    expect(preload).not.toContain('__AX_VERSION__');
    expect(requires(main).every((name) => name === 'electron' || name!.startsWith('node:'))).toBe(true);
    expect(main).toContain('registerSchemesAsPrivileged');
    expect(JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).main).toBe('dist/electron/main.cjs');
  });
});
