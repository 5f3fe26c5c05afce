// `ax import crontab FILE` through the real `ax`: import → apply → run with cron's environment,
// re-import changes nothing, a line AX cannot express is refused with its reason (stdout and
// --json), -o DIR keeps hand edits, and --disable-source / --restore leave the file byte-identical.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ImportReport } from '../../engine/core/import/import-types.ts';
import { ax, axJson, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-import-crontab-');
// Each test starts several `ax` processes one after the other (about a second each on an idle
// machine, many more on a busy one): the default 60 s is not the point here.
const LONG = 240_000;
const opts = () => box.opts();
const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const me = os.userInfo();

describe('ax import crontab FILE', () => {
  it(
    "import, apply, run: the job writes what it wrote under cron, with cron's PATH, HOME, LOGNAME and SHELL",
    async () => {
      const out = path.join(box.root, 'env-seen.txt');
      // `\%` is a literal % in a crontab; a bare % would start the job's standard input.
      writeFile(
        box.root,
        'run.crontab',
        `# what cron gives a job\n17 3 * * * printf '\\%s|\\%s|\\%s|\\%s' "$PATH" "$HOME" "$LOGNAME" "$SHELL" > ${out}\n`,
      );
      const report = await axJson<ImportReport>(['import', 'crontab', 'run.crontab'], opts());
      expect(report.skipped).toEqual([]);
      const [job] = report.jobs;
      expect(job?.sourceFires).toEqual(job?.axFires);
      expect(job?.sourceFires).toHaveLength(5);
      const applied = await ax(['import', 'crontab', 'run.crontab', '--apply'], opts());
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toContain(`applied ${job?.workflow} (version 1)`);
      const run = await ax(['run', job?.workflow as string, '--wait'], opts());
      expect(run.code, run.stderr + run.stdout).toBe(0);
      expect(fs.readFileSync(out, 'utf8')).toBe(`/usr/bin:/bin|${me.homedir}|${me.username}|/bin/sh`);
      // the same crontab again: every workflow unchanged
      const again = await ax(['import', 'crontab', 'run.crontab', '--apply'], opts());
      expect(again.stdout).toContain(`${job?.workflow} unchanged (version 1)`);
      expect(again.stdout).not.toContain('applied ');
    },
    LONG,
  );

  it(
    'a line AX cannot express is not imported: its reason on stdout and in --json; the others are',
    async () => {
      writeFile(box.root, 'mixed.crontab', '0 5 * * * echo fine\n30 2 30 2 * echo never\n');
      const text = await ax(['import', 'crontab', 'mixed.crontab'], opts());
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain('1 job imported into 1 workflow, 1 line not imported');
      expect(text.stdout).toMatch(/not imported:\n {2}line 2 {2}30 2 30 2 \* echo never\n {4}why: cron never runs it/);
      expect(text.stdout).toContain('dry run: nothing was written or applied');
      const json = await axJson<ImportReport>(['import', 'crontab', 'mixed.crontab'], opts());
      expect(json.skipped).toEqual([
        { line: 2, text: '30 2 30 2 * echo never', reason: expect.stringContaining('cron never runs it') },
      ]);
      expect(json.jobs.map((j) => j.line)).toEqual([2 - 1]);
    },
    LONG,
  );

  it(
    '-o DIR writes the files "ax apply DIR" takes unchanged; a file changed by hand is kept unless --force',
    async () => {
      writeFile(box.root, 'out.crontab', '# nightly\n0 1 * * * echo one\n0 2 * * * echo two\n');
      const first = await ax(['import', 'crontab', 'out.crontab', '-o', 'imported'], opts());
      expect(first.code, first.stderr).toBe(0);
      const files = fs.readdirSync(path.join(box.root, 'imported')).sort();
      expect(files).toHaveLength(2);
      expect(first.stdout).toContain(`written ${path.join('imported', files[0] as string)}`);
      const apply = await ax(['apply', 'imported'], opts());
      expect(apply.code, apply.stderr).toBe(0);
      expect(await ax(['import', 'crontab', 'out.crontab', '-o', 'imported', '--apply'], opts())).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/unchanged imported\/.*\n(.|\n)*unchanged \(version 1\)/),
      });
      const edited = path.join(box.root, 'imported', files[0] as string);
      fs.appendFileSync(edited, '# my note\n');
      const refused = await ax(['import', 'crontab', 'out.crontab', '-o', 'imported'], opts());
      expect(refused.code).toBe(4);
      expect(refused.stderr).toContain(`nothing written: ${path.join('imported', files[0] as string)} differs`);
      expect(fs.readFileSync(edited, 'utf8')).toContain('# my note');
      const forced = await ax(['import', 'crontab', 'out.crontab', '-o', 'imported', '--force'], opts());
      expect(forced.stdout).toContain(`replaced ${path.join('imported', files[0] as string)}`);
      expect(fs.readFileSync(edited, 'utf8')).not.toContain('# my note');
    },
    LONG,
  );

  it(
    '--disable-source turns the imported lines off (backup first); --restore puts the file back byte for byte',
    async () => {
      // CRLF lines, tabs, a blank line, a line AX refuses, and no newline at the end
      const original =
        'PATH=/usr/bin:/bin\r\n# two\r\n5 4 * * *\techo a\t>/dev/null\n\n30 2 30 2 * echo never\n9 4 * * * echo last';
      const file = writeFile(box.root, 'leave.crontab', original);
      const before = sha(file);
      const off = await ax(['import', 'crontab', 'leave.crontab', '--apply', '--disable-source'], opts());
      expect(off.code, off.stderr).toBe(0);
      expect(off.stdout).toMatch(/leave\.crontab: line 3 turned off \(workflow \S+\)/);
      const disabled = fs.readFileSync(file, 'utf8');
      const lines = disabled.split('\n');
      expect(lines[2]).toMatch(/^#ax-imported\(\S+\): 5 4 \* \* \*\techo a\t>\/dev\/null$/);
      expect(lines[5]).toMatch(/^#ax-imported\(\S+\): 9 4 \* \* \* echo last$/);
      // the refused line is not in AX, so it stays on under cron; the rest is untouched
      expect([lines[0], lines[1], lines[3], lines[4]]).toEqual([
        'PATH=/usr/bin:/bin\r',
        '# two\r',
        '',
        '30 2 30 2 * echo never',
      ]);
      expect(disabled.endsWith('\n')).toBe(false);
      const backup = /backup in (\S+);/.exec(off.stdout)?.[1] as string;
      expect(fs.readFileSync(backup, 'utf8')).toBe(original);

      const back = await ax(['import', 'crontab', 'leave.crontab', '--restore'], opts());
      expect(back.code, back.stderr).toBe(0);
      expect(back.stdout).toContain('note: the workflows stay in AX and run too');
      expect(sha(file)).toBe(before);
      const twice = await ax(['import', 'crontab', 'leave.crontab', '--restore'], opts());
      expect(twice.code).toBe(3);
      expect(twice.stderr).toContain('AX has no record of disabling lines in it');
    },
    LONG,
  );

  it(
    '--monitor --disable-source puts each job under ax wrap; --restore takes it out again, byte for byte',
    async () => {
      const original = '# monitored\n*/10 * * * * echo watched\n';
      const file = writeFile(box.root, 'watch.crontab', original);
      const before = sha(file);
      const r = await ax(['import', 'crontab', 'watch.crontab', '--monitor', '--apply', '--disable-source'], opts());
      expect(r.code, r.stderr).toBe(0);
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      expect(lines[1]).toMatch(/^#ax-wrapped\((\S+)\): \*\/10 \* \* \* \* echo watched$/);
      const name = /^#ax-wrapped\((\S+)\)/.exec(lines[1] as string)?.[1] as string;
      expect(lines[2]).toBe(`*/10 * * * * ax wrap ${name} -- /bin/sh -c 'echo watched'`);
      expect(await ax(['import', 'crontab', 'watch.crontab', '--restore'], opts())).toMatchObject({ code: 0 });
      expect(sha(file)).toBe(before);
    },
    LONG,
  );

  it(
    '--disable-source without --apply is refused before anything is read into AX or changed',
    async () => {
      const file = writeFile(box.root, 'noapply.crontab', '0 6 * * * echo x\n');
      const before = sha(file);
      const r = await ax(['import', 'crontab', 'noapply.crontab', '--disable-source'], opts());
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--disable-source needs --apply');
      expect(sha(file)).toBe(before);
    },
    LONG,
  );
});
