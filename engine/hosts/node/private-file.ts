// The data dir is this user's or refused, and so are its tokens, settings and secrets:
// another local user who could prepare the dir, plant a symbolic link or read a file in it would
// be served as the user AX runs as (root, often), or read its passwords.
//
// - The dir: owned by this user and writable by nobody else, or refused with the fix; one that
//   others can read (a 0755 dir made by mkdir) is made private (0700), and the caller is told
//   the mode it had, for its host to say so once: whoever made it that way learns that AX changed
//   it (and why), instead of finding out later.
// - Token, settings and secrets files: opened without following symbolic links (O_NOFOLLOW), and
//   refused, with the fix, when they are no regular file, not this user's, or open to others.
// - Writes to them: a new file made with O_EXCL (so no planted link is followed) in the same dir,
//   renamed over the old one (a rename replaces a link, never writes through it).
// Windows has no such modes: there the checks are left to the ACLs of the user's profile.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { AxError } from '../../api/errors.ts';

const POSIX = process.platform !== 'win32';
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants;

const myUid = (): number | undefined => process.getuid?.();

function me(): string {
  try {
    return os.userInfo().username;
  } catch {
    return String(myUid());
  }
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

/**
 * Refuses a data dir that another user owns or can write (they could have put their own API
 * token there, or replace any file later); one others can read is made 0700, and the mode it
 * had is returned (undefined when nothing was changed).
 */
export function checkDataDirOwner(dir: string): number | undefined {
  if (!POSIX) return undefined;
  const st = fs.statSync(dir);
  const uid = myUid();
  if (st.uid !== uid) {
    throw new AxError(
      'storage',
      `the data dir ${dir} belongs to uid ${st.uid}, not to ${me()} (uid ${uid}): its tokens and settings could be anyone's. Use a data dir of your own (--data-dir or AX_DATA_DIR), or, if everything in it is yours, chown -R ${me()} ${dir}`,
    );
  }
  if ((st.mode & 0o022) !== 0) {
    throw new AxError(
      'storage',
      `the data dir ${dir} can be written by other users (mode ${octal(st.mode)}): they could replace its tokens and settings. Make it private: chmod 700 ${dir}`,
    );
  }
  if ((st.mode & 0o055) === 0) return undefined;
  fs.chmodSync(dir, st.mode & 0o700);
  return st.mode & 0o7777;
}

/** The line a host prints when checkDataDirOwner made a dir private: what it was, what AX did. */
export function madePrivateLine(dir: string, was: number): string {
  return `ax: the data dir ${dir} could be read by other users (mode ${octal(was)}); made it private (chmod 700 ${dir}), as it holds AX's tokens and settings`;
}

/** Why an open file of the data dir is not to be trusted, with the fix; undefined when it is fine. */
function untrusted(file: string, st: fs.Stats): string | undefined {
  if (!st.isFile()) return `${file} is not a regular file: remove it (rm ${file})`;
  if (!POSIX) return undefined;
  if (st.uid !== myUid())
    return `${file} belongs to uid ${st.uid}, not to ${me()}: another user could have written it. Remove it (rm ${file}), or, if its content is yours, chown ${me()} ${file}`;
  if ((st.mode & 0o077) !== 0)
    return `${file} can be read or written by other users (mode ${octal(st.mode)}): make it private with chmod 600 ${file} (and change the secret in it if others may have read it)`;
  return undefined;
}

function linkRefusal(file: string): AxError {
  return new AxError(
    'storage',
    `${file} is a symbolic link: AX does not follow links for its tokens, settings and secrets. Remove it (rm ${file}) and put the file itself there`,
  );
}

/** Opens a data-dir file without following a link; the descriptor is checked before it is read or written. */
function openChecked(file: string, flags: number, mode?: number): number | undefined {
  if (!POSIX) {
    // No O_NOFOLLOW: a link is refused by lstat first.
    try {
      if (fs.lstatSync(file).isSymbolicLink()) throw linkRefusal(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  let fd: number;
  try {
    fd = fs.openSync(file, flags | O_NOFOLLOW, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // Linux says ELOOP for a link under O_NOFOLLOW; the BSDs say EMLINK.
    if (code === 'ELOOP' || code === 'EMLINK') throw linkRefusal(file);
    throw new AxError(
      'storage',
      `${file} cannot be opened (${code ?? (err as Error).message}): check its permissions, or remove it`,
    );
  }
  const problem = untrusted(file, fs.fstatSync(fd));
  if (problem) {
    fs.closeSync(fd);
    throw new AxError('storage', problem);
  }
  return fd;
}

/** A token, settings or secrets file's text; undefined when there is no such file. */
export function readPrivateFile(file: string): string | undefined {
  // O_NONBLOCK: a FIFO put there must not hang the open; it is refused as no regular file.
  const fd = openChecked(file, O_RDONLY | O_NONBLOCK);
  if (fd === undefined) return undefined;
  try {
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Replaces a private file whole (mode 0600): written under a fresh name made with O_EXCL (no
 * link followed, no other writer's file taken over), then renamed into place.
 */
export function writePrivateFile(file: string, text: string): void {
  placePrivateFile(file, text, (tmp) => fs.renameSync(tmp, file));
}

/**
 * Makes a private file that is written once and then only read (a node's secret): written whole
 * as writePrivateFile does, then hard-linked into place, which fails if the file is there
 * already. Of several processes making it at one instant, one wins and none ever reads it
 * half-written. False when it was there already (the file is left as it was).
 */
export function createPrivateFile(file: string, text: string): boolean {
  let made = true;
  placePrivateFile(file, text, (tmp) => {
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      made = false;
    }
    fs.rmSync(tmp, { force: true });
  });
  return made;
}

/** Writes text to a fresh private file beside file and hands its name to place (removed if place throws). */
function placePrivateFile(file: string, text: string, place: (tmp: string) => void): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    try {
      fs.writeFileSync(fd, text);
    } finally {
      fs.closeSync(fd);
    }
    place(tmp);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** Appends to a private file (an audit log), made 0600 when new; a link or another's file is refused. */
export function appendPrivateFile(file: string, text: string): void {
  const fd = openChecked(file, O_WRONLY | O_APPEND | O_CREAT, 0o600) as number;
  try {
    fs.writeFileSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Makes a file private (0600) before a library creates or opens it (SQLite: its -wal and -shm
 * take the database file's mode): created empty when missing, group and other bits cleared when
 * this user owns it. Another user's file is left for the open to refuse or name.
 */
export function makePrivate(file: string, create: boolean): void {
  if (!POSIX) return;
  try {
    const st = fs.statSync(file);
    if (st.uid === myUid() && (st.mode & 0o077) !== 0) fs.chmodSync(file, st.mode & 0o700);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    if (!create) return;
    try {
      fs.closeSync(fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600));
    } catch (made) {
      if ((made as NodeJS.ErrnoException).code !== 'EEXIST') throw made;
    }
  }
}
