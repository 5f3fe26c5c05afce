// Where `ax import crontab` reads from and writes back to: the user's crontab through the
// `crontab` command (never its spool file: cron owns that), a crontab file, standard input, and
// the system crontabs (/etc/crontab, /etc/cron.d) with the files cron itself ignores left out.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AxError } from '../../api/errors.ts';
import type { CronUser } from '../../core/import/import-types.ts';
import { passwdEntry } from './task-env.ts';

/** A user as cron sees it (HOME, LOGNAME), from getent / /etc/passwd. */
export function lookupUser(name: string): CronUser | undefined {
  const f = passwdEntry(name);
  return f ? { name: f[0] as string, home: f[5] || '/' } : undefined;
}

export function currentUser(): CronUser {
  const me = os.userInfo();
  return { name: me.username, home: me.homedir };
}

/**
 * Text AX writes back byte for byte: valid UTF-8 (what it decodes must encode to the same bytes),
 * else the file is refused rather than rewritten with replacement characters.
 */
export function decodeExactly(bytes: Buffer, label: string): string {
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes))
    throw new AxError('validation', `${label}: is not UTF-8 text: AX imports and rewrites UTF-8 crontabs only`);
  return text;
}

function crontabCommand(args: string[], label: string): { stdout: Buffer; stderr: string; status: number } {
  const r = spawnSync('crontab', args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 * 1024 * 1024 });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    throw new AxError(
      'unavailable',
      code === 'ENOENT'
        ? `${label}: there is no crontab command on this machine: give the crontab as a FILE (or - for stdin)`
        : `${label}: crontab ${args.join(' ')} could not run (${code ?? r.error.message})`,
    );
  }
  return { stdout: r.stdout, stderr: r.stderr.toString('utf8').trim(), status: r.status ?? 1 };
}

/** The current user's crontab as `crontab -l` prints it. */
export function readUserCrontab(): string {
  const user = currentUser().name;
  const r = crontabCommand(['-l'], `crontab of ${user}`);
  if (r.status !== 0) {
    if (/no crontab for/i.test(r.stderr))
      throw new AxError('not_found', `${user} has no crontab ("crontab -l" says: ${r.stderr}): nothing to import`);
    throw new AxError('unavailable', `crontab -l failed (exit ${r.status}): ${r.stderr || 'no message'}`);
  }
  return decodeExactly(r.stdout, `crontab of ${user}`);
}

/**
 * Debian's `crontab -l` prints a carriage return as the two characters `\r`, so a listing with
 * `\r` in it cannot be written back as it is installed (a CR would become a backslash and an r).
 */
export function userCrontabProblem(text: string): string | undefined {
  const at = text.split('\n').findIndex((l) => l.includes('\\r'));
  if (at < 0) return undefined;
  return `line ${at + 1} of the crontab holds "\\r", which crontab -l also prints for a carriage return: AX cannot tell which it is, so it does not rewrite this crontab; run "crontab -l > FILE", check the line, and import FILE instead`;
}

/** Installs `text` as the current user's crontab (`crontab FILE`). */
export function writeUserCrontab(text: string, tmpDir: string): void {
  const tmp = path.join(tmpDir, `crontab.${process.pid}.${Date.now()}`);
  fs.writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' });
  try {
    const r = crontabCommand([tmp], `crontab of ${currentUser().name}`);
    if (r.status !== 0)
      throw new AxError(
        'unavailable',
        `crontab refused the new crontab (exit ${r.status}): ${r.stderr || 'no message'}`,
      );
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Replaces a file atomically with the same mode and (as root) owner: written beside it under a
 * name cron ignores (a leading dot), then renamed over it, so cron reads the old or the new file,
 * never half of one.
 */
export function replaceFile(file: string, text: string): void {
  const stat = fs.statSync(file);
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.ax-${process.pid}`);
  fs.writeFileSync(tmp, text, { mode: stat.mode & 0o7777, flag: 'wx' });
  try {
    fs.chmodSync(tmp, stat.mode & 0o7777);
    if (process.getuid?.() === 0) fs.chownSync(tmp, stat.uid, stat.gid);
    const fd = fs.openSync(tmp, 'r');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

export interface SystemCrontab {
  file: string;
  text: string;
}

/**
 * Debian's cron reads /etc/cron.d files whose names are made of letters, digits, underscores
 * and hyphens only (the run-parts rule: no `.dpkg-old`, no `backup~`), regular files (or links
 * to one) owned by root and not writable by group or others (cron(8)); the rest it ignores, and
 * so does the import, saying why.
 */
export function cronDIgnores(file: string, stat: fs.Stats): string | undefined {
  const name = path.basename(file);
  if (!/^[A-Za-z0-9_-]+$/.test(name))
    return 'cron ignores it: its name has characters other than letters, digits, _ and - (the run-parts rule)';
  if (!stat.isFile()) return 'cron ignores it: not a regular file';
  if (stat.uid !== 0) return 'cron ignores it: not owned by root';
  if ((stat.mode & 0o022) !== 0) return 'cron ignores it: writable by group or others';
  return undefined;
}

/** /etc/crontab and the /etc/cron.d files cron reads, sorted; those it ignores with the reason. */
export function systemCrontabs(etc = '/etc'): {
  crontabs: SystemCrontab[];
  ignored: { file: string; reason: string }[];
} {
  const crontabs: SystemCrontab[] = [];
  const ignored: { file: string; reason: string }[] = [];
  const main = path.join(etc, 'crontab');
  if (fs.existsSync(main)) crontabs.push({ file: main, text: decodeExactly(fs.readFileSync(main), main) });
  const dir = path.join(etc, 'cron.d');
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).sort();
  } catch {
    // no /etc/cron.d: only /etc/crontab
  }
  for (const name of names) {
    const file = path.join(dir, name);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      ignored.push({ file, reason: 'a link to nothing' });
      continue;
    }
    const reason = cronDIgnores(file, stat);
    if (reason) ignored.push({ file, reason });
    else crontabs.push({ file, text: decodeExactly(fs.readFileSync(file), file) });
  }
  if (crontabs.length === 0 && ignored.length === 0)
    throw new AxError('not_found', `no system crontab here: neither ${main} nor files in ${dir}`);
  return { crontabs, ignored };
}
