// Nothing the desktop app loads at start may be a native addon: one is built for one runtime's
// ABI, and npm builds it for the machine's Node, not Electron's. Read from the built bundles:
// every module reachable from dist/engine-host.mjs (the utility process), dist/launcher-main.mjs
// (forked by it) and dist/electron/main.cjs (the main process) through static imports, dynamic
// imports and requires, into node_modules and through each package's own dependencies; a
// package that ships a .node file or a binding.gyp fails the test. The one addon AX may load,
// better-sqlite3, is required only by sqlite-driver.ts after node:sqlite was found missing
// (Node 20), which Electron's Node never is; test/second-node/ checks that at run time too.
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO } from '../helpers/files.ts';

const DIST = path.join(REPO, 'dist');
const ENTRIES = ['engine-host.mjs', 'launcher-main.mjs', 'electron/main.cjs'];
const BUILTIN = new Set(builtinModules);
// Loaded by Electron itself, not from node_modules.
const PROVIDED = new Set(['electron']);

const SPECIFIERS = [
  /\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*["']([^"']+)["']/g,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  /\brequire\(\s*["']([^"']+)["']\s*\)/g,
];
// createRequire(import.meta.url)("x"): how sqlite-driver.ts loads better-sqlite3, only when needed.
const GUARDED_REQUIRE = /createRequire\([^)]*\)\(\s*["']([^"']+)["']\s*\)/g;

// What a module specifier can look like: a text such as `"from": …` inside a message is none.
const SPECIFIER = /^(node:)?[@\w.][\w@./-]*$/;

function specifiers(text: string, patterns: RegExp[]): string[] {
  return patterns.flatMap((re) => [...text.matchAll(re)].map((m) => m[1] as string)).filter((s) => SPECIFIER.test(s));
}

function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/** The bundle files reachable from an entry, and the packages they import from node_modules. */
function reach(entry: string): { files: string[]; packages: Set<string>; guarded: Set<string> } {
  const files: string[] = [];
  const packages = new Set<string>();
  const guarded = new Set<string>();
  const todo = [path.join(DIST, entry)];
  while (todo.length) {
    const file = todo.pop() as string;
    if (files.includes(file)) continue;
    files.push(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const g of specifiers(text, [GUARDED_REQUIRE])) guarded.add(packageName(g));
    for (const spec of specifiers(text, SPECIFIERS)) {
      if (spec.startsWith('.')) todo.push(path.resolve(path.dirname(file), spec));
      else if (spec.endsWith('.node')) packages.add(spec);
      else if (!spec.startsWith('node:') && !BUILTIN.has(spec) && !PROVIDED.has(spec)) packages.add(packageName(spec));
    }
  }
  return { files, packages, guarded };
}

/** Where a package is installed as seen from `from` (a package dir or the repo). */
function packageDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === path.dirname(dir) || dir === path.dirname(REPO)) return undefined;
  }
}

/** Files in a package (not in its nested node_modules) that make it a native addon. */
function nativeFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === 'node_modules') continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.node') || e.name === 'binding.gyp') found.push(path.relative(REPO, p));
    }
  };
  walk(dir);
  return found;
}

/** Every package reachable from `roots` through package.json dependencies, with any native files. */
function nativeClosure(roots: Iterable<string>): { checked: number; native: Record<string, string[]> } {
  const seen = new Set<string>();
  const native: Record<string, string[]> = {};
  const todo = [...roots].map((name) => ({ name, from: REPO }));
  while (todo.length) {
    const { name, from } = todo.pop() as { name: string; from: string };
    const dir = packageDir(name, from);
    if (!dir || seen.has(dir)) continue;
    seen.add(dir);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
      gypfile?: boolean;
    };
    const files = nativeFiles(dir);
    if (pkg.gypfile) files.push(`${path.relative(REPO, dir)}/package.json (gypfile)`);
    if (files.length) native[path.relative(REPO, dir)] = files;
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies }))
      todo.push({ name: dep, from: dir });
  }
  return { checked: seen.size, native };
}

const built = ENTRIES.every((e) => fs.existsSync(path.join(DIST, e)));
if (!built && process.env.CI === 'true') throw new Error('dist/ is not built: npm ci builds it (the prepare script)');

// Skipped only off CI when dist/ is not built (npm install builds it); under CI that is thrown above.
describe.skipIf(!built)('the desktop bundles load no native addon', () => {
  for (const entry of ENTRIES) {
    it(`nothing reachable from dist/${entry} is a native module`, () => {
      const { files, packages, guarded } = reach(entry);
      expect(files.length).toBeGreaterThan(0);
      expect(
        [...packages].filter((p) => p.endsWith('.node')),
        'a .node file required from the bundle',
      ).toEqual([]);
      const { native } = nativeClosure(packages);
      expect(native, `native modules reachable from dist/${entry}`).toEqual({});
      // The one guarded require there may be is better-sqlite3, behind the node:sqlite check.
      expect([...guarded].filter((g) => g !== 'better-sqlite3')).toEqual([]);
      if (guarded.size) {
        const text = files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
        expect(text).toContain('getBuiltinModule');
        expect(text).toContain('"node:sqlite"');
      }
    });
  }

  // Skipped where npm could not build the optional better-sqlite3 (it is then not installed at all).
  it.skipIf(!packageDir('better-sqlite3', REPO))(
    'the check sees a native module where there is one (better-sqlite3 itself; skipped where it is not installed)',
    () => {
      const { native } = nativeClosure(['better-sqlite3']);
      const dir = path.relative(REPO, packageDir('better-sqlite3', REPO) ?? 'node_modules/better-sqlite3');
      expect(native[dir]).toEqual(expect.arrayContaining([`${dir}/binding.gyp`]));
    },
  );
});

// Skipped only off CI when dist/ is not built (npm install builds it); under CI that is thrown above.
describe.skipIf(!built)('the bundles as Electron loads them from the packaged folder', () => {
  it('main and preload are CommonJS (Electron requires them), the host is an ES module by its extension', () => {
    for (const file of ['electron/main.cjs', 'electron/preload.cjs']) {
      const text = fs.readFileSync(path.join(DIST, file), 'utf8');
      // CommonJS compiles as a function body; an import/export statement would not.
      expect(
        () =>
          new vm.Script(`(function (exports, require, module, __filename, __dirname) {${text}\n})`, { filename: file }),
        file,
      ).not.toThrow();
    }
    // utilityProcess.fork and child_process.fork load .mjs as ESM whatever package.json says.
    expect(path.extname(path.join(DIST, 'engine-host.mjs'))).toBe('.mjs');
    const host = fs.readFileSync(path.join(DIST, 'engine-host.mjs'), 'utf8');
    expect(host).toMatch(/^import /m);
  });

  it('every package the bundles import is a production dependency the packaged app ships', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const yml = parse(fs.readFileSync(path.join(REPO, 'electron-builder.yml'), 'utf8')) as { files: string[] };
    const excluded = yml.files.flatMap((f) => /^!\*\*\/node_modules\/(.+)\/\*\*$/.exec(f)?.[1] ?? []);
    expect(excluded).toContain('better-sqlite3');
    for (const entry of [...ENTRIES, 'ax.mjs']) {
      const { packages } = reach(entry);
      for (const name of packages) {
        expect(
          Object.keys(pkg.dependencies),
          `dist/${entry} imports ${name}: a devDependency is not in the packaged app`,
        ).toContain(name);
        expect(excluded, `dist/${entry} imports ${name}, which electron-builder.yml leaves out`).not.toContain(name);
      }
    }
  });

  it('the paths the shell starts are inside dist/, which the packaged app carries', () => {
    const text = fs.readFileSync(path.join(DIST, 'electron/main.cjs'), 'utf8');
    // app-paths.ts: every file the shell opens is found from main.cjs's own folder.
    for (const name of ['engine-host.mjs', 'preload.cjs']) expect(text).toContain(`"${name}"`);
    expect(text).not.toContain(REPO);
    for (const entry of ENTRIES) expect(fs.readFileSync(path.join(DIST, entry), 'utf8'), entry).not.toContain(REPO);
  });
});
