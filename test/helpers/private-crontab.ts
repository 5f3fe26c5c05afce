// The real `crontab` command on a spool of the test's own: each command runs in a mount
// namespace of its own (`unshare -m`, root only) with a temp dir bound over
// /var/spool/cron/crontabs, made as Debian's cron package makes the spool (root:crontab, 1730),
// so no test reads or writes the machine's crontabs and test files running at once never meet.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO } from './files.ts';
import { type AxOptions, type AxResult, childEnv } from './ax.ts';
import { type ProcessResult, SpawnedProcess } from './processes.ts';
import { CI } from './services.ts';

export const SPOOL = '/var/spool/cron/crontabs';

const has = (bin: string): boolean => {
  try {
    execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Why the real crontab command cannot be used here, or undefined. */
export function privateCrontabSkipReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root: unshare -m (a private mount namespace) needs CAP_SYS_ADMIN';
  if (has('crontab') && has('unshare') && fs.existsSync(SPOOL)) return undefined;
  const missing = "Debian's cron (crontab, /var/spool/cron/crontabs) and unshare: apt-get install -y cron util-linux";
  // .ci/run installs cron: there a missing one is a failure, as a missing service is (helpers/services.ts)
  if (CI) throw new Error(`CI=true and no ${missing}`);
  return `needs ${missing}`;
}

/** A fresh spool dir under `root`, owned and moded as cron's own. */
export function makeSpool(root: string): string {
  const spool = path.join(root, 'spool');
  fs.mkdirSync(spool, { recursive: true });
  execFileSync('chgrp', ['crontab', spool]);
  fs.chmodSync(spool, 0o1730);
  return spool;
}

/** Further binds for a test of the system crontabs: a temp file over /etc/crontab, a temp dir over /etc/cron.d. */
export interface SystemCron {
  crontab: string;
  cronD: string;
}

function inSpool(
  spool: string,
  argv: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  input?: string,
  system?: SystemCron,
): SpawnedProcess {
  const binds = [`mount --bind "$0" ${SPOOL}`];
  if (system) binds.push(`mount --bind '${system.crontab}' /etc/crontab`, `mount --bind '${system.cronD}' /etc/cron.d`);
  return new SpawnedProcess(
    'unshare',
    ['-m', '--propagation', 'private', 'sh', '-c', `${binds.join(' && ')} && exec "$@"`, spool, ...argv],
    { cwd, env, input, label: argv.join(' ') },
  );
}

/** `crontab ARGS` on the private spool. */
export function crontab(spool: string, args: string[], cwd: string): Promise<ProcessResult> {
  return inSpool(spool, ['crontab', ...args], { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cwd).result(30_000);
}

/** `ax ARGS` on the private spool (so its `crontab -l` and `crontab FILE` see only it). */
export function axOnSpool(spool: string, args: string[], opts: AxOptions, system?: SystemCron): Promise<AxResult> {
  return inSpool(
    spool,
    [process.execPath, path.join(REPO, 'bin', 'ax.mjs'), ...args],
    childEnv(opts),
    opts.cwd ?? opts.dataDir,
    opts.input,
    system,
  ).result(opts.timeoutMs ?? 60_000);
}
