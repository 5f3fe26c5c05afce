// A crontab's lines as Vixie cron (Debian's `cron`, cronie) reads them, crontab(5): comments and
// blank lines; environment assignments, in effect from their line on; jobs of five time fields (or
// an @ nickname), a user column in the system crontab (/etc/crontab, /etc/cron.d/*), and the
// command. What cron's own parser accepts beyond its man page is accepted here too (names in ranges
// and lists, steps after a range of names); what it refuses is an error that says what to fix.

/** A job's time fields as cron's bit sets, and the flags cron keeps about how they were written. */
export interface CronSets {
  minutes: readonly number[];
  hours: readonly number[];
  /** 1-31 */
  doms: readonly number[];
  /** 1-12 */
  months: readonly number[];
  /** 0-6, Sunday 0 (a 7 is folded into 0, as cron does) */
  dows: readonly number[];
  /** the field starts with `*` (cron's MIN_STAR, HR_STAR, DOM_STAR, DOW_STAR) */
  minStar: boolean;
  hourStar: boolean;
  domStar: boolean;
  dowStar: boolean;
}

export const NICKNAMES = ['@reboot', '@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/** What a nickname stands for (cron sets the same bits and star flags as for these fields). */
const NICKNAME_FIELDS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

export type CrontabLine =
  | { kind: 'blank'; line: number; text: string }
  | { kind: 'comment'; line: number; text: string }
  | { kind: 'env'; line: number; text: string; name: string; value: string }
  | {
      kind: 'job';
      line: number;
      text: string;
      /** `@daily` etc. as written; `@reboot` has no sets */
      nickname?: string;
      /** the five time fields as written (a nickname's expansion) */
      fields?: string[];
      sets?: CronSets;
      /** the system crontab's user column */
      user?: string;
      /** the rest of the line, as cron hands it to do_command (before the % rules) */
      command: string;
    }
  | { kind: 'error'; line: number; text: string; reason: string };

interface FieldRule {
  name: string;
  low: number;
  high: number;
  names?: readonly string[];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

export const FIELD_RULES: readonly FieldRule[] = [
  { name: 'minute', low: 0, high: 59 },
  { name: 'hour', low: 0, high: 23 },
  { name: 'day-of-month', low: 1, high: 31 },
  { name: 'month', low: 1, high: 12, names: MONTHS },
  { name: 'day-of-week', low: 0, high: 7, names: DAYS },
];

const allowed = (rule: FieldRule): string =>
  `${rule.low}-${rule.high}${rule.names ? ` or ${rule.names[0]}-${rule.names[rule.names.length - 1]}` : ''}`;

/** One number or name of a field (cron's get_number): digits, or a three-letter name, any case. */
function number(text: string, rule: FieldRule, field: string): number | string {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n < rule.low || n > rule.high)
      return `${rule.name} field "${field}": ${text} is out of range: use ${allowed(rule)}`;
    return n;
  }
  const index = rule.names?.indexOf(text.toLowerCase()) ?? -1;
  if (index >= 0) return index + (rule.names === MONTHS ? 1 : 0);
  return rule.names
    ? `${rule.name} field "${field}": "${text}" is neither a number nor a name: use ${allowed(rule)} (three-letter names)`
    : `${rule.name} field "${field}": "${text}" is not a number: use ${allowed(rule)}`;
}

/** A field's set (cron's get_list / get_range), or a message saying what is wrong. */
export function parseField(field: string, rule: FieldRule): number[] | string {
  const set = new Set<number>();
  for (const item of field.split(',')) {
    const m = /^([^-/]+)(?:-([^-/]+))?(?:\/(.*))?$/.exec(item);
    if (!m) return `${rule.name} field "${field}": "${item}" is not a value, a range (1-5) or a step (*/5, 1-9/2)`;
    const [, first = '', last, stepText] = m;
    let from: number;
    let to: number;
    if (first === '*') {
      if (last !== undefined)
        return `${rule.name} field "${field}": "*" cannot start a range: write * or a range such as 1-5`;
      [from, to] = [rule.low, rule.high];
    } else {
      const a = number(first, rule, field);
      if (typeof a === 'string') return a;
      from = a;
      to = a;
      if (last !== undefined) {
        const b = number(last, rule, field);
        if (typeof b === 'string') return b;
        to = b;
        // cron takes it and sets no bit: the line would never run.
        if (to < from)
          return `${rule.name} field "${field}": the range ${first}-${last} runs backwards (cron would never run the line): write the smaller value first`;
      } else if (stepText !== undefined) {
        return `${rule.name} field "${field}": a step needs a range or * before it (cron refuses "${item}"): write ${first}-${rule.high}/${stepText}`;
      }
    }
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText)) return `${rule.name} field "${field}": the step "${stepText}" is not a number`;
      step = Number(stepText);
      if (step === 0) return `${rule.name} field "${field}": a step must be 1 or more (*/0 never advances), e.g. */5`;
    }
    for (let v = from; v <= to; v += step) set.add(v);
  }
  return [...set].sort((a, b) => a - b);
}

/** The five fields' sets and star flags, or a message. */
export function parseSchedule(fields: readonly string[]): CronSets | string {
  const sets: number[][] = [];
  for (let i = 0; i < 5; i++) {
    const rule = FIELD_RULES[i] as FieldRule;
    const set = parseField(fields[i] as string, rule);
    if (typeof set === 'string') return set;
    sets.push(set);
  }
  const [minutes = [], hours = [], doms = [], months = [], dowRaw = []] = sets;
  // 0 and 7 are both Sunday (cron sets both bits; one set here).
  const dows = [...new Set(dowRaw.map((d) => d % 7))].sort((a, b) => a - b);
  const star = (i: number) => (fields[i] as string).startsWith('*');
  return {
    minutes,
    hours,
    doms,
    months,
    dows,
    minStar: star(0),
    hourStar: star(1),
    domStar: star(2),
    dowStar: star(4),
  };
}

// cron's load_env: NAME = VALUE, either side may be quoted (single or double, matching); spaces
// around "=" are dropped, later spaces in an unquoted value kept, trailing ones trimmed; anything
// after a closing quote makes it no assignment (and so, most likely, a bad job line).
function assignment(text: string): { name: string; value: string } | undefined {
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
  };
  const readPart = (stopAtName: boolean): { value: string; closed: boolean } | undefined => {
    const quote = text.charAt(i) === '"' || text.charAt(i) === "'" ? text.charAt(i) : '';
    if (quote) i++;
    let out = '';
    while (i < text.length) {
      const c = text.charAt(i);
      if (quote && c === quote) {
        i++;
        return { value: out, closed: true };
      }
      if (!quote && stopAtName && (c === '=' || /\s/.test(c))) break;
      out += c;
      i++;
    }
    return quote ? undefined : { value: out, closed: false };
  };
  skipSpace();
  const name = readPart(true);
  if (!name || name.value === '') return undefined;
  skipSpace();
  if (text.charAt(i) !== '=') return undefined;
  i++;
  skipSpace();
  if (i >= text.length) return { name: name.value, value: '' };
  const value = readPart(false);
  if (!value) return undefined;
  if (value.closed) {
    skipSpace();
    if (i < text.length) return undefined;
    return { name: name.value, value: value.value };
  }
  return { name: name.value, value: value.value.replace(/\s+$/, '') };
}

/** The next blank-separated word (spaces or tabs) from `at`, and where the blanks after it end. */
function word(text: string, at: number): { word: string; next: number } {
  let end = at;
  while (end < text.length && text.charAt(end) !== ' ' && text.charAt(end) !== '\t') end++;
  let next = end;
  while (next < text.length && (text.charAt(next) === ' ' || text.charAt(next) === '\t')) next++;
  return { word: text.slice(at, end), next };
}

function jobLine(text: string, line: number, system: boolean): CrontabLine {
  const error = (reason: string): CrontabLine => ({ kind: 'error', line, text, reason });
  let at = text.length - text.replace(/^[ \t]+/, '').length;
  let fields: string[];
  let nickname: string | undefined;
  if (text.charAt(at) === '@') {
    const w = word(text, at);
    if (!NICKNAMES.includes(w.word))
      return error(
        `"${w.word}" is no cron nickname: use one of ${NICKNAMES.join(' ')} (lower case), or five time fields`,
      );
    nickname = w.word;
    at = w.next;
    fields = nickname === '@reboot' ? [] : (NICKNAME_FIELDS[nickname] as string).split(' ');
  } else {
    fields = [];
    for (let i = 0; i < 5; i++) {
      const w = word(text, at);
      if (w.word === '')
        return error(
          `a job line needs five time fields (minute hour day-of-month month day-of-week) and a command: this one has ${i} field${i === 1 ? '' : 's'}${i === 0 ? '' : ' and then ends'}`,
        );
      fields.push(w.word);
      at = w.next;
    }
  }
  const sets = nickname === '@reboot' ? undefined : parseSchedule(fields);
  if (typeof sets === 'string') return error(`cron refuses this line: ${sets}`);
  let user: string | undefined;
  if (system) {
    const w = word(text, at);
    if (w.word === '') return error('a system crontab line needs a user name after the time fields, then the command');
    user = w.word;
    at = w.next;
  }
  const command = text.slice(at);
  if (command.trim() === '') return error('the line has no command after its time fields');
  return {
    kind: 'job',
    line,
    text,
    ...(nickname !== undefined && { nickname }),
    ...(nickname !== '@reboot' && { fields }),
    ...(sets !== undefined && { sets }),
    ...(user !== undefined && { user }),
    command,
  };
}

/** Every line of a crontab, in order; `system`: the format with a user column. */
export function parseCrontab(text: string, system: boolean): CrontabLine[] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((raw, index): CrontabLine => {
    const line = index + 1;
    const trimmed = raw.replace(/^[ \t]+/, '');
    if (trimmed.trim() === '') return { kind: 'blank', line, text: raw };
    if (trimmed.startsWith('#')) return { kind: 'comment', line, text: raw };
    const env = assignment(raw);
    if (env) return { kind: 'env', line, text: raw, ...env };
    return jobLine(raw, line, system);
  });
}

/**
 * A command as cron runs it (do_command): up to the first unescaped `%` is the shell command (a
 * `\%` in it becomes `%`); after it, the job's standard input, where each unescaped `%` is a
 * newline and `\%` a `%` (cron adds no newline at the end).
 */
export function splitCommand(raw: string): { command: string; stdin?: string } {
  let command = '';
  let escaped = false;
  let i = 0;
  for (; i < raw.length; i++) {
    const c = raw.charAt(i);
    if (escaped) {
      if (c === '%') command = command.slice(0, -1);
      command += c;
      escaped = false;
      continue;
    }
    if (c === '%') break;
    if (c === '\\') escaped = true;
    command += c;
  }
  if (i >= raw.length) return { command };
  let stdin = '';
  escaped = false;
  for (const c of raw.slice(i + 1)) {
    let ch = c;
    if (escaped) {
      if (ch !== '%') stdin += '\\';
    } else if (ch === '%') ch = '\n';
    escaped = ch === '\\';
    if (!escaped) stdin += ch;
  }
  if (escaped) stdin += '\\';
  return { command, stdin };
}
