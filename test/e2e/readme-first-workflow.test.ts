// The README's first workflow runs as written: the test reads the YAML and the commands from
// README.md ("## A first workflow") and runs them in a fresh data dir, as a newcomer would.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ax, cliSandbox } from '../helpers/ax.ts';
import { REPO } from '../helpers/files.ts';

const box = cliSandbox('ax-readme-');
const opts = () => ({ ...box.opts(), timeoutMs: 60_000 });

/** The section of README.md under `heading`, up to the next `## `. */
function section(heading: string): string {
  const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${heading}\n`);
  expect(start, `README.md has a "${heading}" section`).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + heading.length + 2);
  return readme.slice(start, end === -1 ? undefined : end);
}

/** The fenced blocks of a language in a piece of markdown, in order. */
const blocks = (markdown: string, lang: string) =>
  [...markdown.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] as string);

const first = section('## A first workflow');
const [yaml] = blocks(first, 'yaml');
const [shell] = blocks(first, 'sh');
/** `npx ax run first.yaml --wait  # …` → ['run', 'first.yaml', '--wait'] */
const commands = (shell ?? '')
  .split('\n')
  .map((line) => line.replace(/#.*$/, '').trim())
  .filter((line) => line !== '')
  .map((line) => {
    expect(line.startsWith('npx ax '), `a README command: ${line}`).toBe(true);
    return line.slice('npx ax '.length).split(/\s+/);
  });

beforeAll(() => {
  const name = /^# (\S+\.yaml)$/m.exec(yaml ?? '')?.[1];
  expect(name, 'the YAML block starts with "# FILE.yaml"').toBeDefined();
  fs.writeFileSync(path.join(box.root, name as string), yaml as string);
});

describe('README: a first workflow', () => {
  it('has the commands a newcomer runs: run --wait, runs, logs, apply', () => {
    expect(commands.map((c) => c[0])).toEqual(['run', 'runs', 'logs', 'apply']);
  });

  it(
    'runs as written: the report fails once, succeeds on its retry, and every command says so',
    { timeout: 120_000 },
    async () => {
      const results = [];
      for (const args of commands) {
        const r = await ax(args, opts());
        expect(r.code, `ax ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
        // the file's comments are the reader's, not a problem: no warning about them
        expect(r.stderr, `ax ${args.join(' ')}`).not.toMatch(/comment|warning/i);
        results.push(r);
      }
      const [run, runs, logs] = results;
      expect(run?.stdout).toMatch(/SUCCESS/);
      expect(runs?.stdout).toMatch(/first-steps\s.*SUCCESS/);
      expect(logs?.stdout).toContain('report printed on attempt 2');

      // what the comments promise: `ax runs 1` shows the tasks, --attempt 1 the failed attempt
      const tasks = await ax(['runs', '1'], opts());
      expect(tasks.code).toBe(0);
      for (const task of ['list', 'count', 'report']) expect(tasks.stdout).toMatch(new RegExp(`\\b${task}\\b`));
      const failed = await ax(['logs', '1', 'report', '--attempt', '1'], opts());
      expect(failed.code, failed.stderr).toBe(0);
      expect(failed.stderr).toContain('the printer is busy');
      const listed = await ax(['logs', '1', 'count'], opts());
      expect(listed.stdout).toMatch(/^\d+ plain files in \/usr\/bin$/m);
      expect(Number(/^(\d+) plain files/m.exec(listed.stdout)?.[1])).toBeGreaterThan(0);

      // stored, and scheduled every 15 minutes
      const ls = await ax(['ls'], opts());
      expect(ls.stdout).toMatch(/first-steps/);
      expect(ls.stdout).toMatch(/Every 15 minutes/);
    },
  );

  it('ax export over the commented file refuses to drop its comments, unless --force', async () => {
    const file = path.join(box.root, 'first.yaml');
    const before = fs.readFileSync(file, 'utf8');
    const refused = await ax(['export', 'first-steps', '-o', 'first.yaml'], opts());
    expect(refused.code).toBe(4);
    expect(refused.stderr).toBe(
      'ax: first.yaml has comments, which the export would drop (AX stores no comments): write to another file, or give --force to replace it\n',
    );
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect((await ax(['export', 'first-steps', '-o', 'exported.yaml'], opts())).code).toBe(0);
    const forced = await ax(['export', 'first-steps', '-o', 'first.yaml', '--force'], opts());
    expect(forced.code, forced.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(fs.readFileSync(path.join(box.root, 'exported.yaml'), 'utf8'));
  });
});
