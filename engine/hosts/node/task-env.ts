// What a task's environment starts from on this node: never the host's own
// configuration. Every variable whose name starts with AX_ is AX's (AX_MYSQL_URL, AX_REDIS_URL,
// AX_DATA_DIR, AX_ENGINE_CONFIG, AX_DESKTOP_SECRETS, ...) and is dropped; the engine then adds the
// task's own AX_WORKFLOW, AX_RUN_ID, ... and the workflow's env and secrets (core/execution/task-launch.ts).
//
// The rest follows the node's task-env setting:
//   inherit (default)  the node's environment minus AX's own
//   clean              only CLEAN_KEEP (PATH, HOME, USER, LOGNAME, SHELL, LANG, LC_ALL, TZ, TMPDIR)
// and the run-as setting (a node started as root runs its tasks as that user, so they cannot read
// the data dir): HOME, USER, LOGNAME and SHELL are then that user's.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { AxError } from '../../api/errors.ts';
import type { CronUser } from '../../api/import-report.ts';
import { effectiveSettings, type Settings } from './settings.ts';

export const TASK_ENV_MODES = ['inherit', 'clean'] as const;
export type TaskEnvMode = (typeof TASK_ENV_MODES)[number];

/** What a clean environment keeps of the node's (on Windows also what programs need to start at all). */
export const CLEAN_KEEP = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'];
const WINDOWS_KEEP = [
  'SystemRoot',
  'SystemDrive',
  'windir',
  'ComSpec',
  'PATHEXT',
  'TEMP',
  'TMP',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'ProgramData',
];

/** AX's own variables: configuration of the host, never a task's to see. */
export const isAxOwn = (name: string): boolean => name.toUpperCase().startsWith('AX_');

/** The user tasks run as (run-as). */
export interface RunAsUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
  shell: string;
}

export interface TaskEnvSetup {
  mode: TaskEnvMode;
  /** what every task's environment starts from */
  baseEnv: Record<string, string>;
  runAs?: RunAsUser;
}

/** The base environment of every task: AX's own variables dropped, then task-env and run-as applied. */
export function taskBaseEnv(
  mode: TaskEnvMode,
  env: NodeJS.ProcessEnv = process.env,
  runAs?: RunAsUser,
): Record<string, string> {
  const keep =
    mode === 'clean'
      ? new Set([...CLEAN_KEEP, ...(process.platform === 'win32' ? WINDOWS_KEEP : [])].map((n) => n.toUpperCase()))
      : undefined;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isAxOwn(name)) continue;
    if (keep && !keep.has(name.toUpperCase())) continue;
    out[name] = value;
  }
  if (runAs) Object.assign(out, { HOME: runAs.home, USER: runAs.name, LOGNAME: runAs.name, SHELL: runAs.shell });
  return out;
}

/** One passwd line's fields, by name or uid: getent (NSS: LDAP, sssd) where there is one, else /etc/passwd. */
export function passwdEntry(user: string): string[] | undefined {
  const match = (line: string) => {
    const f = line.split(':');
    return f.length >= 7 && (f[0] === user || f[2] === user) ? f : undefined;
  };
  try {
    const line = execFileSync('getent', ['passwd', user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim()
      .split('\n')[0];
    if (line) return match(line);
  } catch {
    // no getent, or no such user: /etc/passwd decides
  }
  try {
    for (const line of fs.readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = match(line);
      if (f) return f;
    }
  } catch {
    // no /etc/passwd
  }
  return undefined;
}

/** The run-as user, checked: it exists, and this node may become it (it runs as root). */
export function resolveRunAs(user: string): RunAsUser {
  if (process.platform === 'win32' || typeof process.getuid !== 'function')
    throw new AxError('validation', 'run-as is for Unix nodes started as root: unset it on this machine');
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*\$?$/.test(user))
    throw new AxError('validation', `run-as: "${user}" is no user name`);
  const f = passwdEntry(user);
  if (!f)
    throw new AxError(
      'validation',
      `run-as: there is no user "${user}" on this machine: create it (useradd --system ${user}) or change run-as`,
    );
  const [name, , uid, gid, , home, shell] = f as [string, string, string, string, string, string, string];
  // A system user's login shell (nologin, false) runs no command: tasks get /bin/sh then.
  const usable = shell && !/\/(nologin|false)$/.test(shell) ? shell : '/bin/sh';
  const runAs = { name, uid: Number(uid), gid: Number(gid), home: home || '/', shell: usable };
  const me = process.getuid();
  if (me !== 0 && me !== runAs.uid)
    throw new AxError(
      'validation',
      `run-as ${name} needs the node to be started as root (it runs as uid ${me}): start it as root, or unset run-as`,
    );
  if (runAs.uid === 0) throw new AxError('validation', 'run-as root runs tasks as root: unset run-as instead');
  return runAs;
}

/**
 * The user this node's tasks run as, as cron names a job's user (HOME, LOGNAME): run-as, else the
 * node's own; undefined when the node's uid has no user entry.
 */
export function taskUserOf(runAs: RunAsUser | undefined): CronUser | undefined {
  if (runAs) return { name: runAs.name, home: runAs.home };
  try {
    const me = os.userInfo();
    return { name: me.username, home: me.homedir };
  } catch {
    return undefined;
  }
}

/** This node's task environment from its settings: --task-env / AX_TASK_ENV / settings.json, and the same for run-as. */
export function nodeTaskEnv(dataDir: string, flags: Settings = {}, env: NodeJS.ProcessEnv = process.env): TaskEnvSetup {
  const settings = new Map(effectiveSettings(dataDir, flags, env).map((s) => [s.key, s]));
  const mode = settings.get('task-env')?.value ?? 'inherit';
  if (!(TASK_ENV_MODES as readonly string[]).includes(mode)) {
    throw new AxError(
      'validation',
      `task-env must be ${TASK_ENV_MODES.join(' or ')}, not "${mode}" (from ${settings.get('task-env')?.from ?? 'the default'})`,
    );
  }
  const user = settings.get('run-as')?.value;
  const runAs = user ? resolveRunAs(user) : undefined;
  // The same user as the node's (a node not started as root): nothing to change.
  const effective = runAs && runAs.uid !== process.getuid?.() ? runAs : undefined;
  return { mode: mode as TaskEnvMode, baseEnv: taskBaseEnv(mode as TaskEnvMode, env, effective), runAs: effective };
}
