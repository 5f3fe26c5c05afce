// A crontab job's command as an AX task runs it, faithfully: under the crontab's SHELL, with the
// `%` text as its standard input, and its output redirections kept or dropped; the line that wraps
// it with `ax wrap` for a monitor; and the stable workflow name a command gives.

/** Single-quoted for a POSIX shell: the text passes through unchanged, whatever it holds. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** An output redirection at the end of a command: `>> file`, `> file`, `2>&1`, `&> file`. */
const TRAILING_REDIRECT = /\s+(?:(?:\d?>>?|&>>?)\s*([^\s;&|<>'"`()\\]+)|\d?>&\d)\s*$/;

function quotesBalanced(text: string): boolean {
  let single = false;
  let double = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === '\\' && !single) i++;
    else if (c === "'" && !double) single = !single;
    else if (c === '"' && !single) double = !double;
  }
  return !single && !double;
}

/** The command without its trailing redirections, and the files they name (in the order written). */
export function splitRedirects(command: string): { command: string; redirects: string; files: string[] } {
  let rest = command.replace(/\s+$/, '');
  const files: string[] = [];
  for (;;) {
    const m = TRAILING_REDIRECT.exec(rest);
    if (!m || !quotesBalanced(rest.slice(0, m.index))) break;
    if (m[1] !== undefined) files.unshift(m[1]);
    rest = rest.slice(0, m.index);
  }
  return { command: rest, redirects: command.slice(rest.length).trim(), files };
}

/**
 * The task's command: cron runs `SHELL -c COMMAND` with the `%` text on its standard input. Under
 * /bin/sh without input that is the command itself (AX runs it with the task env's SHELL, which is
 * /bin/sh); otherwise the shell is named, and the input written to it byte for byte.
 */
export function taskCommand(command: string, shell: string, stdin: string | undefined): string {
  if (stdin === undefined) return shell === '/bin/sh' ? command : `exec ${shellQuote(shell)} -c ${shellQuote(command)}`;
  return `printf '%s' ${shellQuote(stdin)} | ${shellQuote(shell)} -c ${shellQuote(command)}`;
}

/** Text as a crontab command part, so that cron's `%` rules give it back (undefined: they cannot). */
function cronEscape(text: string): string | undefined {
  if (/\\%/.test(text)) return undefined;
  return text.replace(/%/g, '\\%');
}

/**
 * The crontab line with its command replaced by `ax wrap NAME -- SHELL -c 'COMMAND'`: cron's `%`
 * input part is left as it was (cron feeds it to `ax wrap`, which hands its input to the command).
 */
export function wrapLine(
  text: string,
  rawCommand: string,
  command: string,
  shell: string,
  name: string,
): string | undefined {
  const start = text.lastIndexOf(rawCommand);
  const escaped = cronEscape(`ax wrap ${name} -- ${shellQuote(shell)} -c ${shellQuote(command)}`);
  if (start < 0 || escaped === undefined) return undefined;
  let cut = rawCommand.length;
  let esc = false;
  for (let i = 0; i < rawCommand.length; i++) {
    const c = rawCommand.charAt(i);
    if (esc) esc = false;
    else if (c === '\\') esc = true;
    else if (c === '%') {
      cut = i;
      break;
    }
  }
  return text.slice(0, start) + escaped + rawCommand.slice(cut);
}

/** Programs that run another command: the name comes from what they run. */
const WRAPPERS = new Set(['nice', 'ionice', 'chronic', 'nohup', 'time', 'exec', 'env', 'sudo', 'timeout', 'flock']);
/** Shell words that lead into a command: `if`, `then`, `!`. */
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!']);
/** Tests and moves before the job: `test -x … ||`, `cd / &&`, `[ -f … ] &&`. */
const PRELUDES = new Set([
  'cd',
  'test',
  '[',
  '[[',
  'command',
  'true',
  'false',
  'sleep',
  'exit',
  'export',
  'set',
  'fi',
  'done',
]);

const base = (path: string) => path.replace(/\/+$/, '').split('/').pop() ?? '';

/** Programs that run a script they are given: the name says which. */
const RUNNERS = new Set(['run-parts', 'sh', 'bash', 'dash', 'zsh', 'python', 'python3', 'perl', 'php', 'node', 'ruby']);

/** The words of one simple command after its wrappers, assignments and shell keywords. */
function commandWords(segment: string): string[] {
  const words = segment.split(/\s+/).map((w) => w.replace(/^['"]|['"]$/g, ''));
  let i = 0;
  let wrapped = false;
  let lockFile = false;
  while (i < words.length) {
    const w = words[i] as string;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w) || w.startsWith('-') || KEYWORDS.has(w)) i++;
    else if (lockFile) {
      lockFile = false; // flock's lock file
      i++;
    } else if (wrapped && /^\d+(\.\d+)?[smhd]?$/.test(w))
      i++; // an option's value: nice -n 19, timeout 1h
    else if (WRAPPERS.has(base(w))) {
      wrapped = true;
      lockFile = base(w) === 'flock';
      i++;
    } else break;
  }
  return words.slice(i);
}

/**
 * A workflow name from a command: the last command of a `&&`/`||`/`;` chain that is not a test or
 * a `cd` (the first of a pipeline), its program and, for a script runner, the script:
 * `test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }` → `run-parts-cron.daily`.
 */
export function nameFromCommand(command: string): string {
  const chain = command
    .split(/&&|\|\||;|[{}()]/)
    .map((s) => (s.split('|')[0] ?? '').trim())
    .filter((s) => s !== '');
  for (const segment of chain.reverse()) {
    const [program, ...args] = commandWords(segment);
    if (program === undefined || PRELUDES.has(program) || /^[<>&\d]/.test(program)) continue;
    const plain = args.filter((w) => !w.startsWith('-') && !/[<>]/.test(w) && base(w) !== '');
    const script = RUNNERS.has(base(program)) ? (plain.find((w) => w.includes('/')) ?? plain[0]) : undefined;
    const name = sanitize(`${base(program)}${script !== undefined ? `-${base(script)}` : ''}`);
    if (name !== '') return name;
  }
  return 'cron-job';
}

/** Lower case, letters, digits, `_ . -` only, starting with a letter or digit, at most 60 characters. */
export function sanitize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 60)
    .replace(/[-.]+$/, '');
}

/** A short stable hash of a text (FNV-1a), for a suffix that does not depend on line order. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0').slice(0, 6);
}
