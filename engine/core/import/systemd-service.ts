// A timer's service as one AX task: its command lines (ExecStartPre=, ExecStart=, ExecStartPost=)
// as one shell command, its directory, environment and user. systemd runs no shell: a command line
// is words (quotes and escapes decoded, `%` specifiers and `$VAR` / `${VAR}` substituted), so each
// word is written back quoted for the shell, `${VAR}` as "${VAR}" (one word), `$VAR` unquoted (split
// at whitespace, as systemd does; `set -f` first, for systemd does no globbing). Several commands
// run one after the other, each only if the one before succeeded (`&&`), which is what a oneshot
// service does; a `-` prefix ignores a command's failure (`{ cmd || true; }`). `+` and `!` run a
// command as root whatever User= says (`!!` only without ambient capabilities, so: as User=), `@`
// changes argv[0] (no shell does that portably: refused), `:` turns the substitution of variables off.
import type { CronUser, ImportOptions } from './import-types.ts';
import {
  lastOf,
  listOf,
  parseEnvironmentFile,
  parseTimespan,
  splitWords,
  type UnitEntry,
  type UnitFile,
} from './systemd-unit-file.ts';

/** systemd's PATH for system services (the manager's built-in default on Debian) */
export const SYSTEMD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin';

export interface ServiceTask {
  command: string;
  cwd?: string;
  env: Record<string, string>;
  /** the user the commands run as under systemd (undefined: a user unit whose person the caller did not give) */
  user?: string;
  timeoutMs?: number;
  warnings: string[];
}

/** Why a service cannot be imported: the entry that says so (if one does) and the reason. */
export interface ServiceProblem {
  entry?: UnitEntry;
  reason: string;
}

export interface ServiceContext {
  /** the service unit's file name, e.g. backup.service, foo@bar.service */
  unitName: string;
  /** a user unit (~/.config/systemd/user): runs as the person, not as root */
  userUnit: boolean;
  readFile: (path: string) => string | undefined;
  opts: ImportOptions;
}

const TYPES = ['simple', 'exec', 'oneshot', 'idle'];
/** service keys this module reads; every other one is named as not carried over */
export const SERVICE_KEYS = [
  'Type',
  'ExecStart',
  'ExecStartPre',
  'ExecStartPost',
  'WorkingDirectory',
  'Environment',
  'EnvironmentFile',
  'User',
  'TimeoutStartSec',
  'TimeoutSec',
  'RuntimeMaxSec',
];
const REFUSED: Record<string, string> = {
  ExecStop: 'runs after the command ends, even when it failed: AX has no such "finally" step',
  ExecStopPost: 'runs after the command ends, even when it failed: AX has no such "finally" step',
  ExecCondition: 'decides whether the service runs at all: AX has no such check',
  DynamicUser: 'runs the service as a user made for it: AX runs tasks as its own user',
  RootDirectory: 'runs the service in another root directory (chroot)',
  RootImage: 'runs the service in a disk image',
};

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;
const quote = (s: string): string => (s === '' ? "''" : SAFE_WORD.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);

/** `%%`, `%n`, `%N`, `%p`, `%i`, `%I` resolved; any other specifier is a problem. */
function expandSpecifiers(word: string, unitName: string): string | ServiceProblem {
  const base = unitName.replace(/\.[^.]+$/, '');
  const at = base.indexOf('@');
  const values: Record<string, string> = {
    '%': '%',
    n: unitName,
    N: base,
    p: at >= 0 ? base.slice(0, at) : base,
    i: at >= 0 ? base.slice(at + 1) : '',
    I: at >= 0 ? base.slice(at + 1) : '',
  };
  let out = '';
  for (let i = 0; i < word.length; i++) {
    const c = word[i] as string;
    if (c !== '%') {
      out += c;
      continue;
    }
    const s = word[i + 1] ?? '';
    const v = values[s];
    if (v === undefined)
      return { reason: `the specifier "%${s}" is not expanded by the importer: write its value instead` };
    out += v;
    i++;
  }
  return out;
}

/** One word for the shell: literal text single-quoted, `${VAR}` double-quoted, `$VAR` alone unquoted. */
function shellWord(word: string, substitute: boolean): { text: string; split: boolean } {
  if (!substitute || !word.includes('$')) return { text: quote(word), split: false };
  if (/^\$[A-Za-z_][A-Za-z0-9_]*$/.test(word)) return { text: word, split: true };
  let text = '';
  let literal = '';
  for (let i = 0; i < word.length; i++) {
    const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(word.slice(i));
    if (word.startsWith('$$', i)) {
      literal += '$';
      i++;
    } else if (m) {
      if (literal) text += quote(literal);
      literal = '';
      text += `"\${${m[1]}}"`;
      i += m[0].length - 1;
    } else literal += word[i];
  }
  if (literal) text += quote(literal);
  return { text, split: false };
}

interface Command {
  text: string;
  ignoreFailure: boolean;
  root: boolean;
  split: boolean;
}

function readCommand(e: UnitEntry, unitName: string): Command | ServiceProblem {
  let value = e.value;
  const flags = new Set<string>();
  for (;;) {
    if (value.startsWith('!!')) {
      // root only where the kernel lacks ambient capabilities, which no kernel AX runs on does
      flags.add('!!');
      value = value.slice(2);
    } else if (/^[-@:+!|]/.test(value)) {
      flags.add(value[0] as string);
      value = value.slice(1);
    } else break;
  }
  if (flags.has('@'))
    return { entry: e, reason: 'the "@" prefix passes its own argv[0], which a shell command cannot' };
  if (flags.has('|')) return { entry: e, reason: 'the "|" prefix runs the command through the user\'s login shell' };
  const words = splitWords(value);
  if (typeof words === 'string') return { entry: e, reason: `the command line cannot be read: ${words}` };
  if (words.length === 0) return { entry: e, reason: 'the command line is empty' };
  if (words.includes(';'))
    return {
      entry: e,
      reason: 'a lone ";" separates commands in old systemd versions: write one ExecStart= per command',
    };
  const parts: string[] = [];
  let split = false;
  for (const w of words) {
    const expanded = expandSpecifiers(w, unitName);
    if (typeof expanded !== 'string') return { ...expanded, entry: e };
    const s = shellWord(expanded, !flags.has(':'));
    split ||= s.split;
    parts.push(s.text);
  }
  return { text: parts.join(' '), ignoreFailure: flags.has('-'), root: flags.has('+') || flags.has('!'), split };
}

function readEnvironment(
  service: UnitFile,
  ctx: ServiceContext,
  env: Record<string, string>,
  warnings: string[],
): ServiceProblem | undefined {
  for (const e of listOf(service, 'Service', 'Environment')) {
    const words = splitWords(e.value);
    if (typeof words === 'string') return { entry: e, reason: `Environment= cannot be read: ${words}` };
    for (const w of words) {
      const eq = w.indexOf('=');
      if (eq <= 0) return { entry: e, reason: `"${w}" is not an assignment: write NAME=value` };
      const value = expandSpecifiers(w.slice(eq + 1), ctx.unitName);
      if (typeof value !== 'string') return { ...value, entry: e };
      env[w.slice(0, eq)] = value;
    }
  }
  // Files are read after Environment= and override it, as systemd does.
  for (const e of listOf(service, 'Service', 'EnvironmentFile')) {
    const optional = e.value.startsWith('-');
    const path = optional ? e.value.slice(1) : e.value;
    const text = ctx.readFile(path);
    if (text === undefined) {
      if (optional) {
        warnings.push(
          `EnvironmentFile=${e.value}: ${path} does not exist or cannot be read; systemd goes on without it, and so does this import`,
        );
        continue;
      }
      return {
        entry: e,
        reason: `EnvironmentFile=${path} does not exist or cannot be read (without "-" systemd does not start the service)`,
      };
    }
    const read = parseEnvironmentFile(text);
    if (read.bad.length > 0) return { entry: e, reason: `${path}: line ${read.bad.join(', ')} is not NAME=value` };
    for (const [k, v] of read.env) env[k] = v;
    warnings.push(
      `the values of ${path} as they are now are written into the workflow: a later change of the file does not reach it`,
    );
  }
  return undefined;
}

/** The service as one task, or why it cannot be imported. */
export function readService(service: UnitFile, ctx: ServiceContext): ServiceTask | ServiceProblem {
  for (const e of service.entries) {
    const why = e.section === 'Service' ? REFUSED[e.key] : undefined;
    if (why && !(e.key === 'DynamicUser' && !/^(yes|true|on|1)$/i.test(e.value)))
      return { entry: e, reason: `${e.key}= ${why}` };
  }
  const typeEntry = lastOf(service, 'Service', 'Type');
  const type = typeEntry?.value ?? 'simple';
  if (!TYPES.includes(type))
    return {
      entry: typeEntry,
      reason: `Type=${type}: only ${TYPES.join(', ')} services are a command that runs to its end`,
    };
  const starts = listOf(service, 'Service', 'ExecStart');
  if (starts.length === 0) return { reason: `${ctx.unitName} has no ExecStart=: there is nothing to run` };
  if (type !== 'oneshot' && starts.length > 1)
    return { entry: starts[1], reason: `Type=${type} takes one ExecStart= (only oneshot takes several)` };
  const posts = listOf(service, 'Service', 'ExecStartPost');
  if (type !== 'oneshot' && posts.length > 0)
    return {
      entry: posts[0],
      reason: `ExecStartPost= of a Type=${type} service runs once the command has started, not once it ended`,
    };
  const commands: Command[] = [];
  for (const e of [...listOf(service, 'Service', 'ExecStartPre'), ...starts, ...posts]) {
    const c = readCommand(e, ctx.unitName);
    if ('reason' in c) return c;
    commands.push(c);
  }
  const warnings: string[] = [];
  const userEntry = lastOf(service, 'Service', 'User');
  const runsAs = ctx.userUnit ? (ctx.opts.user?.name ?? '') : userEntry ? userEntry.value : 'root';
  const users = new Set([runsAs, ...(commands.some((c) => c.root) ? ['root'] : [])]);
  const taskUser = ctx.opts.taskUser;
  for (const u of users) {
    if (taskUser !== undefined && u !== '' && u !== taskUser)
      return {
        entry: u === runsAs ? userEntry : undefined,
        reason: `it runs as ${u} under systemd${u === 'root' && runsAs !== 'root' ? ' (a "+" or "!" command)' : ''}, and AX's tasks here run as ${taskUser}: import it where tasks run as ${u}`,
      };
  }
  const person: CronUser | undefined = ctx.userUnit
    ? ctx.opts.user
    : userEntry
      ? ctx.opts.lookupUser?.(userEntry.value)
      : undefined;
  if (userEntry && !ctx.userUnit && !person)
    return { entry: userEntry, reason: `there is no user ${userEntry.value} on this machine` };
  const env: Record<string, string> = { PATH: SYSTEMD_PATH };
  if (person) Object.assign(env, { HOME: person.home, USER: person.name, LOGNAME: person.name });
  const problem = readEnvironment(service, ctx, env, warnings);
  if (problem) return problem;
  const split = commands.some((c) => c.split);
  const joined = commands
    .map((c) => (c.ignoreFailure ? (commands.length === 1 ? `${c.text} || true` : `{ ${c.text} || true; }`) : c.text))
    .join(' && ');
  const task: ServiceTask = {
    command: split ? `set -f; ${joined}` : joined,
    env,
    ...(runsAs !== '' && { user: runsAs }),
    warnings,
  };
  if (commands.some((c) => c.ignoreFailure))
    warnings.push('a "-" command\'s failure is ignored, as systemd ignores it');
  if (commands.some((c) => c.root) && runsAs !== 'root')
    warnings.push(`a "+" or "!" command runs as root under systemd; AX runs it as the task's user, with the others`);
  const dirEntry = lastOf(service, 'Service', 'WorkingDirectory');
  if (dirEntry) {
    let dir = dirEntry.value.startsWith('-') ? dirEntry.value.slice(1) : dirEntry.value;
    if (dirEntry.value.startsWith('-'))
      warnings.push(`WorkingDirectory=${dirEntry.value}: systemd goes on when ${dir} is missing, AX's task fails`);
    if (dir === '~' || dir.startsWith('~/')) {
      if (!person)
        return { entry: dirEntry, reason: "WorkingDirectory=~ needs the user's home, and the unit names no user" };
      dir = person.home + dir.slice(1);
    }
    const expanded = expandSpecifiers(dir, ctx.unitName);
    if (typeof expanded !== 'string') return { ...expanded, entry: dirEntry };
    if (!expanded.startsWith('/'))
      return { entry: dirEntry, reason: `WorkingDirectory=${dir} is not an absolute path` };
    task.cwd = expanded;
  }
  const timeoutEntry =
    type === 'oneshot'
      ? (lastOf(service, 'Service', 'TimeoutStartSec') ?? lastOf(service, 'Service', 'TimeoutSec'))
      : lastOf(service, 'Service', 'RuntimeMaxSec');
  if (timeoutEntry) {
    const ms = parseTimespan(timeoutEntry.value);
    if (ms === undefined)
      return { entry: timeoutEntry, reason: `${timeoutEntry.key}=${timeoutEntry.value} is not a time span` };
    if (Number.isFinite(ms) && ms > 0) task.timeoutMs = Math.ceil(ms / 1000) * 1000;
  }
  return task;
}
