// The crontabs one `ax import crontab` reads (the user's, a FILE, stdin, or the system ones),
// each with what the import needs of it: its text, its owner, and (unless it is stdin) how to
// read it again and write it back for --disable-source and --restore.
import fs from 'node:fs';
import path from 'node:path';
import { AxError } from '../../api/errors.ts';
import type { CronUser } from '../../core/import/import-types.ts';
import {
  currentUser,
  decodeExactly,
  lookupUser,
  readUserCrontab,
  replaceFile,
  systemCrontabs,
  userCrontabProblem,
  writeUserCrontab,
} from '../node/cron-sources.ts';
import { sourceKey } from '../node/import-records.ts';
import { readRegularFile } from './regular-file.ts';

/** Larger than any crontab a person keeps; cron itself reads much less per line. */
const MAX_CRONTAB_BYTES = 4 * 1024 * 1024;

export interface CrontabSource {
  /** in words: "crontab of alice", "/etc/cron.d/backup", "stdin" */
  label: string;
  text: string;
  /** the format with a user column (/etc/crontab, /etc/cron.d) */
  system: boolean;
  /** a user's crontab: whose (cron's HOME and LOGNAME) */
  user?: CronUser;
  /** how it is kept in DATA_DIR/import-backups; none for stdin, which cannot be written back */
  key?: string;
  /** why AX will not rewrite it (then --disable-source refuses) */
  rewriteProblem?: string;
  read(): string;
  write(text: string, tmpDir: string): void;
}

const cannotWrite = (label: string) => () => {
  throw new AxError(
    'validation',
    `${label} cannot be written back: give the crontab as a FILE or use your own crontab`,
  );
};

function userSource(): CrontabSource {
  const user = currentUser();
  const text = readUserCrontab();
  return {
    label: `crontab of ${user.name}`,
    text,
    system: false,
    user,
    key: sourceKey({ user: user.name }),
    rewriteProblem: userCrontabProblem(text),
    read: readUserCrontab,
    write: (t, tmpDir) => writeUserCrontab(t, tmpDir),
  };
}

function readFileText(file: string): string {
  const bytes = readRegularFile(file, file, MAX_CRONTAB_BYTES + 1, 'give a regular file, or - to read standard input');
  if (bytes.length > MAX_CRONTAB_BYTES) throw new AxError('validation', `${file}: over 4 MB: that is no crontab`);
  return decodeExactly(bytes, file);
}

/** /etc/crontab and /etc/cron.d/*: the system format, with a user column. */
const isSystemPath = (file: string): boolean => {
  const abs = path.resolve(file);
  return abs === '/etc/crontab' || path.dirname(abs) === '/etc/cron.d';
};

function fileSource(file: string, system: boolean): CrontabSource {
  const text = readFileText(file);
  const owner = lookupUser(String(fs.statSync(file).uid));
  return {
    label: file,
    text,
    system: system || isSystemPath(file),
    user: owner ?? currentUser(),
    key: sourceKey({ file }),
    read: () => readFileText(file),
    write: (t) => replaceFile(file, t),
  };
}

/** The sources an `ax import crontab` invocation names; the system ones' ignored files as notes. */
export function crontabSources(
  file: string | undefined,
  system: boolean | undefined,
): { sources: CrontabSource[]; notes: string[] } {
  if (system && file !== undefined)
    throw new AxError('validation', '--system reads /etc/crontab and /etc/cron.d itself: give no FILE with it');
  if (system) {
    const { crontabs, ignored } = systemCrontabs();
    return {
      sources: crontabs.map((c) => fileSource(c.file, true)),
      notes: ignored.map((i) => `${i.file}: not imported: ${i.reason}`),
    };
  }
  if (file === '-') {
    const text = decodeExactly(fs.readFileSync(0), 'stdin');
    return {
      sources: [
        {
          label: 'stdin',
          text,
          system: false,
          user: currentUser(),
          rewriteProblem: 'a crontab read from standard input cannot be written back: give it as a FILE',
          read: () => text,
          write: cannotWrite('stdin'),
        },
      ],
      notes: [],
    };
  }
  return { sources: [file === undefined ? userSource() : fileSource(file, false)], notes: [] };
}
