// `ax import crontab` on the user's own crontab through the real `crontab` command (Debian's
// cron), on a private spool (test/helpers/private-crontab.ts): no crontab says so; import,
// apply and disable change the crontab through `crontab FILE`, and restore gives back exactly
// what `crontab -l` printed before; a crontab AX cannot write back exactly is left alone.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ImportReport } from '../../engine/core/import/import-types.ts';
import { cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { axOnSpool, crontab, makeSpool, privateCrontabSkipReason, SPOOL } from '../helpers/private-crontab.ts';

const skipReason = privateCrontabSkipReason();
const box = cliSandbox('ax-cli-import-user-crontab-');
// Each test starts several `ax` processes one after the other (about a second each on an idle
// machine, many more on a busy one): the default 60 s is not the point here.
const LONG = 240_000;
const opts = () => box.opts();
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const me = os.userInfo().username;

// Skipped only where a private crontab cannot be made (not root, or no crontab(1)/unshare): the
// reason is in the title; under CI=true a missing cron throws instead (privateCrontabSkipReason).
describe.skipIf(skipReason !== undefined)(
  `ax import crontab: the user's crontab${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let spool: string;
    let machineSpool: string[];
    beforeAll(() => {
      spool = makeSpool(box.root);
      machineSpool = fs.readdirSync(SPOOL).sort();
    }, LONG);

    it(
      'without a crontab: says so, and imports nothing',
      async () => {
        const r = await axOnSpool(spool, ['import', 'crontab'], opts());
        expect(r.code).toBe(3);
        expect(r.stderr).toContain(`ax: ${me} has no crontab`);
        expect(r.stderr).toContain('nothing to import');
      },
      LONG,
    );

    it(
      'import, apply, disable through crontab(1); restore gives back exactly what crontab -l printed',
      async () => {
        const original = `MAILTO=""\n# rotate the logs\n15 3 * * *\techo rotated\n\n30 2 30 2 * echo never\n*/20 * * * * echo ping >/dev/null\n`;
        writeFile(box.root, 'mine.crontab', original);
        expect((await crontab(spool, ['mine.crontab'], box.root)).code).toBe(0);
        const listed = await crontab(spool, ['-l'], box.root);
        expect(listed.stdout).toBe(original);
        const before = sha(listed.stdout);

        const off = await axOnSpool(spool, ['import', 'crontab', '--apply', '--disable-source'], opts());
        expect(off.code, off.stderr).toBe(0);
        expect(off.stdout).toContain(`crontab of ${me}: 2 jobs imported into 2 workflows, 1 line not imported`);
        expect(off.stdout).toMatch(new RegExp(`crontab of ${me}: line 3 turned off`));
        const disabled = (await crontab(spool, ['-l'], box.root)).stdout.split('\n');
        expect(disabled[2]).toMatch(/^#ax-imported\(\S+\): 15 3 \* \* \*\techo rotated$/);
        expect(disabled[4]).toBe('30 2 30 2 * echo never');
        expect(disabled[5]).toMatch(/^#ax-imported\(\S+\): \*\/20 \* \* \* \* echo ping >\/dev\/null$/);

        // importing again: the workflows are there, the marked lines are comments now
        const again = await axOnSpool(spool, ['import', 'crontab', '--apply'], opts());
        expect(again.code, again.stderr).toBe(0);
        expect(again.stdout).toContain('0 jobs imported');

        const back = await axOnSpool(spool, ['import', 'crontab', '--restore'], opts());
        expect(back.code, back.stderr).toBe(0);
        expect(sha((await crontab(spool, ['-l'], box.root)).stdout)).toBe(before);
      },
      LONG,
    );

    it(
      'a crontab with "\\r" (which crontab -l prints for a carriage return) is not rewritten',
      async () => {
        writeFile(box.root, 'cr.crontab', 'A=1\r\n0 4 * * * echo cr\n');
        expect((await crontab(spool, ['cr.crontab'], box.root)).code).toBe(0);
        const before = (await crontab(spool, ['-l'], box.root)).stdout;
        const r = await axOnSpool(spool, ['import', 'crontab', '--apply', '--disable-source'], opts());
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('line 1 of the crontab holds "\\r"');
        expect((await crontab(spool, ['-l'], box.root)).stdout).toBe(before);
      },
      LONG,
    );

    it(
      "--system: /etc/crontab and the /etc/cron.d files cron reads; those it ignores named; other users' jobs refused",
      async () => {
        const etc = path.join(box.root, 'etc');
        const cronD = path.join(etc, 'cron.d');
        fs.mkdirSync(cronD, { recursive: true });
        const crontabFile = writeFile(etc, 'crontab', `SHELL=/bin/sh\n17 * * * * ${me} echo hourly-main\n`);
        writeFile(cronD, 'backup', `30 1 * * * ${me} echo backup\n0 3 * * * nobody echo not-mine\n`);
        writeFile(cronD, 'backup.dpkg-old', `0 4 * * * ${me} echo old\n`);
        fs.chmodSync(writeFile(cronD, 'writable', `0 5 * * * ${me} echo writable\n`), 0o666);
        const system = { crontab: crontabFile, cronD };
        const r = await axOnSpool(spool, ['--json', 'import', 'crontab', '--system'], opts(), system);
        expect(r.code, r.stderr).toBe(0);
        const reports = JSON.parse(r.stdout) as ImportReport[];
        expect(reports.map((x) => x.source)).toEqual(['/etc/crontab', '/etc/cron.d/backup']);
        expect(reports.flatMap((x) => x.jobs.map((j) => j.text))).toEqual([
          `17 * * * * ${me} echo hourly-main`,
          `30 1 * * * ${me} echo backup`,
        ]);
        expect(reports[1]?.skipped.map((s) => [s.line, s.reason])).toEqual([[2, expect.stringContaining('nobody')]]);
        const notes = reports[0]?.notes.join('\n');
        expect(notes).toContain('/etc/cron.d/backup.dpkg-old: not imported: cron ignores it: its name has characters');
        expect(notes).toContain('/etc/cron.d/writable: not imported: cron ignores it: writable by group or others');
      },
      LONG,
    );

    it(
      "the machine's own spool was never touched",
      () => {
        expect(fs.readdirSync(SPOOL).sort()).toEqual(machineSpool);
        expect(fs.existsSync(path.join(spool, me))).toBe(true);
      },
      LONG,
    );
  },
);
